#!/usr/bin/env python3
"""Differential run of a CPU-only OpenMP suite against ompadapt's zero-source-change mode.

Each program of an argument table is built with stock clang-19 and with
-fplugin=libompadapt.so -fplugin-arg-ompadapt-auto (no GPU, no offload: host parallel regions
only). Stock runs with 1, 2 and 3 threads (OMP_NUM_THREADS), twice with 2; a program whose
output is the same for every team is "invariant". The adaptive build then runs, with
OMP_NUM_THREADS=2 and a store of its own:

  pin:<variant>  every region pinned to one variant (OMPADAPT_VARIANT): its output must equal
                 stock's with that variant's team (serial and shares below one: 1 thread here;
                 threads=1: 2), or with the program's team (2: regions left as written run with
                 it, and a program may choose its code by omp_get_max_threads(), as LULESH
                 does), bit for bit (for programs whose output depends on the team, within the
                 runtime mode's tolerance: regions left as written keep the program's team, and
                 no stock run has that mix); the JSON report must show that only that team ran
  each           each region serial in turn, the others as written (programs whose output is
                 the same with 1, 2 and 3 threads, or with 2 and 3: equal to stock's with 2)
  runtime        the real runtime, three runs on one store (those programs: equal to stock;
                 the others: numbers within a relative 1e-9 or an absolute 1e-12 where they
                 differ — rounding noise such as a converged residual of 1e-15)

Stock's exit status (0, or 1 for a program that reports a failed self-check that way) is part
of its output.

Outputs are stdout and stderr together (PolyBench dumps its arrays on stderr), without the
runtime's own lines ("ompadapt: ..."). Writes OUT/results.md (totals, per-program table,
every difference) and OUT/results.tsv.

Usage: cpu_suite.py --suite polybench --tree DIR --table TABLE.tsv --out OUT
                    [--plugin PATH] [--jobs 2] [--timeout 120] [--only NAME]...
                    [--ignore REGEX]...   (output lines left out of every comparison: timings)

The table (tab-separated, '#' comments): name, sources (space-separated, relative to the tree;
Fortran sources are compiled by flang-new-19 in the table's order, C ones apart by clang-19, the
program linked by flang), flags (compile flags: include folders, defines), args (run
arguments), note, and optionally keep (a regex: only the output lines it matches are compared),
drop (a regex: what it matches is removed from each line, e.g. a timing field; lines left blank
go) and files (SRC:DEST pairs copied into the run folder before each run: an input deck; SRC
relative to the tree, or {table}/... to the table's folder). Fortran has no frontend plugin:
run Fortran tables with --mode pass.
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

HOST_VARIANTS = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"]
TEAM = 2


def team_of(variant, team):
    """The team a host variant runs with when the program's is `team` (as the generated code
    computes it: a share of the program's team, at least one thread)."""
    if variant == "serial":
        return 1
    share = float(variant.split("=", 1)[1])
    return max(1, min(team, int(share * team + 0.5)))


