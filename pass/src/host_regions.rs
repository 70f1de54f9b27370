//! Pass-only mode for host parallel regions: each `__kmpc_fork_call` of a module the frontend
//! did not compile becomes an adaptive region with the team-size kinds of [`crate::auto_mode`],
//! where the team analysis ([`crate::team`]) shows that nothing the region runs can observe its
//! team; elsewhere it stays as written, with a remark that says why.
//!
//! The code built around the fork (the frontend's zero-source-change mode hands its host regions
//! to this pass, so it is theirs too; same descriptor, same store entry):
//!
//! ```text
//!   spec = "ompadapt1;model=f@a.c:3;...;in_parallel=as_written"
//!   n = __ompadapt_auto_features(feats, 16, &spec, model, "")   ; the next stage fills it
//!   __ompadapt_v6_enter_team(&table, spec, feats, n, &ctx, loc, num_threads clause or INT_MIN)
//!   __kmpc_fork_call(...)                                        ; as the program wrote it
//!   __ompadapt_v6_end(&ctx)
//! ```
//!
//! `table` is the region's constant [`team_table`]; [`crate::region_features`] then moves the
//! features out of `feats` (the constants into the table, the others into the call's last
//! arguments). The support call begins the region (as written until the runtime says) and pushes
//! the chosen variant's team; `serial` is a team of one, which libomp runs serialized.
//!
//! The fork keeps `!ompadapt.region` so that a second run of the pass leaves it alone.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::{HashMap, HashSet};
use std::ffi::CString;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMInstructionGetDebugLoc;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMOpcode;
use ompadapt_abi::kinds::Kind;
use ompadapt_abi::markers::{NO_NUM_THREADS_CLAUSE, SUPPORT_DEFAULT_RUNTIME, SUPPORT_ENTER_TEAM};
use ompadapt_abi::RegionDescriptor;

use crate::auto_mode::AutoKinds;
use crate::ir::{self, ValueRef};
pub(crate) use crate::region_code::is_adaptive;
pub use crate::region_code::REGION_KIND;
use crate::region_code::{c_string, constant_global, fn_type, Region};
use crate::remarks::{Remark, RemarkId, RemarkPlace};
use crate::team::{self, analysis::Analysis, analysis::FunctionFacts};

/// What pass-only mode did to a module's host regions.
#[derive(Debug, Default)]
pub struct HostOutcome {
    pub changed: bool,
    pub remarks: Vec<Remark>,
    /// The regions made adaptive.
    pub adaptive: Vec<String>,
}

/// Makes every eligible fork of `module` adaptive with `kinds`.
pub fn make_adaptive(module: &Module<'_>, kinds: &AutoKinds, explicit: &HashSet<ValueRef>) -> HostOutcome {
    let mut out = HostOutcome::default();
    let m = module.as_mut_ptr();
    if !kinds.host.is_empty() {
        out.changed |= crate::fork_if::split_forks_if(module) > 0;
    }
    // The host versions of offload regions (and the parallel regions they run) are the offload's:
    // the variants of pass-only mode apply to the program's own host parallel regions.
    let offload_code = offload_host_code(module);
    out.remarks.extend(sites_without_variants(module, kinds, explicit, &offload_code));
    if kinds.host.is_empty() {
        return out;
    }
    let forks = forks_to_decide(module, explicit);
    if forks.is_empty() {
        return out;
    }
    let (in_offload, forks): (Vec<ValueRef>, Vec<ValueRef>) = forks.into_iter().partition(|f| offload_code.contains(&ir::function_of(*f)));
    let mut remark_names = Names::default();
    for fork in in_offload {
        let (model, _) = remark_names.name(m, fork, 0);
        out.remarks.push(RemarkPlace::of(fork).remark(RemarkId::NestedRegion, &model, OFFLOAD_HOST_FORK));
    }
    let outlined = outlined_functions(module);
    let module_wide = team::module_wide(module);
    let mut names = Names::default();
    let mut first_adaptive = None;
    let facts = std::rc::Rc::new(std::cell::RefCell::new(FunctionFacts::default()));
    for (k, fork) in forks.into_iter().enumerate() {
        let (model, named_by_debug_info) = names.name(m, fork, k);
        let place = RemarkPlace::of(fork);
        let (functions, deps) = match eligible(fork, &outlined, &module_wide, &facts) {
            Ok(m) => m,
            Err((id, why)) => {
                out.remarks.push(place.remark(id, &model, why));
                continue;
            }
        };
        if !named_by_debug_info {
            out.remarks.push(place.remark(
                RemarkId::RegionNamedByOrder,
                &model,
                "no debug location (compile with -g or -gline-tables-only): the region is named after its function and its order in the module",
            ));
        }
        if !deps.is_empty() {
            out.remarks.push(place.remark(RemarkId::DependsOnOtherUnits, &model, team::dependencies_remark(&deps)));
        }
        // (the region's code goes into the fork's function only: what the analyses of the next
        // regions found of other functions holds)
        facts.borrow_mut().forget(ir::function_of(fork));
        build_region(m, fork, &model, &kinds.host, ompadapt_abi::summary::Dependencies(deps));
        ir::invalidate();
        let listed: Vec<String> = kinds.host.iter().map(Kind::name).collect();
        let plural = if functions == 1 { "" } else { "s" };
        let what = format!("nothing it runs, {functions} function{plural}, can observe its team");
        let message = format!("the parallel region became adaptive with variants {} ({what})", listed.join(", "));
        out.remarks.push(place.remark(RemarkId::HostRegionAdaptive, &model, message));
        out.adaptive.push(model);
        first_adaptive.get_or_insert(fork);
        out.changed = true;
    }
    if out.changed {
        define_default_runtime(m);
        if let (false, Some(first)) = (kinds.unused.is_empty(), first_adaptive) {
            out.remarks.push(unused_kinds(first, &out.adaptive[0], &kinds.unused));
        }
    }
    out
}

