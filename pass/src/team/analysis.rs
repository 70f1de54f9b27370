//! The analysis: does a parallel region's code — its outlined function and everything it calls,
//! transitively — observe the size of its team? It walks the call graph from the region's
//! microtask and stops at the first thing it cannot show invariant:
//!
//! - a call that asks for the team (`omp_get_thread_num`, `omp_get_num_threads`,
//!   `omp_in_parallel`, ... and the runtime entry points with that role, see
//!   [`crate::entry_points`]);
//! - thread-local data (`threadprivate`, `thread_local`, `__thread`): each thread has its copy;
//! - code it cannot see: a call through a pointer (also a virtual call), inline assembly, a
//!   function of another translation unit or library, unless it is known not to ask (the C and
//!   C++ standard libraries, the C++ ABI runtime, a declaration that reads no memory, a call
//!   that does not return);
//! - an effect that every thread of the team has once ([`super::scope`]: code outside
//!   worksharing): a store to memory that is not the thread's own ([`super::private`]), a call
//!   that writes such memory or does I/O, a reduction's private copy updated there (the
//!   combined result would count the threads).
//!
//! A nested parallel region started by every thread of the team runs once per thread: all its
//! code, its own worksharing included, is walked as replicated (`Mode::Nested`). One started
//! once (in worksharing, `single`, ...) is walked as a region of its own: its team changes when
//! the enclosing one becomes inactive (a team of one). What the analysis finds is a [`Finding`]:
//! what, where, and through which calls.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::cell::RefCell;
use std::collections::BTreeSet;

use crate::fast_hash::{HashMap, HashSet};
use std::rc::Rc;

use llvm_sys::core::{
    LLVMCountParamTypes, LLVMGetCalledValue, LLVMGetParamTypes, LLVMGetTypeKind, LLVMGlobalGetValueType, LLVMIsAInlineAsm,
    LLVMIsFunctionVarArg, LLVMIsThreadLocal,
};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

use super::library::{self, is_cxx_abi_runtime, is_cxx_standard_library};
use super::private::Privacy;
use super::scope::{strip, Scope, Scopes};
use crate::entry_points::{in_family, lookup, Role};
use crate::ir::{self, ValueRef};
use ompadapt_abi::summary::{Dependency, Key};

/// What makes a region's team observable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// It asks for the team (thread number, team size, active level, ...).
    TeamQuery,
    /// It uses thread-local data.
    ThreadLocal,
    /// It calls code the compiler cannot see.
    Opaque,
    /// It calls through a pointer.
    Indirect,
    /// Every thread of the team has an effect.
    Replicated,
    /// Every thread updates its copy of a reduction variable outside worksharing.
    ReductionPrivate,
    /// No parallel region follows the marker.
    NoFork,
    /// A thread waits in a loop for what another thread writes.
    Waits,
    /// A private copy carries a value from one iteration of a thread to its next.
    Carried,
    /// The program is an OMPT tool: it is told of every region's team.
    ObservedByTool,
}

/// What the analysis found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub reason: Reason,
    /// What, in words ("it calls omp_get_thread_num").
    pub what: String,
    /// `file:line` of the instruction, when the module has debug locations.
    pub at: Option<String>,
    /// The functions from the region's code to the instruction, outermost first.
    pub path: Vec<String>,
}

impl Finding {
    fn new(reason: Reason, what: impl Into<String>, inst: ValueRef) -> Finding {
        let at = if inst.is_null() { None } else { ir::debug_location(inst) };
        let path = if inst.is_null() { Vec::new() } else { vec![display_name(ir::function_of(inst))] };
        Finding { reason, what: what.into(), at, path }
    }

    /// `what (at file:line, in f, called from g)`.
    pub fn describe(&self) -> String {
        let mut s = self.what.clone();
        let mut place = Vec::new();
        if let Some(at) = &self.at {
            place.push(format!("at {at}"));
        }
        if let Some(inner) = self.path.last() {
            place.push(format!("in '{inner}'"));
        }
        if self.path.len() > 1 {
            let callers: Vec<String> = self.path[..self.path.len() - 1].iter().rev().map(|f| format!("'{f}'")).collect();
            place.push(format!("called from {}", callers.join(" <- ")));
        }
        if !place.is_empty() {
            s.push_str(&format!(" ({})", place.join(", ")));
        }
        s
    }
}

/// A function's name as written (C++ names demangled, clang's outlined regions named after
/// their function).
pub fn display_name(f: ValueRef) -> String {
    let name = ir::name(f);
    if name.starts_with(".omp_task_entry.") {
        return "a task's entry".into();
    }
    if let Some(stem) = name.split(".omp_outlined").next().filter(|_| name.contains(".omp_outlined")) {
        return if stem.is_empty() { "a task".into() } else { format!("{} (parallel region)", demangle(stem)) };
    }
    demangle(&name)
}

