#!/usr/bin/env python3
"""Differential run of a suite of self-checking single-file OpenMP offload programs (the OpenMP
Validation & Verification suite's tests, for example) against ompadapt's zero-source-change mode.

Each program is built twice with clang-19 and host offload: stock, and with
-fplugin=libompadapt.so -fplugin-arg-ompadapt-auto=KINDS. The stock build runs twice (a program
whose two outputs differ is listed as stock-nondeterministic, apart); the adaptive build runs
  cpu      every region pinned to cpu (OMPADAPT_VARIANT=cpu)
  gpu      every region pinned to gpu
  each     each region cpu in turn, the others gpu (programs with at most 20 regions)
  runtime  the real runtime, three runs on one store
and its stdout and exit status must equal the stock run's (after the --ignore filter). A
program that fails to compile stock is excluded; one that compiles stock but not adaptive is a
plugin build failure. Writes RESULTS.md (a table with totals) and results.tsv into --out.

Usage: single_file_suite.py --out DIR [--plugin PATH] [--kinds cpu,gpu] [--jobs 2]
                            [--timeout 60] [--ignore REGEX]... [--sub REGEX=>TEXT]...
                            [--cflags=FLAGS] SOURCES...
"""
import argparse
import concurrent.futures as cf
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

HOST = "-fopenmp-targets=x86_64-pc-linux-gnu"


