//! Where a construct is written: one rule for region names and remark places in both builds and
//! both languages (docs/remarks.md, "Names and places").
//!
//! A construct's line and column are those of its directive as the OpenMP runtime's source
//! location records them: the `ident_t` clang and flang pass to the call that starts it
//! (`;file;function;line;column;;`, what libomp reports to tools). The debug location of that
//! call is not always the directive's: clang-19 gives an offload launch (`__tgt_target_kernel`)
//! none, so a remark about it fell back to its function's line; flang-19 gives every fork of a
//! procedure one location, often a declaration's. So before the pass decides anything, each such
//! call of a function with debug information gets its ident's line and column, in its own scope
//! (inlined calls keep where they were inlined): names (`function@file:line`) and remarks
//! (`file:line:column`) then read one place, which debuggers and profilers show too.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;

use crate::entry_points::name;
use crate::ir::{self, ValueRef};

/// `file` without leading `./` (`clang ./main.c` and `clang main.c` name one region alike).
pub fn without_dot_slash(file: &str) -> &str {
    let mut f = file;
    while let Some(rest) = f.strip_prefix("./") {
        f = rest.trim_start_matches('/');
    }
    f
}

/// The construct's place as its `ident_t` records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentPlace {
    /// The file, as the frontend spelled it; empty where the ident names none (flang's
    /// `FIRModule`, `unknown`).
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// Reads `;file;function;line;column;;`.
pub fn parse_ident(text: &str) -> Option<IdentPlace> {
    let mut parts = text.strip_prefix(';')?.split(';');
    let (file, _function, line, column) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let (line, column) = (line.parse().ok()?, column.parse().unwrap_or(0));
    let file = if matches!(file, "FIRModule" | "unknown" | "") { String::new() } else { file.to_owned() };
    (line > 0).then_some(IdentPlace { file, line, column })
}

/// The place recorded by the `ident_t` that `call` passes first.
pub fn ident_place(call: ValueRef) -> Option<IdentPlace> {
    global_ident_place(ir::strip_to_global(*ir::call_args(call).first()?))
}

/// The place recorded by `ident`, a global `ident_t` (None: not one, or no place in it).
pub fn global_ident_place(ident: ValueRef) -> Option<IdentPlace> {
    if !ir::is_global_variable(ident) {
        return None;
    }
    unsafe {
        let init = LLVMGetInitializer(ident);
        if init.is_null() || LLVMIsAConstantStruct(init).is_null() || LLVMGetNumOperands(init) < 5 {
            return None;
        }
        parse_ident(&ir::c_string(LLVMGetOperand(init, 4))?)
    }
}

/// The name of the file of a debug scope.
fn scope_file(scope: llvm_sys::prelude::LLVMMetadataRef) -> Option<String> {
    unsafe {
        let file = LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return None;
        }
        let mut len = 0u32;
        let p = LLVMDIFileGetFilename(file, &mut len);
        (!p.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned())
    }
}

/// The calls that start a construct: offload launches, forks (with flang's `if` or not), teams
/// forks.
fn construct_calls(module: &Module<'_>) -> Vec<ValueRef> {
    let starts = [name::TARGET_KERNEL, name::FORK_CALL, name::FORK_TEAMS, crate::fork_if::FORK_CALL_IF];
    module
        .get_functions()
        .filter(|f| !unsafe { LLVMGetSubprogram(f.as_value_ref()) }.is_null())
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::is_call(*i) && starts.contains(&ir::callee_name(*i).as_str()))
        .collect()
}

/// Gives each construct-starting call its directive's line and column (see the module's
/// header); returns whether it changed any.
pub fn locate_constructs(module: &Module<'_>) -> bool {
    let context = unsafe { LLVMGetModuleContext(module.as_mut_ptr()) };
    let mut changed = false;
    for call in construct_calls(module) {
        let Some(place) = ident_place(call) else { continue };
        unsafe {
            let here = LLVMInstructionGetDebugLoc(call);
            let (scope, inlined_at) = if here.is_null() {
                (LLVMGetSubprogram(ir::function_of(call)), std::ptr::null_mut())
            } else {
                (LLVMDILocationGetScope(here), LLVMDILocationGetInlinedAt(here))
            };
            // (an ident of another file than the scope's: a directive in an included file, whose
            // scope this pass cannot make; the call keeps its location)
            if scope.is_null() || !(place.file.is_empty() || scope_file(scope).as_deref() == Some(place.file.as_str())) {
                continue;
            }
            if !here.is_null() && LLVMDILocationGetLine(here) == place.line && LLVMDILocationGetColumn(here) == place.column {
                continue;
            }
            let located = LLVMDIBuilderCreateDebugLocation(context, place.line, place.column, scope, inlined_at);
            LLVMInstructionSetDebugLoc(call, located);
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idents_of_clang_and_flang() {
        assert_eq!(parse_ident(";m.c;main;14;1;;"), Some(IdentPlace { file: "m.c".into(), line: 14, column: 1 }));
        assert_eq!(parse_ident(";FIRModule;saxpy;5;9;;"), Some(IdentPlace { file: String::new(), line: 5, column: 9 }));
        assert_eq!(parse_ident(";unknown;unknown;0;0;;"), None);
        assert_eq!(parse_ident("garbage"), None);
    }
}