/// `name` demangled (C++), or as it is.
pub fn demangle(name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle_with_options(&cpp_demangle::DemangleOptions::new().no_params().no_return_type()).ok())
        .unwrap_or_else(|| name.to_string())
}

/// How a function is run: by every thread of a team, or as divided work (or by one thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Mode {
    Replicated,
    Divided,
    /// Run by every thread of an enclosing team, worksharing and all: a parallel region nested
    /// in replicated code runs once per thread of the enclosing team, so even the work its own
    /// team divides happens once per enclosing thread (and so does what it calls).
    Nested,
}

/// One analysis: what was walked and decided. One serves a region, or every function a
/// translation unit summarises ([`super::summary`]): what it keeps is complete for each entry
/// (a function walked while a caller of it was still being walked is kept only once that caller
/// is done, see [`Analysis::walk`]).
#[derive(Default)]
pub struct Analysis {
    decided: HashMap<WalkKey, (Option<Finding>, BTreeSet<Dependency>)>,
    /// The functions being walked, with their depth on the walk's stack.
    walking: HashMap<WalkKey, usize>,
    /// The shallowest function on the stack that the current walk reached again (a cycle).
    low: usize,
    /// The dependencies of the functions on the stack, innermost last.
    open: Vec<BTreeSet<Dependency>>,
    /// How many functions were walked.
    pub functions: usize,
    /// Calls of functions the module only declares, which another translation unit may define,
    /// are recorded as dependencies (resolved from that unit's summary when the program runs)
    /// instead of found opaque; see [`Analysis::region_with_dependencies`].
    pub defer: bool,
    /// Whether the code being walked runs in a thread's implicit task of the region (its thread
    /// number is the thread's in the team), not in an explicit task (which any thread may run)
    /// nor on a thread of its own (a callback), nor for a caller this unit does not see (a
    /// summary's root): only there is `if (omp_get_thread_num() == 0)` a `masked` block.
    implicit: bool,
    /// What the walk found of functions' own code, shared with the other analyses of code that
    /// has not changed since (see [`FunctionFacts`]).
    facts: Rc<RefCell<FunctionFacts>>,
}

/// What the walk computes of one function's own code alone, under the flag that says whether its
/// thread-0 guards are `masked` blocks: its instructions' scopes and the private copy it carries.
/// The analyses of a module's regions and its summary's keys walk the same functions again; each
/// is computed once while the function is unchanged (the caller forgets a function it changes).
#[derive(Default)]
pub struct FunctionFacts {
    scopes: HashMap<(ValueRef, bool), Rc<Scopes>>,
    carried: HashMap<(ValueRef, bool), Option<super::carried::Carried>>,
}

impl FunctionFacts {
    /// Forgets what was found of `f`, whose code changed.
    pub fn forget(&mut self, f: ValueRef) {
        self.scopes.retain(|k, _| k.0 != f);
        self.carried.retain(|k, _| k.0 != f);
    }
}

type WalkKey = (ValueRef, Mode, u64, bool);

/// Parameters of a parallel region's microtask that point at the thread's own memory: its
/// global and bound thread ids (the runtime's; no program code writes through them).
const MICROTASK_OWN: u64 = 0b11;

impl Analysis {
    /// An analysis that shares `facts` with others of the same unchanged code.
    pub fn sharing(facts: Rc<RefCell<FunctionFacts>>) -> Analysis {
        Analysis { facts, ..Analysis::default() }
    }

    /// [`Scopes::of`] `f`, computed once (see [`FunctionFacts`]).
    fn scopes(&self, f: ValueRef, implicit_task: bool) -> Rc<Scopes> {
        let known = self.facts.borrow().scopes.get(&(f, implicit_task)).cloned();
        known.unwrap_or_else(|| {
            let scopes = Rc::new(Scopes::of(f, implicit_task));
            self.facts.borrow_mut().scopes.insert((f, implicit_task), scopes.clone());
            scopes
        })
    }

    /// [`super::carried::carried_copy`] of `f` with its scopes under `implicit_task`, computed once.
    fn carried(&self, f: ValueRef, implicit_task: bool, scopes: &Scopes) -> Option<super::carried::Carried> {
        let known = self.facts.borrow().carried.get(&(f, implicit_task)).copied();
        known.unwrap_or_else(|| {
            let carried = super::carried::carried_copy(f, scopes);
            self.facts.borrow_mut().carried.insert((f, implicit_task), carried);
            carried
        })
    }

    /// Whether the parallel region whose microtask is `microtask` may observe its team: the
    /// first thing found, or None.
    pub fn region(&mut self, microtask: ValueRef) -> Option<Finding> {
        self.walk_in(microtask, Mode::Replicated, MICROTASK_OWN, true)
    }

