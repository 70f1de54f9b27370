//! The runtime loader, compiled once when ompadapt was built (`loader/ompadapt_loader.cpp`, by
//! build.rs) and added here, as module-level assembly, to each host module whose lowering header
//! only declared it (the plugin decides, see `__OMPADAPT_PRECOMPILED_LOADER` in
//! plugin/include/ompadapt_lowering.h). Every function and table of it is in a COMDAT group of
//! its own, so a program keeps one copy however many translation units carry it, and no
//! translation unit pays for compiling it (about a third of what auto mode added to a small
//! translation unit's compile time).

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use ompadapt_abi::markers::{has_precompiled_loader, RUNTIME_LOADER, SUPPORT_PREFIX};

/// The assembly for each architecture of `ompadapt_abi::markers::PRECOMPILED_LOADER_ARCHES`.
const ASSEMBLY: [(&str, &str); 2] = [
    ("x86_64", include_str!(concat!(env!("OUT_DIR"), "/loader-x86_64.s"))),
    ("aarch64", include_str!(concat!(env!("OUT_DIR"), "/loader-aarch64.s"))),
];

/// The same loader as bitcode, for modules whose compiler cannot assemble module-level
/// assembly (flang-new-19's backend registers no assembly parser: "Inline asm not supported by
/// this streamer") and for LTO, where the link merges modules (bitcode's COMDAT groups merge;
/// several copies of the assembly would not).
const BITCODE: [(&str, &[u8]); 2] = [
    ("x86_64", include_bytes!(concat!(env!("OUT_DIR"), "/loader-x86_64.bc"))),
    ("aarch64", include_bytes!(concat!(env!("OUT_DIR"), "/loader-aarch64.bc"))),
];

/// Whether flang compiled `module` (its source file is flang's `FIRModule`, or its debug info's
/// producer is flang).
pub fn is_flang_module(module: &Module<'_>) -> bool {
    let mut len = 0usize;
    // SAFETY: LLVM returns the module's own string and its length.
    let source = unsafe {
        let p = llvm_sys::core::LLVMGetSourceFileName(module.as_mut_ptr(), &mut len);
        if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
        }
    };
    source == "FIRModule"
}

/// Whether `module` is compiled for LTO (clang's module flags `ThinLTO` for `-flto`,
/// `EnableSplitLTOUnit` for both kinds): the link merges modules, and module-level assembly
/// carried by several would define the loader's local labels twice; bitcode merges.
pub fn is_lto_module(module: &Module<'_>) -> bool {
    module.get_flag("ThinLTO").is_some() || module.get_flag("EnableSplitLTOUnit").is_some()
}

/// Whether flang compiled the module of function `f` (see [`is_flang_module`]).
pub fn is_flang_source(f: crate::ir::ValueRef) -> bool {
    let mut len = 0usize;
    // SAFETY: `f` is a function of a valid module; LLVM returns its own string and length.
    unsafe {
        let m = llvm_sys::core::LLVMGetGlobalParent(f);
        let p = llvm_sys::core::LLVMGetSourceFileName(m, &mut len);
        !p.is_null() && std::slice::from_raw_parts(p.cast::<u8>(), len) == b"FIRModule"
    }
}

/// The precompiled loader for modules of `triple`, if there is one.
pub fn assembly_for(triple: &str) -> Option<&'static str> {
    if !has_precompiled_loader(triple) {
        return None;
    }
    let arch = triple.split('-').next()?;
    ASSEMBLY.iter().find(|(a, _)| *a == arch).map(|(_, asm)| *asm)
}

/// What [`add_loader`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoaderOutcome {
    /// The module does not call the loader, defines it, or already has its assembly.
    NotNeeded,
    /// The assembly was added.
    Added,
    /// The module calls the loader but no assembly exists for its triple.
    NoAssemblyFor,
}

