//! Pass-only mode for offload launches: each `__tgt_target_kernel` of a module the frontend did
//! not compile, with a host fallback, becomes an adaptive region with the target kinds of
//! [`crate::auto_mode`] (`cpu`, `gpu`, `thread_limit[...]`, `num_teams[...]`).
//!
//! The pass writes, around the launch, what the frontend's zero-source-change lowering writes
//! around a target construct — the markers — and the stages after it do the rest, as for the
//! frontend's regions:
//!
//! ```text
//!   ctx.variant = <gpu>                                   ; the offload as written until decided
//!   n = __ompadapt_auto_features(feats, 16, &spec, model, "")  ; trip counts, bytes_mapped
//!   __ompadapt_v6_begin(&slot, spec, -1, -1, -1, feats, n, &ctx)
//!   __ompadapt_host_guard(&ctx, <cpu>, <gpu>, model)      ; with a cpu variant: the copies
//!   __ompadapt_launch_site(v == <cpu>, num_teams[v], thread_limit[v], model)
//!   <the launch, and its host fallback when it fails>     ; becomes the dispatch
//!   __ompadapt_v6_end(&ctx)                               ; where both paths meet again
//! ```
//!
//! The host guard calls `__ompadapt_host_enter` / `__ompadapt_host_exit`, which the frontend's
//! header defines; here the pass defines them (internal, calling the runtime's table through the
//! precompiled `__ompadapt_v6_api`). A deferred launch (`nowait`, `depend`: in a task) and one
//! whose two paths do not meet right after the fallback stay as written, with a remark.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::{HashMap, HashSet};
use std::ffi::CString;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMOpcode;
use ompadapt_abi::kinds::Kind;
use ompadapt_abi::markers::{HOST_ENTER, HOST_EXIT, HOST_GUARD, LAUNCH_SITE};

use crate::host_regions as host;
use crate::ir::{self, ValueRef};
use crate::omp_calls::TGT_TARGET_KERNEL;
use crate::region_code::{decls, fn_type, function};
use crate::region_code::{i32s, Region};
use crate::remarks::{Remark, RemarkId, RemarkPlace};

/// What pass-only mode did to a module's offload launches.
#[derive(Debug, Default)]
pub struct OffloadOutcome {
    pub changed: bool,
    pub remarks: Vec<Remark>,
    /// The regions made adaptive.
    pub adaptive: Vec<String>,
}

/// Makes every eligible launch of `module` adaptive with `kinds` (target kinds, `gpu` among them).
pub fn make_adaptive(module: &Module<'_>, kinds: &[Kind], explicit: &HashSet<ValueRef>) -> OffloadOutcome {
    let mut out = OffloadOutcome::default();
    if kinds.is_empty() {
        return out;
    }
    let m = module.as_mut_ptr();
    let offload_code = host::offload_host_code(module);
    let specialised = device_specialised(module);
    let entries = crate::device_globals::declare_target_variables(module);
    let launches: Vec<ValueRef> = module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| {
            ir::opcode(*i) == Some(LLVMOpcode::LLVMCall)
                && ir::callee_name(*i) == TGT_TARGET_KERNEL
                && !host::is_adaptive(*i)
                && !explicit.contains(i)
        })
        .filter(|i| !offload_code.contains(&ir::function_of(*i)))
        .collect();
    let mut names: HashMap<String, u32> = HashMap::default();
    let in_tasks = task_code(module);
    let tool = crate::loader::defines_ompt_tool(module);
    for launch in launches {
        let model = name_of(launch, &mut names);
        let place = RemarkPlace::of(launch);
        if tool {
            out.remarks.push(place.remark(
                RemarkId::ObservedByTool,
                &model,
                "left as written: the program is an OMPT tool (it defines ompt_start_tool in this module): a tool is told of every target launch, where it runs and its league",
            ));
            continue;
        }
        if in_tasks.contains(&ir::function_of(launch)) {
            out.remarks.push(place.remark(
                RemarkId::LaunchNotAdapted,
                &model,
                "left as written: a deferred launch (nowait or depend: it runs in a task), which the variants cannot time from launch to completion",
            ));
            continue;
        }
        let Some(kinds) = fitting_kinds(launch, kinds, &specialised, &entries, &place, &model, &mut out.remarks) else { continue };
        let kinds = &kinds[..];
        let Some(join) = join_block(launch) else {
            out.remarks.push(place.remark(
                RemarkId::LaunchNotAdapted,
                &model,
                "left as written: the launch's result does not choose between the offload and its host fallback as clang and flang emit it",
            ));
            continue;
        };
        build_region(m, launch, join, &model, kinds);
        ir::invalidate();
        let listed: Vec<String> = kinds.iter().map(Kind::name).collect();
        out.remarks.push(place.remark(
            RemarkId::OffloadRegionAdaptive,
            &model,
            format!("the offload launch became an adaptive region with variants {}", listed.join(", ")),
        ));
        out.adaptive.push(model);
        out.changed = true;
    }
    if out.changed {
        define_host_run_functions(m);
        host::define_default_runtime(m);
    }
    out
}

