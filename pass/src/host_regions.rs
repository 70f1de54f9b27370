//! Pass-only mode for host parallel regions: each `__kmpc_fork_call` of a module the frontend
//! did not compile becomes an adaptive region with the team-size kinds of [`crate::auto_mode`],
//! where the team analysis ([`crate::team`]) shows that nothing the region runs can observe its
//! team; elsewhere it stays as written, with a remark that says why.
//!
//! The code built around the fork is what the frontend's zero-source-change lowering generates
//! for a host region (same runtime calls, same descriptor, same store entry):
//!
//! ```text
//!   ctx.variant = -1; ctx.value = 0                     ; "as written" until the runtime says
//!   spec = "ompadapt1;model=f@a.c:3;...;in_parallel=as_written"
//!   n = __ompadapt_auto_features(feats, 16, &spec, model, "")   ; the next stage fills it
//!   __ompadapt_v4_begin(&slot, spec, -1, -1, -1, feats, n, &ctx)
//!   team = __ompadapt_v4_team_size(absolute[v], share[v], omp_get_max_threads() or the
//!                                  region's num_threads clause)
//!   if (v is serial) { __kmpc_serialized_parallel; microtask(&gtid, &zero, args...); end }
//!   else             { __kmpc_push_num_threads(team); __kmpc_fork_call(...) }
//!   __ompadapt_v4_end(&ctx)
//! ```
//!
//! The fork keeps `!ompadapt.region` so that a second run of the pass leaves it alone.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::collections::HashMap;
use std::ffi::CString;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
use llvm_sys::prelude::{LLVMBuilderRef, LLVMContextRef, LLVMModuleRef, LLVMTypeRef};
use llvm_sys::LLVMOpcode;
use ompadapt_abi::kinds::Kind;
use ompadapt_abi::markers::{AUTO_FEATURES, SUPPORT_BEGIN, SUPPORT_DEFAULT_RUNTIME, SUPPORT_END, SUPPORT_TEAM_SIZE};
use ompadapt_abi::{RegionDescriptor, MAX_FEATURES};

use crate::auto_mode::AutoKinds;
use crate::ir::{self, ValueRef};
use crate::remarks::{Remark, RemarkId, RemarkPlace};
use crate::team::{self, analysis::Analysis};

/// Instruction metadata on a fork the pass made adaptive (idempotence).
pub const REGION_KIND: &str = "ompadapt.region";

/// What pass-only mode did to a module's host regions.
#[derive(Debug, Default)]
pub struct HostOutcome {
    pub changed: bool,
    pub remarks: Vec<Remark>,
    /// The regions made adaptive.
    pub adaptive: Vec<String>,
}

