//! The `cpu` variant inside a data environment the compiler cannot see: a HeCBench-style
//! program (tests/programs/host_guard/caller_data.c) keeps its arrays on the device with
//! `target data` in a caller (or `target enter data` in another function) and runs its
//! adaptive kernel in a function of its own. The host version brings the device data in, runs,
//! and sends it back (the runtime finds the mappings' extents at run time): results identical
//! to the stock build and to the serial reference for every forced sequence of variants, at
//! -O0 and -O2, in C and C++, with the host version running wherever `cpu` is forced. Only
//! device memory the host cannot read (omp_target_alloc) makes the runtime refuse `cpu`.

use ompadapt_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const STEPS: usize = 12;
const SOURCE: &str = "programs/host_guard/caller_data.c";
const UNAVAILABLE_LINE: &str = "'cpu' unavailable in this run";

/// Where the data is: mapped in a caller, in other functions (`enter data`), in view, or
/// device memory (`omp_target_alloc`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Env {
    Caller,
    EnterData,
    Visible,
    DeviceAlloc,
}

const ENVS: [Env; 4] = [Env::Caller, Env::EnterData, Env::Visible, Env::DeviceAlloc];

impl Env {
    fn define(self) -> Option<&'static str> {
        match self {
            Env::Caller => None,
            Env::EnterData => Some("-DENTER_DATA"),
            Env::Visible => Some("-DVISIBLE"),
            Env::DeviceAlloc => Some("-DDEVICE_ALLOC"),
        }
    }

    /// Whether the host version can stand in for the launch.
    fn host_readable(self) -> bool {
        self != Env::DeviceAlloc
    }
}

fn build(dir: &Path, env: Env, opt: &str, cxx: bool) -> PathBuf {
    let exe = dir.join(format!("guard_{env:?}{opt}{}", if cxx { "_cpp" } else { "" }));
    let mut flags = vec![opt, "-Wl,-rpath,/usr/lib/llvm-19/lib"];
    if cxx {
        // clang-19 in C++ mode, linking as C++ (the driver is not clang++)
        flags.extend(["-x", "c++", "-lstdc++"]);
    }
    flags.extend(env.define());
    let out = compile(&source(SOURCE), &exe, &flags);
    out.expect_ok(&format!("compiling {SOURCE} {env:?} {opt} c++={cxx}"));
    exe
}

/// The stock build (no plugin, no directive) of the same program: the results to match.
fn stock(dir: &Path, env: Env) -> String {
    let exe = dir.join(format!("stock_{env:?}"));
    let mut c = Command::new(CLANG);
    c.args(["-O2", "-fopenmp", HOST_OFFLOAD, "-DSTOCK", "-Wl,-rpath,/usr/lib/llvm-19/lib"]).args(env.define());
    run(c.arg(source(SOURCE)).arg("-o").arg(&exe)).expect_ok("the stock build");
    let out = run_program(&exe, dir, &[]);
    out.expect_ok("the stock build (checks itself against the serial reference)");
    result(&out.stdout).0
}

/// (checksum and error against the serial reference, where each step ran: H host, D device).
fn result(stdout: &str) -> (String, String) {
    let line = stdout.lines().rfind(|l| l.starts_with("checksum ")).unwrap_or_else(|| panic!("no result line:\n{stdout}"));
    let (sums, where_) = line.split_once(" where ").unwrap();
    assert!(sums.ends_with(" error 0"), "differs from the serial reference: {line}");
    (sums.to_string(), where_.to_string())
}

fn sequences() -> Vec<String> {
    let mut s: Vec<String> = ["0", "1", "0,1", "1,0,0", "0,0,1,1,1"].map(String::from).to_vec();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3 {
        let seq: Vec<String> = (0..STEPS)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2).to_string()
            })
            .collect();
        s.push(seq.join(","));
    }
    s
}

/// The variant forced at each of the program's executions.
fn expand(seq: &str) -> Vec<char> {
    let v: Vec<char> = seq.split(',').map(|x| if x == "0" { 'H' } else { 'D' }).collect();
    (0..STEPS).map(|k| v[k % v.len()]).collect()
}