/// The kinds whose variants the launch's kernel cannot tell from the offload as written, with a
/// remark for those dropped; None (and the remark) when fewer than two are left.
fn fitting_kinds(
    launch: ValueRef,
    kinds: &[Kind],
    specialised: &HashSet<ValueRef>,
    entries: &HashMap<ValueRef, u64>,
    place: &RemarkPlace,
    model: &str,
    remarks: &mut Vec<Remark>,
) -> Option<Vec<Kind>> {
    let Some(seen) = observed(launch, specialised, entries) else { return Some(kinds.to_vec()) };
    let kept: Vec<Kind> = kinds.iter().copied().filter(|k| !seen.changes(k)).collect();
    let dropped: Vec<String> = kinds.iter().filter(|k| seen.changes(k)).map(Kind::name).collect();
    let why = seen.describe();
    if kept.len() < 2 {
        remarks.push(place.remark(
            RemarkId::LaunchNotAdapted,
            model,
            format!("left as written: {why}, which its variants would answer differently"),
        ));
        return None;
    }
    remarks.push(place.remark(
        RemarkId::LaunchKindsDropped,
        model,
        format!("variants {} dropped: {why}, which they would answer differently", dropped.join(", ")),
    ));
    Some(kept)
}

/// What a kernel can observe of where and how it runs, found in its host version (the same
/// source as its device version) or everything that calls.
enum Observed {
    /// It asks where it runs (`omp_is_initial_device`, `omp_get_device_num`): the `cpu`
    /// variant answers otherwise.
    Where(String),
    /// It asks for the shape of its league or team (team number, number of teams or threads,
    /// thread limit): `cpu`, `thread_limit` and `num_teams` change it.
    Shape(String),
    /// It calls code the compiler cannot see, which may ask either.
    Opaque(String),
    /// Its code, or code it calls, comes after a device-selector `declare variant` or
    /// `metadirective` (the frontend's annotation): the device may run other code for it.
    DeviceSpecialised(String),
    /// It looks at addresses: an integer turned into a pointer (a host address carried in and
    /// compared with a mapped pointer), an address handed out as a number, or an address stored
    /// where the program reads it after the launch ([`crate::stored_addresses`]): the host
    /// version sees host addresses where the offload sees device ones.
    Addresses,
    /// It is given device memory (`is_device_ptr`, `has_device_addr`: a pointer passed as a
    /// literal): the host version would read a device address on the host.
    DeviceMemory,
    /// It uses a variable with static storage of which the device keeps a copy the runtime
    /// cannot swap in ([`crate::device_globals::unnamed_device_copy`]): the host version would
    /// use the host's copy.
    DeviceCopy(String),
    /// Its result depends on how the iterations are divided among teams and threads: a
    /// reduction's private copy updated other than through the reduction's operator, or its
    /// partial value read (`cpu`, `thread_limit` and `num_teams` divide them otherwise).
    Split(String),
}

