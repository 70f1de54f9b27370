//! `ompadapt_set_dir`: the program names its store before the runtime starts; it replaces
//! `OMPADAPT_DIR`, and a call once the runtime has started is refused (-1) and changes nothing.
//! (Its secure-execution behaviour is tested on a setuid program in tests/secure_execution.rs.)

use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;

use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_save, ompadapt_set_dir, Ctx};

#[test]
fn the_program_s_store_replaces_ompadapt_dir_and_is_fixed_once_the_runtime_runs() {
    let base = std::env::temp_dir().join(format!("ompadapt-program-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (named, from_env) = (base.join("named"), base.join("from-env"));
    std::env::set_var("OMPADAPT_DIR", &from_env);
    std::env::remove_var("OMPADAPT_PERSIST");
    let c = |p: &std::path::Path| CString::new(p.to_str().unwrap()).unwrap();
    unsafe {
        assert_eq!(ompadapt_set_dir(std::ptr::null()), -1, "NULL is refused");
        assert_eq!(ompadapt_set_dir(c(&named).as_ptr()), 0);
    }
    let spec = b"ompadapt1;model=stored;loc=program_store.rs:1;features=n;variants=a,b\0";
    let mut slot: *mut c_void = null_mut();
    for n in [1.0, 2.0, 1.0, 2.0] {
        let mut ctx = Ctx::zeroed();
        unsafe {
            ompadapt_begin(&mut slot, spec.as_ptr() as *const c_char, 100, -1, -1, [n].as_ptr(), 1, &mut ctx);
            ompadapt_end(&mut ctx);
        }
    }
    // too late: the region already loaded from (and will save to) `named`
    let late = base.join("late");
    assert_eq!(unsafe { ompadapt_set_dir(c(&late).as_ptr()) }, -1);
    assert_eq!(ompadapt_save(), 1);
    let program = ompadapt_rt::store::Program::new(&ompadapt_rt::config::program_name(), &ompadapt_rt::config::program_path());
    let region = ompadapt_rt::store::region_dir(&named, &program, "stored");
    let parts =
        std::fs::read_dir(&region).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("part-")).count();
    assert_eq!(parts, 1, "saved in the program's store");
    assert!(!from_env.exists() && !late.exists(), "OMPADAPT_DIR and the late call are not used");
    std::fs::remove_dir_all(&base).unwrap();
}