def sh(cmd, cwd=None, env=None, timeout=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout", time.time() - t0


def compile_one(src, exe, flags):
    cc = "clang++-19" if src.endswith((".cpp", ".cc", ".cxx")) else "clang-19"
    rc, _, err, secs = sh([cc] + flags + [src, "-o", exe, "-lm"])
    return rc == 0, err, secs


class Program:
    def __init__(self, src, work):
        self.src = os.path.abspath(src)
        self.name = os.path.basename(src)
        self.dir = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", self.name))
        self.row = {"program": self.name}


def run_program(p, exe, env_extra, tag, args):
    env = dict(os.environ)
    env.pop("OMPADAPT_VARIANT", None)
    env.update(env_extra)
    rc, out, err, secs = sh([exe], cwd=p.dir, env=env, timeout=args.timeout)
    lines = [l for l in out.splitlines() if not any(r.search(l) for r in args.ignore_re)]
    for pattern, repl in args.sub_re:
        lines = [pattern.sub(repl, l) for l in lines]
    return rc, "\n".join(lines), err


def regions_of(report):
    """(name, cpu not usable: not a variant or refused at run time, executions of the host version)"""
    try:
        doc = json.load(open(report))
    except (OSError, ValueError):
        return []
    return [
        (r["region"], bool(r.get("unavailable")) or "cpu" not in r.get("variants", []), (r.get("host_copies") or {}).get("executions", 0))
        for r in doc.get("regions", [])
    ]


def process(p, args):
    os.makedirs(p.dir, exist_ok=True)
    row = p.row
    base = [args.opt, "-fopenmp", HOST] + args.cflags
    stock, adaptive = os.path.join(p.dir, "stock"), os.path.join(p.dir, "adaptive")
    ok, err, t_stock = compile_one(p.src, stock, base)
    if not ok:
        row.update(status="excluded", why="stock build fails: " + first_error(err))
        return row
    ok, err, t_auto = compile_one(p.src, adaptive, base + [f"-fplugin={args.plugin}", f"-fplugin-arg-ompadapt-auto={args.kinds}"])
    row["compile_ratio"] = t_auto / t_stock if t_stock > 0 else None
    if not ok:
        row.update(status="PLUGIN BUILD FAILURE", why=first_error(err))
        return row
    s1 = run_program(p, stock, {}, "stock1", args)
    s2 = run_program(p, stock, {}, "stock2", args)
    if s1[:2] != s2[:2]:
        row.update(status="stock-nondeterministic", why="two stock runs differ")
        return row
    if s1[0] == 124:
        row.update(status="excluded", why="stock run times out")
        return row
    store = os.path.join(p.dir, "store")
    shutil.rmtree(store, ignore_errors=True)
    report = os.path.join(p.dir, "cpu.json")
    modes = {}
    diffs = []

    def check(mode, env):
        env = dict(env, OMPADAPT_DIR=env.get("OMPADAPT_DIR", os.path.join(p.dir, "pinned-store")))
        rc, out, err = run_program(p, adaptive, env, mode, args)
        same = rc == s1[0] and out == s1[1]
        if not same and len(diffs) < 3:
            d = next((f"stock: {a!r} / adaptive: {b!r}" for a, b in zip(s1[1].splitlines(), out.splitlines()) if a != b), f"exit {rc} vs {s1[0]}")
            diffs.append(f"{mode}: {d}; {err.strip().splitlines()[-1] if err.strip() else ''}")
        return same, err

    same, _ = check("cpu", {"OMPADAPT_VARIANT": "cpu", "OMPADAPT_PERSIST": "0", "OMPADAPT_REPORT": f"json:{report}"})
    modes["cpu"] = same
    regs = regions_of(report)
    row["regions"] = len(regs)
    row["cpu_available"] = sum(1 for _, refused, copied in regs if not refused)
    row["cpu_ran"] = sum(1 for _, refused, copied in regs if copied > 0)
    modes["gpu"] = check("gpu", {"OMPADAPT_VARIANT": "gpu", "OMPADAPT_PERSIST": "0"})[0]
    if 0 < len(regs) <= 20:
        modes["each"] = all(check(f"each:{n}", {"OMPADAPT_VARIANT": f"gpu;{n}:cpu", "OMPADAPT_PERSIST": "0"})[0] for n, _, _ in regs)
    runs = [check(f"runtime{k}", {"OMPADAPT_DIR": store})[0] for k in range(3)]
    modes["runtime"] = all(runs)
    row.update(modes=modes, status="identical" if all(modes.values()) else "DIFFERS", why="; ".join(diffs))
    return row


def first_error(err):
    for l in err.splitlines():
        if "error" in l:
            return l.strip()[:200]
    return (err.strip().splitlines() or ["?"])[-1][:200]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--plugin", default=os.environ.get("OMPADAPT_PLUGIN") or os.path.join(os.path.dirname(__file__), "../../target/release/libompadapt.so"))
    ap.add_argument("--kinds", default="cpu,gpu")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--ignore", action="append", default=[], help="leave stdout lines matching REGEX out of the comparison")
    ap.add_argument("--sub", action="append", default=[], help="REGEX=>TEXT: replace in every stdout line before comparing (where a program prints where it ran)")
    ap.add_argument("--title", default="single-file suite")
    args = ap.parse_args()
    args.plugin = os.path.abspath(args.plugin)
    args.cflags = args.cflags.split()
    args.ignore_re = [re.compile(r) for r in args.ignore]
    args.sub_re = [(re.compile(x.split("=>", 1)[0]), x.split("=>", 1)[1]) for x in args.sub]
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    load0 = open("/proc/loadavg").read().split()[:3]
    t0 = time.time()
    progs = [Program(s, work) for s in sorted(args.sources)]
    rows = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for row in ex.map(lambda p: process(p, args), progs):
            rows.append(row)
            print(f"{row['program']:60s} {row['status']:24s} {row.get('why', '')[:120]}", flush=True)
    load1 = open("/proc/loadavg").read().split()[:3]
    write_results(rows, args, load0, load1, time.time() - t0)


def write_results(rows, args, load0, load1, secs):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    built = [r for r in rows if r["status"] not in ("excluded", "PLUGIN BUILD FAILURE")]
    tested = [r for r in built if r["status"] != "stock-nondeterministic"]
    fails = [r for r in rows if r["status"] == "PLUGIN BUILD FAILURE"]
    regions = sum(r.get("regions", 0) for r in tested)
    avail = sum(r.get("cpu_available", 0) for r in tested)
    per_mode = {m: (sum(1 for r in tested if r.get("modes", {}).get(m)), sum(1 for r in tested if m in r.get("modes", {}))) for m in ("cpu", "gpu", "each", "runtime")}
    ratios = [r["compile_ratio"] for r in built if r.get("compile_ratio")]
    gmean = (lambda xs: __import__("math").exp(sum(__import__("math").log(x) for x in xs) / len(xs)))(ratios) if ratios else float("nan")
    lines = [
        f"# {args.title}: stock clang-19 against zero-source-change mode (`auto={args.kinds}`)",
        "",
        f"{datetime.date.today()}, ompadapt {commit}, host offload (x86_64), {args.opt}; load {' '.join(load0)} at start, {' '.join(load1)} at end; {secs / 60:.1f} min.",
        "",
        f"- programs: {len(rows)}; built both ways: {len(built) + len(fails)} stock, {len(built)} adaptive; plugin build failures: {len(fails)}",
        f"- excluded (stock build or run fails): {sum(1 for r in rows if r['status'] == 'excluded')}; stock-nondeterministic: {sum(1 for r in rows if r['status'] == 'stock-nondeterministic')}",
        f"- adaptive regions: {regions}; `cpu` available in {avail} ({100 * avail / regions if regions else 0:.1f} %)",
        "- identical to stock, per mode: " + ", ".join(f"{m} {a}/{n}" for m, (a, n) in per_mode.items()),
        f"- differing programs: {sum(1 for r in tested if r['status'] == 'DIFFERS')}",
        f"- compile time adaptive/stock: {gmean:.2f}x (geometric mean)",
        "",
        "| program | status | regions | cpu available | cpu | gpu | each | runtime | compile ratio | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r.get("modes", {})
        cell = lambda k: "" if k not in m else ("yes" if m[k] else "**no**")
        ratio = f"{r['compile_ratio']:.2f}" if r.get("compile_ratio") else ""
        lines.append(f"| {r['program']} | {r['status']} | {r.get('regions', '')} | {r.get('cpu_available', '')} | {cell('cpu')} | {cell('gpu')} | {cell('each')} | {cell('runtime')} | {ratio} | {r.get('why', '').replace('|', '/')} |")
    open(os.path.join(args.out, "RESULTS.md"), "w").write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "results.tsv"), "w") as f:
        f.write("program\tstatus\tregions\tcpu_available\tcpu\tgpu\teach\truntime\tcompile_ratio\tnote\n")
        for r in rows:
            m = r.get("modes", {})
            f.write("\t".join(str(x) for x in [r["program"], r["status"], r.get("regions", ""), r.get("cpu_available", ""), m.get("cpu", ""), m.get("gpu", ""), m.get("each", ""), m.get("runtime", ""), r.get("compile_ratio", ""), r.get("why", "")]) + "\n")
    print("\n".join(lines[:10]))


if __name__ == "__main__":
    sys.exit(main())
