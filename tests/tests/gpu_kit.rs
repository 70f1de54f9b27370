//! The GPU kit (docs/gpu-kit.md) is self-contained: its host-offload twin
//! (`scripts/gpu-kit.sh --host-twin`, the same kit built for libomptarget's host plugin) is
//! built, unpacked and run (`run.sh --quick`) in a mount namespace where the system's LLVM 19
//! (/usr/lib/llvm-19: clang, libomp, libomptarget) and every library the kit ships are hidden.
//! Every variant check must pass, and the results folder must hold the checks, the three
//! use-cases' `ompadapt bench` results and the sweeps.
//!
//! The namespace needs `unshare` (as root, or an unprivileged user namespace): where neither is
//! permitted the test says so on stderr and ends without checking anything, unless
//! OMPADAPT_REQUIRE_UNSHARE=1 makes that a failure.

use ompadapt_tests::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs inside the mount namespace: hides the system's LLVM 19 and the libraries the kit ships,
/// checks that they are hidden and that the kit's programs resolve everything in the kit, then
/// runs the kit. Libraries the shell tools run.sh uses need (bash's libtinfo, say) stay
/// visible, and are listed: the kit's programs find them in the kit first (LD_LIBRARY_PATH),
/// which the ldd check below shows.
const HIDE_AND_RUN: &str = r#"set -euo pipefail
kit="$1" results="$2" budget="$3" empty="$4"
mount -t tmpfs -o size=1m,mode=755 tmpfs /usr/lib/llvm-19
tools="bash env timeout awk sed grep tar gzip date sort cut tr head tail wc cmp diff mkdir rm cp ln
  cat mv find stat nproc uname tee du dirname basename readlink ls sleep xargs ldd"
keep="$(for t in $tools; do p="$(command -v "$t")" && ldd "$(readlink -f "$p")" 2>/dev/null || true; done |
  awk '/=>/ && $3 ~ /^\// { print $3 }' | xargs -r readlink -f | sort -u)"
declare -A done_
hidden="" visible=""
for dir in $(readlink -f /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu | sort -u); do
  for f in "$dir"/libLLVM* "$dir"/libomp* "$dir"/libclang* $(cd "$kit/lib" && for l in *; do echo "$dir/$l" "$dir/$l".*; done); do
    [ -e "$f" ] || continue
    r="$(readlink -f "$f")"
    [ -f "$r" ] && [ -z "${done_[$r]:-}" ] || continue
    done_[$r]=1
    if grep -qxF "$r" <<<"$keep"; then visible+=" $(basename "$r")"; continue; fi
    mount --bind "$empty" "$r"
    hidden+=" $(basename "$r")"
  done