/// Makes every eligible fork of `module` adaptive with `kinds`.
pub fn make_adaptive(module: &Module<'_>, kinds: &AutoKinds) -> HostOutcome {
    let mut out = HostOutcome::default();
    let m = module.as_mut_ptr();
    if kinds.host.is_empty() {
        return out;
    }
    let forks: Vec<ValueRef> = module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::opcode(*i) == Some(LLVMOpcode::LLVMCall) && ir::callee_name(*i) == "__kmpc_fork_call" && !is_adaptive(*i))
        .collect();
    if forks.is_empty() {
        return out;
    }
    // The host versions of offload regions (and the parallel regions they run) are the offload's:
    // the variants of pass-only mode apply to the program's own host parallel regions.
    let offload_code = offload_host_code(module);
    let forks: Vec<ValueRef> = forks.into_iter().filter(|f| !offload_code.contains(&ir::function_of(*f))).collect();
    let outlined = outlined_functions(module);
    let module_wide = team::thread_local_in_parallel_code(module);
    let mut names = Names::default();
    let mut first_adaptive = None;
    for (k, fork) in forks.into_iter().enumerate() {
        let (model, named_by_debug_info) = names.name(m, fork, k);
        let place = RemarkPlace::of(fork);
        let Some(microtask) = microtask_of(fork) else {
            out.remarks.push(place.remark(RemarkId::TeamNoRegion, &model, "left as written: the parallel region's outlined function is not in this module"));
            continue;
        };
        // A parallel construct written inside another one: its team is the enclosing region's
        // business (the frontend's zero-source-change mode leaves it too). One in a function
        // called from a parallel region stays eligible: it runs as written when it starts
        // inside an active parallel region (the descriptor's `in_parallel=as_written`).
        let host = ir::function_of(fork);
        if outlined.contains(&host) {
            out.remarks.push(place.remark(
                RemarkId::NestedRegion,
                &model,
                format!("left as written: nested in the parallel region of '{}'", team::analysis::display_name(host)),
            ));
            continue;
        }
        let mut analysis = Analysis::default();
        let finding = analysis.region(microtask).map(|f| (f, false)).or_else(|| module_wide.clone().map(|f| (f, true)));
        if let Some((found, wide)) = finding {
            let tail = if wide { "; its values persist between parallel regions only while their teams keep one size" } else { "" };
            out.remarks.push(place.remark(team::remark_id(found.reason), &model, format!("left as written: {}{tail}", found.describe())));
            continue;
        }
        if !named_by_debug_info {
            out.remarks.push(place.remark(
                RemarkId::RegionNamedByOrder,
                &model,
                "no debug location (compile with -g or -gline-tables-only): the region is named after its function and its order in the module",
            ));
        }
        build_region(m, fork, microtask, &model, &kinds.host);
        ir::invalidate();
        let listed: Vec<String> = kinds.host.iter().map(Kind::name).collect();
        out.remarks.push(place.remark(
            RemarkId::HostRegionAdaptive,
            &model,
            format!(
                "pass-only mode: the parallel region became adaptive with variants {} (nothing it runs, {} function{}, can observe its team)",
                listed.join(", "),
                analysis.functions,
                if analysis.functions == 1 { "" } else { "s" }
            ),
        ));
        out.adaptive.push(model);
        first_adaptive.get_or_insert(fork);
        out.changed = true;
    }
    if out.changed {
        define_default_runtime(m);
        if let (false, Some(first)) = (kinds.unused.is_empty(), first_adaptive) {
            let unused: Vec<String> = kinds.unused.iter().map(Kind::name).collect();
            out.remarks.push(RemarkPlace::of(first).remark(
                RemarkId::AutoKindsUnused,
                &out.adaptive[0],
                format!("kinds pass-only mode does not apply (schedules and coschedule need the source): {}", unused.join(", ")),
            ));
        }
    }
    out
}