    /// [`Analysis::region`] with calls of other translation units deferred: the first thing
    /// found, or the functions of other units the region's code calls (empty: nothing).
    pub fn region_with_dependencies(&mut self, microtask: ValueRef) -> Result<BTreeSet<Dependency>, Finding> {
        self.defer = true;
        self.root(microtask, Mode::Replicated, MICROTASK_OWN, true)
    }

    /// What function `f` (of this module, defined for other units) does when its caller runs
    /// it as `key` says: the first thing found, or the functions of other units it calls.
    pub fn summary(&mut self, f: ValueRef, key: Key) -> Result<BTreeSet<Dependency>, Finding> {
        self.defer = true;
        let (mode, params) = match key {
            Key::Replicated => (Mode::Replicated, 0),
            Key::ReplicatedPrivate => (Mode::Replicated, u64::MAX),
            Key::Divided => (Mode::Divided, 0),
            Key::Nested => (Mode::Nested, 0),
        };
        // another unit's caller may run it in an explicit task: no thread-0 guard is `masked`
        self.root(f, mode, params, false)
    }

    fn root(&mut self, f: ValueRef, mode: Mode, params: u64, implicit: bool) -> Result<BTreeSet<Dependency>, Finding> {
        self.open.push(BTreeSet::new());
        let found = self.walk_in(f, mode, params, implicit);
        let deps = self.open.pop().unwrap_or_default();
        match found {
            Some(found) => Err(found),
            None => Ok(deps),
        }
    }

    /// [`Analysis::walk`] of code that runs in the context `implicit` says (see its field).
    fn walk_in(&mut self, f: ValueRef, mode: Mode, params: u64, implicit: bool) -> Option<Finding> {
        let outer = std::mem::replace(&mut self.implicit, implicit);
        let found = self.walk(f, mode, params);
        self.implicit = outer;
        found
    }

    /// Walks `f`, run as `mode` says, in the current context.
    fn walk(&mut self, f: ValueRef, mode: Mode, params: u64) -> Option<Finding> {
        let key = (f, mode, params, self.implicit);
        if let Some((found, deps)) = self.decided.get(&key) {
            let found = found.clone();
            if let Some(top) = self.open.last_mut() {
                top.extend(deps.iter().cloned());
            }
            return found;
        }
        // A recursive call: the function's code is walked where it was entered (what it finds
        // is that entry's).
        if let Some(&depth) = self.walking.get(&key) {
            self.low = self.low.min(depth);
            return None;
        }
        let depth = self.walking.len();
        self.walking.insert(key, depth);
        self.functions += 1;
        let outer_low = std::mem::replace(&mut self.low, usize::MAX);
        self.open.push(BTreeSet::new());
        let found = self.walk_body(f, mode, params);
        let deps = self.open.pop().unwrap_or_default();
        self.walking.remove(&key);
        let low = std::mem::replace(&mut self.low, outer_low);
        // Complete unless it reached a caller still being walked (then that caller's entry
        // holds the whole cycle): a partial entry is not kept, nor is its cycle forgotten.
        if low >= depth || found.is_some() {
            self.decided.insert(key, (found.clone(), deps.clone()));
        } else {
            self.low = self.low.min(low);
        }
        if let Some(top) = self.open.last_mut() {
            top.extend(deps);
        }
        found
    }

    /// Records that the code calls `symbol`, defined by another unit, run as `mode` says.
    fn depend(&mut self, symbol: String, mode: Mode, scope: Scope, all_private: bool) {
        let key = match callee_mode(mode, scope) {
            Mode::Nested => Key::Nested,
            Mode::Divided => Key::Divided,
            Mode::Replicated if all_private => Key::ReplicatedPrivate,
            Mode::Replicated => Key::Replicated,
        };
        if let Some(top) = self.open.last_mut() {
            top.insert(Dependency { key, symbol });
        }
    }

    fn walk_body(&mut self, f: ValueRef, mode: Mode, params: u64) -> Option<Finding> {
        let flag = self.implicit && mode == Mode::Replicated;
        let scopes = if mode != Mode::Divided { self.scopes(f, flag) } else { Rc::new(Scopes::default()) };
        let privacy = Privacy::new(f, params);
        for inst in ir::function_instructions(f) {
            let scope = match mode {
                Mode::Divided => Scope::Divided,
                Mode::Nested => Scope::Replicated,
                Mode::Replicated => scopes.scope(inst),
            };
            if let Some(found) = thread_local_operand(inst) {
                return Some(found);
            }
            if let Some(found) = waits_for_another_thread(inst, &privacy) {
                return Some(found);
            }
            if ir::is_call(inst) {
                if let Some(found) = self.call(inst, mode, scope, &privacy) {
                    return Some(found);
                }
                continue;
            }
            if let Some(found) = self.function_operands(inst, mode, scope) {
                return Some(found);
            }
            if scope == Scope::Replicated {
                if let Some(found) = replicated_write(inst, &privacy) {
                    return Some(found);
                }
            }
        }
        if mode != Mode::Divided {
            if let Some(c) = self.carried(f, flag, &scopes) {
                return Some(Finding::new(Reason::Carried, c.describe(variable_name(c.slot)), c.at));
            }
            return reduction_privates_written(f, &scopes);
        }
        None
    }