impl Observed {
    /// Whether variant `k` could give the kernel another answer than the offload as written.
    fn changes(&self, k: &Kind) -> bool {
        match self {
            Observed::Where(_)
            | Observed::DeviceMemory
            | Observed::DeviceSpecialised(_)
            | Observed::Addresses
            | Observed::DeviceCopy(_) => *k == Kind::Cpu,
            Observed::Shape(_) | Observed::Opaque(_) | Observed::Split(_) => {
                matches!(k, Kind::Cpu | Kind::ThreadLimit(_) | Kind::NumTeams(_))
            }
        }
    }
    fn describe(&self) -> String {
        match self {
            Observed::Where(f) => format!("the kernel calls {f}, asking where it runs"),
            Observed::Shape(f) => format!("the kernel calls {f}, asking for the shape of its league or team"),
            Observed::Opaque(f) => format!("the kernel calls {f}, which the compiler cannot see"),
            Observed::Split(what) => format!("in the kernel {what}"),
            Observed::DeviceSpecialised(f) => format!(
                "the kernel runs '{f}', defined after a declare variant or metadirective with a device selector: its device version may call other code than its host version"
            ),
            Observed::Addresses => {
                "the kernel looks at addresses (an integer turned into a pointer, an address handed out as a number or stored where the program reads it after the launch): its host version sees host addresses where the offload sees device ones".into()
            }
            Observed::DeviceCopy(name) => crate::device_globals::device_copy_reason(name),
            Observed::DeviceMemory => {
                "the kernel is given device memory (is_device_ptr or has_device_addr), which its host version would read on the host".into()
            }
        }
    }
}

/// Calls by which a kernel asks where it runs.
const WHERE: [&str; 2] = [crate::entry_points::name::IS_INITIAL_DEVICE, crate::entry_points::name::GET_DEVICE_NUM];
/// Calls by which a kernel asks for its league's or team's shape, besides the team queries of
/// [`crate::entry_points`].
const SHAPE: [&str; 5] = [
    crate::entry_points::name::GET_NUM_TEAMS,
    crate::entry_points::name::GET_TEAM_NUM,
    crate::entry_points::name::GET_THREAD_LIMIT,
    crate::entry_points::name::GET_MAX_THREADS,
    crate::entry_points::name::GET_NUM_PROCS,
];

/// The first thing the launch's kernel (its host version, what it calls) observes, if any.
fn observed(launch: ValueRef, specialised: &HashSet<ValueRef>, entries: &HashMap<ValueRef, u64>) -> Option<Observed> {
    use crate::entry_points::{lookup, Role};
    // SAFETY: `launch` is an instruction of the module.
    let calls = crate::omp_calls::fallback_calls(unsafe { inkwell::values::InstructionValue::new(launch) });
    if calls.first().is_some_and(|c| given_device_memory(launch, c.as_value_ref())) {
        return Some(Observed::DeviceMemory);
    }
    // the kernel's body is written in the launching function: a call there after the directive
    // may be resolved to a device variant (its outlined host version carries no annotation)
    if specialised.contains(&ir::function_of(launch)) {
        return Some(Observed::DeviceSpecialised(crate::team::analysis::display_name(ir::function_of(launch))));
    }
    let mut queue: Vec<ValueRef> = calls.iter().map(|c| ir::callee(c.as_value_ref())).collect();
    let roots = queue.clone();
    let mut seen = HashSet::default();
    while let Some(f) = queue.pop() {
        if f.is_null() || !ir::is_function(f) || ir::is_declaration(f) || !seen.insert(f) {
            continue;
        }
        if specialised.contains(&f) {
            return Some(Observed::DeviceSpecialised(crate::team::analysis::display_name(f)));
        }
        if let Some(split) = split_dependence(f) {
            return Some(split);
        }
        for i in ir::function_instructions(f) {
            if ir::opcode(i) == Some(LLVMOpcode::LLVMIntToPtr)
                || address_escapes(i)
                || crate::stored_addresses::stores_visible_address(i, &roots)
            {
                return Some(Observed::Addresses);
            }
            if let Some(name) = crate::device_globals::unnamed_device_copy(i, entries) {
                return Some(Observed::DeviceCopy(name));
            }
            for k in 0..ir::num_operands(i) {
                let op = ir::strip_to_global(ir::operand(i, k));
                if ir::is_function(op) && !ir::is_declaration(op) {
                    queue.push(op);
                }
            }
            if !ir::is_call(i) {
                continue;
            }
            let callee = ir::callee(i);
            if callee.is_null() {
                return Some(Observed::Opaque("a function through a pointer".into()));
            }
            let full = ir::name(callee);
            // clang's omp.h defines some entry points per device with `declare variant`:
            // `omp_is_initial_device$ompvariant$S2$s6$Phost`
            // (in C++ the variant is a local function, mangled: `_ZL44omp_is_initial_device$ompvariant...`)
            let name = variant_base(&full);
            let c_name = name.strip_suffix('_').filter(|_| name.starts_with(crate::entry_points::name::prefix::OMP)).unwrap_or(&name);
            if WHERE.contains(&c_name) {
                return Some(Observed::Where(c_name.to_string()));
            }
            let entry = lookup(&name);
            if SHAPE.contains(&c_name) || entry.is_some_and(|e| e.role == Role::TeamQuery) {
                return Some(Observed::Shape(c_name.to_string()));
            }
            // `masked filter(k)`, k not the primary thread: a smaller team has no thread k
            if name == crate::entry_points::name::MASKED && ir::call_args(i).get(2).and_then(|f| ir::const_int(*f)) != Some(0) {
                return Some(Observed::Shape("a 'masked' construct filtering on a thread other than the primary one".into()));
            }
            let known = name.starts_with("llvm.")
                || entry.is_some()
                || crate::team::library::effects(callee).library
                || crate::team::library::is_cxx_standard_library(&name)
                || crate::team::library::is_cxx_abi_runtime(&name);
            if ir::is_declaration(callee) && !known {
                return Some(Observed::Opaque(format!("'{}'", crate::team::analysis::demangle(&name))));
            }
        }
    }
    None
}