/// Adds the loader's assembly to `module` when it calls one of its functions (a symbol of
/// [`SUPPORT_PREFIX`]) without defining it. Idempotent: a module that already carries the
/// assembly is left alone.
pub fn add_loader(module: &Module<'_>) -> LoaderOutcome {
    let needed = module.get_functions().any(|f| {
        f.count_basic_blocks() == 0
            && f.get_name().to_bytes().starts_with(SUPPORT_PREFIX.as_bytes())
            && !crate::ir::unused(f.as_value_ref())
    });
    if !needed {
        return LoaderOutcome::NotNeeded;
    }
    let existing = module_asm(module);
    if existing.contains(&format!("{RUNTIME_LOADER}:")) {
        return LoaderOutcome::NotNeeded;
    }
    let triple = module.get_triple();
    let triple = triple.as_str().to_string_lossy().into_owned();
    if is_flang_module(module) || is_lto_module(module) {
        if module.get_function(RUNTIME_LOADER).is_some_and(|f| f.count_basic_blocks() > 0) {
            return LoaderOutcome::NotNeeded;
        }
        return link_bitcode(module, &triple);
    }
    let Some(asm) = assembly_for(&triple) else { return LoaderOutcome::NoAssemblyFor };
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    // A program that is an OMPT tool itself defines `ompt_start_tool`: the loader's weak one would
    // clash with it in the assembler ("changed binding to STB_GLOBAL"). The program's tool is
    // the one libomp asks then (as it would be with any other tool linked in); the loader's is
    // renamed out of the way, and the runtime, without its OMPT tool, refuses `cpu` where it
    // needs the extents only that tool records.
    let renamed;
    let asm = if defines_ompt_tool(module) {
        renamed = rename_symbol(asm, TOOL_ENTRY, &format!("{}unused_{TOOL_ENTRY}", ompadapt_abi::markers::RESERVED_PREFIX));
        renamed.as_str()
    } else {
        asm
    };
    // (without blank lines: LLVM's text form drops them, and a module must read back as written)
    for line in asm.lines().filter(|l| !l.trim().is_empty()) {
        text.push_str(line);
        text.push('\n');
    }
    module.set_inline_assembly(&text);
    LoaderOutcome::Added
}

/// The OMPT tool's entry point, which libomp looks up by name.
const TOOL_ENTRY: &str = ompadapt_abi::openmp::as_str(ompadapt_abi::openmp::START_TOOL);

/// Whether the program defines the OMPT tool's entry point itself in the module: a strong
/// definition (the frontend's lowering header defines a weak or inline one, ompadapt's own).
pub fn defines_ompt_tool(module: &Module<'_>) -> bool {
    use inkwell::module::Linkage;
    module.get_function(TOOL_ENTRY).is_some_and(|f| f.count_basic_blocks() > 0 && f.get_linkage() == Linkage::External)
}