/// The forks pass-only mode decides: `__kmpc_fork_call`s not yet a region, not an explicit
/// region's.
fn forks_to_decide(module: &Module<'_>, explicit: &HashSet<ValueRef>) -> Vec<ValueRef> {
    module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| {
            ir::opcode(*i) == Some(LLVMOpcode::LLVMCall)
                && ir::callee_name(*i) == crate::entry_points::name::FORK_CALL
                && !is_adaptive(*i)
                && !explicit.contains(i)
        })
        .collect()
}

/// Why a fork of an offload region's host version is no region of its own.
const OFFLOAD_HOST_FORK: &str =
    "left as written: it runs in the host version of an offload region (a target region's code, or code it calls), whose variants decide how it runs";

/// The remarks for the construct-starting calls pass-only mode gives no variants whatever their
/// code, so that no fork is skipped in silence: forks when the kinds have none for host regions
/// (and flang's `__kmpc_fork_call_if`, then not split), host `teams` constructs (their forks,
/// `__kmpc_fork_teams`; those of an offload region's host version are the offload's), and the
/// forks of explicit regions, which their directives decide.
fn sites_without_variants(
    module: &Module<'_>,
    kinds: &AutoKinds,
    explicit: &HashSet<ValueRef>,
    offload_code: &HashSet<ValueRef>,
) -> Vec<Remark> {
    use crate::entry_points::name::{FORK_CALL, FORK_TEAMS};
    let m = module.as_mut_ptr();
    let mut names = Names::default();
    let mut out = Vec::new();
    for i in module.get_functions().flat_map(|f| ir::function_instructions(f.as_value_ref())) {
        let callee = if ir::is_call(i) { ir::callee_name(i) } else { continue };
        let fork = callee == FORK_CALL || callee == crate::fork_if::FORK_CALL_IF;
        if !(fork || callee == FORK_TEAMS) || is_adaptive(i) {
            continue;
        }
        let in_offload = offload_code.contains(&ir::function_of(i));
        let (id, why) = if explicit.contains(&i) {
            (RemarkId::ExplicitRegionConstruct, "a construct of an explicit adaptive region: its directive's variants apply".to_string())
        } else if callee == FORK_TEAMS && in_offload {
            (
                RemarkId::NestedRegion,
                "left as written: the teams region of an offload region's host version, whose variants decide how it runs".into(),
            )
        } else if callee == FORK_TEAMS {
            (
                RemarkId::NoVariantsForConstruct,
                "left as written: a host teams construct; pass-only mode has no variants for teams regions".into(),
            )
        } else if kinds.host.is_empty() && in_offload {
            (RemarkId::NestedRegion, OFFLOAD_HOST_FORK.to_string())
        } else if kinds.host.is_empty() {
            (RemarkId::NoVariantsForConstruct, "left as written: the kinds given have none for host parallel regions".into())
        } else {
            continue;
        };
        let (model, _) = names.name(m, i, 0);
        out.push(RemarkPlace::of(i).remark(id, &model, why));
    }
    out
}