/// Whether `i` turns a pointer into a number that leaves as it is: stored, passed to a call or
/// returned (`seen = (uintptr_t)a`: the kernel hands out the address it sees). A difference of
/// pointers or an alignment test computes with the numbers and stays.
fn address_escapes(i: ValueRef) -> bool {
    ir::opcode(i) == Some(LLVMOpcode::LLVMPtrToInt)
        && ir::users(i).into_iter().any(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 0) == i,
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMRet) => true,
            _ => false,
        })
}

/// The function a `declare variant` of omp.h stands for: `omp_is_initial_device` for
/// `omp_is_initial_device$ompvariant$S2$s6$Phost` (C) and for its C++ mangling
/// `_ZL44omp_is_initial_device$ompvariant$S2$s6$Phostv`; any other name as it is.
fn variant_base(full: &str) -> String {
    let Some((base, _)) = full.split_once("$ompvariant") else { return full.to_string() };
    match base.strip_prefix("_Z") {
        Some(mangled) => {
            let r = mangled.strip_prefix('L').unwrap_or(mangled);
            r.trim_start_matches(|c: char| c.is_ascii_digit()).to_string()
        }
        None => base.to_string(),
    }
}

/// The functions the frontend annotated [`ompadapt_abi::markers::DEVICE_SPECIALISED`] (entries
/// of `@llvm.global.annotations`: `{ ptr function, ptr annotation, ptr file, i32 line, ptr }`).
fn device_specialised(module: &Module<'_>) -> HashSet<ValueRef> {
    let mut out = HashSet::default();
    let Some(g) = module.get_global("llvm.global.annotations") else { return out };
    let init = unsafe { llvm_sys::core::LLVMGetInitializer(g.as_value_ref()) };
    if init.is_null() {
        return out;
    }
    for k in 0..ir::num_operands(init) {
        let entry = ir::operand(init, k);
        if ir::num_operands(entry) < 2 {
            continue;
        }
        let text = ir::c_string(ir::operand(entry, 1)).unwrap_or_default();
        let f = ir::strip_to_global(ir::operand(entry, 0));
        if text == ompadapt_abi::markers::DEVICE_SPECIALISED && ir::is_function(f) {
            out.insert(f);
        }
    }
    out
}

