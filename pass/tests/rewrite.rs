//! The rewrite on real clang-19 host IR: FileCheck against the CHECK lines in each input, plus
//! structural checks through inkwell.

mod common;

use common::{file_check, have_clang, host_ir, input, ir_text, parse, scratch, verify, Opt};
use inkwell::context::Context;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue, PhiValue};
use ompadapt_pass::{recorded_regions, transform_module, DISPATCH_METADATA, LAUNCH_MARKER};

/// Inputs whose CHECK lines describe the transformed IR, with the number of sites rewritten.
const INPUTS: &[(&str, usize)] = &[
    ("vecadd.c", 1),
    ("multi_site.c", 3),
    ("if_clause.c", 1),
    ("bool_marker.c", 1),
    ("cleanup.cpp", 1),
    ("no_launch.c", 0),
    ("odd_markers.c", 1),
];

fn filecheck_all(opt: Opt) {
    let test = format!("filecheck_{}", opt.tag());
    if !have_clang(&test) {
        return;
    }
    let dir = scratch(&test);
    for &(name, sites) in INPUTS {
        let ll = host_ir(&input(name), opt, &[], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        let outcome = transform_module(&module);
        verify(&module, name);
        assert_eq!(outcome.rewritten.len(), sites, "{name} at {opt:?}: {outcome:?}");
        assert_eq!(outcome.changed, sites > 0, "{name}");
        let checks = std::fs::read_to_string(input(name)).unwrap();
        file_check(&ir_text(&module), &checks, "CHECK", &dir, &format!("{name}.{}", opt.tag()));
    }
}

#[test]
fn filecheck_inputs_at_o0() {
    filecheck_all(Opt::O0);
}

#[test]
fn filecheck_inputs_at_o2_before_llvm_passes() {
    filecheck_all(Opt::O2);
}

fn block_named<'ctx>(f: inkwell::values::FunctionValue<'ctx>, name: &str) -> inkwell::basic_block::BasicBlock<'ctx> {
    f.get_basic_blocks().into_iter().find(|b| b.get_name().to_bytes() == name.as_bytes()).unwrap_or_else(|| panic!("no block {name}"))
}

fn is_call_named(inst: InstructionValue<'_>, name: &str) -> bool {
    inst.get_opcode() == InstructionOpcode::Call
        && inst
            .get_operand(inst.get_num_operands() - 1)
            .and_then(|op| op.value())
            .is_some_and(|callee| callee.get_name().to_bytes() == name.as_bytes())
}

