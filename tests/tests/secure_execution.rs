//! A program built with the plugin never hands its privileges to its environment, and its
//! store and report cannot be redirected by links another user planted.
//!
//! The setuid tests build tests/programs/controlled_cost.c with clang-19 + the plugin, make it
//! setuid root and run it as `nobody` (`setpriv`), so the kernel runs it in secure-execution
//! mode for real. Each attack also runs once without secure execution (as plain root): that
//! control shows the environment is honoured there, so the attack's failure under setuid is
//! the runtime's doing. These tests need root (CI runs as root); run as another user they say
//! so and pass without checking anything.

use std::fs;
use std::os::unix::fs::{lchown, symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use ompadapt_tests::*;

fn is_root() -> bool {
    fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

const NOBODY: u32 = 65534;

/// Skips (with a line saying so) unless root with setpriv available.
macro_rules! require_root {
    () => {
        if !is_root() || Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("skipped: needs root and setpriv (CI runs as root)");
            return;
        }
    };
}

fn chmod(p: &Path, mode: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

/// A scratch directory every user can traverse (the setuid program runs as nobody).
fn open_scratch() -> tempfile::TempDir {
    let d = scratch();
    chmod(d.path(), 0o755);
    d
}

/// A directory whose every ancestor is owned by root and writable by no one else (what the
/// generated loader trusts in secure-execution mode), removed on drop. /tmp is world-writable,
/// so it lives under /run.
struct TrustedDir(PathBuf);

impl TrustedDir {
    fn new(tag: &str) -> TrustedDir {
        let base = ["/run", "/usr/local/lib"].iter().map(Path::new).find(|p| p.is_dir()).expect("/run or /usr/local/lib");
        let d = base.join(format!("ompadapt-test-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir(&d).unwrap();
        chmod(&d, 0o755);
        TrustedDir(d)
    }
}

impl TrustedDir {
    /// A trusted copy of the built runtime, for the program's default runtime.
    fn with_runtime(tag: &str) -> (TrustedDir, PathBuf) {
        let t = TrustedDir::new(tag);
        let runtime = t.0.join("libompadapt_rt.so");
        fs::copy(lib_dir().join("libompadapt_rt.so"), &runtime).unwrap();
        (t, runtime)
    }
}

impl Drop for TrustedDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// controlled_cost.c compiled with the plugin; its default runtime (what the loader may
/// dlopen) is `runtime`, made setuid root.
fn build_setuid(dir: &Path, name: &str, runtime: &Path, extra: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    let mut c = Command::new(CLANG);
    c.env("OMPADAPT_RUNTIME_DEFAULT", runtime)
        .arg("-O2")
        .arg("-fopenmp")
        .arg(format!("-fplugin={}", plugin().display()))
        .args(extra)
        .arg(source("programs/controlled_cost.c"))
        .arg("-o")
        .arg(&exe);
    run(&mut c).expect_ok("compiling controlled_cost.c");
    chmod(&exe, 0o4755);
    exe
}

/// A library whose constructor creates `marker`: what an attacker would hand the program.
fn evil_library(dir: &Path, marker: &Path) -> PathBuf {
    let src = dir.join("evil.c");
    fs::write(
        &src,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void evil(void) {{\n  \
             FILE *f = fopen(\"{}\", \"w\");\n  if (f) {{ fputs(\"constructor ran\\n\", f); fclose(f); }}\n}}\n",
            marker.display()
        ),
    )
    .unwrap();
    let lib = dir.join("libevil.so");
    run(Command::new(CLANG).args(["-shared", "-fPIC", "-o"]).arg(&lib).arg(&src)).expect_ok("compiling the evil library");
    lib
}

/// Runs `exe args` with exactly `env` (plus PATH) in `cwd`: as nobody through setpriv
/// (secure-execution mode, since `exe` is setuid root), or as plain root.
fn run_env(exe: &Path, args: &[&str], env: &[(&str, &Path)], cwd: &Path, as_nobody: bool) -> Run {
    let mut c = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    c.args(args).current_dir(cwd).env_clear().env("PATH", "/usr/bin:/bin");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

/// The lines ompadapt wrote on stderr.
fn ompadapt_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("ompadapt:")).collect()
}

/// The program's own output: its 8 decisions, every one the cheaper variant (`trained`), or
/// every one the first variant (no runtime).
fn check_output(stdout: &str, trained: bool) -> Result<(), String> {
    let d: Vec<(u32, u32)> = records(stdout, "DECISION").iter().map(|r| (r["n"].parse().unwrap(), r["variant"].parse().unwrap())).collect();
    if d.len() != 8 {
        return Err(format!("expected 8 decisions:\n{stdout}"));
    }
    for (n, v) in d {
        let want = if trained { u32::from(n > 500) } else { 0 };
        if v != want {
            return Err(format!("n={n}: variant {v}, expected {want}:\n{stdout}"));
        }
    }
    Ok(())
}

/// Every entry under `dir`, for before/after comparisons.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            out.push(e.path());
            if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                out.extend(tree(&e.path()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn setuid_program_ignores_the_runtime_report_and_store_the_environment_names() {
    require_root!();
    let _timing = timing_lock();
    let dir = open_scratch();
    let d = dir.path();
    let (_trusted, runtime) = TrustedDir::with_runtime("attacks");
    let exe = build_setuid(d, "controlled_cost", &runtime, &[]);

    // What the unprivileged user controls: a home with the evil library.
    let home = d.join("home");
    fs::create_dir(&home).unwrap();
    let marker = d.join("evil-constructor-ran");
    let evil = evil_library(&home, &marker);
    lchown(&home, Some(NOBODY), Some(NOBODY)).unwrap();
    // What the user must not touch: a root-owned file and a root-owned folder.
    let protected = d.join("protected");
    fs::create_dir(&protected).unwrap();
    let target = protected.join("passwd");
    fs::write(&target, "root-owned content\n").unwrap();
    chmod(&target, 0o644);
    let store = protected.join("store");
    let trace = protected.join("trace.json");

    let attack: Vec<(&str, &Path)> = vec![
        ("OMPADAPT_RUNTIME", evil.as_path()),
        ("OMPADAPT_REPORT", Path::new("")), // replaced below
        ("OMPADAPT_DIR", store.as_path()),
        ("OMPADAPT_TRACE", trace.as_path()),
        ("OMPADAPT_MODEL", Path::new("not-a-model")), // read, it would print a warning
        ("APOLLO_POLICY_MODEL", Path::new("bogus")),
    ];
    let report = format!("json:{}", target.display());
    let attack: Vec<(&str, &Path)> =
        attack.into_iter().map(|(k, v)| if k == "OMPADAPT_REPORT" { (k, Path::new(report.as_str())) } else { (k, v) }).collect();

    with_retries(3, || {
        let out = run_env(&exe, &[], &attack, d, true);
        out.expect_ok("the setuid program run by nobody");
        assert!(!marker.exists(), "the evil library's constructor ran with euid 0");
        assert_eq!(fs::read_to_string(&target).unwrap(), "root-owned content\n", "the report overwrote a root-owned file");
        assert!(!store.exists(), "a root-owned store was created where the environment said");
        assert!(!trace.exists(), "a root-owned trace was written where the environment said");
        assert!(!d.join(".ompadapt").exists(), "nothing is saved by default in secure-execution mode");
        let lines = ompadapt_lines(&out.stderr);
        assert_eq!(lines.len(), 1, "one line says what was ignored:\n{}", out.stderr);
        for var in ["APOLLO_POLICY_MODEL", "OMPADAPT_DIR", "OMPADAPT_MODEL", "OMPADAPT_REPORT", "OMPADAPT_RUNTIME", "OMPADAPT_TRACE"] {
            assert!(lines[0].contains(var), "the line names {var}: {}", lines[0]);
        }
        assert!(lines[0].contains("secure-execution mode") && lines[0].contains("stays in memory"), "{}", lines[0]);
        // the runtime beside the plugin was loaded: the program learned, in memory
        check_output(&out.stdout, true)
    });

    // Controls, without secure execution: the same environment is honoured.
    let out = run_env(&exe, &[], &[("OMPADAPT_RUNTIME", &evil)], d, false);
    out.expect_ok("the program run by root with the evil runtime");
    assert!(marker.exists(), "control: outside secure-execution mode OMPADAPT_RUNTIME is loaded");
    let out =
        run_env(&exe, &[], &[("OMPADAPT_REPORT", Path::new(&report)), ("OMPADAPT_DIR", &store), ("OMPADAPT_TRACE", &trace)], d, false);
    out.expect_ok("the program run by root with a report, a store and a trace");
    assert!(fs::read_to_string(&target).unwrap().contains("ompadapt-report"), "control: the report is written");
    assert!(store.is_dir(), "control: the store is created");
    assert!(fs::read_to_string(&trace).unwrap().contains("traceEvents"), "control: the trace is written");
}

#[test]
fn setgid_program_ignores_the_environment_too() {
    require_root!();
    let dir = open_scratch();
    let d = dir.path();
    let (_trusted, runtime) = TrustedDir::with_runtime("setgid");
    let exe = build_setuid(d, "controlled_cost", &runtime, &[]);
    chmod(&exe, 0o2755); // setgid root, not setuid: the program runs as nobody with group root
                         // writable by group root only: what the privilege would give
    let group_dir = d.join("group-root");
    fs::create_dir(&group_dir).unwrap();
    chmod(&group_dir, 0o775);
    let report = group_dir.join("report.json");
    let spec = format!("json:{}", report.display());
    let env: [(&str, &Path); 2] = [("OMPADAPT_REPORT", Path::new(&spec)), ("OMPADAPT_DIR", &group_dir.join("store"))];
    let out = run_env(&exe, &[], &env, d, true);
    out.expect_ok("the setgid program run by nobody");
    assert!(!report.exists() && !group_dir.join("store").exists(), "nothing written with the group's privilege");
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].contains("secure-execution mode") && lines[0].contains("OMPADAPT_DIR, OMPADAPT_REPORT"), "{}", lines[0]);
    assert_eq!(records(&out.stdout, "DECISION").len(), 8, "the program's output is intact");
    // control: as root, outside secure-execution mode, the report is written there
    run_env(&exe, &[], &env, d, false).expect_ok("the program run by root");
    assert!(report.exists(), "control: the report is written outside secure-execution mode");
}

#[test]
fn setuid_program_refuses_a_runtime_it_cannot_trust() {
    require_root!();
    let dir = open_scratch();
    let d = dir.path();
    // the default runtime in a folder (and a /tmp) that others can write, owned by nobody
    let folder = d.join("build-tree-of-nobody");
    fs::create_dir(&folder).unwrap();
    let runtime = folder.join("libompadapt_rt.so");
    fs::copy(lib_dir().join("libompadapt_rt.so"), &runtime).unwrap();
    lchown(&runtime, Some(NOBODY), Some(NOBODY)).unwrap();
    let exe = build_setuid(d, "controlled_cost", &runtime, &[]);
    let marker = d.join("evil-constructor-ran");
    let evil = evil_library(d, &marker);
    let out = run_env(&exe, &[], &[("OMPADAPT_RUNTIME", &evil)], d, true);
    out.expect_ok("the setuid program with an untrusted runtime");
    assert!(!marker.exists(), "the evil library's constructor ran with euid 0");
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "one line says why:\n{}", out.stderr);
    assert!(
        lines[0].contains("OMPADAPT_RUNTIME is ignored")
            && lines[0].contains(&format!("{} is not loaded", runtime.display()))
            && (lines[0].contains("writable by group or others") || lines[0].contains("not owned by root")),
        "{}",
        lines[0]
    );
    // every region runs its first variant; the program's results are intact
    check_output(&out.stdout, false).unwrap();
}

#[test]
fn setuid_program_saves_and_loads_only_in_the_store_it_names() {
    require_root!();
    let _timing = timing_lock();
    let dir = open_scratch();
    let d = dir.path();
    let lib = lib_dir();
    // linked with the runtime (ompadapt_set_dir is a C API call), which ld.so loads by its rpath
    let exe = build_setuid(
        d,
        "controlled_cost",
        Path::new("/nonexistent/libompadapt_rt.so"),
        &["-DSET_DIR", &format!("-L{}", lib.display()), "-lompadapt_rt", &format!("-Wl,-rpath,{}", lib.display())],
    );
    let protected = d.join("protected");
    fs::create_dir(&protected).unwrap();
    let store = protected.join("program-store");
    let env_store = protected.join("env-store");
    let store_arg = store.to_str().unwrap();
    with_retries(3, || {
        let _ = fs::remove_dir_all(&store);
        let out = run_env(&exe, &["train", store_arg], &[("OMPADAPT_DIR", &env_store)], d, true);
        out.expect_ok("training run, setuid");
        assert!(out.stdout.contains("SET_DIR rc=0"), "{}", out.stdout);
        check_output(&out.stdout, true)?;
        let lines = ompadapt_lines(&out.stderr);
        assert_eq!(lines.len(), 1, "{}", out.stderr);
        assert!(lines[0].contains("ignored OMPADAPT_DIR") && lines[0].contains(&format!("saved only in {store_arg}")), "{}", lines[0]);
        assert!(!env_store.exists(), "OMPADAPT_DIR is ignored");
        let parts: Vec<PathBuf> = tree(&store).into_iter().filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
        assert_eq!(parts.len(), 1, "the program's store holds one part file: {parts:?}");
        assert_eq!(fs::metadata(&parts[0]).unwrap().mode() & 0o002, 0, "never world-writable");
        // a query run starts from what was saved (it explores nothing)
        let out = run_env(&exe, &["query", store_arg], &[], d, true);
        out.expect_ok("query run, setuid");
        assert!(ompadapt_lines(&out.stderr).is_empty(), "nothing ignored, nothing to say:\n{}", out.stderr);
        check_output(&out.stdout, true).map_err(|e| format!("from the saved store: {e}"))
    });
    // a relative store would follow the invoking user's working directory: refused
    let out = run_env(&exe, &["train", "relative-store"], &[], d, true);
    out.expect_ok("setuid run with a relative store");
    assert!(out.stdout.contains("SET_DIR rc=-1"), "{}", out.stdout);
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].contains("'relative-store' is relative") && lines[0].contains("absolute"), "{}", lines[0]);
    assert!(!d.join("relative-store").exists() && !d.join(".ompadapt").exists());
}

/// A folder other users can write (a group's project directory), where `nobody` plants links.
fn shared_folder(d: &Path) -> PathBuf {
    let shared = d.join("shared");
    fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o777);
    shared
}

fn plant_link(target: &Path, link: &Path) {
    symlink(target, link).unwrap();
    lchown(link, Some(NOBODY), Some(NOBODY)).unwrap();
}

#[test]
fn links_planted_in_a_shared_store_or_report_path_are_refused_with_one_message() {
    require_root!();
    let dir = open_scratch();
    let d = dir.path();
    let exe = build("controlled_cost", d);
    let shared = shared_folder(d);
    let victim = d.join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("keep"), "victim's file\n").unwrap();
    let before = tree(&victim);

    // 1. the program's folder in a shared store is another user's link
    let store = shared.join("store");
    fs::create_dir(&store).unwrap();
    chmod(&store, 0o777);
    let folder = program_folder(&exe);
    plant_link(&victim, &store.join(&folder));
    let out = run_env(&exe, &[], &[("OMPADAPT_DIR", &store)], d, false);
    out.expect_ok("run with a planted program folder");
    assert_eq!(records(&out.stdout, "DECISION").len(), 8, "the program's output is intact");
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "one message:\n{}", out.stderr);
    assert!(lines[0].contains(&format!("{} is a symbolic link", store.join(&folder).display())), "{}", lines[0]);
    assert_eq!(tree(&victim), before, "nothing was written through the link");

    // 2. the store root itself is a link another user planted
    let root_link = shared.join("store-link");
    plant_link(&victim, &root_link);
    let out = run_env(&exe, &[], &[("OMPADAPT_DIR", &root_link)], d, false);
    out.expect_ok("run with a planted store root");
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "one message:\n{}", out.stderr);
    assert!(lines[0].contains("is a symbolic link (owned by uid 65534)"), "{}", lines[0]);
    assert_eq!(tree(&victim), before, "nothing was written through the link");

    // 3. the report's name is a link to another file: the report replaces the link
    let report = shared.join("report.json");
    plant_link(&victim.join("keep"), &report);
    let spec = format!("json:{}", report.display());
    let out = run_env(&exe, &[], &[("OMPADAPT_REPORT", Path::new(&spec)), ("OMPADAPT_PERSIST", Path::new("0"))], d, false);
    out.expect_ok("run with a planted report link");
    assert_eq!(fs::read_to_string(victim.join("keep")).unwrap(), "victim's file\n", "the report went through the link");
    let meta = fs::symlink_metadata(&report).unwrap();
    assert!(meta.file_type().is_file() && meta.mode() & 0o002 == 0, "a regular file, not world-writable");
    assert!(fs::read_to_string(&report).unwrap().contains("ompadapt-report"));
}

