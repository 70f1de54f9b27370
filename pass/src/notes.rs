//! ELF notes the pass adds to a translation unit's object (`.note.ompadapt`, owner `ompadapt`):
//! the summary of its functions ([`crate::team::summary`]) and its decisions
//! ([`crate::decisions`]). The optimiser, LTO and the linker keep them (`llvm.used`); the linker
//! concatenates every unit's into the image's `PT_NOTE` segment.

use std::ffi::CString;

use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;
use ompadapt_abi::summary;

use crate::ir;

/// Whether `module` has a global named `name`, or one LLVM renamed from it when modules were
/// linked (`name.1`): a note the pass already added.
pub fn has_global(module: &Module<'_>, name: &str) -> bool {
    module.get_globals().any(|g| {
        let n = g.get_name().to_string_lossy();
        n == name || n.strip_prefix(name).is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Adds a note of type `kind` holding `text` to `module`, in the global `global`. Nothing where
/// the module is not ELF.
pub fn add(module: &Module<'_>, kind: u32, global: &str, text: &str) {
    let triple = module.get_triple();
    let triple = triple.as_str().to_string_lossy();
    if triple.contains("apple") || triple.contains("windows") || triple.contains("aix") {
        return;
    }
    let m = module.as_mut_ptr();
    let little = unsafe { llvm_sys::target::LLVMByteOrder(llvm_sys::target::LLVMGetModuleDataLayout(m)) }
        == llvm_sys::target::LLVMByteOrdering::LLVMLittleEndian;
    let bytes = summary::note_bytes_of(kind, text.as_bytes(), little);
    unsafe {
        let c = LLVMGetModuleContext(m);
        let init = LLVMConstStringInContext2(c, bytes.as_ptr().cast(), bytes.len(), 1);
        let name = CString::new(global).expect("no NUL");
        let g = LLVMAddGlobal(m, LLVMTypeOf(init), name.as_ptr());
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        let section = CString::new(summary::NOTE_SECTION).unwrap();
        LLVMSetSection(g, section.as_ptr());
        LLVMSetAlignment(g, 4);
        ir::add_to_used_list(m, g, c"llvm.used");
    }
}