/// Whether the launch hands its kernel a pointer as a literal, not a mapping: an explicit
/// `LITERAL | TARGET_PARAM` entry (`is_device_ptr`, `has_device_addr`; an explicit
/// `firstprivate` scalar has the same map type, but the host version takes it as an integer)
/// whose host-version parameter (`fallback`'s argument) is a pointer. Unknown map types: false
/// (the runtime refuses what it cannot copy).
fn given_device_memory(launch: ValueRef, fallback: ValueRef) -> bool {
    const TARGET_PARAM: i64 = 0x20;
    const LITERAL: i64 = 0x100;
    const IMPLICIT: i64 = 0x200;
    let Some(types) = map_types(launch) else { return false };
    let params = ir::call_args(fallback);
    let mut p = 0;
    for t in types {
        if t & TARGET_PARAM == 0 {
            continue;
        }
        let Some(&arg) = params.get(p) else { return false };
        p += 1;
        let pointer = unsafe { llvm_sys::core::LLVMGetTypeKind(ir::type_of(arg)) } == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind;
        if t & LITERAL != 0 && t & IMPLICIT == 0 && pointer {
            return true;
        }
    }
    false
}

/// The map types of a launch: the constant array its kernel arguments' field 5 is given.
fn map_types(launch: ValueRef) -> Option<Vec<i64>> {
    let kargs = crate::team::scope::strip(ir::call_args(launch).get(5).copied());
    if !ir::is_alloca(kargs) {
        return None;
    }
    let field5 = ir::users(kargs).into_iter().filter(|g| {
        ir::opcode(*g) == Some(llvm_sys::LLVMOpcode::LLVMGetElementPtr)
            && ir::num_operands(*g) == 3
            && ir::const_int(ir::operand(*g, 2)) == Some(5)
    });
    let stored = field5
        .flat_map(ir::users)
        .find(|st| ir::opcode(*st) == Some(llvm_sys::LLVMOpcode::LLVMStore))
        .map(|st| ir::strip_to_global(ir::operand(st, 0)))?;
    if !ir::is_global_variable(stored) {
        return None;
    }
    let init = unsafe { llvm_sys::core::LLVMGetInitializer(stored) };
    if init.is_null() {
        return None;
    }
    let n = unsafe { llvm_sys::core::LLVMGetArrayLength2(ir::type_of(init)) };
    (0..n).map(|i| ir::const_int(unsafe { llvm_sys::core::LLVMGetAggregateElement(init, i as u32) })).collect()
}

/// A reduction of function `f` whose combined value depends on how its iterations are divided
/// ([`crate::team::reduction`]).
fn split_dependence(f: ValueRef) -> Option<Observed> {
    use crate::team::scope::Scopes;
    let has_reduction = ir::function_instructions(f)
        .into_iter()
        .any(|i| matches!(crate::team::scope::role(i), Some(crate::entry_points::Role::Reduce { .. })));
    if !has_reduction {
        return None;
    }
    let scopes = Scopes::of(f, false);
    crate::team::reduction::of(f).iter().find_map(|r| {
        let (_, what) = crate::team::reduction::private_copy_finding(r, &|i| scopes.scope(i))?;
        Some(Observed::Split(what))
    })
}

/// The functions tasks run (the entries given to `__kmpc_omp_task_alloc` and
/// `__kmpc_omp_target_task_alloc`, and what they call): a launch there is deferred.
fn task_code(module: &Module<'_>) -> HashSet<ValueRef> {
    let mut queue = Vec::new();
    for f in module.get_functions() {
        for i in ir::function_instructions(f.as_value_ref()) {
            if ir::is_call(i)
                && [crate::entry_points::name::OMP_TASK_ALLOC, crate::entry_points::name::OMP_TARGET_TASK_ALLOC]
                    .contains(&ir::callee_name(i).as_str())
            {
                if let Some(entry) = ir::call_args(i).get(5) {
                    queue.push(ir::strip_to_global(*entry));
                }
            }
        }
    }
    ir::reachable_functions(queue)
}

