//! Compiles `tests/c/abi_test.c` with clang-19 against `include/ompadapt.h`, links it with the
//! shared and the static runtime library that cargo built for this test run, and checks its
//! behaviour, its stderr (warnings once, the report) and its saved samples across two runs.
//! Skipped, with the reason printed, when clang-19 or the libraries are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn lib_dir() -> Option<PathBuf> {
    // <target>/<profile>/deps/c_abi-<hash>  ->  <target>/<profile>
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    (dir.join("libompadapt_rt.so").exists() && dir.join("libompadapt_rt.a").exists()).then_some(dir)
}

fn have_clang() -> bool {
    Command::new("clang-19").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn run(exe: &Path, mode: &str, dir: &Path) -> (i32, String, String) {
    let out = Command::new(exe)
        .arg(mode)
        .env("OMPADAPT_DIR", dir)
        .env("OMPADAPT_REPORT", "1")
        .env("OMPADAPT_WARMUP", "1")
        .env("OMPADAPT_PERSIST", "1")
        .env_remove("OMPADAPT_MODEL")
        .output()
        .expect("run the C test program");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn c_program_uses_the_header_and_library() {
    if !have_clang() {
        println!("skipped: clang-19 not found on PATH");
        return;
    }
    let Some(libdir) = lib_dir() else {
        println!("skipped: libompadapt_rt.so/.a not found next to the test executable");
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = std::env::temp_dir().join(format!("ompadapt-c-abi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let src = manifest.join("tests/c/abi_test.c");
    let include = manifest.join("include");

    let shared = work.join("c_abi_shared");
    let static_ = work.join("c_abi_static");
    let builds = [
        (&shared, vec![format!("-L{}", libdir.display()), "-lompadapt_rt".into(), format!("-Wl,-rpath,{}", libdir.display())]),
        (&static_, vec![libdir.join("libompadapt_rt.a").display().to_string(), "-lpthread".into(), "-ldl".into(), "-lm".into()]),
    ];
    for (exe, link) in &builds {
        let out = Command::new("clang-19")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
            .arg(format!("-I{}", include.display()))
            .arg(&src)
            .arg("-o")
            .arg(exe)
            .args(link)
            .output()
            .unwrap();
        assert!(out.status.success(), "clang-19 failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }

    for exe in [&shared, &static_] {
        let dir = work.join(format!("samples-{}", exe.file_name().unwrap().to_string_lossy()));
        // First run: explores, trains, reports, saves.
        let (code, stdout, stderr) = run(exe, "explore", &dir);
        assert_eq!(code, 0, "{} explore: exit {code}\nstderr:\n{stderr}", exe.display());
        assert_eq!(stdout.trim(), "ok");
        let count = |needle: &str| stderr.lines().filter(|l| l.contains(needle)).count();
        assert_eq!(count("did not run over its offload site"), 1, "warned once:\n{stderr}");
        assert_eq!(count("'c_offload'"), 1);
        assert_eq!(count("warning: region 'c_bad': malformed region descriptor"), 1, "{stderr}");
        assert!(stderr.contains("region 'c_bad' (?)"), "the report lists the malformed region:\n{stderr}");
        assert!(stderr.contains("region 'c_test' (abi_test.c:20)"), "{stderr}");
        assert!(stderr.contains("executions: 47 (7 exploring, 40 chosen by the model of which"), "{stderr}");
        assert!(stderr.contains("if n < 50000"), "{stderr}");
        let program =
            ompadapt_rt::store::Program::new(&exe.file_name().unwrap().to_string_lossy(), &exe.canonicalize().unwrap().to_string_lossy());
        let rdir = dir.join(program.folder()).join("c_test");
        let parts: Vec<_> = std::fs::read_dir(&rdir)
            .unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", rdir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("part-"))
            .collect();
        assert_eq!(parts.len(), 1, "one file per process and save: {parts:?}");
        let saved = std::fs::read_to_string(&parts[0]).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&saved).unwrap();
        assert!(doc["format"] == "ompadapt-samples" && doc["version"] == 2, "{saved}");
        // c_explicit: the explicit save, then the exit handler's (3 more executions)
        let xdir = dir.join(program.folder()).join("c_explicit");
        let xparts =
            std::fs::read_dir(&xdir).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("part-")).count();
        assert_eq!(xparts, 2, "{stderr}");
        assert!(stderr.contains("trained by an explicit train call"), "{stderr}");

        // Second run: starts from the saved samples, so the model decides from the first execution.
        let (code, _, stderr) = run(exe, "trained", &dir);
        assert_eq!(code, 0, "{} trained: exit {code}\nstderr:\n{stderr}", exe.display());
        assert!(stderr.contains("(0 exploring, 40 chosen by the model"), "{stderr}");
        assert!(stderr.contains("loaded: the stored model, trained on exactly the saved data"), "{stderr}");
        assert!(stderr.contains("start-up: loaded the stored model"), "nothing trained at start-up: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&work);
}