done
echo "HIDDEN /usr/lib/llvm-19 (tmpfs)$hidden"
echo "VISIBLE (needed by the shell tools)$visible"
if clang-19 --version >/dev/null 2>&1; then echo "clang-19 still runs" >&2; exit 90; fi
[ ! -e /usr/lib/llvm-19/lib/libomptarget.so.19.1 ] || { echo "libomptarget still visible" >&2; exit 90; }
for elf in "$kit"/bin/* "$kit"/lib/*.so* "$kit"/programs/* "$kit"/kernels/*; do
  head -c4 "$elf" | grep -q ELF || continue
  if ! LD_LIBRARY_PATH="$kit/lib" ldd "$elf" 2>&1 | awk -v lib="$kit/lib/" '
      /not found|too short|error/ { print; bad = 1 }
      /=>/ && $1 !~ /^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.)/ && index($3, lib) != 1 { print; bad = 1 }
      END { exit bad }'; then
    echo "$elf does not find its libraries in the kit" >&2
    exit 91
  fi
done
exec "$kit/run.sh" --quick --out "$results" "$budget"
"#;

/// `unshare` arguments that give this process a mount namespace it may mount in, if any.
fn unshare_args(probe_dir: &Path) -> Option<Vec<&'static str>> {
    std::fs::create_dir_all(probe_dir).unwrap();
    [vec!["-m"], vec!["-r", "-m"]].into_iter().find(|args| {
        Command::new("unshare").args(args).args(["mount", "-t", "tmpfs", "tmpfs"]).arg(probe_dir).output().is_ok_and(|o| o.status.success())
    })
}

/// Rows of a tab-separated table with a header line, as maps.
fn table(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    lines.map(|l| header.iter().map(|h| h.to_string()).zip(l.split('\t').map(str::to_string)).collect()).collect()
}

/// The programs of kit/programs.tsv.
fn kit_programs() -> BTreeSet<String> {
    let text = std::fs::read_to_string(workspace_root().join("kit/programs.tsv")).unwrap();
    text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).map(|l| l.split('\t').next().unwrap().to_string()).collect()
}

#[test]
fn the_host_twin_kit_passes_every_variant_check_with_the_system_llvm_hidden() {
    plugin();
    let dir = scratch();
    let Some(unshare) = unshare_args(&dir.path().join("probe")) else {
        let why = "unshare cannot make a mount namespace here (neither as root nor in a user namespace)";
        assert!(std::env::var("OMPADAPT_REQUIRE_UNSHARE").as_deref() != Ok("1"), "{why}");
        eprintln!("SKIPPED the_host_twin_kit_passes_every_variant_check_with_the_system_llvm_hidden: {why}");
        return;
    };
    // build (xz -1: the contents are what this test is about, not the last MiB of compression)
    let tarball = dir.path().join("ompadapt-gpu-kit-host.tar.xz");
    let started = Instant::now();
    run(Command::new(workspace_root().join("scripts/gpu-kit.sh"))
        .arg("--host-twin")
        .arg(&tarball)
        .env("OMPADAPT_LIB_DIR", lib_dir())
        .env("KIT_WORK", dir.path().join("work"))
        .env("KIT_XZ_LEVEL", "1"))
    .expect_ok("scripts/gpu-kit.sh --host-twin");
    let size = std::fs::metadata(&tarball).expect("the kit").len();
    eprintln!("kit built in {:.0} s: {:.1} MiB", started.elapsed().as_secs_f64(), size as f64 / 1048576.0);
    assert!(size <= 60 << 20, "the kit is {size} bytes, over 60 MiB");
    // unpack and run in the namespace
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    run(Command::new("tar").arg("-xJf").arg(&tarball).arg("-C").arg(&unpacked)).expect_ok("unpacking the kit");
    let kit = unpacked.join("ompadapt-gpu-kit");
    let results = dir.path().join("results");
    let script = dir.path().join("hide-and-run.sh");
    std::fs::write(&script, HIDE_AND_RUN).unwrap();
    std::fs::write(dir.path().join("empty"), "").unwrap();
    let started = Instant::now();
    let out = run(Command::new("unshare")
        .args(&unshare)
        .arg("bash")
        .arg(&script)
        .arg(&kit)
        .arg(&results)
        .arg("300")
        .arg(dir.path().join("empty"))
        .env_remove("LD_LIBRARY_PATH"));
    eprintln!("run.sh --quick ran {:.0} s with the system's LLVM hidden", started.elapsed().as_secs_f64());
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap_or_default();
    out.expect_ok(&format!("the kit with the system's LLVM hidden\n--- summary.md\n{summary}"));
    let hidden = out.stdout.lines().find(|l| l.starts_with("HIDDEN")).unwrap_or_default();
    for lib in ["libLLVM.so.19.1", "libz3.so", "libicudata.so"] {
        assert!(hidden.contains(lib), "{lib} must be hidden: {}", out.stdout);
    }
    eprintln!("{}", out.stdout.lines().filter(|l| l.starts_with("HIDDEN") || l.starts_with("VISIBLE")).collect::<Vec<_>>().join("\n"));
    check_results(&results);
}

/// Every program's reference and variant runs passed, the three use-cases' benchmarks and the
/// sweeps ran, and the summary and archive were written.
fn check_results(results: &Path) {
    let checks = table(&results.join("checks.tsv"));
    let bad: Vec<_> = checks.iter().filter(|r| r["status"] == "FAIL" || r["status"] == "NOT RUN").collect();
    assert!(bad.is_empty(), "{bad:#?}");
    let checked: BTreeSet<String> =
        checks.iter().filter(|r| r["run"].starts_with("pin") && r["status"] == "PASS").map(|r| r["program"].clone()).collect();
    assert_eq!(checked, kit_programs(), "every program has passing pinned runs");
    for r in checks.iter().filter(|r| r["status"] == "SKIP") {
        assert!(r["pinned"].contains(':') && r["detail"].contains("cannot name"), "{r:?}");
    }
    let pinned = checks.iter().filter(|r| r["run"].starts_with("pin")).count();
    assert!(pinned >= 40, "{pinned} pinned runs");
    let bench = table(&results.join("bench.tsv"));
    let kernels: Vec<&str> = bench.iter().filter(|r| r["status"] == "ok").map(|r| r["kernel"].as_str()).collect();
    assert_eq!(kernels, ["heat2d", "heat2d-threads", "xsbench-cosched"], "{bench:#?}");
    for k in kernels {
        for f in ["summary.md", "runs.csv", "comparators.csv"] {
            assert!(results.join("bench").join(k).join(f).is_file(), "bench/{k}/{f}");
        }
    }
    let sweep = table(&results.join("sweep.tsv"));
    assert_eq!(sweep.len(), 2 * 4 + 2 * 5, "{sweep:#?}");
    assert!(sweep.iter().all(|r| r["status"] == "ok" && r["steady_s"].parse::<f64>().is_ok()), "{sweep:#?}");
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
    for needle in ["## Variant checks", "## ompadapt bench", "## Sweeps", "| checks | ok |"] {
        assert!(summary.contains(needle), "summary.md lacks '{needle}':\n{summary}");
    }
    assert!(results.with_extension("tar.gz").is_file(), "the results archive");
}