#[test]
fn hidden_data_environments_run_the_host_version_with_the_device_data() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    for env in ENVS {
        let reference = stock(dir.path(), env);
        for (opt, cxx) in [("-O0", false), ("-O2", false), ("-O2", true)] {
            let exe = build(dir.path(), env, opt, cxx);
            for seq in sequences() {
                let out = run_program(&exe, dir.path(), &[("OMPADAPT_RUNTIME", lib.to_str().unwrap()), ("OMPADAPT_TEST_SEQUENCE", &seq)]);
                let what = format!("{env:?} {opt} c++={cxx} sequence {seq}");
                out.expect_ok(&what);
                let (sums, where_) = result(&out.stdout);
                assert_eq!(sums, reference, "{what}: results differ from the stock build");
                let wanted: String = expand(&seq).into_iter().collect();
                let cpu_runs = wanted.chars().filter(|&c| c == 'H').count();
                let guarded = out.stdout.lines().filter(|l| l.starts_with("UNAVAILABLE variant=0 replacement=1")).count();
                if env.host_readable() {
                    assert_eq!(where_, wanted, "{what}: the host version must run where forced");
                    assert_eq!(guarded, 0, "{what}: cpu refused");
                } else {
                    assert_eq!(where_, "D".repeat(STEPS), "{what}: the host version ran on device memory");
                    assert_eq!(guarded, cpu_runs, "{what}: one refusal per forced cpu execution");
                }
            }
        }
    }
}

/// With the real runtime the results are the stock build's. Where the data is mapped, `cpu` is
/// explored (it runs on the host at least once), nothing is unavailable and the report gives
/// the copies' bytes; on device memory one line on stderr, the report marks `cpu`
/// unavailable, and exploration and the model never choose it again.
#[test]
fn real_runtime_explores_cpu_wherever_the_data_is_mapped() {
    let dir = scratch();
    for env in ENVS {
        let reference = stock(dir.path(), env);
        let exe = build(dir.path(), env, "-O2", false);
        let json = dir.path().join(format!("report_{env:?}.json"));
        let report = format!("json:{}", json.display());
        let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0"), ("OMPADAPT_REPORT", &report)]);
        out.expect_ok(&format!("{env:?} with the real runtime"));
        let (sums, where_) = result(&out.stdout);
        assert_eq!(sums, reference, "{env:?}: results differ from the stock build");
        let lines = out.stderr.lines().filter(|l| l.contains(UNAVAILABLE_LINE)).count();
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let region = &doc["regions"][0];
        assert_eq!(region["region"], "stencil");
        if env.host_readable() {
            assert_eq!(lines, 0, "{}", out.stderr);
            assert!(region.get("unavailable").is_none(), "{region}");
            assert!(where_.contains('H'), "{env:?}: never ran the host version: {where_}");
            // u and v (4096 doubles each) in, and back
            let copies = &region["host_copies"];
            assert_eq!(copies["transferred_bytes"].as_f64(), Some(4.0 * 4096.0 * 8.0), "{region}");
            assert_eq!(copies["preserved_bytes"].as_f64(), Some(2.0 * 4096.0 * 8.0), "{region}");
        } else {
            assert_eq!(lines, 1, "one line per region and variant:\n{}", out.stderr);
            assert!(out.stderr.contains("region 'stencil': 'cpu' unavailable in this run: its launch passes a pointer"), "{}", out.stderr);
            assert_eq!(where_, "D".repeat(STEPS));
            assert_eq!(region["unavailable"][0]["variant"], "cpu", "{region}");
            assert_eq!(region["unavailable"][0]["replacement"], "gpu", "{region}");
            let cpu_timings: u64 = region["timings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["variant"] == "cpu")
                .map(|t| t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap())
                .sum();
            assert_eq!(cpu_timings, 0, "no execution recorded under cpu: {region}");
            assert_eq!(region["executions"], STEPS as u64, "{region}");
        }
    }
}
