//! Running the pass a second time changes nothing.

mod common;

use common::{have_clang, host_ir, input, ir_text, parse, scratch, verify, Opt};
use inkwell::context::Context;
use ompadapt_pass::{run_on_module, transform_module};

#[test]
fn second_run_is_a_no_op() {
    if !have_clang("second_run_is_a_no_op") {
        return;
    }
    let dir = scratch("second_run_is_a_no_op");
    for opt in [Opt::O0, Opt::O2] {
        for name in ["vecadd.c", "multi_site.c", "if_clause.c", "bool_marker.c", "cleanup.cpp", "no_launch.c"] {
            let ll = host_ir(&input(name), opt, &[], &dir);
            let context = Context::create();
            let module = parse(&context, &ll);
            let _ = transform_module(&module);
            verify(&module, name);
            let once = ir_text(&module);
            let second = transform_module(&module);
            assert!(!second.changed, "{name} at {opt:?}: second run changed the module");
            assert!(second.rewritten.is_empty());
            assert_eq!(once, ir_text(&module), "{name} at {opt:?}: IR differs after a second run");
            // And through the public entry point.
            assert!(!run_on_module(&module, None));
            assert_eq!(once, ir_text(&module));
        }
    }
}

/// The transformed IR, printed and parsed again, is also left alone.
#[test]
fn reparsed_output_is_left_alone() {
    if !have_clang("reparsed_output_is_left_alone") {
        return;
    }
    let dir = scratch("reparsed_output_is_left_alone");
    let ll = host_ir(&input("multi_site.c"), Opt::O2, &[], &dir);
    let context = Context::create();
    let module = parse(&context, &ll);
    assert!(run_on_module(&module, None));
    let out = dir.join("multi_site.out.ll");
    std::fs::write(&out, ir_text(&module)).unwrap();
    let context2 = Context::create();
    let again = parse(&context2, &out);
    let text = ir_text(&again);
    assert!(!run_on_module(&again, None));
    assert_eq!(text, ir_text(&again));
}