/// The functions the host versions of offload regions run: those clang and flang name
/// `__omp_offloading_*` and the teams they fork (`__kmpc_fork_teams`), with everything they call.
pub(crate) fn offload_host_code(module: &Module<'_>) -> std::collections::HashSet<ValueRef> {
    let mut queue: Vec<ValueRef> = Vec::new();
    for f in module.get_functions() {
        let fv = f.as_value_ref();
        if f.get_name().to_bytes().starts_with(crate::omp_calls::OFFLOADING_PREFIX.as_bytes()) {
            queue.push(fv);
        }
        for i in ir::function_instructions(fv) {
            if ir::is_call(i) && ir::callee_name(i) == "__kmpc_fork_teams" {
                if let Some(m) = ir::call_args(i).get(2) {
                    queue.push(ir::strip_to_global(*m));
                }
            }
            // the host fallback a launch calls when it fails, whatever its name (flang's)
            if ir::is_call(i) && ir::callee_name(i) == crate::omp_calls::TGT_TARGET_KERNEL {
                // SAFETY: `i` is an instruction of the module.
                let launch = unsafe { inkwell::values::InstructionValue::new(i) };
                queue.extend(crate::omp_calls::fallback_calls(launch).into_iter().filter_map(|c| crate::ir::is_call(c.as_value_ref()).then(|| ir::callee(c.as_value_ref()))));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    while let Some(f) = queue.pop() {
        if !ir::is_function(f) || ir::is_declaration(f) || !seen.insert(f) {
            continue;
        }
        for i in ir::function_instructions(f) {
            for k in 0..ir::num_operands(i) {
                let op = ir::strip_to_global(ir::operand(i, k));
                if ir::is_function(op) {
                    queue.push(op);
                }
            }
        }
    }
    seen
}

/// The outlined functions of parallel regions: the microtasks of the module's forks, and what
/// clang (`.omp_outlined`) and flang (`..omp_par`) name so (with `-g` clang puts a wrapper
/// between the microtask and the region's code).
fn outlined_functions(module: &Module<'_>) -> std::collections::HashSet<ValueRef> {
    let mut set = std::collections::HashSet::new();
    for f in module.get_functions() {
        let fv = f.as_value_ref();
        let name = f.get_name().to_string_lossy();
        if name.contains(".omp_outlined") || name.contains("..omp_par") {
            set.insert(fv);
        }
        for i in ir::function_instructions(fv) {
            if ir::is_call(i) && ir::callee_name(i).starts_with("__kmpc_fork") {
                if let Some(m) = ir::call_args(i).get(2) {
                    set.insert(ir::strip_to_global(*m));
                }
            }
        }
    }
    set
}

/// Whether the fork already is the pass's (a second run).
pub(crate) fn is_adaptive(fork: ValueRef) -> bool {
    unsafe {
        let c = LLVMGetTypeContext(LLVMTypeOf(fork));
        let kind = LLVMGetMDKindIDInContext(c, REGION_KIND.as_ptr().cast(), REGION_KIND.len() as u32);
        !LLVMGetMetadata(fork, kind).is_null()
    }
}

/// The fork's outlined function, when the module defines it and its parameters take the fork's
/// arguments (global and bound thread ids, then the captured values).
fn microtask_of(fork: ValueRef) -> Option<ValueRef> {
    let args = ir::call_args(fork);
    let m = ir::strip_to_global(*args.get(2)?);
    if !ir::is_function(m) || ir::is_declaration(m) {
        return None;
    }
    let params = ir::params(m);
    (params.len() == 2 + args.len().saturating_sub(3)
        && args[3..].iter().zip(&params[2..]).all(|(a, p)| ir::type_of(*a) == ir::type_of(*p)))
    .then_some(m)
}

/// Region names: `function@file:line` from the fork's debug location; without one, the
/// function and the region's order (`function@file#3`). A second region with one name gets `#2`.
#[derive(Default)]
struct Names {
    /// The columns of the constructs named so far, by base name.
    given: HashMap<String, Vec<u32>>,
}

impl Names {
    fn name(&mut self, m: LLVMModuleRef, fork: ValueRef, order: usize) -> (String, bool) {
        let (base, column, by_debug_info) = match (ir::debug_location(fork), written(fork)) {
            (_, Some(w)) => (format!("{}@{}:{}", symbol_name(&w.function), w.file, w.line), w.column, true),
            (Some(loc), None) => (format!("{}@{loc}", function_name(ir::function_of(fork))), 0, true),
            // (flang's modules are all `FIRModule`: the function and the order alone)
            (None, _) => {
                let function = function_name(ir::function_of(fork));
                let name = match source_file(m).as_str() {
                    "FIRModule" | "" => format!("{function}#{}", order + 1),
                    file => format!("{function}@{file}#{}", order + 1),
                };
                (name, 0, false)
            }
        };
        // Copies of one construct (inlined into several functions) share its region; another
        // construct on the same line (another column: a macro) gets `#2`.
        let columns = self.given.entry(base.clone()).or_default();
        let k = match columns.iter().position(|c| *c == column) {
            Some(k) => k,
            None => {
                columns.push(column);
                columns.len() - 1
            }
        };
        (if k == 0 { base } else { format!("{base}#{}", k + 1) }, by_debug_info)
    }
}

extern "C" {
    fn ompadapt_location_function(i: ValueRef, name: *mut std::ffi::c_char, file: *mut std::ffi::c_char, size: u32, column: *mut u32) -> bool;
}

/// Where the fork was written: the source function of its debug location (where it was inlined
/// from), the file as the compile line spelled it, the line and the column.
pub(crate) struct Written {
    pub function: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
}

pub(crate) fn written(fork: ValueRef) -> Option<Written> {
    let (mut name, mut file) = ([0 as std::ffi::c_char; 1024], [0 as std::ffi::c_char; 1024]);
    let mut column = 0u32;
    // SAFETY: buffers of the size given; the shim writes NUL-terminated text into them.
    let found = unsafe { ompadapt_location_function(fork, name.as_mut_ptr(), file.as_mut_ptr(), name.len() as u32, &mut column) };
    if !found {
        return None;
    }
    let text = |b: &[std::ffi::c_char]| unsafe { std::ffi::CStr::from_ptr(b.as_ptr()) }.to_string_lossy().into_owned();
    let line = unsafe { llvm_sys::debuginfo::LLVMDILocationGetLine(LLVMInstructionGetDebugLoc(fork)) };
    Some(Written { function: text(&name), file: text(&file), line, column })
}

/// The function a construct is written in, for an outlined region's function (clang's
/// `f.omp_outlined`, `f.omp_outlined_debug__`; flang's `f..omp_par`): `f`.
pub(crate) fn source_level(name: &str) -> String {
    let cut = [".omp_outlined", "..omp_par"].iter().filter_map(|m| name.find(m)).min();
    cut.map_or(name, |k| &name[..k]).to_string()
}

/// The function's name as the frontend's regions name it: its symbol demangled (C++: qualified,
/// template arguments in one list as `__PRETTY_FUNCTION__` gives them, `sim::Stencil::apply<1,float>`;
/// flang's `_QPsaxpy` as `saxpy`), an outlined region's as its function's.
pub(crate) fn function_name(f: ValueRef) -> String {
    symbol_name(&ir::name(f))
}

/// [`function_name`] of a symbol.
pub(crate) fn symbol_name(symbol: &str) -> String {
    // flang: _QPsaxpy (a procedure), _QQmain (the main program), _QMmodPsub (a module's)
    if let Some(rest) = symbol.strip_prefix("_Q") {
        if rest == "Qmain" {
            return "main".into();
        }
        if let Some(p) = rest.rfind('P') {
            return source_level(&rest[p + 1..]);
        }
    }
    template_form(&source_level(&team::analysis::demangle(symbol)))
}

/// A demangled C++ name in the form of the frontend's instance names: every template argument
/// list moved to the end as one list, arguments trimmed (`sim::Stencil<1>::apply<float>` ->
/// `sim::Stencil::apply<1,float>`). Names of operators are left as they are.
pub(crate) fn template_form(name: &str) -> String {
    if !name.contains('<') || name.contains("operator") {
        return name.to_string();
    }
    let (mut base, mut args, mut current) = (String::new(), Vec::new(), String::new());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => {
                if depth > 0 {
                    current.push(c);
                }
                depth += 1;
            }
            '>' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    args.push(current.trim().to_string());
                    current.clear();
                } else {
                    current.push(c);
                }
            }
            ',' if depth == 1 => {
                args.push(current.trim().to_string());
                current.clear();
            }
            _ if depth > 0 => current.push(c),
            _ => base.push(c),
        }
    }
    if depth != 0 || args.is_empty() {
        return name.to_string();
    }
    format!("{base}<{}>", args.join(","))
}

