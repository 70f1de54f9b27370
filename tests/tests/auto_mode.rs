//! Zero-source-change mode (`-fplugin-arg-ompadapt-auto=<kinds>`): unmodified OpenMP offload
//! programs (tests/programs/auto/) built stock and in auto mode under host offload. Every
//! variant of every region runs (forced sequences through the stand-in runtime,
//! tests/programs/variants/forced_runtime.c) and the real runtime explores on its own; the
//! output must equal the stock build's byte for byte. Region names
//! (`<function>@<file>:<line>`), remarks on the constructs left as written, errors on bad
//! kinds, and plain `-fopenmp` builds without offload targets are checked too.

use ompadapt_tests::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const TWO_KINDS: &str = "cpu,gpu";
const SIX_KINDS: &str = "cpu,gpu,thread_limit[64:256:64]";
const RPATH: &str = "-Wl,-rpath,/usr/lib/llvm-19/lib";

fn programs_dir() -> PathBuf {
    source("programs/auto")
}

/// Compiles tests/programs/auto/`file` from its directory (so that region names carry the
/// relative file name, as a Makefile build does), with `flags` after the common ones.
fn compile_program(file: &str, exe: &Path, flags: &[&str]) -> Run {
    let driver = if file.ends_with(".cpp") { "clang++-19" } else { CLANG };
    let mut c = Command::new(driver);
    c.current_dir(programs_dir()).arg("-O2").arg("-fopenmp").args(flags).arg(RPATH).arg(file).arg("-o").arg(exe);
    run(&mut c)
}

fn auto_flags(kinds: &str) -> Vec<String> {
    vec![HOST_OFFLOAD.to_string(), format!("-fplugin={}", plugin().display()), format!("-fplugin-arg-ompadapt-auto={kinds}")]
}

/// The line of the first line of `file` containing `needle` (1-based).
fn line_of(file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(programs_dir().join(file)).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in {file}")) + 1
}

/// The regions each program has in auto mode, by name; the explicit one keeps its own. Each
/// instantiation of a template is a region of its own, named after its template arguments (the
/// pass names the regions of zero-source-change mode from their functions' symbols).
fn expected_regions(file: &str) -> BTreeSet<String> {
    let at = |function: &str, line: usize| format!("{function}@{file}:{line}");
    let template = |function: &str, args: &[&str], line: usize| -> Vec<String> {
        args.iter().map(|a| at(&format!("{function}<{a}>"), line)).collect::<Vec<_>>()
    };
    match file {
        "heat_steps.c" => BTreeSet::from([
            at("init", line_of(file, "map(from: u[0:n], v[0:n])")),
            at("total", line_of(file, "reduction(+: s) map(to: u[0:n])")),
            at("grid", line_of(file, "collapse(2) map(tofrom: g")),
            at("main", line_of(file, "v[i] = u[i - 1]") - 1),
            at("main", line_of(file, "u[i] = (double)") - 1),
            at("main", line_of(file, "  SCALE_U(2.0) SCALE_U(3.0)")),
            at("main", line_of(file, "  SCALE_U(2.0) SCALE_U(3.0)")) + "#2",
            "explicit_scale".to_string(),
        ]),
        "classes.cpp" => {
            let mut s = BTreeSet::from([
                at("sim::Field::fill", line_of(file, "map(from: d[0:n])")),
                at("sim::Field::sum", line_of(file, "reduction(+: s) map(to: d[0:n])")),
                at("main", line_of(file, "map(tofrom: p[0:m])")),
            ]);
            // a function template called with double and float, a class template's member
            s.extend(template("sim::axpy", &["double", "float"], line_of(file, "map(to: x[0:n]) map(tofrom: y[0:n])")));
            s.extend(template("sim::Stencil::apply", &["double"], line_of(file, "map(tofrom: p[0:n])")));
            s
        }
        _ => unreachable!(),
    }
}

/// The program's own output: the stand-in runtime's FORCED lines left out.
fn program_output(stdout: &str) -> String {
    stdout.lines().filter(|l| !l.starts_with("FORCED ")).map(|l| format!("{l}\n")).collect()
}