/// The number of functions the analysis walked and the functions of other
/// translation units its code calls, where its variants may apply; else the remark's identifier
/// and why it stays as written.
fn eligible(
    fork: ValueRef,
    outlined: &HashSet<ValueRef>,
    module_wide: &Option<(team::analysis::Finding, &'static str)>,
    facts: &std::rc::Rc<std::cell::RefCell<FunctionFacts>>,
) -> Result<(usize, std::collections::BTreeSet<ompadapt_abi::summary::Dependency>), (RemarkId, String)> {
    let Some(microtask) = microtask_of(fork) else {
        return Err((RemarkId::TeamNoRegion, "left as written: the parallel region's outlined function is not in this module".into()));
    };
    // A parallel construct written inside another one: its team is the enclosing region's
    // business (the frontend's zero-source-change mode leaves it too). One in a function called
    // from a parallel region stays eligible: it runs as written when it starts inside an active
    // parallel region (the descriptor's `in_parallel=as_written`).
    let host = ir::function_of(fork);
    if outlined.contains(&host) {
        return Err((
            RemarkId::NestedRegion,
            format!("left as written: nested in the parallel region of '{}'", team::analysis::display_name(host)),
        ));
    }
    if let Some((found, tail)) = module_wide.as_ref().filter(|(f, _)| f.reason == team::analysis::Reason::ObservedByTool) {
        return Err((team::remark_id(found.reason), format!("left as written: {}; {tail}", found.describe())));
    }
    let mut analysis = Analysis::sharing(facts.clone());
    let deps = analysis
        .region_with_dependencies(microtask)
        .map_err(|found| (team::remark_id(found.reason), format!("left as written: {}", found.describe())))?;
    if let Some((found, tail)) = module_wide {
        return Err((team::remark_id(found.reason), format!("left as written: {}; {tail}", found.describe())));
    }
    Ok((analysis.functions, deps))
}

/// The remark that lists the kinds pass-only mode does not apply.
fn unused_kinds(at: ValueRef, model: &str, unused: &[Kind]) -> Remark {
    let unused: Vec<String> = unused.iter().map(Kind::name).collect();
    RemarkPlace::of(at).remark(
        RemarkId::AutoKindsUnused,
        model,
        format!("kinds pass-only mode does not apply (schedules and coschedule need the source): {}", unused.join(", ")),
    )
}

/// The functions the host versions of offload regions run: those clang and flang name
/// `__omp_offloading_*` and the teams they fork (`__kmpc_fork_teams`), with everything they call.
pub(crate) fn offload_host_code(module: &Module<'_>) -> HashSet<ValueRef> {
    let mut queue: Vec<ValueRef> = Vec::new();
    for f in module.get_functions() {
        let fv = f.as_value_ref();
        if f.get_name().to_bytes().starts_with(crate::omp_calls::OFFLOADING_PREFIX.as_bytes()) {
            queue.push(fv);
        }
        for i in ir::function_instructions(fv) {
            if ir::is_call(i) && ir::callee_name(i) == crate::entry_points::name::FORK_TEAMS {
                if let Some(m) = ir::call_args(i).get(2) {
                    queue.push(ir::strip_to_global(*m));
                }
            }
            // the host fallback a launch calls when it fails, whatever its name (flang's)
            if ir::is_call(i) && ir::callee_name(i) == crate::omp_calls::TGT_TARGET_KERNEL {
                // SAFETY: `i` is an instruction of the module.
                let launch = unsafe { inkwell::values::InstructionValue::new(i) };
                queue.extend(
                    crate::omp_calls::fallback_calls(launch)
                        .into_iter()
                        .filter_map(|c| crate::ir::is_call(c.as_value_ref()).then(|| ir::callee(c.as_value_ref()))),
                );
            }
        }
    }
    ir::reachable_functions(queue)
}

/// The outlined functions of parallel regions: the microtasks of the module's forks, and what
/// clang (`.omp_outlined`) and flang (`..omp_par`) name so (with `-g` clang puts a wrapper
/// between the microtask and the region's code).
fn outlined_functions(module: &Module<'_>) -> HashSet<ValueRef> {
    let mut set = HashSet::default();
    for f in module.get_functions() {
        let fv = f.as_value_ref();
        let name = f.get_name().to_string_lossy();
        if name.contains(".omp_outlined") || name.contains("..omp_par") {
            set.insert(fv);
        }
        for i in ir::function_instructions(fv) {
            if ir::is_call(i) && ir::callee_name(i).starts_with(crate::entry_points::name::prefix::FORK) {
                if let Some(m) = ir::call_args(i).get(2) {
                    set.insert(ir::strip_to_global(*m));
                }
            }
        }
    }
    set
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
    /// The columns and outlined functions of the constructs named so far, by base name.
    given: HashMap<String, Vec<(u32, ValueRef)>>,
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
        // Copies of one construct (inlined into several functions: one outlined function) share
        // its region; another construct at the same place (another column: a macro; another
        // outlined function: flang-19 gives every fork of a procedure one location) gets `#2`.
        let outlined = ir::call_args(fork).get(2).map(|m| ir::strip_to_global(*m)).unwrap_or(std::ptr::null_mut());
        let columns = self.given.entry(base.clone()).or_default();
        let k = match columns.iter().position(|c| *c == (column, outlined)) {
            Some(k) => k,
            None => {
                columns.push((column, outlined));
                columns.len() - 1
            }
        };
        (if k == 0 { base } else { format!("{base}#{}", k + 1) }, by_debug_info)
    }
}