def sh(cmd, cwd=None, env=None, timeout=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired:
        return 124, "", "timeout", time.time() - t0


def read_table(path):
    rows = []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        f += [""] * (8 - len(f))
        rows.append({"name": f[0], "sources": f[1].split(), "flags": f[2].split(), "args": f[3].split(), "note": f[4],
                     "keep": re.compile(f[5]) if f[5] else None, "drop": re.compile(f[6]) if f[6] else None,
                     "files": [x.split(":", 1) for x in f[7].split()],
                     "table_dir": os.path.dirname(os.path.abspath(path))})
    return rows


def compared(row, lines, ignore_re=()):
    """The lines of an output that are compared: those the row keeps (its keep column), without
    what its drop column matches (a timing field), without the lines `ignore_re` match."""
    out = []
    for line in lines:
        if row["keep"] and not row["keep"].search(line):
            continue
        if row["drop"]:
            line = row["drop"].sub("", line)
            if not line.strip():
                continue
        if any(r.search(line) for r in ignore_re):
            continue
        out.append(line)
    return out


class Program:
    def __init__(self, row, args):
        self.row = row
        self.name = row["name"]
        self.dir = os.path.join(args.out, "programs", self.name)
        os.makedirs(self.dir, exist_ok=True)
        self.result = {"program": self.name, "regions": 0, "invariant": "", "differ": [], "pin_missed": [], "status": "ok"}

    def compile(self, exe, extra, args):
        srcs = [os.path.join(args.tree, s) for s in self.row["sources"]]
        flags = [f.replace("{tree}", args.tree) for f in self.row["flags"]]
        fortran = [s for s in srcs if s.lower().endswith((".f90", ".f", ".f95", ".f03", ".f08"))]
        if not fortran:
            cc = "clang++-19" if any(s.endswith((".cpp", ".cc")) for s in srcs) else "clang-19"
            return self.build([[cc, "-O2", "-fopenmp"] + flags + extra + srcs + ["-o", exe, "-lm"]], exe)
        # Fortran (flang-new-19, in the table's order: modules before their users) with C
        # (clang-19, compiled apart), linked by flang.
        steps, objs = [], []
        for c in [s for s in srcs if s not in fortran]:
            objs.append(f"{exe}.{os.path.basename(c)}.o")
            steps.append(["clang-19", "-O2", "-fopenmp"] + flags + extra + ["-c", c, "-o", objs[-1]])
        # (flang-new-19 has no -gdwarf-N: its DWARF version is its own)
        fextra = [x for x in extra if not x.startswith("-gdwarf-")]
        steps.append(["flang-new-19", "-O2", "-fopenmp"] + flags + fextra + fortran + objs + ["-o", exe])
        return self.build(steps, exe)

    def build(self, steps, exe):
        log, secs = [], 0.0
        for cmd in steps:
            rc, _, err, t = sh(cmd, cwd=self.dir)
            secs += t
            log.append(" ".join(cmd) + "\n" + err)
            if rc != 0:
                break
        open(exe + ".log", "w").write("\n".join(log))
        return rc == 0, secs

    def compared(self, lines, args):
        return compared(self.row, lines, args.ignore_re)

    def run(self, exe, env_extra, tag, args):
        env = dict(os.environ)
        for k in ["OMPADAPT_VARIANT", "OMPADAPT_REPORT", "OMP_SCHEDULE", "OMP_NUM_THREADS"]:
            env.pop(k, None)
        env["OMPADAPT_DIR"] = os.path.join(self.dir, "store-" + tag.split(":")[0])
        env.update(env_extra)
        # input files the program reads from its working directory (the table's files column:
        # SRC:DEST, SRC relative to the tree, or to the table's folder with {table}/)
        for src, dest in self.row["files"]:
            src = src.replace("{table}", self.row["table_dir"])
            shutil.copyfile(src if os.path.isabs(src) else os.path.join(args.tree, src), os.path.join(self.dir, dest))
        rc, out, err, secs = sh([exe] + self.row["args"], cwd=self.dir, env=env, timeout=args.timeout)
        out = "\n".join(self.compared(out.splitlines(), args))
        text = out + "\n--- stderr\n" + "\n".join(self.compared([l for l in err.splitlines() if not l.startswith("ompadapt:")], args))
        open(os.path.join(self.dir, tag.replace(":", "_") + ".out"), "w").write(f"exit {rc}\n{text}")
        return rc, text, secs


def close(a, b):
    """Equal but for numbers within a relative 1e-9 (or an absolute 1e-12: values at the
    rounding level of double precision, such as a converged residual)."""
    wa, wb = re.split(r"(\s+|=|,|;)", a), re.split(r"(\s+|=|,|;)", b)
    if len(wa) != len(wb):
        return False
    for x, y in zip(wa, wb):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > max(1e-9 * abs(fy), 1e-12):
            return False
    return True


def regions_of(report):
    try:
        doc = json.load(open(report))
    except (OSError, ValueError):
        return {}
    out = {}
    for r in doc.get("regions", []):
        ran = {}
        for t in r.get("timings", []):
            ran[t["variant"]] = ran.get(t["variant"], 0) + t["exploring_runs"] + t["model_runs"]
        out[r["region"]] = ran
    return out


def adaptive_flags(args):
    """The adaptive build's flags: the frontend plugin's zero-source-change mode (--mode auto), or
    the pass alone (--mode pass: pass-only mode, what clang without the plugin gets from
    -fpass-plugin; -gline-tables-only gives its regions function@file:line names)."""
    if args.mode == "pass":
        return [f"-fpass-plugin={os.path.join(os.path.dirname(args.plugin), 'libompadapt_pass.so')}", "-gline-tables-only", "-gdwarf-4"]
    return [f"-fplugin={args.plugin}", "-fplugin-arg-ompadapt-auto"]


def process(row, args):
    p = Program(row, args)
    res = p.result
    stock, auto = os.path.join(p.dir, "stock"), os.path.join(p.dir, "adaptive")
    ok, t_stock = p.compile(stock, [], args)
    if not ok:
        res["status"] = "stock build failed"
        return res
    ok, t_auto = p.compile(auto, adaptive_flags(args), args)
    res["compile_ratio"] = t_auto / max(t_stock, 1e-6)
    if not ok:
        res["status"] = "PLUGIN BUILD FAILED"
        return res
    # Stock's exit status is part of its output (XSBench exits 1 on a checksum it does not know).
    ref, status = {}, {}
    for team in [1, 2, 3]:
        rc, out, _ = p.run(stock, {"OMP_NUM_THREADS": str(team)}, f"stock{team}", args)
        if rc not in (0, 1):
            res["status"] = f"stock exit {rc}"
            return res
        ref[team], status[team] = out, rc
    rc, again, _ = p.run(stock, {"OMP_NUM_THREADS": str(TEAM)}, "stock2b", args)
    if again != ref[TEAM] or rc != status[TEAM]:
        res["status"] = "stock nondeterministic"
        return res
    invariant = ref[1] == ref[2] == ref[3]
    # A program may choose its code by omp_get_max_threads() outside its regions (LLNL LULESH
    # 2.0): its output with one thread differs while its regions' teams change nothing.
    from_two = not invariant and ref[2] == ref[3]
    res["invariant"] = "yes" if invariant else "from 2 threads" if from_two else "no"
    # pinned: every region one variant; stock's output with that variant's team, or with the
    # program's team (regions left as written run with it; so does a program's choice of code)
    regions = set()
    for v in HOST_VARIANTS:
        report = os.path.join(p.dir, f"pin_{v}.json")
        rc, out, _ = p.run(auto, {"OMP_NUM_THREADS": str(TEAM), "OMPADAPT_VARIANT": v, "OMPADAPT_REPORT": f"json:{report}", "OMPADAPT_PERSIST": "0"}, f"pin:{v}", args)
        wants = (ref[team_of(v, TEAM)], ref[TEAM])
        # where some regions are left as written, teams mix: no stock run has that mix, and a
        # floating-point result is stock's only within rounding
        same = out in wants or (not (invariant or from_two) and any(close(out, w) for w in wants))
        if rc != status[TEAM] or not same:
            res["differ"].append(f"pin:{v}")
        found = regions_of(report)
        regions |= set(found)
        for region, ran in found.items():
            teams = {team_of(x, TEAM) for x, n in ran.items() if n > 0 and x in HOST_VARIANTS}
            if teams and teams != {team_of(v, TEAM)}:
                res["pin_missed"].append(f"{v}:{region}")
    res["regions"] = len(regions)
    res["region_names"] = sorted(regions)
    if invariant or from_two:
        for i, r in enumerate(sorted(regions)[: args.max_each]):
            spec = f"threads=1;{r}:serial"
            rc, out, _ = p.run(auto, {"OMP_NUM_THREADS": str(TEAM), "OMPADAPT_VARIANT": spec, "OMPADAPT_PERSIST": "0"}, f"each{i}", args)
            if rc != status[TEAM] or out != ref[TEAM]:
                res["differ"].append(f"each:{r}")
    for k in range(1, 4):
        rc, out, _ = p.run(auto, {"OMP_NUM_THREADS": str(TEAM)}, f"runtime:{k}", args)
        same = out == ref[TEAM] if invariant or from_two else close(out, ref[TEAM])
        if rc != status[TEAM] or not same:
            res["differ"].append(f"runtime{k}")
    if res["differ"]:
        res["status"] = "DIFFERS"
    return res


def report(results, args, started):
    rows = sorted(results, key=lambda r: r["program"])
    built = [r for r in rows if r["status"] not in ("stock build failed",)]
    plugin_failed = [r for r in rows if r["status"] == "PLUGIN BUILD FAILED"]
    differ = [r for r in rows if r["status"] == "DIFFERS"]
    nondet = [r for r in rows if r["status"] == "stock nondeterministic"]
    ratios = [r["compile_ratio"] for r in rows if "compile_ratio" in r]
    geo = 1.0
    if ratios:
        import math

        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    commit = sh(["git", "-C", os.path.dirname(os.path.abspath(args.plugin)), "rev-parse", "--short", "HEAD"])[1].strip()
    lines = [
        f"# {args.suite}: CPU-only {'pass-only mode (-fpass-plugin, no frontend plugin)' if args.mode == 'pass' else 'zero-source-change mode'} against stock clang-19",
        "",
        f"ompadapt `{commit}`, {started:%Y-%m-%d}, `cpu_suite.py --suite {args.suite} --mode {args.mode}`, OMP_NUM_THREADS={TEAM} for the adaptive runs.",
        "",
        f"- programs in the table: **{len(rows)}**; built stock: {len(built)}; plugin build failures: **{len(plugin_failed)}**",
        f"- regions (host parallel constructs made adaptive): **{sum(r['regions'] for r in rows)}**",
        f"- identical to stock under every mode: **{len([r for r in rows if r['status'] == 'ok'])}**; differing: **{len(differ)}**; "
        f"stock nondeterministic (not compared): {len(nondet)}",
        f"- team-size invariant outputs: {len([r for r in rows if r['invariant'] == 'yes'])}, invariant from 2 threads on: "
        f"{len([r for r in rows if r['invariant'] == 'from 2 threads'])} (both checked under per-region pins and the real runtime bit for bit)",
        f"- pins not applied as asked: {sum(len(r['pin_missed']) for r in rows)}",
        f"- compile time adaptive/stock: {geo:.2f} (geometric mean)",
        "",
        "| program | status | regions | invariant | compile ratio | differing modes |",
        "|---|---|---:|---|---:|---|",
    ]
    for r in rows:
        ratio = f"{r['compile_ratio']:.2f}" if "compile_ratio" in r else "-"
        lines.append(f"| {r['program']} | {r['status']} | {r['regions']} | {r['invariant']} | {ratio} | {', '.join(r['differ'] + r['pin_missed']) or '-'} |")
    open(os.path.join(args.out, "results.md"), "w").write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "results.tsv"), "w") as f:
        f.write("program\tstatus\tregions\tinvariant\tcompile_ratio\tdiffer\tregion_names\n")
        for r in rows:
            names = ",".join(r.get("region_names", []))
            f.write(f"{r['program']}\t{r['status']}\t{r['regions']}\t{r['invariant']}\t{r.get('compile_ratio', 0):.3f}\t{','.join(r['differ'] + r['pin_missed'])}\t{names}\n")
    print("\n".join(lines[:12]))
    return 1 if plugin_failed or differ else 0