/// The module's source file name, without directories.
pub(crate) fn source_file(m: LLVMModuleRef) -> String {
    let mut len = 0usize;
    unsafe {
        let p = LLVMGetSourceFileName(m, &mut len);
        let s = if p.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned() };
        s.rsplit('/').next().unwrap_or_default().to_string()
    }
}

/// The types and functions the region's code uses.
pub(crate) struct Decls {
    pub i32t: LLVMTypeRef,
    pub i64t: LLVMTypeRef,
    pub f64t: LLVMTypeRef,
    pub ptr: LLVMTypeRef,
    pub ctx_type: LLVMTypeRef,
}

/// The `ompadapt_ctx` of runtime/include/ompadapt.h: region, t0, variant, nfeatures, value,
/// features[MAX_FEATURES], instance.
pub(crate) const CTX_VARIANT: u32 = 2;
pub(crate) const CTX_VALUE: u32 = 4;

pub(crate) fn decls(c: LLVMContextRef) -> Decls {
    unsafe {
        let i32t = LLVMInt32TypeInContext(c);
        let i64t = LLVMInt64TypeInContext(c);
        let f64t = LLVMDoubleTypeInContext(c);
        let ptr = LLVMPointerTypeInContext(c, 0);
        let mut fields = [ptr, i64t, i32t, i32t, f64t, LLVMArrayType2(f64t, MAX_FEATURES as u64), ptr];
        let ctx_type = LLVMStructTypeInContext(c, fields.as_mut_ptr(), fields.len() as u32, 0);
        Decls { i32t, i64t, f64t, ptr, ctx_type }
    }
}

/// The function `name` of the module, declared with `ty` if it is not there.
pub(crate) fn function(m: LLVMModuleRef, name: &str, ty: LLVMTypeRef) -> (LLVMTypeRef, ValueRef) {
    let c = CString::new(name).expect("no NUL");
    unsafe {
        let f = LLVMGetNamedFunction(m, c.as_ptr());
        if !f.is_null() {
            return (LLVMGlobalGetValueType(f), f);
        }
        (ty, LLVMAddFunction(m, c.as_ptr(), ty))
    }
}

pub(crate) fn fn_type(ret: LLVMTypeRef, params: &mut [LLVMTypeRef], vararg: bool) -> LLVMTypeRef {
    unsafe { LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, vararg as i32) }
}

/// A private constant global holding `init`.
pub(crate) fn constant_global(m: LLVMModuleRef, name: &str, init: ValueRef) -> ValueRef {
    let c = CString::new(name).expect("no NUL");
    unsafe {
        let g = LLVMAddGlobal(m, LLVMTypeOf(init), c.as_ptr());
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        g
    }
}