/// Builds in parallel: (program, label, flags) → executables.
fn build_all(dir: &Path, jobs: &[(&str, String, Vec<String>)]) -> Vec<PathBuf> {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(file, label, flags)| {
                s.spawn(move || {
                    let exe = dir.join(format!("{}-{label}", file.replace('.', "_")));
                    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
                    let out = compile_program(file, &exe, &flags);
                    out.expect_ok(&format!("compiling {file} ({label})"));
                    // Without an offload target an explicit `variants(cpu, gpu)` region is one
                    // host code, and the plugin says so; nothing else may be said.
                    let no_target = !flags.iter().any(|f| f.starts_with("-fopenmp-targets"));
                    let said = |l: &&str| {
                        (l.contains("warning") || l.contains("remark"))
                            && !l.ends_with("generated.")
                            && !(no_target && l.contains("warning: no offload target in this compilation"))
                    };
                    assert!(!out.stderr.lines().any(|l| said(&l)), "{file} ({label}): {}", out.stderr);
                    exe
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a build thread")).collect()
    })
}

fn stock_output(exe: &Path, dir: &Path) -> String {
    let out = run_program(exe, dir, &[]);
    out.expect_ok("the stock build");
    assert!(!out.stdout.is_empty());
    out.stdout
}

/// The `features:` line of region `name` in a runtime report.
fn report_features(report: &str, name: &str) -> Option<String> {
    let mut lines = report.lines().skip_while(|l| !l.starts_with(&format!("region '{name}'")));
    lines.next()?;
    lines.take_while(|l| !l.starts_with("region '")).find_map(|l| l.trim().strip_prefix("features: ")).map(str::to_string)
}

#[test]
fn unmodified_programs_keep_their_results_under_every_variant() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    let mut jobs = Vec::new();
    for file in ["heat_steps.c", "classes.cpp"] {
        jobs.push((file, "stock".to_string(), vec![HOST_OFFLOAD.to_string()]));
        jobs.push((file, "two".to_string(), auto_flags(TWO_KINDS)));
        jobs.push((file, "six".to_string(), auto_flags(SIX_KINDS)));
    }
    let exes = build_all(dir.path(), &jobs);
    for (k, file) in ["heat_steps.c", "classes.cpp"].iter().enumerate() {
        let stock = stock_output(&exes[3 * k], dir.path());
        let want = expected_regions(file);
        for (exe, variants) in [(&exes[3 * k + 1], 2), (&exes[3 * k + 2], 6)] {
            let mut sequences: Vec<String> = (0..variants).map(|v| v.to_string()).collect();
            sequences.extend((1..=2).map(|seed| random_sequence(seed, 50, variants)));
            for seq in &sequences {
                let out = run_program(exe, dir.path(), &[("OMPADAPT_RUNTIME", lib.to_str().unwrap()), ("OMPADAPT_TEST_SEQUENCE", seq)]);
                out.expect_ok(&format!("{file} with {variants} variants, sequence {seq}"));
                assert_eq!(program_output(&out.stdout), stock, "{file} with {variants} variants, sequence {seq}");
                let ran: BTreeSet<String> = records(&out.stdout, "FORCED").iter().map(|r| r["region"].clone()).collect();
                assert_eq!(ran, want, "{file}: the regions that ran");
                // Each region has every variant of the flag (the explicit one keeps its own).
                if seq == "1" {
                    assert!(!out.stderr.contains("UNLOWERED"), "{file}: every launch was dispatched: {}", out.stderr);
                }
            }
        }
    }
}

#[test]
fn the_real_runtime_reports_every_region_by_name() {
    let dir = scratch();
    let jobs: Vec<(&str, String, Vec<String>)> = vec![
        ("heat_steps.c", "stock".into(), vec![HOST_OFFLOAD.to_string()]),
        ("heat_steps.c", "six".into(), auto_flags(SIX_KINDS)),
        ("classes.cpp", "stock".into(), vec![HOST_OFFLOAD.to_string()]),
        ("classes.cpp", "two".into(), auto_flags(TWO_KINDS)),
    ];
    let exes = build_all(dir.path(), &jobs);
    for (k, file) in ["heat_steps.c", "classes.cpp"].iter().enumerate() {
        let stock = stock_output(&exes[2 * k], dir.path());
        // Twice: the second run starts from what the first one learned.
        for round in 0..2 {
            let out = run_program(&exes[2 * k + 1], dir.path(), &[("OMPADAPT_REPORT", "1")]);
            out.expect_ok(&format!("{file} with the real runtime, run {round}"));
            assert_eq!(out.stdout, stock, "{file}, run {round}");
            for name in expected_regions(file) {
                // Each region is reported with its automatic features (after the explicit ones).
                let features =
                    report_features(&out.stderr, &name).unwrap_or_else(|| panic!("{file}: no report of '{name}':\n{}", out.stderr));
                let first_auto = match name.as_str() {
                    "explicit_scale" => "n, trip_count(i), ",
                    _ => "trip_count(",
                };
                assert!(features.starts_with(first_auto) && features.ends_with("loop_depth, calls"), "{name}: {features}");
            }
            assert!(!out.stderr.contains("did not run"), "{file}: {}", out.stderr);
        }
    }
    // The report lists the auto kinds as each region's variants.
    let out = run_program(&exes[1], dir.path(), &[("OMPADAPT_REPORT", "1")]);
    assert!(
        out.stderr.contains("variants: cpu, gpu, thread_limit=64, thread_limit=128, thread_limit=192, thread_limit=256"),
        "{}",
        out.stderr
    );
}

