//! The frontend's mark ([`FRONTEND_MARK`]): where the ompadapt frontend compiled a module, it says
//! what the pass does with the regions the source does not name.
//!
//! The mark is a string: the kinds of `-fplugin-arg-ompadapt-auto` when zero-source-change mode
//! is on and the frontend handed it to the pass (every kind it was given is one the pass applies:
//! the pass makes the module's regions adaptive as in pass-only mode, [`crate::auto_mode`]), then
//! optional lines `root=<dir>` and `locations=pass` ([`locations_for_the_pass_only`]); else
//! empty (the frontend's lowering is all the user asked for). A module of an older frontend (a
//! byte), or one that calls the frontend's markers without a mark, counts as the frontend's
//! without zero-source-change mode. Under LTO a module merged from translation units of both
//! kinds counts as the frontend's.
//!
//! In a module of the frontend, the code of its explicit regions — from a call of the support
//! `begin` to the `end` of the region, in the function that writes them — is left to that
//! lowering ([`explicit_region_code`]): a construct the source already made adaptive is not made
//! adaptive again.

use crate::fast_hash::HashSet;
use std::ffi::CString;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::LLVMGetNamedGlobal;
use llvm_sys::LLVMOpcode;
use ompadapt_abi::markers::{Marker, FRONTEND_MARK, RUNTIME_BEGIN, RUNTIME_END, SUPPORT_BEGIN, SUPPORT_END};

use crate::ir::{self, ValueRef};

/// Who lowered a module.
#[derive(Clone, Debug, PartialEq)]
pub enum Lowered {
    /// Not the frontend: pass-only mode.
    ByThePassOnly,
    /// The frontend, which leaves nothing more to the pass.
    ByTheFrontend,
    /// The frontend, with zero-source-change mode handed to the pass with these kinds (and the
    /// source root region names are relative to, `-fplugin-arg-ompadapt-source-root`).
    ByTheFrontendWithAuto { kinds: String, root: Option<String> },
}

/// Who lowered `module` (see [`Lowered`]). The mark stays (an internal string): a later run of
/// the pass on the module, at link time under LTO, must see it too.
pub fn lowered(module: &Module<'_>) -> Lowered {
    let name = CString::new(FRONTEND_MARK).expect("no NUL");
    let mark = unsafe { LLVMGetNamedGlobal(module.as_mut_ptr(), name.as_ptr()) };
    if mark.is_null() {
        return if calls_a_marker(module) { Lowered::ByTheFrontend } else { Lowered::ByThePassOnly };
    }
    // `<kinds>` or `<kinds>\nroot=<dir>`
    match ir::c_string(mark) {
        Some(text) if !text.trim().is_empty() => {
            let mut lines = text.lines();
            let kinds = lines.next().unwrap_or_default().to_owned();
            let root = lines.find_map(|l| l.strip_prefix("root=")).filter(|r| !r.is_empty()).map(str::to_owned);
            Lowered::ByTheFrontendWithAuto { kinds, root }
        }
        _ => Lowered::ByTheFrontend,
    }
}

/// Whether the frontend turned debug locations on for the pass's region names alone (zero-source-
/// change mode without `-g`: the mark says `locations=pass`). The pass then drops them once it
/// has named the regions and emitted its remarks: carried through the optimiser and the code
/// generator (LiveDebugValues alone) they cost some 5 M instructions per translation unit.
pub fn locations_for_the_pass_only(module: &Module<'_>) -> bool {
    let name = CString::new(FRONTEND_MARK).expect("no NUL");
    let mark = unsafe { LLVMGetNamedGlobal(module.as_mut_ptr(), name.as_ptr()) };
    !mark.is_null() && ir::c_string(mark).is_some_and(|text| text.lines().skip(1).any(|l| l == "locations=pass"))
}

/// Whether the module calls one of the frontend's markers.
fn calls_a_marker(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| {
        let name = f.get_name().to_bytes().to_vec();
        ompadapt_abi::markers::MARKERS.iter().any(|mk| mk.names(&name)) && !ir::unused(f.as_value_ref())
    })
}

/// The support functions that open and close the frontend's regions: the precompiled ones, and
/// the header's own where the loader is not precompiled (C and C++ names).
const BEGINS: [Marker; 2] = [Marker { name: SUPPORT_BEGIN, doc: "" }, Marker { name: RUNTIME_BEGIN, doc: "" }];
const ENDS: [Marker; 2] = [Marker { name: SUPPORT_END, doc: "" }, Marker { name: RUNTIME_END, doc: "" }];

fn calls_one_of(i: ValueRef, names: &[Marker]) -> bool {
    ir::opcode(i) == Some(LLVMOpcode::LLVMCall) && {
        let callee = ir::callee_name(i);
        names.iter().any(|m| m.names(callee.as_bytes()))
    }
}

/// The instructions of the frontend's explicit regions: every one reachable from a call of the
/// support `begin` without passing a call of `end`, in the function of the call. Regions are
/// statements, so that is the code the source wrote between them; the code they call is not in
/// it (the frontend does not see into it either).
pub fn explicit_region_code(module: &Module<'_>) -> HashSet<ValueRef> {
    let mut code = HashSet::default();
    for f in module.get_functions() {
        let insts = ir::function_instructions(f.as_value_ref());
        for begin in insts.iter().copied().filter(|i| calls_one_of(*i, &BEGINS)) {
            walk_to_end(begin, &mut code);
        }
    }
    code
}

/// Adds what runs after `begin` up to a call of `end` (on every path) to `code`.
fn walk_to_end(begin: ValueRef, code: &mut HashSet<ValueRef>) {
    let mut seen_blocks = HashSet::default();
    let mut queue: Vec<(ir::BlockRef, usize)> = vec![(ir::block_of(begin), ir::index_in_block(begin) + 1)];
    while let Some((block, from)) = queue.pop() {
        let insts = ir::instructions(block);
        let mut ended = false;
        for i in insts.iter().skip(from).copied() {
            if calls_one_of(i, &ENDS) {
                ended = true;
                break;
            }
            code.insert(i);
        }
        if !ended {
            for s in ir::successors(block) {
                if seen_blocks.insert(s) {
                    queue.push((s, 0));
                }
            }
        }
    }
}