def suite_arguments(ap):
    """The arguments every script over a suite table takes: the tree, the table, the output
    folder, the plugin and --only."""
    ap.add_argument("--tree", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plugin", default=os.environ.get("OMPADAPT_PLUGIN") or os.path.join(os.path.dirname(__file__), "../../target/release/libompadapt.so"))
    ap.add_argument("--only", action="append", default=[])


def suite_rows(args):
    """Resolves the paths of `args` (made absolute, the output folder created) and returns the
    table's rows that --only keeps."""
    args.tree, args.out, args.plugin = os.path.abspath(args.tree), os.path.abspath(args.out), os.path.abspath(args.plugin)
    os.makedirs(args.out, exist_ok=True)
    return [r for r in read_table(args.table) if not args.only or r["name"] in args.only]


def run_suite(args, process, report):
    """Processes every row of the table `args` names, `args.jobs` at a time, printing a line
    per program, and returns what `report` returns for the results."""
    rows = suite_rows(args)
    started = datetime.datetime.now()
    results = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for res in pool.map(lambda r: process(r, args), rows):
            print(f"{res['program']}: {res['status']} ({res['regions']} regions) {' '.join(res['differ'])}", flush=True)
            results.append(res)
    return report(results, args, started)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    suite_arguments(ap)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--max-each", type=int, default=12)
    ap.add_argument("--ignore", action="append", default=[])
    ap.add_argument("--mode", choices=["auto", "pass"], default="auto",
                    help="auto: -fplugin-arg-ompadapt-auto (default); pass: -fpass-plugin alone (pass-only mode)")
    args = ap.parse_args()
    args.ignore_re = [re.compile(r) for r in args.ignore]
    sys.exit(run_suite(args, process, report))


if __name__ == "__main__":
    main()