/// `function@file:line`: clang gives the launch no debug location, but its region id names the
/// function and the line (`.__omp_offloading_<device>_<file>_<function>_l<line>.region_id`);
/// the file is that of the function's debug locations. Without them: `function#k`.
fn name_of(launch: ValueRef, names: &mut HashMap<String, u32>) -> String {
    let f = ir::function_of(launch);
    // SAFETY: `launch` is an instruction of the module.
    let id = crate::omp_calls::region_id_name(unsafe { inkwell::values::InstructionValue::new(launch) });
    // .__omp_offloading_<device>_<file>_<function>_l<line>.region_id
    let entry = id.trim_start_matches('.').strip_prefix(crate::omp_calls::OFFLOADING_PREFIX).unwrap_or_default();
    let entry = entry.split_once('.').map_or(entry, |(e, _)| e);
    let (symbol, line) = match entry.splitn(3, '_').nth(2).and_then(|r| r.rsplit_once("_l")) {
        // (a second kernel on one line, from a macro, is `_l58_1`)
        Some((symbol, line)) => (Some(symbol.to_string()), line.split('_').next().and_then(|l| l.parse::<u32>().ok())),
        None => (None, None),
    };
    // (flang's procedures carry the Fortran ABI's trailing underscore there: `vadd_`)
    let flang = crate::loader::is_flang_source(f);
    let symbol = symbol.map(|s| if flang { s.strip_suffix('_').map(str::to_string).unwrap_or(s) } else { s });
    let function = symbol.map(|s| host::symbol_name(&s)).filter(|s| !s.is_empty()).unwrap_or_else(|| host::function_name(f));
    // (not the frontend's generated code, `<scratch space>`, nor a predefined `<built-in>`)
    let file = ir::function_instructions(f).into_iter().find_map(|i| host::written(i).filter(|w| !w.file.starts_with('<'))).map(|w| w.file);
    let base = match (file, line) {
        (Some(file), Some(line)) => format!("{function}@{file}:{line}"),
        _ => format!("{function}#offload"),
    };
    let n = names.entry(base.clone()).or_insert(0);
    *n += 1;
    if *n == 1 {
        base
    } else {
        format!("{base}#{n}")
    }
}

/// Where the launch's two paths meet again: its block ends in a branch on the launch's result
/// to the fallback block and this one, and the fallback block (or a chain of blocks without
/// other exits) ends in a branch to it.
fn join_block(launch: ValueRef) -> Option<ir::BlockRef> {
    let block = ir::block_of(launch);
    let term = unsafe { LLVMGetBasicBlockTerminator(block) };
    if ir::opcode(term) != Some(LLVMOpcode::LLVMBr) || unsafe { LLVMGetNumSuccessors(term) } != 2 {
        return None;
    }
    let cond = unsafe { LLVMGetCondition(term) };
    // icmp eq/ne %launch, 0
    if ir::opcode(cond) != Some(LLVMOpcode::LLVMICmp) || ir::operand(cond, 0) != launch {
        return None;
    }
    let succ = [unsafe { LLVMGetSuccessor(term, 0) }, unsafe { LLVMGetSuccessor(term, 1) }];
    for (fail, cont) in [(succ[0], succ[1]), (succ[1], succ[0])] {
        let mut b = fail;
        for _ in 0..4 {
            let s = ir::successors(b);
            if s.len() != 1 {
                break;
            }
            if s[0] == cont {
                return Some(cont);
            }
            b = s[0];
        }
    }
    None
}

