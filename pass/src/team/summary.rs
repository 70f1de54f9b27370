//! The summary of a translation unit for the others ([`ompadapt_abi::summary`]): for each
//! function it defines that another unit may call, what the team analysis finds in it under each
//! way a region can run the call ([`Key`]) — the first thing that observes the team, or the
//! functions of other units it calls in turn — and whether the unit's parallel code uses
//! thread-local data. The pass writes it into the object as an ELF note; the runtime reads the
//! notes of every loaded image and completes the verdict of each region whose code calls other
//! units (its descriptor's `depends=`).
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;
use ompadapt_abi::summary::{self, Dependencies, FunctionSummary, Key, ModuleSummary, Verdict};

use super::analysis::{Analysis, FunctionFacts};
use crate::ir::{self, ValueRef};

/// The functions of `module` another unit may call: defined, with a linkage that other units
/// see (external or weak; a `linkonce` function is defined again in each unit that uses it),
/// not ompadapt's own, and not `main`: the program's entry point is called by the C runtime's
/// start-up code (C++ forbids calling it at all), and it is often the largest function of its
/// unit, walked under each of the four keys for nothing. A region of another unit that did
/// call it would find no summary for it and stay as written, the same verdict as opaque code.
pub fn exported_functions(module: &Module<'_>) -> Vec<ValueRef> {
    module
        .get_functions()
        .map(|f| f.as_value_ref())
        .filter(|f| {
            let linkage = unsafe { LLVMGetLinkage(*f) };
            !ir::is_declaration(*f)
                && matches!(linkage, LLVMLinkage::LLVMExternalLinkage | LLVMLinkage::LLVMWeakAnyLinkage | LLVMLinkage::LLVMWeakODRLinkage)
                && !ir::name(*f).starts_with("__ompadapt")
                && ir::name(*f) != "main"
        })
        .collect()
}

/// The summary of `module` where it is to carry one: zero-source-change mode or the pass alone
/// (`adapting`: regions the source does not name are made adaptive; or the frontend lowered
/// zero-source-change mode itself, its host regions carrying team markers), and not already
/// summarised (a second run of the pass changes nothing).
pub fn wanted(module: &Module<'_>, adapting: bool) -> Option<ModuleSummary> {
    let adapting = adapting || super::has_team_markers(module);
    // a module the pass already lowered (its offload sites recorded) is not summarised later:
    // its code now calls the runtime
    let lowered = module.get_global_metadata_size(crate::metadata::REGIONS_METADATA) > 0;
    (adapting && !lowered && !has_note(module)).then(|| of_module(module))
}

/// The summary of `module`'s exported functions, each under every key.
pub fn of_module(module: &Module<'_>) -> ModuleSummary {
    let functions = exported_functions(module);
    let mut out = ModuleSummary {
        functions: Vec::with_capacity(functions.len() * Key::ALL.len()),
        thread_local: super::thread_local_in_parallel_code(module).map(|f| f.describe()),
    };
    // (the module does not change while it is summarised: each function's own facts hold for
    // every key)
    let facts = std::rc::Rc::new(std::cell::RefCell::new(FunctionFacts::default()));
    for key in Key::ALL {
        // one analysis per key: what it keeps of a function walked for one is complete
        let mut analysis = Analysis::sharing(facts.clone());
        for &f in &functions {
            let verdict = match analysis.summary(f, key) {
                Ok(deps) => Verdict::Clean(Dependencies(deps)),
                Err(found) => {
                    let id = super::remark_id(found.reason).code().trim_start_matches("OMPADAPT").parse().unwrap_or(143);
                    Verdict::Left { id, why: shortened(found.describe()) }
                }
            };
            out.functions.push(FunctionSummary { key, symbol: ir::name(f), verdict });
        }
    }
    out
}

/// Whether the pass already summarised `module` (a second run changes nothing).
pub fn has_note(module: &Module<'_>) -> bool {
    crate::notes::has_global(module, ompadapt_abi::markers::SUMMARY_NOTE)
}

/// `why` cut to 300 bytes (a report line; the remark at compile time has it all).
fn shortened(mut why: String) -> String {
    if why.len() > 300 {
        let mut end = 297;
        while !why.is_char_boundary(end) {
            end -= 1;
        }
        why.truncate(end);
        why.push_str("...");
    }
    why
}

/// Adds `summary` to `module` as an ELF note (see [`crate::notes`]). Nothing where the module
/// has no function to summarise and no thread-local data to report.
pub fn emit_note(module: &Module<'_>, s: &ModuleSummary) {
    if s.functions.is_empty() && s.thread_local.is_none() {
        return;
    }
    crate::notes::add(module, summary::NOTE_TYPE, ompadapt_abi::markers::SUMMARY_NOTE, &s.to_string());
}