pub(crate) fn c_string(m: LLVMModuleRef, name: &str, text: &str) -> ValueRef {
    let c = unsafe { LLVMGetModuleContext(m) };
    let init = unsafe { LLVMConstStringInContext2(c, text.as_ptr().cast(), text.len(), 1) }; // (the callers write the NUL)
    constant_global(m, name, init)
}

/// The descriptor of a region of pass-only mode: the kinds as variants, each valued as the
/// frontend values them, features filled in by the automatic-features stage.
pub fn descriptor(model: &str, loc: &str, kinds: &[Kind]) -> RegionDescriptor {
    let mut d = RegionDescriptor::new(model, loc, kinds.iter().map(Kind::name).collect());
    d.values = kinds.iter().map(Kind::value).collect();
    d.as_written_in_parallel = true;
    d
}

/// Builds the region around `fork` (see the module's documentation).
fn build_region(m: LLVMModuleRef, fork: ValueRef, microtask: ValueRef, model: &str, kinds: &[Kind]) {
    let host = ir::function_of(fork);
    let c = unsafe { LLVMGetModuleContext(m) };
    let d = decls(c);
    let loc_arg = ir::call_args(fork)[0];
    let debug = unsafe { LLVMInstructionGetDebugLoc(fork) };
    // `loc=`: the file and line of the name (`?` for a region named by its order)
    let loc = model.split_once('@').map(|(_, l)| l.split('#').next().unwrap_or(l)).filter(|l| l.contains(':')).unwrap_or("?").to_string();
    let sym = format!("{}._ompadapt_p", ir::name(host));
    let spec_text = descriptor(model, &loc, kinds).to_string();
    let spec = c_string(m, &format!("{sym}.spec"), &format!("{spec_text}\0"));
    let model_str = c_string(m, &format!("{sym}.model"), &format!("{model}\0"));
    let loops = c_string(m, &format!("{sym}.loops"), "\0");
    let slot = unsafe {
        let name = CString::new(format!("{sym}.slot")).unwrap();
        let g = LLVMAddGlobal(m, d.ptr, name.as_ptr());
        LLVMSetInitializer(g, LLVMConstNull(d.ptr));
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        g
    };
    // One more entry than variants: variant -1 (as written) reads the last, the program's team.
    let (mut absolute, mut share): (Vec<ValueRef>, Vec<ValueRef>) = kinds
        .iter()
        .map(|k| k.team_arguments())
        .chain(std::iter::once((0, 0.0)))
        .map(|(a, s)| unsafe { (LLVMConstInt(d.i32t, a as u64, 0), LLVMConstReal(d.f64t, s)) })
        .unzip();
    let absolute = constant_global(m, &format!("{sym}.absolute"), unsafe { LLVMConstArray2(d.i32t, absolute.as_mut_ptr(), absolute.len() as u64) });
    let share = constant_global(m, &format!("{sym}.share"), unsafe { LLVMConstArray2(d.f64t, share.as_mut_ptr(), share.len() as u64) });
    let serial = kinds.iter().position(|k| *k == Kind::Serial);
    let n = kinds.len() as u64;

    unsafe {
        let b = LLVMCreateBuilderInContext(c);
        // Allocas in the entry block.
        let entry = ir::entry_block(host);
        let first = LLVMGetFirstInstruction(entry);
        LLVMPositionBuilderBefore(b, first);
        let ctx = LLVMBuildAlloca(b, d.ctx_type, c"ompadapt.ctx".as_ptr());
        let feats = LLVMBuildAlloca(b, LLVMArrayType2(d.f64t, MAX_FEATURES as u64), c"ompadapt.features".as_ptr());
        let spec_slot = LLVMBuildAlloca(b, d.ptr, c"ompadapt.spec".as_ptr());
        let tid = LLVMBuildAlloca(b, d.i32t, c"ompadapt.tid".as_ptr());
        let zero_tid = LLVMBuildAlloca(b, d.i32t, c"ompadapt.zero".as_ptr());

        LLVMPositionBuilderBefore(b, fork);
        let at = |v: ValueRef| {
            if !debug.is_null() && LLVMIsAInstruction(v) != std::ptr::null_mut() {
                LLVMInstructionSetDebugLoc(v, debug);
            }
            v
        };
        let field = |b: LLVMBuilderRef, i: u32| LLVMBuildStructGEP2(b, d.ctx_type, ctx, i, c"".as_ptr());
        at(LLVMBuildStore(b, LLVMConstInt(d.i32t, u64::MAX, 1), field(b, CTX_VARIANT)));
        at(LLVMBuildStore(b, LLVMConstReal(d.f64t, 0.0), field(b, CTX_VALUE)));
        at(LLVMBuildStore(b, spec, spec_slot));
        let (auto_ty, auto_fn) = function(m, AUTO_FEATURES.name, fn_type(d.i32t, &mut [d.ptr, d.i32t, d.ptr, d.ptr, d.ptr], false));
        let mut args = [feats, LLVMConstInt(d.i32t, MAX_FEATURES as u64, 0), spec_slot, model_str, loops];
        let nfeat = at(LLVMBuildCall2(b, auto_ty, auto_fn, args.as_mut_ptr(), 5, c"".as_ptr()));
        let spec_now = at(LLVMBuildLoad2(b, d.ptr, spec_slot, c"".as_ptr()));
        let (begin_ty, begin) = function(m, SUPPORT_BEGIN, fn_type(LLVMVoidTypeInContext(c), &mut [d.ptr, d.ptr, d.i64t, d.i64t, d.i64t, d.ptr, d.i32t, d.ptr], false));
        let minus1 = LLVMConstInt(d.i64t, u64::MAX, 1);
        let mut args = [slot, spec_now, minus1, minus1, minus1, feats, nfeat, ctx];
        at(LLVMBuildCall2(b, begin_ty, begin, args.as_mut_ptr(), 8, c"".as_ptr()));
        let variant = at(LLVMBuildLoad2(b, d.i32t, field(b, CTX_VARIANT), c"ompadapt.variant".as_ptr()));
        let in_range = at(LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntULT, variant, LLVMConstInt(d.i32t, n, 0), c"".as_ptr()));
        let index = at(LLVMBuildSelect(b, in_range, variant, LLVMConstInt(d.i32t, n, 0), c"".as_ptr()));
        let index64 = at(LLVMBuildZExt(b, index, d.i64t, c"".as_ptr()));
        let mut idx = [LLVMConstInt(d.i64t, 0, 0), index64];
        let abs_ptr = at(LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(absolute), absolute, idx.as_mut_ptr(), 2, c"".as_ptr()));
        let abs = at(LLVMBuildLoad2(b, d.i32t, abs_ptr, c"".as_ptr()));
        let share_ptr = at(LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(share), share, idx.as_mut_ptr(), 2, c"".as_ptr()));
        let shr = at(LLVMBuildLoad2(b, d.f64t, share_ptr, c"".as_ptr()));
        let program = match num_threads_clause(fork) {
            Some(v) => v,
            None => {
                let (ty, f) = function(m, "omp_get_max_threads", fn_type(d.i32t, &mut [], false));
                at(LLVMBuildCall2(b, ty, f, std::ptr::null_mut(), 0, c"".as_ptr()))
            }
        };
        let (ts_ty, ts) = function(m, SUPPORT_TEAM_SIZE, fn_type(d.i32t, &mut [d.i32t, d.f64t, d.i32t], false));
        let mut args = [abs, shr, program];
        let team = at(LLVMBuildCall2(b, ts_ty, ts, args.as_mut_ptr(), 3, c"ompadapt.team".as_ptr()));
        let (gtid_ty, gtid_fn) = function(m, "__kmpc_global_thread_num", fn_type(d.i32t, &mut [d.ptr], false));
        let mut args = [loc_arg];
        let gtid = at(LLVMBuildCall2(b, gtid_ty, gtid_fn, args.as_mut_ptr(), 1, c"".as_ptr()));
        let (push_ty, push) = function(m, "__kmpc_push_num_threads", fn_type(LLVMVoidTypeInContext(c), &mut [d.ptr, d.i32t, d.i32t], false));

        // Split: block [.. fork] -> parallel (push, fork) | serial (microtask) -> join (end, rest).
        let block = ir::block_of(fork);
        let after = next_block(block);
        let join = if after.is_null() {
            LLVMAppendBasicBlockInContext(c, host, c"ompadapt.join".as_ptr())
        } else {
            LLVMInsertBasicBlockInContext(c, after, c"ompadapt.join".as_ptr())
        };
        let parallel = LLVMInsertBasicBlockInContext(c, join, c"ompadapt.parallel".as_ptr());
        let mut rest = Vec::new();
        let mut cursor = LLVMGetNextInstruction(fork);
        while !cursor.is_null() {
            rest.push(cursor);
            cursor = LLVMGetNextInstruction(cursor);
        }
        LLVMInstructionRemoveFromParent(fork);
        // Positioning before the fork gave the builder its location, which it would stamp on
        // every instruction it inserts: the moved ones keep their own.
        llvm_sys::core::LLVMSetCurrentDebugLocation2(b, std::ptr::null_mut());
        LLVMPositionBuilderAtEnd(b, parallel);
        let mut args = [loc_arg, gtid, team];
        at(LLVMBuildCall2(b, push_ty, push, args.as_mut_ptr(), 3, c"".as_ptr()));
        LLVMInsertIntoBuilder(b, fork);
        at(LLVMBuildBr(b, join));
        for i in rest {
            LLVMInstructionRemoveFromParent(i);
            LLVMPositionBuilderAtEnd(b, join);
            LLVMInsertIntoBuilder(b, i);
        }
        // Phis of the old block's successors now come from the join block.
        if let (Some(from), Some(to)) = (inkwell::basic_block::BasicBlock::new(block), inkwell::basic_block::BasicBlock::new(join)) {
            for succ in crate::cfg::successors(to) {
                crate::cfg::retarget_phi_incoming(succ, from, to);
            }
        }
        LLVMPositionBuilderAtEnd(b, block);
        match serial {
            Some(s) => {
                let serial_block = LLVMInsertBasicBlockInContext(c, join, c"ompadapt.serial".as_ptr());
                let is_serial = at(LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, variant, LLVMConstInt(d.i32t, s as u64, 0), c"".as_ptr()));
                at(LLVMBuildCondBr(b, is_serial, serial_block, parallel));
                LLVMPositionBuilderAtEnd(b, serial_block);
                let (ser_ty, ser) = function(m, "__kmpc_serialized_parallel", fn_type(LLVMVoidTypeInContext(c), &mut [d.ptr, d.i32t], false));
                let (end_ty, end_ser) = function(m, "__kmpc_end_serialized_parallel", fn_type(LLVMVoidTypeInContext(c), &mut [d.ptr, d.i32t], false));
                let mut args = [loc_arg, gtid];
                at(LLVMBuildCall2(b, ser_ty, ser, args.as_mut_ptr(), 2, c"".as_ptr()));
                at(LLVMBuildStore(b, gtid, tid));
                at(LLVMBuildStore(b, LLVMConstInt(d.i32t, 0, 0), zero_tid));
                let mut margs = vec![tid, zero_tid];
                margs.extend(ir::call_args(fork).into_iter().skip(3));
                let mt_ty = LLVMGlobalGetValueType(microtask);
                let call = at(LLVMBuildCall2(b, mt_ty, microtask, margs.as_mut_ptr(), margs.len() as u32, c"".as_ptr()));
                // Not inlined: one copy of the region's code (the fork runs it through a pointer
                // anyway), so that the serial variant costs no second optimisation of it.
                let noinline = LLVMGetEnumAttributeKindForName(c"noinline".as_ptr(), 8);
                LLVMAddCallSiteAttribute(call, llvm_sys::LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, noinline, 0));
                let mut args = [loc_arg, gtid];
                at(LLVMBuildCall2(b, end_ty, end_ser, args.as_mut_ptr(), 2, c"".as_ptr()));
                at(LLVMBuildBr(b, join));
            }
            None => {
                at(LLVMBuildBr(b, parallel));
            }
        }
        let (end_ty, end) = function(m, SUPPORT_END, fn_type(LLVMVoidTypeInContext(c), &mut [d.ptr], false));
        LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(join));
        let mut args = [ctx];
        at(LLVMBuildCall2(b, end_ty, end, args.as_mut_ptr(), 1, c"".as_ptr()));
        LLVMDisposeBuilder(b);
        // Idempotence: this fork is the pass's now.
        let kind = LLVMGetMDKindIDInContext(c, REGION_KIND.as_ptr().cast(), REGION_KIND.len() as u32);
        let mut text = [LLVMMDStringInContext2(c, model.as_ptr().cast(), model.len())];
        let node = LLVMMDNodeInContext2(c, text.as_mut_ptr(), 1);
        LLVMSetMetadata(fork, kind, LLVMMetadataAsValue(c, node));
    }
}

