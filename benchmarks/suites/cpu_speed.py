#!/usr/bin/env python3
"""Run time of a CPU-only suite rebuilt with zero-source-change mode, after training, against the
stock build at the default team (OMP_NUM_THREADS unset).

Per program of the table: build stock and adaptive (-fplugin-arg-ompadapt-auto), train the
adaptive build by running it until its report says every region is trained (at most --train
runs, one store per program), check that it prints what stock prints, then time ROUNDS runs of
each build alternately (stock, adaptive, stock, ...) and take the median of each. Prints and
writes OUT/speed.md (per program: stock and adaptive medians, their ratio, the spread of each,
the variants each region decided) and OUT/speed.tsv, with the load average before and after.

Usage: cpu_speed.py --tree DIR --table TABLE.tsv --out OUT [--plugin PATH] [--rounds 7]
                    [--train 6] [--compare-plugin OLD/libompadapt.so] [--only NAME]...

--compare-plugin builds a third program with another build of ompadapt (its runtime is the one
beside it), trains it on a store of its own and times it in the same alternation (stock,
adaptive, compared): before/after figures from one session on one machine. --compare-env
K=V[,K=V] does the same with this build and these variables set in the compared build's runs
(an A/B of one runtime setting on one binary: `--compare-env OMPADAPT_WHOLE_RUN=0`).

The table is cpu_suite.py's (name, sources, flags, args, note, keep, drop: the compared lines);
flags here pick sizes that run for at least a few hundred milliseconds. The training runs'
output must be stock's (numbers within cpu_suite.py's tolerance: the chosen teams round
floating-point reductions otherwise).
"""
import argparse
import datetime
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_suite import close, compared, sh, suite_arguments, suite_rows  # noqa: E402


def build(row, args, exe, extra):
    # a source may be a pattern (TeaLeaf's driver/*.cpp), as in offload_suite.py
    srcs = sorted(f for s in row["sources"] for f in (glob.glob(os.path.join(args.tree, s)) or [os.path.join(args.tree, s)]))
    cc = "clang++-19" if any(s.endswith((".cpp", ".cc")) for s in srcs) else "clang-19"
    cmd = [cc, "-O2", "-fopenmp"] + [f.replace("{tree}", args.tree) for f in row["flags"]] + extra + srcs + ["-o", exe, "-lm"]
    rc, _, err, _ = sh(cmd)
    if rc != 0:
        raise RuntimeError(f"{row['name']}: build failed: {' '.join(cmd)}\n{err}")


def env_for(store, extra=None):
    env = dict(os.environ)
    for k in ["OMPADAPT_VARIANT", "OMPADAPT_REPORT", "OMP_NUM_THREADS", "OMP_SCHEDULE", "OMPADAPT_RUNTIME"]:
        env.pop(k, None)
    env["OMPADAPT_DIR"] = store
    env.update(extra or {})
    return env


def timed(exe, row, env, cwd):
    t0 = time.perf_counter()
    p = subprocess.run([exe] + row["args"], cwd=cwd, env=env, capture_output=True, text=True, errors="replace")
    secs = time.perf_counter() - t0
    # exit status 1: a program's own failed self-check (XSBench with sizes it has no checksum for)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{exe} exited {p.returncode}: {p.stderr[-2000:]}")
    lines = p.stdout.splitlines() + [l for l in p.stderr.splitlines() if not l.startswith("ompadapt:")]
    return secs, f"exit {p.returncode}\n" + "\n".join(compared(row, lines))


def decided(report):
    """Per region: the model's decisions (variant -> vectors), or None when not trained."""
    try:
        doc = json.load(open(report))
    except (OSError, ValueError):
        return {}
    out = {}
    for r in doc.get("regions", []):
        if r.get("model") is None:
            out[r["region"]] = None
            continue
        counts = {}
        for d in r.get("decisions", []):
            if d.get("decision"):
                counts[d["decision"]] = counts.get(d["decision"], 0) + 1
        out[r["region"]] = counts
    return out