extern "C" {
    fn ompadapt_location_function(
        i: ValueRef,
        name: *mut std::ffi::c_char,
        file: *mut std::ffi::c_char,
        size: u32,
        column: *mut u32,
    ) -> bool;
}

/// Where the fork was written: the source function of its debug location (where it was inlined
/// from), the file as the compile line spelled it, the line and the column.
pub(crate) struct Written {
    pub function: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
}

thread_local! {
    /// The source root of the module being made adaptive (`-fplugin-arg-ompadapt-source-root`,
    /// from the frontend's mark): region names spell files relative to it, so that a moved
    /// checkout keeps its names. Set around the making of one module's regions.
    static SOURCE_ROOT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Sets (or, with None, clears) the source root of [`written`]'s file names.
pub(crate) fn set_source_root(root: Option<String>) {
    SOURCE_ROOT.with(|r| *r.borrow_mut() = root.map(|r| r.trim_end_matches('/').to_owned()));
}

/// `file` relative to the source root, where it is under it, without leading `./`.
fn relative_to_root(file: String) -> String {
    let file = crate::construct_places::without_dot_slash(&file).to_owned();
    SOURCE_ROOT.with(|r| match r.borrow().as_deref() {
        Some(root) => file.strip_prefix(root).and_then(|rest| rest.strip_prefix('/')).map_or(file.clone(), str::to_owned),
        None => file,
    })
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
    Some(Written { function: text(&name), file: relative_to_root(text(&file)), line, column })
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
    // an offload region's host version (`__omp_offloading_<device>_<file>_<function>_l<line>`,
    // `..._debug__` with -g): the function the target directive is written in
    if let Some(function) = offload_entry_function(symbol) {
        return symbol_name(&function);
    }
    // flang: _QPsaxpy (a procedure), _QQmain (the main program), _QMmodPsub (a module's)
    if let Some(rest) = symbol.strip_prefix("_Q") {
        if rest == "Qmain" {
            return "main".into();
        }
        if let Some(p) = rest.rfind('P') {
            return source_level(&rest[p + 1..]);
        }
    }
    lambda_form(&template_form(&source_level(&team::analysis::demangle(symbol))))
}

/// The function an offload entry's symbol names, for `__omp_offloading_<device>_<file>_<function>_l<line>`
/// (`_l<line>_<n>` for a second kernel of one line, `_debug__` for clang's -g wrapper).
fn offload_entry_function(symbol: &str) -> Option<String> {
    let base = source_level(symbol);
    let entry = base.strip_prefix(crate::omp_calls::OFFLOADING_PREFIX)?;
    let entry = entry.strip_suffix("_debug__").unwrap_or(entry);
    let (function, line) = entry.splitn(3, '_').nth(2)?.rsplit_once("_l")?;
    (line.split('_').all(|n| n.parse::<u32>().is_ok()) && !function.is_empty()).then(|| function.to_owned())
}

/// A lambda's region is named after the function around it, with the lambda's template
/// arguments (a generic lambda's instance), as the frontend names it:
/// `main::$_0::operator() const<float>` -> `main<float>`.
fn lambda_form(name: &str) -> String {
    let (base, args) = name.find('<').map_or((name, ""), |k| name.split_at(k));
    match ["::$_", "::{lambda"].iter().filter_map(|m| base.find(m)).min() {
        Some(k) => format!("{}{args}", &base[..k]),
        None => name.to_string(),
    }
}

/// A demangled C++ name in the form of the frontend's instance names: every template argument
/// list moved to the end as one list, arguments trimmed (`sim::Stencil<1>::apply<float>` ->
/// `sim::Stencil::apply<1,float>`). Names of operators are left as they are.
pub(crate) fn template_form(name: &str) -> String {
    // (`operator<`, `operator<<`, `operator->`...: angle brackets that are not template lists)
    let operator_with_angles = ["operator<", "operator>", "operator->"].iter().any(|o| name.contains(o));
    if !name.contains('<') || operator_with_angles {
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
    // as __PRETTY_FUNCTION__ writes nested lists: `Vector<double, int, int>>`, not `> >`
    let mut list = args.join(",");
    while list.contains("> >") {
        list = list.replace("> >", ">>");
    }
    format!("{base}<{list}>")
}

/// The module's source file name, without directories.
pub(crate) fn source_file(m: LLVMModuleRef) -> String {
    let mut len = 0usize;
    unsafe {
        let p = LLVMGetSourceFileName(m, &mut len);
        let s =
            if p.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned() };
        s.rsplit('/').next().unwrap_or_default().to_string()
    }
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
fn build_region(m: LLVMModuleRef, fork: ValueRef, model: &str, kinds: &[Kind], depends: ompadapt_abi::summary::Dependencies) {
    // `loc=`: the file and line of the name (`?` for a region named by its order)
    let loc = model.split_once('@').map(|(_, l)| l.split('#').next().unwrap_or(l)).filter(|l| l.contains(':')).unwrap_or("?");
    let sym = format!("{}._ompadapt_p", ir::name(ir::function_of(fork)));
    let mut d = descriptor(model, loc, kinds);
    d.depends = depends;
    let spec = d.to_string();
    let (r, begin) = Region::prepare(m, fork, &sym, model, &spec);
    let d = &r.d;
    let table = team_table(m, d, &sym, kinds, begin.slot);
    let program = match num_threads_clause(fork) {
        Some((push, v)) => {
            // the region pushes its variant's team right before the fork; the program's push,
            // left where it was, would go to the first fork after it: the runtime's start-up
            // region when the region's begin starts the runtime
            unsafe { llvm_sys::core::LLVMInstructionEraseFromParent(push) };
            ir::invalidate();
            v
        }
        None => unsafe { LLVMConstInt(d.i32t, NO_NUM_THREADS_CLAUSE as u64, 1) },
    };
    let loc_arg = ir::call_args(fork)[0];
    let void = unsafe { LLVMVoidTypeInContext(LLVMGetModuleContext(m)) };
    // (variadic: crate::region_features passes the features that change after these)
    let enter_ty = fn_type(void, &mut [d.ptr, d.ptr, d.ptr, d.i32t, d.ptr, d.ptr, d.i32t], true);
    r.call(SUPPORT_ENTER_TEAM, enter_ty, &mut [table, begin.spec, begin.features, begin.nfeatures, r.ctx, loc_arg, program]);
    // end right after the fork
    let rest = unsafe { LLVMGetNextInstruction(fork) };
    r.end_before(rest, fork, model);
}

/// The region's constant `{ slot, constants, dynamic, nvariants, teams[nvariants + 1] }` (the
/// lowering header's `struct __ompadapt_team_region`, fields in [`crate::region_features`]):
/// per variant the team it asks for, -N for N threads, a share F of the program's team, and 0
/// (the program's team) for the region as written.
fn team_table(m: LLVMModuleRef, d: &crate::region_code::Decls, sym: &str, kinds: &[Kind], slot: ValueRef) -> ValueRef {
    unsafe {
        let c = LLVMGetModuleContext(m);
        let mut teams: Vec<ValueRef> = kinds
            .iter()
            .map(|k| match (k, k.team_arguments()) {
                // one thread: libomp runs a team of one serialized, as it runs `if(0)`
                (Kind::Serial, _) => -1.0,
                (_, (absolute, _)) if absolute > 0 => -(absolute as f64),
                (_, (_, share)) => share,
            })
            .chain(std::iter::once(0.0))
            .map(|t| LLVMConstReal(d.f64t, t))
            .collect();
        let array = LLVMConstArray2(d.f64t, teams.as_mut_ptr(), teams.len() as u64);
        // (every feature in the region's own array until crate::region_features folds some)
        let all_dynamic = LLVMConstInt(d.i32t, u32::MAX as u64, 0);
        let mut fields = [slot, LLVMConstNull(d.ptr), all_dynamic, LLVMConstInt(d.i32t, kinds.len() as u64, 0), array];
        let init = LLVMConstStructInContext(c, fields.as_mut_ptr(), fields.len() as u32, 0);
        constant_global(m, &format!("{sym}.teams"), init)
    }
}

/// The team the region's `num_threads` clause asks for: the push that dominates the fork with no
/// other fork between. clang pushes right before the fork, in its block; flang-19 pushes in the
/// block before it (`entry: push; br omp_parallel` / `omp_parallel: fork`), so the search goes
/// on through blocks with one predecessor (each dominates the fork). A call into code that may
/// fork (a defined or unknown function) consumes or changes the push: the search stops there.
/// The push call and the team it asks for.
fn num_threads_clause(fork: ValueRef) -> Option<(ValueRef, ValueRef)> {
    use crate::entry_points::name::{prefix::FORK, PUSH_NUM_THREADS};
    let mut cursor = unsafe { LLVMGetPreviousInstruction(fork) };
    let mut block = ir::block_of(fork);
    let preds = ir::predecessors(ir::function_of(fork));
    for _ in 0..16 {
        while !cursor.is_null() {
            if ir::is_call(cursor) {
                match ir::callee_name(cursor).as_str() {
                    n if n == PUSH_NUM_THREADS => return ir::call_args(cursor).get(2).map(|v| (cursor, *v)),
                    n if n.starts_with(FORK) => return None,
                    // what this pass inserted before the fork, intrinsics, the OpenMP runtime's
                    n if n.starts_with("llvm.")
                        || n.starts_with(ompadapt_abi::markers::RESERVED_PREFIX)
                        || crate::entry_points::lookup(n).is_some() => {}
                    _ => return None,
                }
            }
            cursor = unsafe { LLVMGetPreviousInstruction(cursor) };
        }
        match preds.get(&block).map(|p| p.as_slice()) {
            Some([only]) if *only != block => {
                block = *only;
                cursor = unsafe { LLVMGetLastInstruction(block) };
            }
            _ => return None,
        }
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
    ir::add_to_used_list(m, g, c"llvm.compiler.used");
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
        assert_eq!(lambda_form("main::$_0::operator() const<float>"), "main<float>");
        assert_eq!(lambda_form("ns::f::{lambda(auto:1)#1}::operator()"), "ns::f");
        assert_eq!(lambda_form("Stencil::relax<float,2>"), "Stencil::relax<float,2>");
        assert_eq!(template_form("plain"), "plain");
        assert_eq!(template_form("operator<"), "operator<");
        assert_eq!(
            template_form("miniFE::matvec_std<miniFE::CSRMatrix<double, int, int> >::operator()"),
            "miniFE::matvec_std::operator()<miniFE::CSRMatrix<double, int, int>>"
        );
        assert_eq!(symbol_name("_QPsaxpy"), "saxpy");
        assert_eq!(symbol_name("main.omp_outlined"), "main");
        // an offload region's host version, with clang's -g wrapper or not, and its outlined code
        assert_eq!(symbol_name("__omp_offloading_fe00_138134_main_l14"), "main");
        assert_eq!(symbol_name("__omp_offloading_fe00_138134_main_l14_debug__.omp_outlined"), "main");
        assert_eq!(symbol_name("__omp_offloading_fe00_1_do_work_l58_1"), "do_work");
        assert_eq!(symbol_name("__omp_offloading_fe00_1__Z3fooPd_l9"), "foo");
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