/// The block after `block` in its function (null: the last).
fn next_block(block: ir::BlockRef) -> ir::BlockRef {
    unsafe { LLVMGetNextBasicBlock(block) }
}

/// The team the region's `num_threads` clause asks for: clang and flang push it right before
/// the fork, in the fork's block.
fn num_threads_clause(fork: ValueRef) -> Option<ValueRef> {
    let mut cursor = unsafe { LLVMGetPreviousInstruction(fork) };
    while !cursor.is_null() {
        if ir::is_call(cursor) {
            match ir::callee_name(cursor).as_str() {
                "__kmpc_push_num_threads" => return ir::call_args(cursor).get(2).copied(),
                "__kmpc_fork_call" | "__kmpc_fork_teams" => return None,
                _ => {}
            }
        }
        cursor = unsafe { LLVMGetPreviousInstruction(cursor) };
    }
    None
}

/// Where the module calls the loader and nothing says which runtime it loads by default, the
/// runtime installed beside this pass (`libompadapt_rt.so` in the pass library's directory):
/// a weak hidden pointer, as the frontend defines it.
pub(crate) fn define_default_runtime(m: LLVMModuleRef) {
    let name = CString::new(SUPPORT_DEFAULT_RUNTIME).unwrap();
    if unsafe { !LLVMGetNamedGlobal(m, name.as_ptr()).is_null() } {
        return;
    }
    let Some(path) = runtime_beside_pass() else { return };
    unsafe {
        let c = LLVMGetModuleContext(m);
        let text = c_string(m, "ompadapt.default_runtime", &format!("{path}\0"));
        let ptr = LLVMPointerTypeInContext(c, 0);
        let g = LLVMAddGlobal(m, ptr, name.as_ptr());
        LLVMSetInitializer(g, text);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMWeakAnyLinkage);
        LLVMSetVisibility(g, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
        // Only the loader's assembly reads it: without this, LTO finds no reference and drops it.
        compiler_used(m, g);
    }
}