def in_trial(report):
    """Whether the run's whole-run trial (docs/runtime.md) has no verdict yet: its next run is
    still a trial run. Builds without the trial report none."""
    try:
        w = json.load(open(report)).get("whole_run")
    except (OSError, ValueError):
        return False
    return bool(w) and w.get("next_why") == "trial"


def spread(xs):
    return (max(xs) - min(xs)) / statistics.median(xs) if xs else 0.0


def trained(row, args, work, name, plugin, want, extra=None):
    """Builds the program with `plugin` in auto mode and trains it on a fresh store of its own
    until its report says every region is trained and the whole-run trial has its verdict (at
    most --train runs), checking that each run
    prints what stock printed. Returns the program, the run that finished training (None when
    none did) and the decisions."""
    exe = os.path.join(work, name)
    build(row, args, exe, [f"-fplugin={plugin}", "-fplugin-arg-ompadapt-auto"])
    store = os.path.join(work, "store" if name == "adaptive" else f"store-{name}")
    subprocess.run(["rm", "-rf", store])
    report = os.path.join(work, f"report-{name}.json")
    for k in range(1, args.train + 1):
        _, got = timed(exe, row, env_for(store, (extra or {}) | {"OMPADAPT_REPORT": f"json:{report}"}), work)
        # a team other than stock's rounds a floating-point reduction otherwise
        if got != want and not close(got, want):
            raise RuntimeError(f"{row['name']}: training run {k} of {name} prints otherwise than stock:\n{got}\n--- stock:\n{want}")
        d = decided(report)
        if d and all(v is not None for v in d.values()) and not in_trial(report):
            return exe, k, d
    return exe, None, decided(report)


def measure(row, args):
    row = dict(row, args=[a.replace("{tree}", args.tree) for a in row["args"]])
    work = os.path.join(args.out, row["name"])
    os.makedirs(work, exist_ok=True)
    stock = os.path.join(work, "stock")
    build(row, args, stock, [])
    store = os.path.join(work, "store")
    _, want = timed(stock, row, env_for(store), work)
    auto, trained_after, decisions = trained(row, args, work, "adaptive", args.plugin, want)
    t_stock, t_auto, t_cmp = [], [], []
    cmp_env = dict(kv.split("=", 1) for kv in args.compare_env.split(",")) if args.compare_env else None
    comparing = args.compare_plugin or cmp_env
    if comparing:
        cmp_exe, cmp_trained, _ = trained(row, args, work, "compared", args.compare_plugin or args.plugin, want, cmp_env)
    for _ in range(args.rounds):
        t_stock.append(timed(stock, row, env_for(store), work)[0])
        t_auto.append(timed(auto, row, env_for(store), work)[0])
        if comparing:
            t_cmp.append(timed(cmp_exe, row, env_for(store + "-compared", cmp_env), work)[0])
    s, a = statistics.median(t_stock), statistics.median(t_auto)
    compared_figures = {"compared_s": statistics.median(t_cmp), "compared_ratio": statistics.median(t_cmp) / s,
                        "compared_trained_after": cmp_trained} if t_cmp else {}
    return compared_figures | {
        "program": row["name"],
        "stock_s": s,
        "adaptive_s": a,
        "ratio": a / s,
        # the least disturbed run of each: on a shared machine, what another tenant did not add
        "min_ratio": min(t_auto) / min(t_stock),
        "spread_stock": spread(t_stock),
        "spread_adaptive": spread(t_auto),
        "trained_after": trained_after,
        "decisions": decisions,
        "note": row["note"],
    }


def load():
    return open("/proc/loadavg").read().split()[0]


