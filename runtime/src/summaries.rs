//! The program's summaries ([`ompadapt_abi::summary`]): each translation unit compiled with
//! ompadapt carries an ELF note that says what the team analysis found in the functions it
//! defines; the linker gathers the notes of an image into its `PT_NOTE` segments, which stay
//! mapped. A region whose code calls functions of other units (its descriptor's `depends=`) is
//! decided here, when it is first entered, from the notes of every image loaded then (the
//! executable and its shared libraries): its variants apply only where every function it
//! reaches has a summary that found nothing; else it runs as written and the report says why.
//! Code loaded later (`dlopen`) is read when a region needs a function not yet seen.

use std::sync::Mutex;

use ompadapt_abi::summary::{summaries_in_notes, Dependencies, ModuleSummary, Program};

/// The summaries read so far, and how many images had been loaded then (`dlpi_adds`).
static PROGRAM: Mutex<Option<(u64, Program)>> = Mutex::new(None);

/// Whether a region with dependencies `deps` runs its variants: Ok, or why it runs as written.
pub fn resolve(deps: &Dependencies) -> Result<(), String> {
    let mut held = PROGRAM.lock().unwrap_or_else(|e| e.into_inner());
    let loaded = images_loaded();
    let stale = held.as_ref().is_none_or(|(at, _)| *at != loaded);
    if stale {
        *held = Some((loaded, Program::new(&read_notes())));
    }
    let (_, program) = held.as_ref().expect("just set");
    program.resolve(deps)
}

/// How many images the dynamic linker has loaded in this process so far.
fn images_loaded() -> u64 {
    let mut adds: u64 = 0;
    unsafe extern "C" fn first(info: *mut libc::dl_phdr_info, _: libc::size_t, data: *mut libc::c_void) -> libc::c_int {
        *(data as *mut u64) = (*info).dlpi_adds;
        1
    }
    // SAFETY: the callback writes the u64 `data` points at, and stops at the first image.
    unsafe { libc::dl_iterate_phdr(Some(first), (&mut adds as *mut u64).cast()) };
    adds
}

/// The module summaries in the `PT_NOTE` segments of every loaded image.
pub fn read_notes() -> Vec<ModuleSummary> {
    let mut out: Vec<ModuleSummary> = Vec::new();
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _: libc::size_t, data: *mut libc::c_void) -> libc::c_int {
        let out = &mut *(data as *mut Vec<ModuleSummary>);
        let info = &*info;
        if info.dlpi_phdr.is_null() {
            return 0;
        }
        for k in 0..info.dlpi_phnum as usize {
            let ph = &*info.dlpi_phdr.add(k);
            if ph.p_type != libc::PT_NOTE || ph.p_memsz == 0 {
                continue;
            }
            // SAFETY: a PT_NOTE segment of a loaded image lies in its mapped, read-only memory.
            let bytes = std::slice::from_raw_parts((info.dlpi_addr as usize + ph.p_vaddr as usize) as *const u8, ph.p_memsz as usize);
            for desc in summaries_in_notes(bytes) {
                if let Some(m) = std::str::from_utf8(desc).ok().and_then(ModuleSummary::parse) {
                    out.push(m);
                }
            }
        }
        0
    }
    // SAFETY: the callback only reads the program headers libc passes and pushes to `out`.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut out as *mut Vec<ModuleSummary>).cast()) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process with no ompadapt note: every dependency is missing, and the reason says so.
    #[test]
    fn missing_everywhere() {
        let deps = Dependencies::parse("R:ompadapt_no_such_function").unwrap();
        let why = resolve(&deps).unwrap_err();
        assert!(why.contains("'ompadapt_no_such_function' has no summary"), "{why}");
        assert!(resolve(&Dependencies::default()).is_ok());
    }
}