/// `asm` with every whole-word occurrence of symbol `from` (not a longer name containing it)
/// spelt `to`.
fn rename_symbol(asm: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$';
    let mut out = String::with_capacity(asm.len());
    let mut rest = asm;
    while let Some(at) = rest.find(from) {
        let before_ok = rest[..at].chars().next_back().is_none_or(|c| !word(c));
        let after_ok = rest[at + from.len()..].chars().next().is_none_or(|c| !word(c));
        out.push_str(&rest[..at]);
        out.push_str(if before_ok && after_ok { to } else { from });
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Links the loader's bitcode into `module` (its functions and table keep their COMDAT groups,
/// so a program keeps one copy).
fn link_bitcode(module: &Module<'_>, triple: &str) -> LoaderOutcome {
    use llvm_sys::core::*;
    if !has_precompiled_loader(triple) {
        return LoaderOutcome::NoAssemblyFor;
    }
    let arch = triple.split('-').next().unwrap_or_default();
    let Some((_, bitcode)) = BITCODE.iter().find(|(a, _)| *a == arch) else { return LoaderOutcome::NoAssemblyFor };
    // SAFETY: a buffer over static bytes (not copied, not owned: parsing copies what it needs);
    // the parsed module is consumed by the link.
    unsafe {
        let buffer = LLVMCreateMemoryBufferWithMemoryRange(bitcode.as_ptr().cast(), bitcode.len(), c"ompadapt-loader".as_ptr(), 0);
        let mut loader = std::ptr::null_mut();
        let context = LLVMGetModuleContext(module.as_mut_ptr());
        let failed = llvm_sys::bit_reader::LLVMParseBitcodeInContext2(context, buffer, &mut loader) != 0;
        LLVMDisposeMemoryBuffer(buffer);
        if failed || loader.is_null() {
            return LoaderOutcome::NoAssemblyFor;
        }
        // The program's triple and layout (the loader was compiled for the same architecture).
        LLVMSetTarget(loader, LLVMGetTarget(module.as_mut_ptr()));
        LLVMSetDataLayout(loader, LLVMGetDataLayoutStr(module.as_mut_ptr()));
        if llvm_sys::linker::LLVMLinkModules2(module.as_mut_ptr(), loader) != 0 {
            return LoaderOutcome::NoAssemblyFor;
        }
    }
    LoaderOutcome::Added
}

/// The module's inline assembly as it is.
fn module_asm(module: &Module<'_>) -> String {
    let mut len = 0usize;
    // SAFETY: the module is valid; LLVM returns a pointer to its own string (not NUL-terminated)
    // and the string's length, valid until the assembly changes.
    unsafe {
        let ptr = llvm_sys::core::LLVMGetModuleInlineAsm(module.as_mut_ptr(), &mut len);
        if ptr.is_null() || len == 0 {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(ptr.cast::<u8>(), len)).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    #[test]
    fn each_architecture_has_assembly_that_assembles_alone() {
        for arch in ompadapt_abi::markers::PRECOMPILED_LOADER_ARCHES {
            let asm = assembly_for(&format!("{arch}-unknown-linux-gnu")).expect("assembly");
            assert!(asm.contains(&format!("{RUNTIME_LOADER}:")), "{arch}: defines the loader");
            // Local labels are renamed so as not to clash with the module's own.
            for line in asm.lines().filter(|l| !l.trim_start().starts_with(".asci")) {
                for (i, _) in line.match_indices(".L") {
                    assert!(line[i..].starts_with(".L__ompadapt_loader."), "{arch}: a local label kept its name: {line}");
                }
            }
            assert!(!asm.contains(".note.gnu.property") && !asm.contains(".file"), "{arch}: object-wide directives dropped");
            let Ok(mut mc) = Command::new("llvm-mc-19")
                .args([&format!("--triple={arch}-linux-gnu"), "-filetype=obj", "-o", "/dev/null"])
                .stdin(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
            else {
                continue;
            };
            mc.stdin.take().unwrap().write_all(asm.as_bytes()).unwrap();
            let out = mc.wait_with_output().unwrap();
            assert!(out.status.success(), "{arch}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }

    /// x86-64's loader is the compact form (build.rs falls back to clang's text, three times
    /// as costly to assemble in every translation unit, where the object has anything the
    /// writer does not know: version 6's thread-local memo once made it fall back unnoticed).
    #[test]
    fn the_x86_64_loader_is_the_compact_form() {
        let asm = assembly_for("x86_64-unknown-linux-gnu").expect("assembly");
        assert!(asm.contains("\t.ascii \""), "bytes as .ascii");
        assert!(!asm.contains(".cfi_startproc"), "unwind tables as data, not CFI directives");
        assert!(asm.contains("R_X86_64_GOTPC32_TLSDESC") && asm.contains("@DTPOFF"), "the memo's TLS accesses as relocations");
    }

    #[test]
    fn a_symbol_is_renamed_as_a_whole_word_only() {
        let asm = ".weak ompt_start_tool\nompt_start_tool:\n call __ompadapt_v6_fallback_ompt_start_tool\n .size ompt_start_tool, .Lend-ompt_start_tool";
        let out = rename_symbol(asm, "ompt_start_tool", "x_tool");
        assert_eq!(out, ".weak x_tool\nx_tool:\n call __ompadapt_v6_fallback_ompt_start_tool\n .size x_tool, .Lend-x_tool");
    }

    #[test]
    fn other_targets_have_none() {
        assert!(assembly_for("nvptx64-nvidia-cuda").is_none());
        assert!(assembly_for("x86_64-apple-darwin").is_none());
        assert!(assembly_for("riscv64-unknown-linux-gnu").is_none());
    }
}