    /// Functions whose address an instruction takes (a callback given to a library function,
    /// a table of functions): code that may run here, walked as the instruction's scope runs.
    fn function_operands(&mut self, inst: ValueRef, mode: Mode, scope: Scope) -> Option<Finding> {
        let n = ir::num_operands(inst);
        let skip_callee = if ir::is_call(inst) { n.checked_sub(1) } else { None };
        for k in 0..n {
            if Some(k) == skip_callee {
                continue;
            }
            let op = ir::strip_to_global(ir::operand(inst, k));
            if ir::is_function(op) && !ir::is_declaration(op) {
                // a callback may run on a thread of its own (`pthread_create`)
                if let Some(found) = self.walk_in(op, callee_mode(mode, scope), 0, false) {
                    return Some(self.through(found, inst));
                }
            } else if ir::is_function(op) && self.defer && deferrable(op) && !runs_at_exit(inst) && !known_library_function(op) {
                // a callback the module only declares (a comparator given to qsort): another
                // unit's code that may run here, with arguments the library chooses
                self.depend(ir::name(op), mode, scope, false);
            }
        }
        None
    }

    fn call(&mut self, inst: ValueRef, mode: Mode, scope: Scope, privacy: &Privacy) -> Option<Finding> {
        let called = unsafe { LLVMGetCalledValue(inst) };
        if !called.is_null() && unsafe { !LLVMIsAInlineAsm(called).is_null() } {
            return Some(Finding::new(Reason::Opaque, "it runs inline assembly", inst));
        }
        let callee = ir::callee(inst);
        if callee.is_null() {
            // a pointer the module gives only known functions (a task's privates map)
            let Some(callees) = possible_callees(called, 0) else {
                if in_standard_facet(inst) {
                    return None;
                }
                return Some(Finding::new(
                    Reason::Indirect,
                    "it calls through a function pointer (or a virtual call), whose callee the compiler cannot see",
                    inst,
                ));
            };
            for f in callees {
                if ir::is_declaration(f) {
                    if self.defer && deferrable(f) {
                        self.depend(ir::name(f), mode, scope, privacy.all_pointers_private(inst));
                        continue;
                    }
                    return Some(Finding::new(Reason::Opaque, format!("it calls '{}' through a pointer", demangle(&ir::name(f))), inst));
                }
                let params = if scope == Scope::Replicated { privacy.argument_mask(inst) } else { 0 };
                if let Some(found) = self.walk(f, callee_mode(mode, scope), params) {
                    return Some(self.through(found, inst));
                }
            }
            return None;
        }
        let name = ir::name(callee);
        if name.starts_with("llvm.") {
            return intrinsic(inst, &name, scope, privacy);
        }
        if let Some(entry) = lookup(&name) {
            return self.entry_point(inst, &name, entry.role, mode, scope);
        }
        if in_family(&name) {
            return Some(Finding::new(Reason::Opaque, format!("it calls {name}, an OpenMP entry point ompadapt does not know"), inst));
        }
        if let Some(found) = self.function_operands(inst, mode, scope) {
            return Some(found);
        }
        if !ir::is_declaration(callee) {
            let found =
                self.walk(callee, callee_mode(mode, scope), if scope == Scope::Replicated { privacy.argument_mask(inst) } else { 0 })?;
            return Some(self.through(found, inst));
        }
        if self.defer && deferrable(callee) && !known_library_call(inst, callee) {
            self.depend(name, mode, scope, privacy.all_pointers_private(inst));
            return None;
        }
        library_call(inst, callee, &name, scope, privacy)
    }