/// Adds `g` to `llvm.compiler.used` (kept by the optimiser and LTO, whatever refers to it).
fn compiler_used(m: LLVMModuleRef, g: ValueRef) {
    unsafe {
        let c = LLVMGetModuleContext(m);
        let ptr = LLVMPointerTypeInContext(c, 0);
        let old = LLVMGetNamedGlobal(m, c"llvm.compiler.used".as_ptr());
        let mut elements: Vec<ValueRef> = Vec::new();
        if !old.is_null() {
            let init = LLVMGetInitializer(old);
            if !init.is_null() {
                elements.extend((0..LLVMGetNumOperands(init) as u32).map(|k| LLVMGetOperand(init, k)));
            }
            LLVMDeleteGlobal(old);
        }
        elements.push(g);
        let array = LLVMConstArray2(ptr, elements.as_mut_ptr(), elements.len() as u64);
        let used = LLVMAddGlobal(m, LLVMTypeOf(array), c"llvm.compiler.used".as_ptr());
        LLVMSetInitializer(used, array);
        LLVMSetLinkage(used, llvm_sys::LLVMLinkage::LLVMAppendingLinkage);
        LLVMSetSection(used, c"llvm.metadata".as_ptr());
    }
}

/// `libompadapt_rt.so` in the directory of the library this code is in, canonical, if it exists.
fn runtime_beside_pass() -> Option<String> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let here = runtime_beside_pass as *const libc::c_void;
    if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    let lib = std::path::PathBuf::from(unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned());
    let rt = lib.parent()?.join("libompadapt_rt.so");
    std::fs::canonicalize(rt).ok().map(|p| p.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_names_take_the_frontends_form() {
        assert_eq!(template_form("sim::Stencil<1>::apply<float>"), "sim::Stencil::apply<1,float>");
        assert_eq!(template_form("sim::evolve<3, double>"), "sim::evolve<3,double>");
        assert_eq!(template_form("fasten<float>"), "fasten<float>");
        assert_eq!(template_form("plain"), "plain");
        assert_eq!(template_form("operator<"), "operator<");
        assert_eq!(symbol_name("_QPsaxpy"), "saxpy");
        assert_eq!(symbol_name("main.omp_outlined"), "main");
    }

    #[test]
    fn descriptors_name_the_kinds_as_the_frontend_does() {
        let kinds = ompadapt_abi::kinds::parse_list(ompadapt_abi::kinds::DEFAULT_HOST_KINDS).unwrap();
        let d = descriptor("saxpy@a.c:3", "a.c:3", &kinds);
        assert_eq!(
            d.to_string(),
            "ompadapt1;model=saxpy@a.c:3;loc=a.c:3;features=;variants=serial,threads=0.125,threads=0.25,threads=0.5,threads=1;values=0,0.125,0.25,0.5,1;numeric=0;model_type=auto;in_parallel=as_written"
        );
    }
}
