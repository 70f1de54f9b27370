//! Whether the program was built to offload at all. A program compiled without an offload
//! target (`-fopenmp-targets`) does not load libomptarget: its target constructs are host code,
//! so a region's `cpu`, `gpu` and launch-shape variants are one and the same code, and what it
//! learns between them is noise. The report says so beside such a region (the plugin warned at
//! compile time).

use std::sync::OnceLock;

/// A symbol libomptarget defines and only it: present in the process when the program offloads.
const OFFLOAD_ENTRY: &std::ffi::CStr = ompadapt_abi::openmp::TARGET_KERNEL;

/// Whether libomptarget is in the process (looked up once; a lookup, never a call into it,
/// so it is safe at exit, after libomptarget has shut down).
pub fn offloads() -> bool {
    static LOADED: OnceLock<bool> = OnceLock::new();
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads the loaded objects.
    *LOADED.get_or_init(|| unsafe { !libc::dlsym(libc::RTLD_DEFAULT, OFFLOAD_ENTRY.as_ptr()).is_null() })
}

/// The report's line for a region with offload variants in a program that cannot offload.
pub fn same_code_note(variants: &[String]) -> Option<String> {
    let offload: Vec<&str> = variants
        .iter()
        .filter(|v| ompadapt_abi::kinds::decode(v).is_some_and(|k| k.for_target()))
        .map(String::as_str)
        .collect();
    (!offload.is_empty() && !offloads()).then(|| {
        format!(
            "the program was built without an offload target (no libomptarget in the process): {} ran the same host code, so what was learned between them is noise; rebuild with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa)",
            offload.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_test_process_has_no_libomptarget() {
        assert!(!super::offloads());
        let note = super::same_code_note(&["cpu".into(), "gpu".into()]).unwrap();
        assert!(note.contains("'cpu', 'gpu' ran the same host code"), "{note}");
        assert_eq!(super::same_code_note(&["serial".into(), "threads[0.5]".into()]), None);
    }
}