    fn entry_point(&mut self, inst: ValueRef, name: &str, role: Role, mode: Mode, scope: Scope) -> Option<Finding> {
        let args = ir::call_args(inst);
        let code =
            |k: u32| args.get(k as usize).map(|a| ir::strip_to_global(*a)).filter(|f| ir::is_function(*f) && !ir::is_declaration(*f));
        // the context of the code the entry point runs: a forked region's implicit tasks, an
        // explicit task (any thread may run it), or this code's own
        let mut implicit = self.implicit;
        let (function, mode, params) = match role {
            // `if (omp_get_thread_num() == 0)` in code every thread runs: a `masked` block
            Role::TeamQuery
                if self.implicit
                    && mode == Mode::Replicated
                    && scope == Scope::Replicated
                    && self.scopes(ir::function_of(inst), true).is_thread_zero_guard(inst) =>
            {
                return None
            }
            Role::TeamQuery => {
                return Some(Finding::new(Reason::TeamQuery, format!("it calls {name}, whose answer depends on the team"), inst))
            }
            Role::Threadprivate => return Some(Finding::new(Reason::ThreadLocal, format!("it uses threadprivate data ({name})"), inst)),
            // `masked filter(k)`: only thread k runs the block, and a team of k threads or fewer
            // has none (OpenMP 5.2 §10.5); filter 0 (the primary thread) exists in every team
            Role::OneThread if name == crate::entry_points::name::MASKED && args.get(2).and_then(|f| ir::const_int(*f)) != Some(0) => {
                return Some(Finding::new(
                    Reason::TeamQuery,
                    "its 'masked' construct filters on a thread other than the primary one: a smaller team may not have that thread, and the block would not run",
                    inst,
                ))
            }
            Role::NeutralWrites if scope == Scope::Replicated => {
                return Some(Finding::new(Reason::Replicated, format!("every thread of the team calls {name}, which writes memory"), inst))
            }
            // Started by every thread of this team (replicated code), a nested region runs once
            // per thread: all of it is replicated. Started once (divided code), its own team
            // changes when this one becomes inactive: walked as a region of its own.
            Role::Fork { microtask } => {
                let nested = if scope == Scope::Replicated || mode == Mode::Nested { Mode::Nested } else { Mode::Replicated };
                implicit = true;
                (code(microtask), nested, MICROTASK_OWN)
            }
            Role::TaskAlloc { entry } => {
                implicit = false;
                (code(entry), callee_mode(mode, scope), 0b10)
            }
            Role::Reduce { combiner, .. } => (code(combiner), Mode::Divided, 0),
            // writes every thread's private copy with the one value: the same with any team
            Role::Copyprivate { copier } => (code(copier), Mode::Divided, 0),
            _ => return None,
        };
        let function = function?;
        let found = self.walk_in(function, mode, params, implicit)?;
        Some(self.through(found, inst))
    }

    /// `found`, reached through the call or reference `inst`.
    fn through(&self, mut found: Finding, inst: ValueRef) -> Finding {
        found.path.insert(0, display_name(ir::function_of(inst)));
        found
    }
}