#[test]
fn an_oversized_stored_file_is_refused_without_being_read() {
    require_root!();
    let dir = open_scratch();
    let d = dir.path();
    let exe = build("controlled_cost", d);
    let store = shared_folder(d).join("store");
    let region = store.join(program_folder(&exe)).join("cost");
    fs::create_dir_all(&region).unwrap();
    // 3 GiB, sparse: costs no disk, but reading it would take 3 GiB of memory
    let planted = region.join("part-planted-0.json");
    fs::File::create(&planted).unwrap().set_len(3 << 30).unwrap();
    lchown(&planted, Some(NOBODY), Some(NOBODY)).unwrap();
    // under a 1 GiB address-space limit: the program fails if it reads the file
    let mut c = Command::new("sh");
    c.arg("-c").arg("ulimit -v 1048576 && exec \"$0\"").arg(&exe).current_dir(d).env("OMPADAPT_DIR", &store).env_remove("OMPADAPT_REPORT");
    let out = run(&mut c);
    out.expect_ok("run with a planted 3 GiB data file");
    assert_eq!(records(&out.stdout, "DECISION").len(), 8, "the program's output is intact");
    let lines = ompadapt_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "one message:\n{}", out.stderr);
    assert!(lines[0].contains("is 3072 MiB, more than the 256 MiB ompadapt reads from one stored file"), "{}", lines[0]);
    assert!(!planted.exists(), "moved aside, so later runs do not meet it again");
    let names: Vec<String> = fs::read_dir(&region).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().any(|n| n.starts_with("part-planted-0.json.oversized-")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("part-") && n.ends_with(".json")), "this run's data was saved: {names:?}");
}