fn build_region(m: LLVMModuleRef, launch: ValueRef, join: ir::BlockRef, model: &str, kinds: &[Kind]) {
    let sym = format!("{}._ompadapt_o", ir::name(ir::function_of(launch)));
    let loc = model.split_once('@').map(|(_, l)| l.split('#').next().unwrap_or(l)).filter(|l| l.contains(':')).unwrap_or("?");
    // categorical: the values are the variants' indices
    let spec = ompadapt_abi::RegionDescriptor::new(model, loc, kinds.iter().map(Kind::name).collect()).to_string();
    let gpu = kinds.iter().position(|k| *k == Kind::Gpu).expect("gpu is among the target kinds");
    let cpu = kinds.iter().position(|k| *k == Kind::Cpu);
    // the offload as written until the runtime decides
    let (r, variant) = Region::begin(m, launch, &sym, model, &spec, gpu as i64);
    let d = &r.d;
    let void = unsafe { LLVMVoidTypeInContext(LLVMGetModuleContext(m)) };
    let int = |v: usize| unsafe { LLVMConstInt(d.i32t, v as u64, 0) };
    let use_host = match cpu {
        Some(cpu) => {
            r.call(HOST_GUARD.name, fn_type(void, &mut [d.ptr, d.i32t, d.i32t, d.ptr], false), &mut [r.ctx, int(cpu), int(gpu), r.model]);
            unsafe {
                let is_cpu = LLVMBuildICmp(r.b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, variant, int(cpu), c"".as_ptr());
                LLVMBuildZExt(r.b, is_cpu, d.i32t, c"".as_ptr())
            }
        }
        None => int(0),
    };
    let setting = |pick: fn(&Kind) -> u32| i32s(d, kinds.iter().map(pick).chain(std::iter::once(0)));
    let num_teams =
        r.per_variant(variant, &format!("{sym}.num_teams"), d.i32t, setting(|k| if let Kind::NumTeams(t) = k { *t } else { 0 }));
    let thread_limit =
        r.per_variant(variant, &format!("{sym}.thread_limit"), d.i32t, setting(|k| if let Kind::ThreadLimit(t) = k { *t } else { 0 }));
    let model_str = r.model;
    r.call(
        LAUNCH_SITE.name,
        fn_type(void, &mut [d.i32t, d.i32t, d.i32t, d.ptr], false),
        &mut [use_host, num_teams, thread_limit, model_str],
    );
    // end where both paths meet again
    r.end(join, launch, model);
}

/// `__ompadapt_host_enter` and `__ompadapt_host_exit`, as the frontend's header defines them:
/// internal functions calling the runtime's `host_enter` / `host_exit` through its table
/// (`__ompadapt_v6_api()`: fields 5 and 6 of `struct ompadapt_api`).
fn define_host_run_functions(m: LLVMModuleRef) {
    unsafe {
        let c = LLVMGetModuleContext(m);
        let d = decls(c);
        let void = LLVMVoidTypeInContext(c);
        let (api_ty, api) = function(m, ompadapt_abi::markers::SUPPORT_API, fn_type(d.ptr, &mut [], false));
        let table = |b, field: u64| {
            let t = LLVMBuildCall2(b, api_ty, api, std::ptr::null_mut(), 0, c"".as_ptr());
            let mut idx = [LLVMConstInt(d.i64t, field, 0)];
            let slot = LLVMBuildInBoundsGEP2(b, d.ptr, t, idx.as_mut_ptr(), 1, c"".as_ptr());
            LLVMBuildLoad2(b, d.ptr, slot, c"".as_ptr())
        };
        // struct ompadapt_api { int version; void *begin, *end, *unlowered, *unavailable,
        // *host_enter, *host_exit, *ompt_start_tool; }: pointer-sized fields after the int, so
        // field k (k >= 1) is pointer slot k.
        let enter_ty = fn_type(d.ptr, &mut [d.ptr, d.i32t, d.i32t, d.i64t, d.ptr, d.ptr, d.i32t], false);
        let exit_ty = fn_type(void, &mut [d.ptr], false);
        for (name, ty, field) in [(HOST_ENTER.name, enter_ty, 5u64), (HOST_EXIT.name, exit_ty, 6u64)] {
            let cname = CString::new(name).unwrap();
            if !LLVMGetNamedFunction(m, cname.as_ptr()).is_null() {
                continue;
            }
            let f = LLVMAddFunction(m, cname.as_ptr(), ty);
            LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            let b = LLVMCreateBuilderInContext(c);
            LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, c"".as_ptr()));
            let target = table(b, field);
            let mut args: Vec<ValueRef> = (0..LLVMCountParams(f)).map(|k| LLVMGetParam(f, k)).collect();
            let r = LLVMBuildCall2(b, ty, target, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
            if field == 5 {
                LLVMBuildRet(b, r);
            } else {
                LLVMBuildRetVoid(b);
            }
            LLVMDisposeBuilder(b);
        }
    }
}