/// The functions a called pointer can hold, where the module shows them all: a function; a
/// parameter of a function only this module's direct calls reach (local, or `linkonce_odr`), at
/// each of which it is given such a pointer; a value loaded from a stack slot that only ever holds such pointers;
/// a select or phi of such. None: the callee cannot be seen (also past a depth of 8).
fn possible_callees(v: ValueRef, depth: usize) -> Option<Vec<ValueRef>> {
    use llvm_sys::core::{LLVMGetLinkage, LLVMGetParamParent};
    use llvm_sys::LLVMLinkage;
    if depth > 8 {
        return None;
    }
    let v = ir::strip_to_global(v);
    if ir::is_function(v) {
        return Some(vec![v]);
    }
    let union = |vals: Vec<ValueRef>| -> Option<Vec<ValueRef>> {
        let mut out = Vec::new();
        for x in vals {
            for f in possible_callees(x, depth + 1)? {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        (!out.is_empty()).then_some(out)
    };
    if ir::is_argument(v) {
        let f = unsafe { LLVMGetParamParent(v) };
        // Only this module's calls reach it as the analysis walks it: a local function, or one
        // no summary of this unit stands for (an inline function or template instance,
        // `linkonce_odr`, defined again in each unit that calls it; a library's inline copy,
        // `available_externally`): a call from another unit is walked there, with its own calls.
        // A function this unit exports is also walked for other units' callers
        // ([`super::summary`]), whose pointers this module does not show.
        let local = matches!(
            unsafe { LLVMGetLinkage(f) },
            LLVMLinkage::LLVMInternalLinkage
                | LLVMLinkage::LLVMPrivateLinkage
                | LLVMLinkage::LLVMLinkOnceODRLinkage
                | LLVMLinkage::LLVMAvailableExternallyLinkage
        );
        let index = ir::param_index(v)?;
        if !local {
            return None;
        }
        let mut given = Vec::new();
        for u in ir::users(f) {
            if !ir::is_call(u) || ir::callee(u) != f {
                return None;
            }
            given.push(*ir::call_args(u).get(index)?);
        }
        return union(given);
    }
    match ir::opcode(v)? {
        LLVMOpcode::LLVMLoad => {
            let slot = ir::operand(v, 0);
            if !ir::is_alloca(slot) {
                return None;
            }
            let mut stored = Vec::new();
            for u in ir::users(slot) {
                match ir::opcode(u) {
                    Some(LLVMOpcode::LLVMLoad) => {}
                    Some(LLVMOpcode::LLVMStore) if ir::operand(u, 1) == slot => stored.push(ir::operand(u, 0)),
                    Some(LLVMOpcode::LLVMCall) if ir::callee_name(u).starts_with("llvm.lifetime.") => {}
                    _ => return None,
                }
            }
            union(stored)
        }
        LLVMOpcode::LLVMSelect => union(vec![ir::operand(v, 1), ir::operand(v, 2)]),
        LLVMOpcode::LLVMPHI => union((0..ir::num_operands(v)).map(|k| ir::operand(v, k)).collect()),
        _ => None,
    }
}

/// How the code a call (or reference) at `scope` reaches is run, in code walked in `mode`.
fn callee_mode(mode: Mode, scope: Scope) -> Mode {
    if mode == Mode::Nested {
        Mode::Nested
    } else {
        mode_of(scope)
    }
}

fn mode_of(scope: Scope) -> Mode {
    if scope == Scope::Replicated {
        Mode::Replicated
    } else {
        Mode::Divided
    }
}

/// A wait for another thread: in a loop, an atomic or volatile read of memory that is not the
/// thread's own, a `flush`, or `omp_test_lock` — how threads synchronise by hand (a producer and
/// a consumer in two `sections`, a flag one thread sets and another polls). With a smaller team
/// the thread it waits for may never run beside it (two sections on one thread run one after
/// the other): the loop would not end (DataRaceBench's DRB190 hung under `serial`).
fn waits_for_another_thread(inst: ValueRef, privacy: &Privacy) -> Option<Finding> {
    use llvm_sys::core::{LLVMGetOrdering, LLVMGetVolatile};
    let polls = match ir::opcode(inst)? {
        LLVMOpcode::LLVMLoad => {
            let shared_memory = !privacy.is_private(ir::operand(inst, 0));
            let synchronising = unsafe { LLVMGetOrdering(inst) } != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
                || unsafe { LLVMGetVolatile(inst) } != 0;
            shared_memory && synchronising && decides_a_branch_of_its_loop(inst)
        }
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
            let n = ir::callee_name(inst);
            use crate::entry_points::name::{FLUSH, TEST_LOCK, TEST_NEST_LOCK};
            n == FLUSH || n == TEST_LOCK || n == TEST_NEST_LOCK
        }
        _ => false,
    };
    if !polls || !ir::in_cycle(ir::block_of(inst)) {
        return None;
    }
    Some(Finding::new(
        Reason::Waits,
        "it reads memory other threads write in a loop (an atomic or volatile read, a flush, omp_test_lock): it may wait for another thread, which a smaller team need not run beside it",
        inst,
    ))
}

/// Whether the value `load` reads decides a conditional branch in a loop around it (`if (l < 4)`,
/// `while (!flag)`), other than through a compare-exchange: clang's retry loop of an `atomic`
/// update reads the old value atomically and retries on the exchange's failure, which always
/// ends (an atomic update in a worksharing loop is no wait).
fn decides_a_branch_of_its_loop(load: ValueRef) -> bool {
    let block = ir::block_of(load);
    let f = ir::function_of(load);
    let around: Vec<ir::BlockRef> =
        ir::reachable_from(&ir::successors(block), None).into_iter().filter(|b| ir::reaching(f, &[block]).contains(b)).collect();
    around
        .into_iter()
        .map(ir::terminator)
        .filter(|t| !t.is_null() && ir::opcode(*t) == Some(LLVMOpcode::LLVMBr) && ir::num_operands(*t) == 3)
        .any(|br| {
            let mut seen = HashSet::default();
            depends_on(ir::operand(br, 0), load, &mut seen, 0)
        })
}

/// Whether `v` is computed from `load` without memory in between (nor a compare-exchange).
fn depends_on(v: ValueRef, load: ValueRef, seen: &mut HashSet<ValueRef>, depth: u32) -> bool {
    if v == load {
        return true;
    }
    if depth > 16 || !ir::is_instruction(v) || !seen.insert(v) {
        return false;
    }
    match ir::opcode(v) {
        // a local the value was kept in (clang's code at the start of the pipeline keeps every
        // variable in memory): what was stored there
        Some(LLVMOpcode::LLVMLoad) if ir::is_alloca(ir::operand(v, 0)) => ir::users(ir::operand(v, 0))
            .into_iter()
            .filter(|u| ir::opcode(*u) == Some(LLVMOpcode::LLVMStore) && ir::operand(*u, 1) == ir::operand(v, 0))
            .any(|st| depends_on(ir::operand(st, 0), load, seen, depth + 1)),
        Some(
            LLVMOpcode::LLVMAtomicCmpXchg
            | LLVMOpcode::LLVMAtomicRMW
            | LLVMOpcode::LLVMLoad
            | LLVMOpcode::LLVMCall
            | LLVMOpcode::LLVMInvoke,
        ) => false,
        _ => (0..ir::num_operands(v)).any(|k| depends_on(ir::operand(v, k), load, seen, depth + 1)),
    }
}

/// A reference to thread-local data among `inst`'s operands.
fn thread_local_operand(inst: ValueRef) -> Option<Finding> {
    for k in 0..ir::num_operands(inst) {
        let g = ir::strip_to_global(ir::operand(inst, k));
        if ir::is_global_variable(g) && unsafe { LLVMIsThreadLocal(g) } != 0 {
            return Some(Finding::new(
                Reason::ThreadLocal,
                format!(
                    "it uses thread-local data '{}' (threadprivate, thread_local or __thread), of which each thread has its own copy",
                    demangle(&ir::name(g))
                ),
                inst,
            ));
        }
    }
    None
}

/// Intrinsics never ask for the team; run by every thread they may write through pointers.
fn intrinsic(inst: ValueRef, name: &str, scope: Scope, privacy: &Privacy) -> Option<Finding> {
    if name.starts_with("llvm.threadlocal.address") {
        let g = ir::strip_to_global(ir::operand(inst, 0));
        return Some(Finding::new(
            Reason::ThreadLocal,
            format!(
                "it uses thread-local data '{}' (threadprivate, thread_local or __thread), of which each thread has its own copy",
                demangle(&ir::name(g))
            ),
            inst,
        ));
    }
    const HARMLESS: [&str; 14] = [
        "llvm.lifetime.",
        "llvm.dbg.",
        "llvm.stacksave",
        "llvm.stackrestore",
        "llvm.assume",
        "llvm.experimental.noalias.scope.decl",
        "llvm.invariant.",
        "llvm.launder.invariant.group",
        "llvm.strip.invariant.group",
        "llvm.var.annotation",
        "llvm.ptr.annotation",
        "llvm.annotation",
        "llvm.prefetch",
        "llvm.va_end",
    ];
    if scope != Scope::Replicated || HARMLESS.iter().any(|h| name.starts_with(h)) {
        return None;
    }
    written_arguments(inst, library::effects(ir::callee(inst)).writable, privacy, name)
}

/// Whether the indirect call `inst` is a locale facet's own virtual call inside the C++ standard
/// library's inline code (`std::ctype<char>::widen` calling `do_widen`, reached from every
/// `std::endl`): the facet is the library's (a program installs its own `ctype` facet about never,
/// and one that asked for the team would be out of this model). Other virtual calls in the
/// library (a `streambuf`'s `overflow`, which programs do override) stay unseen code.
fn in_standard_facet(inst: ValueRef) -> bool {
    let f = demangle(&ir::name(ir::function_of(inst)));
    f.starts_with("std::ctype<") || f.starts_with("std::__ctype_abstract_base<")
}

/// Whether a function the module declares may be defined by another translation unit with a
/// summary: a named function, not an intrinsic nor an OpenMP entry point (those are known), nor
/// ompadapt's own, nor a function of flang's runtime library (`_FortranA*`, never built with
/// ompadapt: one its table does not know stays unseen code here, OMPADAPT143).
fn deferrable(f: ValueRef) -> bool {
    let name = ir::name(f);
    !name.is_empty()
        && !name.starts_with("llvm.")
        && !name.starts_with("__ompadapt")
        && !name.starts_with(super::flang_runtime::PREFIX)
        && !in_family(&name)
}

/// Whether `f`, which the module only declares, is a function of the C or C++ standard library
/// or of the C++ ABI's runtime (a standard exception's destructor handed to `__cxa_throw`).
fn known_library_function(f: ValueRef) -> bool {
    let name = ir::name(f);
    library::effects(f).library || is_cxx_standard_library(&name) || is_cxx_abi_runtime(&name)
}

/// Whether call `inst` registers a function to run when the program ends (a static object's
/// destructor): the function does not run in the region.
fn runs_at_exit(inst: ValueRef) -> bool {
    matches!(ir::callee_name(inst).as_str(), "__cxa_atexit" | "atexit" | "__cxa_thread_atexit" | "on_exit")
}

/// Whether what a call of `callee` (which the module does not define) may do is known without
/// its code: a function of the C or C++ standard library or of the C++ ABI's runtime, one that
/// touches no memory the program can see, or one that does not return (exit, abort, an error
/// handler: it ends the program, and no result of the region depends on what it asks).
fn known_library_call(inst: ValueRef, callee: ValueRef) -> bool {
    let effects = library::effects(callee);
    let pure = !effects.memory.writes_other()
        && !effects.memory.writes_args()
        && effects.memory.other & 1 == 0
        && effects.memory.inaccessible == 0;
    known_library_function(callee) || pure || does_not_return(inst)
}

/// A call of a function the module does not define.
fn library_call(inst: ValueRef, callee: ValueRef, name: &str, scope: Scope, privacy: &Privacy) -> Option<Finding> {
    let effects = library::effects(callee);
    if !known_library_call(inst, callee) {
        return Some(Finding::new(
            Reason::Opaque,
            format!(
                "it calls '{}', which is not defined in this translation unit: the compiler cannot see whether it asks for the team",
                demangle(name)
            ),
            inst,
        ));
    }
    // Exception bookkeeping, and calls that do not return (terminate, abort, exit): what every
    // thread does there ends the program or its unwinding, never a result.
    if scope != Scope::Replicated || effects.allocates || is_cxx_abi_runtime(name) || does_not_return(inst) {
        return None;
    }
    if effects.memory.writes_other() && !(effects.library && errno_only(callee)) {
        return Some(Finding::new(
            Reason::Replicated,
            format!(
                "every thread of the team calls '{}', which may write memory or do I/O: a smaller team would do it fewer times",
                demangle(name)
            ),
            inst,
        ));
    }
    if effects.memory.writes_args() {
        return written_arguments(inst, effects.writable, privacy, name);
    }
    None
}

/// Whether call `inst` does not return (`noreturn` on the call or the callee).
fn does_not_return(inst: ValueRef) -> bool {
    use llvm_sys::core::{LLVMGetCallSiteEnumAttribute, LLVMGetEnumAttributeAtIndex, LLVMGetEnumAttributeKindForName};
    unsafe {
        let kind = LLVMGetEnumAttributeKindForName(c"noreturn".as_ptr(), "noreturn".len());
        let index = llvm_sys::LLVMAttributeFunctionIndex;
        !LLVMGetCallSiteEnumAttribute(inst, index, kind).is_null() || !LLVMGetEnumAttributeAtIndex(ir::callee(inst), index, kind).is_null()
    }
}

/// Whether a library function that writes memory can only write its hidden state (`errno`): it
/// takes no pointer and no variable arguments (the math library).
fn errno_only(f: ValueRef) -> bool {
    unsafe {
        let ty = LLVMGlobalGetValueType(f);
        if LLVMIsFunctionVarArg(ty) != 0 {
            return false;
        }
        let n = LLVMCountParamTypes(ty) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(ty, params.as_mut_ptr());
        params.iter().all(|t| LLVMGetTypeKind(*t) != LLVMTypeKind::LLVMPointerTypeKind)
    }
}

/// A pointer argument the callee may write through that is not the thread's own.
fn written_arguments(inst: ValueRef, writable: u64, privacy: &Privacy, name: &str) -> Option<Finding> {
    let args = ir::call_args(inst);
    for (i, a) in args.iter().enumerate().take(64) {
        if writable & (1 << i) != 0 && !privacy.is_private(*a) {
            return Some(Finding::new(
                Reason::Replicated,
                format!(
                    "every thread of the team calls '{}', which writes shared memory: a smaller team would write it fewer times",
                    demangle(name)
                ),
                inst,
            ));
        }
    }
    None
}

/// A store (or atomic update) every thread of the team runs, to memory that is not its own.
fn replicated_write(inst: ValueRef, privacy: &Privacy) -> Option<Finding> {
    let (address, what) = match ir::opcode(inst)? {
        LLVMOpcode::LLVMStore => (ir::operand(inst, 1), "writes"),
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => (ir::operand(inst, 0), "atomically updates"),
        _ => return None,
    };
    if privacy.is_private(address) || super::idempotent::same_in_every_thread(inst) {
        return None;
    }
    let named = variable_name(address).map(|n| format!(" '{n}'")).unwrap_or_default();
    Some(Finding::new(
        Reason::Replicated,
        format!(
            "every thread of the team {what} shared memory{named} outside a worksharing construct: a smaller team would do it fewer times"
        ),
        inst,
    ))
}

/// The source name of the variable `address` points into, where the IR keeps it: a global, a
/// parameter, a local, or the pointer clang keeps in `<name>.addr` for a variable the region
/// shares.
fn variable_name(address: ValueRef) -> Option<String> {
    let mut base = strip(Some(address));
    if ir::opcode(base) == Some(LLVMOpcode::LLVMLoad) {
        base = strip(Some(ir::operand(base, 0)));
    }
    if !(ir::is_global_variable(base) || ir::is_argument(base) || ir::is_alloca(base)) {
        return None;
    }
    let n = ir::name(base);
    let n = n.trim_end_matches(".addr");
    (!n.is_empty() && !n.chars().all(|c| c.is_ascii_digit())).then(|| demangle(n))
}

/// A reduction whose private copy is changed other than by its initialisation (code every thread
/// runs) and updates through its operator (worksharing code), or whose partial value is read
/// otherwise ([`super::reduction`]): the combined result would depend on the team.
fn reduction_privates_written(f: ValueRef, scopes: &Scopes) -> Option<Finding> {
    super::reduction::of(f).iter().find_map(|r| {
        let (at, what) = super::reduction::private_copy_finding(r, &|i| scopes.scope(i))?;
        Some(Finding::new(Reason::ReductionPrivate, what, at))
    })
}