/// controlled_cost.c with the plugin (runtime beside it), not setuid.
fn build(name: &str, dir: &Path) -> PathBuf {
    let exe = dir.join(name);
    compile(&source(&format!("programs/{name}.c")), &exe, &["-O2"]).expect_ok("compiling");
    exe
}

/// libomp 19 loads `OMP_TOOL_LIBRARIES` even in secure-execution mode (an upstream flaw the
/// docs/security.md describes), so a user can make a setuid program load the
/// data-movement tool: the tool must then analyse nothing and write no report.
#[test]
fn setuid_program_with_the_data_movement_tool_writes_no_report() {
    require_root!();
    let dir = open_scratch();
    let d = dir.path();
    let exe = d.join("round_trip");
    compile(&source("../dataperf/tests/programs/round_trip.c"), &exe, &[HOST_OFFLOAD, "-O2"]).expect_ok("compiling round_trip.c");
    chmod(&exe, 0o4755);
    let tool = lib_dir().join("libompadapt_dataperf.so");
    assert!(tool.exists(), "{} is built with the workspace", tool.display());
    let protected = d.join("protected");
    fs::create_dir(&protected).unwrap();
    let target = protected.join("passwd");
    fs::write(&target, "root-owned content\n").unwrap();
    chmod(&target, 0o644);
    let spec = format!("json:{}", target.display());
    let env: [(&str, &Path); 2] = [("OMP_TOOL_LIBRARIES", &tool), ("OMPADAPT_DATA", Path::new(&spec))];

    let out = run_env(&exe, &[], &env, d, true);
    out.expect_ok("the setuid program run by nobody with the tool");
    assert_eq!(fs::read_to_string(&target).unwrap(), "root-owned content\n", "the tool's report overwrote a root-owned file");
    assert!(out.stdout.contains("CHECK a="), "the program's output is intact:\n{}", out.stdout);
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("ompadapt-dataperf:")).collect();
    assert_eq!(lines.len(), 1, "one line says what was ignored:\n{}", out.stderr);
    assert!(lines[0].contains("secure-execution mode") && lines[0].contains("OMPADAPT_DATA"), "{}", lines[0]);

    // control: outside secure-execution mode the same environment writes the report there
    let out = run_env(&exe, &[], &env, d, false);
    out.expect_ok("the program run by root with the tool");
    assert!(fs::read_to_string(&target).unwrap().contains("ompadapt-dataperf/1"), "control: the report is written");
}