def write(results, args, started, load_before, load_after):
    geo = math.exp(sum(math.log(r["ratio"]) for r in results) / len(results))
    geo_min = math.exp(sum(math.log(r["min_ratio"]) for r in results) / len(results))
    faster = [r for r in results if r["ratio"] <= 0.90]
    slower = [r for r in results if r["ratio"] > 1.02 and r["min_ratio"] > 1.02]
    commit = sh(["git", "-C", os.path.dirname(os.path.abspath(args.plugin)), "rev-parse", "--short", "HEAD"])[1].strip()
    lines = [
        "# Zero-source-change mode: run time after training against stock",
        "",
        f"ompadapt `{commit}`, {started:%Y-%m-%d %H:%M}, `cpu_speed.py`, {os.cpu_count()} cores, load average "
        f"{load_before} before and {load_after} after; stock at its default team (OMP_NUM_THREADS unset), the adaptive "
        f"build after training on its own store; medians of {args.rounds} alternating runs each.",
        "",
        f"- programs: **{len(results)}**; adaptive/stock run time, geometric mean: **{geo:.3f}** of the medians, "
        f"**{geo_min:.3f}** of the fastest runs",
        f"- at least 10 % faster: **{len(faster)}** ({', '.join(r['program'] for r in faster) or 'none'}); "
        f"more than 2 % slower by both the medians and the fastest runs: **{len(slower)}** ({', '.join(r['program'] for r in slower) or 'none'})",
        "",
    ]
    cmp = all("compared_s" in r for r in results) and results
    if cmp:
        lines[-1:] = [f"- the compared build (`{args.compare_plugin or args.compare_env}`): adaptive/stock geometric mean **"
                        f"{math.exp(sum(math.log(r['compared_ratio']) for r in results) / len(results)):.3f}**", ""]
    cmp_head, cmp_rule = (" compared s | compared ratio |", "---:|---:|") if cmp else ("", "")
    lines += [
        f"| program | sizes | stock s | adaptive s | ratio | ratio of the fastest runs |{cmp_head} spread stock / adaptive | trained after runs | decisions |",
        f"|---|---|---:|---:|---:|---:|{cmp_rule}---|---:|---|",
    ]
    for r in results:
        dec = "; ".join(
            f"{reg.split('@')[0]}: " + (", ".join(f"{v}×{n}" for v, n in sorted(d.items())) if d else "untrained")
            for reg, d in sorted(r["decisions"].items())
        )
        lines.append(
            f"| {r['program']} | {r['note']} | {r['stock_s']:.3f} | {r['adaptive_s']:.3f} | {r['ratio']:.3f} | {r['min_ratio']:.3f} | "
            + (f"{r['compared_s']:.3f} | {r['compared_ratio']:.3f} | " if cmp else "") +
            f"{r['spread_stock'] * 100:.1f} % / {r['spread_adaptive'] * 100:.1f} % | {r['trained_after'] or '-'} | {dec} |"
        )
    text = "\n".join(lines) + "\n"
    open(os.path.join(args.out, "speed.md"), "w").write(text)
    with open(os.path.join(args.out, "speed.tsv"), "w") as f:
        f.write("program\tstock_s\tadaptive_s\tratio\tmin_ratio\tspread_stock\tspread_adaptive" + ("\tcompared_s\tcompared_ratio" if cmp else "") + "\n")
        for r in results:
            f.write(f"{r['program']}\t{r['stock_s']:.4f}\t{r['adaptive_s']:.4f}\t{r['ratio']:.4f}\t{r['min_ratio']:.4f}\t{r['spread_stock']:.4f}\t{r['spread_adaptive']:.4f}"
                    + (f"\t{r['compared_s']:.4f}\t{r['compared_ratio']:.4f}" if cmp else "") + "\n")
    print(text)


def main():
    ap = argparse.ArgumentParser()
    suite_arguments(ap)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--train", type=int, default=6)
    ap.add_argument("--compare-plugin", help="another build's libompadapt.so, timed in the same alternation")
    ap.add_argument("--compare-env", help="K=V[,K=V]: a compared build of this plugin run with these variables set")
    args = ap.parse_args()
    rows = suite_rows(args)
    started, load_before = datetime.datetime.now(), load()
    results = []
    for row in rows:
        r = measure(row, args)
        print(f"{r['program']}: stock {r['stock_s']:.3f} s, adaptive {r['adaptive_s']:.3f} s, ratio {r['ratio']:.3f}", flush=True)
        results.append(r)
    write(results, args, started, load_before, load())


if __name__ == "__main__":
    main()
