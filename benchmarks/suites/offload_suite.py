#!/usr/bin/env python3
"""Differential run of OpenMP offload codes against ompadapt's zero-source-change mode, with the
cpu variant memory-checked.

Each program of an argument table (cpu_suite.py's format: name, sources, flags, args, note,
keep, drop) is built for libomptarget's host offload (-fopenmp-targets=x86_64-pc-linux-gnu, no
GPU needed) with stock clang-19 and with -fplugin=libompadapt.so
-fplugin-arg-ompadapt-auto=cpu,gpu. Stock runs twice (a program whose two runs differ is not
compared); the adaptive build then runs, each with a store of its own:

  cpu       every region pinned to cpu (the host version, with the runtime's copies); the JSON
            report must show no region refusing cpu, and per region the bytes brought in from
            the device equal to the bytes of the mappings reached (less `always to` sections)
  gpu       every region pinned to gpu (the offload as written)
  each      each region cpu in turn, the others gpu (up to --max-each regions)
  runtime   the real runtime, three runs on one store
  memcheck  (--memcheck) every region cpu under valgrind's memcheck: no error beyond those of
            the stock build under memcheck (the program's own), the stock build's exit status

Every output must equal stock's bit for bit (after the table's keep/drop filters); where it
differs only in floating-point rounding (cpu_suite.py's tolerance: the host version reduces with
the host's team, the offload with the device's) the mode is listed as "within rounding".
Writes OUT/results.md and OUT/results.tsv.

Sources may be globs, and `{tree}` in the arguments is the tree.

Usage: offload_suite.py --suite NAME --tree DIR --table TABLE.tsv --out OUT [--plugin PATH]
                        [--jobs 1] [--timeout 120] [--memcheck] [--only NAME]...
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_suite import close, compared, run_suite, sh, suite_arguments  # noqa: E402

TARGETS = "-fopenmp-targets=x86_64-pc-linux-gnu"


def build(row, args, exe, extra):
    # sources may be globs (TeaLeaf's driver/*.cpp)
    srcs = [f for s in row["sources"] for f in sorted(glob.glob(os.path.join(args.tree, s)))]
    cc = "clang++-19" if any(s.endswith((".cpp", ".cc")) for s in srcs) else "clang-19"
    flags = [f.replace("{tree}", args.tree) for f in row["flags"]]
    cmd = [cc, "-O2", "-fopenmp", TARGETS] + flags + extra + srcs + ["-o", exe, "-lm", "-Wl,-rpath,/usr/lib/llvm-19/lib"]
    if any(e.startswith("-fpass-plugin=") for e in extra):
        # pass-only mode: the kinds the frontend build gets for target constructs
        cmd = ["env", "OMPADAPT_AUTO=cpu,gpu"] + cmd
    rc, _, err, secs = sh(cmd)
    open(exe + ".log", "w").write(" ".join(cmd) + "\n" + err)
    return rc == 0, secs


def run(row, args, exe, env_extra, tag, work, wrapper=()):
    env = dict(os.environ)
    for k in ["OMPADAPT_VARIANT", "OMPADAPT_REPORT", "OMP_SCHEDULE", "OMPADAPT_RUNTIME", "OMP_TARGET_OFFLOAD"]:
        env.pop(k, None)
    env["OMPADAPT_DIR"] = os.path.join(work, "store-" + tag.split(":")[0])
    env.update(env_extra)
    timeout = args.timeout * (20 if wrapper else 1)
    argv = [a.replace("{tree}", args.tree) for a in row["args"]]
    rc, out, err, _ = sh(list(wrapper) + [exe] + argv, cwd=work, env=env, timeout=timeout)
    keep = compared(row, out.splitlines()) + ["--- stderr"] + compared(row, [l for l in err.splitlines() if not l.startswith(("ompadapt:", "=="))])
    text = "\n".join(keep)
    open(os.path.join(work, tag.replace(":", "_") + ".out"), "w").write(f"exit {rc}\n{text}\n--- raw stderr\n{err}")
    return rc, text, err


def report_regions(path):
    """Per region of a JSON report: (refused cpu, executions of the host version, mapped
    bytes, bytes brought in) per execution."""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return {}
    out = {}
    for r in doc.get("regions", []):
        h = r.get("host_copies") or {}
        out[r["region"]] = (bool(r.get("unavailable")), h.get("executions", 0), h.get("mapped_bytes", 0.0), h.get("brought_in_bytes", 0.0))
    return out


def adaptive_flags(args):
    """-fplugin-arg-ompadapt-auto=cpu,gpu (--mode auto), or the pass alone (--mode pass)."""
    if args.mode == "pass":
        return [f"-fpass-plugin={os.path.join(os.path.dirname(args.plugin), 'libompadapt_pass.so')}", "-gline-tables-only", "-gdwarf-4"]
    return [f"-fplugin={args.plugin}", "-fplugin-arg-ompadapt-auto=cpu,gpu"]


def process(row, args):
    name = row["name"]
    work = os.path.join(args.out, "programs", name)
    os.makedirs(work, exist_ok=True)
    res = {"program": name, "regions": 0, "status": "ok", "differ": [], "rounding": [], "notes": []}
    stock, auto = os.path.join(work, "stock"), os.path.join(work, "adaptive")
    ok, t_stock = build(row, args, stock, [])
    if not ok:
        res["status"] = "stock build failed"
        return res
    ok, t_auto = build(row, args, auto, adaptive_flags(args))
    res["compile_ratio"] = t_auto / max(t_stock, 1e-6)
    if not ok:
        res["status"] = "PLUGIN BUILD FAILED"
        return res
    rc1, ref, _ = run(row, args, stock, {}, "stock1", work)
    rc2, again, _ = run(row, args, stock, {}, "stock2", work)
    if rc1 not in (0, 1) or rc2 != rc1:
        res["status"] = f"stock exit {rc1}"
        return res
    if again != ref:
        res["status"] = "stock nondeterministic"
        return res

    def check(tag, env, wrapper=()):
        rc, out, err = run(row, args, auto, env, tag, work, wrapper)
        if rc != rc1 or (out != ref and not close(out, ref)):
            res["differ"].append(tag if rc == rc1 else f"{tag} (exit {rc})")
        elif out != ref:
            res["rounding"].append(tag)
        return err

    cpu_report = os.path.join(work, "cpu.json")
    check("cpu", {"OMPADAPT_VARIANT": "cpu", "OMPADAPT_PERSIST": "0", "OMPADAPT_REPORT": f"json:{cpu_report}"})
    regions = report_regions(cpu_report)
    res["regions"] = len(regions)
    res["region_names"] = sorted(regions)
    for region, (refused, runs, mapped, brought_in) in sorted(regions.items()):
        if refused:
            res["notes"].append(f"{region}: cpu refused")
        elif runs and brought_in > mapped:
            res["notes"].append(f"{region}: {brought_in:.0f} bytes brought in for {mapped:.0f} mapped")
    res["mapped"] = sum(v[2] * v[1] for v in regions.values())
    res["brought_in"] = sum(v[3] * v[1] for v in regions.values())
    check("gpu", {"OMPADAPT_VARIANT": "gpu", "OMPADAPT_PERSIST": "0"})
    for i, region in enumerate(sorted(regions)[: args.max_each]):
        check(f"each{i}", {"OMPADAPT_VARIANT": f"gpu;{region}:cpu", "OMPADAPT_PERSIST": "0"})
    for k in range(1, 4):
        check(f"runtime:{k}", {})
    if args.memcheck:
        # the program's own errors (a stock run under memcheck) apart from what cpu adds; under
        # valgrind, threads run one at a time: a reduction's rounding may differ, so only the
        # exit status and the errors count
        grind = ("valgrind", "--error-exitcode=99", "-q")
        count = lambda err: len(re.findall(r"^==\d+== [A-Z]", err, re.M))  # noqa: E731
        rc_s, _, err_s = run(row, args, stock, {}, "memcheck-stock", work, grind)
        rc_c, _, err_c = run(row, args, auto, {"OMPADAPT_VARIANT": "cpu", "OMPADAPT_PERSIST": "0"}, "memcheck", work, grind)
        res["memcheck_errors"], res["memcheck_stock"] = count(err_c), count(err_s)
        if res["memcheck_errors"] > res["memcheck_stock"] or rc_c not in (rc1, 99 if rc_s == 99 else rc1):
            res["differ"].append("memcheck")
    if res["differ"] or res["notes"]:
        res["status"] = "DIFFERS" if res["differ"] else "NOTE"
    return res


def report(results, args, started):
    rows = sorted(results, key=lambda r: r["program"])
    differ = [r for r in rows if r["status"] == "DIFFERS"]
    failed = [r for r in rows if r["status"] == "PLUGIN BUILD FAILED"]
    commit = sh(["git", "-C", os.path.dirname(os.path.abspath(args.plugin)), "rev-parse", "--short", "HEAD"])[1].strip()
    mapped = sum(r.get("mapped", 0) for r in rows)
    brought = sum(r.get("brought_in", 0) for r in rows)
    lines = [
        f"# {args.suite}: OpenMP offload codes in {'pass-only mode (-fpass-plugin, OMPADAPT_AUTO=cpu,gpu)' if args.mode == 'pass' else 'zero-source-change mode'} against stock clang-19 (host offload)",
        "",
        f"ompadapt `{commit}`, {started:%Y-%m-%d}, `offload_suite.py --suite {args.suite}`"
        + (" --memcheck" if args.memcheck else "") + ", kinds cpu,gpu, x86_64 host offload.",
        "",
        f"- programs: **{len(rows)}**; plugin build failures: **{len(failed)}**; regions: **{sum(r['regions'] for r in rows)}**",
        f"- identical to stock in every mode: **{len([r for r in rows if r['status'] == 'ok' and not r['rounding']])}**; "
        f"within floating-point rounding in some mode: {len([r for r in rows if r['status'] == 'ok' and r['rounding']])}; "
        f"differing: **{len(differ)}**; stock nondeterministic: {len([r for r in rows if r['status'] == 'stock nondeterministic'])}",
        f"- cpu refused or more brought in than mapped: **{sum(len(r['notes']) for r in rows)}**",
        f"- bytes brought in by the cpu variant: {brought:.0f} for {mapped:.0f} bytes of mappings reached "
        "(less `always to` sections, which the host sends anyway)",
    ]
    if args.memcheck:
        lines.append(f"- valgrind memcheck, every region cpu: **{sum(r.get('memcheck_errors', 0) for r in rows)}** errors "
                     f"(the stock builds under memcheck: {sum(r.get('memcheck_stock', 0) for r in rows)})")
    lines += ["", "| program | status | regions | cpu: mapped / brought in (bytes) | compile ratio | memcheck errors | differing | within rounding | notes |",
              "|---|---|---:|---|---:|---:|---|---|---|"]
    for r in rows:
        ratio = f"{r['compile_ratio']:.2f}" if "compile_ratio" in r else "-"
        mc = f"{r['memcheck_errors']} (stock {r['memcheck_stock']})" if "memcheck_errors" in r else "-"
        lines.append(f"| {r['program']} | {r['status']} | {r['regions']} | {r.get('mapped', 0):.0f} / {r.get('brought_in', 0):.0f} | {ratio} | {mc} | "
                     f"{', '.join(r['differ']) or '-'} | {', '.join(r['rounding']) or '-'} | {'; '.join(r['notes']) or '-'} |")
    open(os.path.join(args.out, "results.md"), "w").write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "results.tsv"), "w") as f:
        f.write("program\tstatus\tregions\tmapped\tbrought_in\tcompile_ratio\tmemcheck_errors\tdiffer\trounding\tnotes\tregion_names\n")
        for r in rows:
            f.write(f"{r['program']}\t{r['status']}\t{r['regions']}\t{r.get('mapped', 0):.0f}\t{r.get('brought_in', 0):.0f}\t"
                    f"{r.get('compile_ratio', 0):.3f}\t{r.get('memcheck_errors', '-')}\t{','.join(r['differ'])}\t{','.join(r['rounding'])}\t{'; '.join(r['notes'])}\t"
                    f"{','.join(r.get('region_names', []))}\n")
    print("\n".join(lines[:10]))
    return 1 if differ or failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    suite_arguments(ap)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--max-each", type=int, default=20)
    ap.add_argument("--memcheck", action="store_true")
    ap.add_argument("--mode", choices=["auto", "pass"], default="auto")
    args = ap.parse_args()
    args.ignore_re = []
    sys.exit(run_suite(args, process, report))


if __name__ == "__main__":
    main()