/// The dispatch seen through the API: blocks, branch, phi, metadata, marker gone.
fn check_vecadd_structure(opt: Opt) {
    let test = format!("structure_{}", opt.tag());
    if !have_clang(&test) {
        return;
    }
    let dir = scratch(&test);
    let ll = host_ir(&input("vecadd.c"), opt, &[], &dir);
    let context = Context::create();
    let module = parse(&context, &ll);
    let before_marker_calls = ir_text(&module).matches(&format!("call void @{LAUNCH_MARKER}(")).count();
    assert_eq!(before_marker_calls, 1);

    let outcome = transform_module(&module);
    verify(&module, "vecadd");
    assert!(outcome.changed);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let remarks: Vec<String> = outcome.remarks.iter().map(|r| r.text()).collect();
    assert_eq!(remarks, ["[OMPADAPT100] region 'vecadd': the offload launch became a dispatch between the host version and the offload"]);
    assert_eq!(outcome.rewritten.len(), 1);
    assert_eq!(outcome.rewritten[0].function, "vecadd");
    assert!(module.get_function(LAUNCH_MARKER).is_none(), "the unused marker function is deleted");

    let f = module.get_function("vecadd").unwrap();
    let dispatch = block_named(f, "ompadapt.dispatch");
    let host = block_named(f, "ompadapt.host");
    let offload = block_named(f, "ompadapt.offload");
    let join = block_named(f, "ompadapt.join");

    // dispatch: br i1 %use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch
    let br = dispatch.get_terminator().unwrap();
    assert_eq!(br.get_opcode(), InstructionOpcode::Br);
    assert!(br.is_conditional().unwrap());
    assert_eq!(br.get_operand(2).unwrap().block(), Some(host), "true -> host");
    assert_eq!(br.get_operand(1).unwrap().block(), Some(offload), "false -> offload");
    let kind = context.get_kind_id(DISPATCH_METADATA);
    let md = br.get_metadata(kind).expect("!ompadapt.dispatch on the branch");
    let model = md.get_node_values().unwrap()[0].into_metadata_value();
    assert_eq!(model.get_string_value(), Some(&b"vecadd"[..]));

    // offload: the launch, then br join; host: br join.
    let launch = offload.get_first_instruction().unwrap();
    assert!(is_call_named(launch, "__tgt_target_kernel"));
    assert_eq!(offload.get_terminator().unwrap().get_operand(0).unwrap().block(), Some(join));
    assert_eq!(host.get_first_instruction(), host.get_terminator());
    assert_eq!(host.get_terminator().unwrap().get_operand(0).unwrap().block(), Some(join));

    // join: phi [launch, offload], [-1, host], used by the failure test.
    let phi = PhiValue::try_from(join.get_first_instruction().unwrap()).unwrap();
    assert_eq!(phi.count_incoming(), 2);
    let incoming: Vec<_> = phi.get_incomings().collect();
    assert!(incoming.contains(&(launch_value(launch), offload)));
    let (host_value, from) = incoming.iter().find(|(_, bb)| *bb == host).unwrap();
    assert_eq!(*from, host);
    assert_eq!(host_value.into_int_value().get_sign_extended_constant(), Some(-1));
    let cmp = phi.as_instruction().get_next_instruction().unwrap();
    assert_eq!(cmp.get_opcode(), InstructionOpcode::ICmp);
    assert_eq!(cmp.get_operand(0).unwrap().value().unwrap().as_value_ref(), phi.as_basic_value().as_value_ref());

    // The only use of the launch is the phi.
    let first_use = launch.get_first_use().unwrap();
    assert!(first_use.get_next_use().is_none());

    let regions = recorded_regions(&module);
    assert_eq!(regions.len(), 1);
    assert_eq!(regions[0].model, "vecadd");
    assert!(regions[0].region_id.starts_with(".__omp_offloading_") && regions[0].region_id.ends_with(".region_id"));
    assert_eq!(
        format!(".{}.region_id", regions[0].host_fallback),
        regions[0].region_id,
        "the host fallback is the outlined function of the region id"
    );
    assert!(module.get_function(&regions[0].host_fallback).is_some());
}

fn launch_value(launch: InstructionValue<'_>) -> inkwell::values::BasicValueEnum<'_> {
    inkwell::values::IntValue::try_from(launch).unwrap().into()
}

#[test]
fn vecadd_structure_at_o0() {
    check_vecadd_structure(Opt::O0);
}

#[test]
fn vecadd_structure_at_o2_before_llvm_passes() {
    check_vecadd_structure(Opt::O2);
}

/// With debug info the result verifies and the new branch carries the launch's location.
#[test]
fn debug_info_is_kept() {
    if !have_clang("debug_info_is_kept") {
        return;
    }
    let dir = scratch("debug_info_is_kept");
    for opt in [Opt::O0, Opt::O2] {
        for name in ["vecadd.c", "cleanup.cpp"] {
            let ll = host_ir(&input(name), opt, &["-g"], &dir);
            let context = Context::create();
            let module = parse(&context, &ll);
            let outcome = transform_module(&module);
            assert_eq!(outcome.rewritten.len(), 1, "{name}");
            verify(&module, name);
            let f = module.get_function(&outcome.rewritten[0].function).unwrap();
            let br = block_named(f, "ompadapt.dispatch").get_terminator().unwrap();
            assert!(br.get_debug_location().is_some(), "{name} at {opt:?}: dispatch branch has a !dbg");
        }
    }
}