#[test]
fn remarks_say_which_constructs_are_left_as_written() {
    let dir = scratch();
    let exe = dir.path().join("heat");
    let mut flags = auto_flags(TWO_KINDS);
    flags.push("-fplugin-arg-ompadapt-remarks".into());
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let out = compile_program("heat_steps.c", &exe, &flags);
    out.expect_ok("heat_steps.c with remarks");
    // The frontend's remarks (located at the directive); the pass's own are LLVM remarks
    // (`[OMPADAPT1xx] ...`, under -Rpass*=ompadapt).
    let pass_remark = |l: &str| l.contains(": remark: [OMPADAPT") && l.ends_with("=ompadapt]");
    let remarks: Vec<&str> = out.stderr.lines().filter(|l| l.contains(": remark: ") && !pass_remark(l)).collect();
    // The flag reaches the pass too: it lists the automatic features of each region it lowered.
    assert!(
        out.stderr.lines().any(|l| pass_remark(l)
            && l.contains(&format!(
                "region 'main@heat_steps.c:{}': automatic features: trip_count(loop1)",
                line_of("heat_steps.c", "v[i] = u[i - 1]") - 1
            ))),
        "{}",
        out.stderr
    );
    // Zero-source-change mode is the pass's (the frontend handed it over: every kind is one the
    // pass applies), so the frontend says nothing and the pass says which launches it left.
    assert!(remarks.is_empty(), "{}", out.stderr);
    for needle in ["map(tofrom: w[0:n]) nowait", "map(tofrom: z[0:n]) nowait"] {
        let region = format!("region 'main@heat_steps.c:{}': left as written: a deferred launch (nowait or depend", line_of("heat_steps.c", needle));
        let said: Vec<&str> = out.stderr.lines().filter(|l| pass_remark(l) && l.contains("[OMPADAPT155]") && l.contains(&region)).collect();
        assert_eq!(said.len(), 1, "{region}: {}", out.stderr);
    }
    // Said once (by the host compilation), and no warning.
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    // The flag reaches the pass too: it says which automatic features each region got.
    let grid = format!("region 'grid@heat_steps.c:{}'", line_of("heat_steps.c", "collapse(2) map(tofrom: g"));
    // (the pass names loops by their place: the IR has no loop variables without -g)
    assert!(out.stderr.lines().any(|l| pass_remark(l) && l.contains(&grid) && l.contains("trip_count(loop1)")), "{}", out.stderr);
    // The remarks are the only difference the flag makes.
    let quiet = compile_program("heat_steps.c", &dir.path().join("heat2"), &flags[..3]);
    assert!(quiet.ok() && quiet.stderr.is_empty(), "{}", quiet.stderr);
}

#[test]
fn bad_kinds_are_a_clang_error_naming_the_flag() {
    let dir = scratch();
    let plugin = format!("-fplugin={}", plugin().display());
    for (kinds, why) in [
        ("cpu,host", "'host' is not a variant kind"),
        ("cpu,threads[0:1:0.5]", "a share of the team is above 0 and at most 1"),
        ("thread_limit[64:32:64]", "invalid -fplugin-arg-ompadapt-auto=thread_limit[64:32:64]"),
        ("", "needs a list of variant kinds"),
    ] {
        let flag = format!("-fplugin-arg-ompadapt-auto={kinds}");
        let out = compile_program("heat_steps.c", &dir.path().join("bad"), &[HOST_OFFLOAD, &plugin, &flag]);
        assert!(!out.ok(), "{kinds}");
        assert!(
            out.stderr.contains("error: ") && out.stderr.contains(why) && out.stderr.contains("-fplugin-arg-ompadapt-auto"),
            "{kinds}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("PLEASE submit"), "{}", out.stderr);
    }
}

/// Without `-fopenmp-targets` there is no offload: auto mode with target kinds compiles the same
/// programs with the same diagnostics (none under -Wall -Wextra), the same results, and no
/// region (two identical host versions would be no choice).
#[test]
fn plain_openmp_without_targets_compiles_and_runs_identically() {
    let dir = scratch();
    let warn = || vec!["-Wall".to_string(), "-Wextra".to_string()];
    let with = |mut v: Vec<String>| {
        v.extend(warn());
        v
    };
    let plugin_auto = vec![format!("-fplugin={}", plugin().display()), format!("-fplugin-arg-ompadapt-auto={SIX_KINDS}")];
    let jobs: Vec<(&str, String, Vec<String>)> = vec![
        ("heat_steps.c", "plain".into(), warn()),
        ("heat_steps.c", "plain-auto".into(), with(plugin_auto.clone())),
        ("classes.cpp", "plain".into(), warn()),
        ("classes.cpp", "plain-auto".into(), with(plugin_auto)),
    ];
    // build_all asserts that neither build says anything (no warning, no remark).
    let exes = build_all(dir.path(), &jobs);
    for pair in exes.chunks(2) {
        let stock = stock_output(&pair[0], dir.path());
        let out = run_program(&pair[1], dir.path(), &[("OMPADAPT_REPORT", "1")]);
        out.expect_ok("auto mode without offload targets");
        assert_eq!(out.stdout, stock);
        // No offload, so nothing to choose between: the kinds are target kinds, and a target
        // construct compiled without offload targets is a plain host call (no launch). The explicit
        // region keeps its own variants.
        let auto_regions: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("region '") && l.contains('@')).collect();
        assert!(auto_regions.is_empty(), "no region but the explicit one: {}", out.stderr);
    }
}
