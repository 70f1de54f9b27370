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

--matrix (conformance corpora: CPU and offload programs, C, C++ and Fortran; conformance.sh):
each program is built stock (clang-19/clang++-19/flang-new-19 -O2 -fopenmp; -fopenmp-targets=
x86_64-pc-linux-gnu only for a source with a target construct, and for Fortran, where flang's
offload link fails, the host fallback linked with -lomptarget) and once per --builds entry:
  plugin  -fplugin=libompadapt.so -fplugin-arg-ompadapt-auto (zero-source-change mode with the
          default kinds: host regions serial and threads=..., target constructs cpu,gpu; C/C++)
  pass    -fpass-plugin=libompadapt_pass.so -gline-tables-only (pass-only mode, OMPADAPT_AUTO
          unset: the same defaults; C, C++ and Fortran)
Stock runs twice at each --teams (OMP_NUM_THREADS; a program whose two runs differ, or that
times out, is excluded) and once with one thread. Each adaptive build then runs at each team
with every region pinned to each of --host-pins (and --offload-pins for programs with a target
construct), one variant for all regions at a time, and under the real runtime (three runs on
one store), and each run's stdout and exit status must equal stock's at that team (a host pin
may instead equal stock's with the pin's team: `serial` is stock with one thread). Programs come
from SOURCES or --list TSV (path, extra flags, run|skip, reason: a skipped row is listed as
excluded with its reason; an optional fifth column names an output normalisation, `ompt`:
see ompt_normal); --root names programs by their path under it; --companion
TEXT=>FILE compiles FILE with every C program whose source contains TEXT. Writes results.tsv
and RESULTS.md into --out; --combine OUT... writes one report over several runs (conformance.md).
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
    def __init__(self, src, work, root=None, flags=(), skip="", normal=""):
        self.src = os.path.abspath(src)
        self.name = os.path.relpath(self.src, root) if root else os.path.basename(src)
        self.dir = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", self.name))
        self.row = {"program": self.name}
        self.flags, self.skip, self.normal = list(flags), skip, normal


OMPT_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\b[0-9]{12,}\b")


def ompt_normal(lines):
    """The output of an OMPT test tool (LLVM's openmp/runtime/test/ompt/callback.h), as lit's
    `%sort-threads | FileCheck` reads it: lines in a stable sort by their leading number (the
    thread's id; `sort -n -s`), then every address (0x...) and every id of 12 digits or more
    (thread, parallel and task ids) renamed <k> in the order of first appearance: ASLR and the
    racing id counters go, which values are equal to which (FileCheck's captured variables)
    stays."""
    key = lambda l: int(m.group(1)) if (m := re.match(r"^\s*([0-9]+)", l)) else 0
    seen = {}
    return [OMPT_NUMBER.sub(lambda m: seen.setdefault(m.group(0), f"<{len(seen)}>"), l) for l in sorted(lines, key=key)]


def run_program(p, exe, env_extra, tag, args):
    env = dict(os.environ)
    env.pop("OMPADAPT_VARIANT", None)
    env.update(env_extra)
    rc, out, err, secs = sh([exe], cwd=p.dir, env=env, timeout=args.timeout)
    lines = [l for l in out.splitlines() if not any(r.search(l) for r in args.ignore_re)]
    for pattern, repl in args.sub_re:
        lines = [pattern.sub(repl, l) for l in lines]
    if p.normal == "ompt":
        lines = ompt_normal(lines)
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


MATRIX_TSV = ["corpus", "program", "lang", "target", "status", "stock_exit", "why"]


def is_fortran(path):
    return path.lower().endswith((".f", ".f90", ".f95", ".f03", ".f08"))


def has_target(text, fortran):
    """A target construct (or the device memory API), which needs libomptarget."""
    pragma = r"^\s*!\$omp\s+(end\s+)?target\b" if fortran else r"^\s*#\s*pragma\s+omp\s+(begin\s+|end\s+|declare\s+)?target\b"
    return bool(re.search(pragma, text, re.M | re.I) or re.search(r"\bomp_target_(alloc|memcpy|free|is_present|associate)", text, re.I))


def team_of(variant, team):
    """The team a host pin runs with when the program's is `team` (cpu_suite.py's rule)."""
    if variant == "serial":
        return 1
    if variant.startswith("threads="):
        return max(1, min(team, int(float(variant.split("=", 1)[1]) * team + 0.5)))
    return team


def matrix_compile(src, exe, flags, fortran, target, extra_srcs, cwd, timeout):
    """Builds one program; returns (ok, log, seconds, the offload flags that worked)."""
    attempts = [[HOST], ["-L/usr/lib/llvm-19/lib", "-Wl,-rpath,/usr/lib/llvm-19/lib", "-lomptarget"]] if target and fortran else [[HOST] if target else []]
    log, errs, secs = "", "", 0.0
    for off in attempts:
        if fortran:
            cmd = ["flang-new-19", "-O2", "-fopenmp"] + off + flags + [src, "-o", exe]
        else:
            cc = "clang++-19" if src.endswith((".cpp", ".cc", ".cxx", ".C")) else "clang-19"
            cmd = [cc, "-O2", "-fopenmp"] + off + flags + [src] + extra_srcs + ["-o", exe, "-lm"]
        rc, _, err, t = sh(cmd, cwd=cwd, timeout=timeout)
        secs += t
        log += " ".join(cmd) + "\n" + err + "\n"
        errs += err if rc != 124 else "timeout\n"
        if rc == 0:
            return True, log, secs, off
    return False, errs, secs, None


def matrix_process(p, args):
    """One program of --matrix: builds, stock runs, every pin of every build at every team."""
    os.makedirs(p.dir, exist_ok=True)
    row = p.row
    row.update(corpus=args.corpus, lang="fortran" if is_fortran(p.src) else ("c++" if p.src.endswith((".cpp", ".cc", ".cxx")) else "c"), builds={})
    if p.skip:
        row.update(status="excluded", why=p.skip, target="")
        return row
    text = open(p.src, errors="replace").read()
    fortran = row["lang"] == "fortran"
    target = has_target(text, fortran)
    row["target"] = "yes" if target else "no"
    extra = [f for key, f in args.companion if key in text and not fortran]
    flags = args.cflags + p.flags
    stock = os.path.join(p.dir, "stock")
    ok, log, t_stock, off = matrix_compile(p.src, stock, flags, fortran, target, extra, p.dir, args.compile_timeout)
    open(stock + ".log", "w").write(log)
    if not ok:
        row.update(status="excluded", why="stock build fails: " + first_error(log))
        return row
    # stock: twice per team, once with one thread
    ref = {}
    for team in args.teams:
        a = run_program(p, stock, {"OMP_NUM_THREADS": str(team)}, f"stock{team}", args)
        b = run_program(p, stock, {"OMP_NUM_THREADS": str(team)}, f"stock{team}b", args)
        if a[0] == 124 or b[0] == 124:
            row.update(status="excluded", why=f"stock run times out ({args.timeout} s) with {team} threads")
            return row
        if a[:2] != b[:2]:
            d = next((f"{x!r} / {y!r}" for x, y in zip(a[1].splitlines(), b[1].splitlines()) if x != y), f"exit {a[0]} / {b[0]}")
            row.update(status="excluded", why=f"stock nondeterministic with {team} threads: {d}"[:200])
            return row
        ref[team] = a[:2]
    stocks = {}

    def stock_at(team):
        """Stock's output with another team (a host pin's): bit for bit what the pin must print."""
        if team not in stocks:
            stocks[team] = ref[team] if team in ref else run_program(p, stock, {"OMP_NUM_THREADS": str(team)}, f"stock{team}", args)[:2]
        return stocks[team]

    rechecked = {}

    def stock_varies(team, rc):
        """After a difference: stock three more times (two equal runs can be luck). True when
        stock's output varies and the adaptive run exited as stock does (a hang or a crash stays
        a difference)."""
        if team not in rechecked:
            rechecked[team] = any(run_program(p, stock, {"OMP_NUM_THREADS": str(team)}, "stock-again", args)[:2] != ref[team] for _ in range(3))
        return rechecked[team] and rc == ref[team][0]
    row["stock_exit"] = ref[args.teams[0]][0]
    differs = []
    for build in args.builds:
        res = {"checks": {}, "regions": 0, "host": 0, "offload": 0, "cpu": 0, "notes": []}
        row["builds"][build] = res
        if build == "plugin" and fortran:
            res["status"] = "n/a"
            continue
        exe = os.path.join(p.dir, build)
        bflags = flags + ([f"-fplugin={args.plugin}", "-fplugin-arg-ompadapt-auto"] if build == "plugin" else [f"-fpass-plugin={args.pass_plugin}", "-gline-tables-only"])
        ok, log, t, _ = matrix_compile(p.src, exe, bflags, fortran, target, extra, p.dir, args.compile_timeout)
        open(exe + ".log", "w").write(log)  # the commands and their stderr, or (failed) the errors
        res["compile_ratio"] = t / t_stock if t_stock > 0 else None
        if not ok:
            res["status"] = "BUILD FAILURE"
            res["notes"].append(first_error(log))
            differs.append(f"{build}: build fails")
            continue
        # discovery: which regions are host regions and which offload launches (the pins below
        # pin each kind's regions to the variant and the others to the code as written: host
        # regions threads=1, launches gpu)
        regions = {}

        def note_regions(report):
            try:
                for r in json.load(open(report)).get("regions", []):
                    regions[r["region"]] = r.get("variants", [])
            except (OSError, ValueError):
                pass

        report = os.path.join(p.dir, f"{build}-discover.json")
        run_program(p, exe, {"OMP_NUM_THREADS": str(args.teams[0]), "OMPADAPT_VARIANT": "threads=1", "OMPADAPT_PERSIST": "0",
                             "OMPADAPT_DIR": os.path.join(p.dir, "pinned-store"), "OMPADAPT_REPORT": f"json:{report}"}, "discover", args)
        note_regions(report)
        pins = list(args.host_pins) + (list(args.offload_pins) if target else [])
        for team in args.teams:
            want = ref[team]
            for pin in pins:
                offload_pin = pin in args.offload_pins
                others = [n for n, v in regions.items() if ("gpu" in v) != offload_pin]
                spec = ";".join([pin] + [f"{n}:{'threads=1' if offload_pin else 'gpu'}" for n in others])
                report = os.path.join(p.dir, f"{build}-{team}-{pin}.json")
                rc, out, err = run_program(p, exe, {"OMP_NUM_THREADS": str(team), "OMPADAPT_VARIANT": spec, "OMPADAPT_PERSIST": "0",
                                                    "OMPADAPT_DIR": os.path.join(p.dir, "pinned-store"), "OMPADAPT_REPORT": f"json:{report}"}, pin, args)
                note_regions(report)
                key = f"{pin}@{team}"
                small = team_of(pin, team) if not offload_pin else team
                if (rc, out) == want:
                    res["checks"][key] = "same"
                elif small != team and (rc, out) == stock_at(small):
                    res["checks"][key] = f"same as stock with {small} thread(s)"
                elif stock_varies(team, rc):
                    res["checks"][key] = "stock nondeterministic"
                else:
                    res["checks"][key] = "DIFFERS"
                    res["notes"].append(f"{key}: " + describe(want, (rc, out), err))
            store = os.path.join(p.dir, f"store-{build}-{team}")
            shutil.rmtree(store, ignore_errors=True)
            for k in range(3):
                rc, out, err = run_program(p, exe, {"OMP_NUM_THREADS": str(team), "OMPADAPT_DIR": store}, f"runtime{k}", args)
                key = f"runtime{k + 1}@{team}"
                if (rc, out) == want:
                    res["checks"][key] = "same"
                elif rc == want[0] and close_text(out, want[1]):
                    res["checks"][key] = "within rounding"
                elif stock_varies(team, rc):
                    res["checks"][key] = "stock nondeterministic"
                else:
                    res["checks"][key] = "DIFFERS"
                    res["notes"].append(f"{key}: " + describe(want, (rc, out), err))
        res["regions"] = len(regions)
        res["offload"] = sum(1 for v in regions.values() if "gpu" in v)
        res["host"] = res["regions"] - res["offload"]
        res["cpu"] = sum(1 for v in regions.values() if "cpu" in v)
        res["status"] = "DIFFERS" if any(v == "DIFFERS" for v in res["checks"].values()) else \
            "stock nondeterministic" if any(v == "stock nondeterministic" for v in res["checks"].values()) else "identical"
        if res["status"] == "DIFFERS":
            differs.append(f"{build}: " + "; ".join(res["notes"][:2]))
    if not differs and any(b.get("status") == "stock nondeterministic" for b in row["builds"].values()):
        row.update(status="excluded", why="stock nondeterministic (found when an adaptive run differed: three more stock runs)")
        return row
    row.update(status="DIFFERS" if differs else "compared", why=" | ".join(differs)[:400])
    return row


def describe(want, got, err):
    if want[0] != got[0]:
        tail = err.strip().splitlines()[-1][:100] if err.strip() else ""
        return f"exit {got[0]} (stock {want[0]}) {tail}"
    return next((f"stock {a!r} / adaptive {b!r}" for a, b in zip(want[1].splitlines(), got[1].splitlines()) if a != b),
                f"{len(got[1].splitlines())} lines (stock {len(want[1].splitlines())})")[:160]


def close_text(a, b):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from cpu_suite import close

    la, lb = a.splitlines(), b.splitlines()
    return len(la) == len(lb) and all(x == y or close(x, y) for x, y in zip(la, lb))


def matrix_rows_tsv(rows, args):
    checks = sorted({k for r in rows for b in r.get("builds", {}).values() for k in b.get("checks", {})}, key=check_order)
    head = MATRIX_TSV[:5] + [f"{b}_{x}" for b in args.builds for x in ("status", "regions", "host", "offload")] + ["stock_exit", "why"]
    out = ["\t".join(head)]
    for r in rows:
        cells = [r.get("corpus", ""), r["program"], r.get("lang", ""), r.get("target", ""), r["status"]]
        for b in args.builds:
            res = r.get("builds", {}).get(b, {})
            cells += [res.get("status", ""), str(res.get("regions", "")) if res.get("status") not in (None, "n/a") else "", str(res.get("host", "")) if res.get("status") not in (None, "n/a") else "", str(res.get("offload", "")) if res.get("status") not in (None, "n/a") else ""]
        cells += [str(r.get("stock_exit", "")), r.get("why", "").replace("\t", " ").replace("\n", " ")]
        out.append("\t".join(cells))
    return "\n".join(out) + "\n"


def check_order(k):
    name, team = k.split("@")
    return (int(team), name.startswith("runtime"), name)


def matrix_write(rows, args, secs):
    open(os.path.join(args.out, "results.tsv"), "w").write(matrix_rows_tsv(rows, args))
    json.dump({"rows": rows, "builds": args.builds, "teams": args.teams, "title": args.title, "minutes": secs / 60}, open(os.path.join(args.out, "results.json"), "w"), indent=1)
    md = matrix_markdown([(args.title, rows)], args.builds, args.teams)
    open(os.path.join(args.out, "RESULTS.md"), "w").write(md)
    print(md.split("\n### ")[0])


def matrix_markdown(corpora, builds, teams):
    """Per corpus: programs, built, excluded (with reasons), regions and identical programs per
    build, and every differing program."""
    lines = []
    for title, rows in corpora:
        compared = [r for r in rows if r["status"] in ("compared", "DIFFERS")]
        excluded = [r for r in rows if r["status"] == "excluded"]
        reasons = {}
        for r in excluded:
            why = re.sub(r"stock nondeterministic.*", "stock output or exit differs between two runs", r["why"])
            why = re.sub(r"stock build fails: .*", "stock build fails", why)
            why = re.sub(r"stock run times out.*", "stock run times out", why)
            why = re.sub(r"^(environment|run arguments|special harness|special compile line): .*", r"\1 (the harness sets it; the TSV has the RUN line)", why)
            reasons[why] = reasons.get(why, 0) + 1
        lines += [f"### {title}", "", f"- programs: {len(rows)}; built and run stock (deterministic): {len(compared)}; excluded: {len(excluded)}"]
        for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
            lines.append(f"  - {n}: {why}")
        lines += ["", "| build | programs | adaptive regions (host + offload) | programs with a region | identical under every pin and the runtime | differing | build failures |", "|---|---:|---|---:|---:|---:|---:|"]
        for b in builds:
            rs = [r["builds"][b] for r in compared if r["builds"].get(b, {}).get("status") not in (None, "n/a")]
            if not rs:
                continue
            lines.append(f"| {b} | {len(rs)} | {sum(x['regions'] for x in rs)} ({sum(x['host'] for x in rs)} + {sum(x['offload'] for x in rs)}) | {sum(1 for x in rs if x['regions'])} | "
                         f"{sum(1 for x in rs if x['status'] == 'identical')} | {sum(1 for x in rs if x['status'] == 'DIFFERS')} | {sum(1 for x in rs if x['status'] == 'BUILD FAILURE')} |")
        checks = sorted({k for r in compared for b in r["builds"].values() for k in b.get("checks", {})}, key=check_order)
        if checks:
            lines += ["", "Per check (programs whose run equals stock's at that team / programs run; a host pin may equal stock with the pin's team instead, `serial` stock with one thread, and the runtime's runs stock's within rounding; under a host pin the launches run `gpu`, under `cpu`/`gpu` the host regions `threads=1`):", "",
                      "| build | " + " | ".join(checks) + " |", "|---|" + "---:|" * len(checks)]
            for b in builds:
                rs = [r["builds"][b] for r in compared if r["builds"].get(b, {}).get("checks")]
                if rs:
                    lines.append(f"| {b} | " + " | ".join(f"{sum(1 for x in rs if x['checks'].get(c, 'DIFFERS') != 'DIFFERS' and c in x['checks'])}/{sum(1 for x in rs if c in x['checks'])}" for c in checks) + " |")
        diffs = [r for r in compared if r["status"] == "DIFFERS"]
        lines += ["", f"Differing programs: {len(diffs)}", ""]
        for r in diffs:
            for b, res in r["builds"].items():
                if res.get("status") in ("DIFFERS", "BUILD FAILURE"):
                    bad = [k for k, v in res["checks"].items() if v == "DIFFERS"]
                    lines.append(f"- `{r['program']}` ({b}): {res['status']} under {', '.join(bad) or 'the build'}; {'; '.join(res['notes'][:2])}")
        lines.append("")
    return "\n".join(lines) + "\n"


def first_error(err):
    for l in err.splitlines():
        if "error" in l:
            return l.strip()[:200]
    return (err.strip().splitlines() or ["?"])[-1][:200]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sources", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--matrix", action="store_true", help="conformance corpora: host and offload pins, --builds, --teams (see above)")
    ap.add_argument("--builds", default="plugin,pass")
    ap.add_argument("--teams", default="2")
    ap.add_argument("--host-pins", default="serial,threads=0.5,threads=1")
    ap.add_argument("--offload-pins", default="cpu,gpu")
    ap.add_argument("--list", help="TSV: path, extra flags, run|skip, reason")
    ap.add_argument("--root", help="name programs by their path under this folder")
    ap.add_argument("--companion", action="append", default=[], help="TEXT=>FILE: compile FILE with a C program whose source contains TEXT")
    ap.add_argument("--corpus", default="")
    ap.add_argument("--compile-timeout", type=int, default=180)
    ap.add_argument("--combine", nargs="+", help="OUT folders of --matrix runs: write one report (--md, --tsv) over them")
    ap.add_argument("--md")
    ap.add_argument("--tsv")
    ap.add_argument("--preamble", help="a file whose text goes at the top of the combined report")
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
    if args.combine:
        return combine(args)
    args.plugin = os.path.abspath(args.plugin)
    args.pass_plugin = os.path.join(os.path.dirname(args.plugin), "libompadapt_pass.so")
    args.cflags = args.cflags.split()
    args.ignore_re = [re.compile(r) for r in args.ignore]
    args.sub_re = [(re.compile(x.split("=>", 1)[0]), x.split("=>", 1)[1]) for x in args.sub]
    args.builds = [b for b in args.builds.split(",") if b]
    args.teams = [int(t) for t in args.teams.split(",")]
    args.host_pins = [x for x in args.host_pins.split(",") if x]
    args.offload_pins = [x for x in args.offload_pins.split(",") if x]
    args.companion = [tuple(x.split("=>", 1)) for x in args.companion]
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    load0 = open("/proc/loadavg").read().split()[:3]
    t0 = time.time()
    progs = [Program(s, work, args.root) for s in sorted(args.sources)]
    if args.list:
        for line in open(args.list):
            f = line.rstrip("\n").split("\t") + ["", "", "", ""]
            if f[0] and not f[0].startswith("#"):
                progs.append(Program(f[0], work, args.root, f[1].split(), f[3] or "skipped" if f[2] == "skip" else "", f[4]))
    rows = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for row in ex.map(lambda p: (matrix_process if args.matrix else process)(p, args), progs):
            rows.append(row)
            print(f"{row['program']:60s} {row['status']:24s} {row.get('why', '')[:120]}", flush=True)
    load1 = open("/proc/loadavg").read().split()[:3]
    if args.matrix:
        return matrix_write(rows, args, time.time() - t0)
    write_results(rows, args, load0, load1, time.time() - t0)


def combine(args):
    """One report over several --matrix runs: conformance.md and conformance-results.tsv."""
    corpora, tsv, builds = [], [], None
    for d in args.combine:
        doc = json.load(open(os.path.join(d, "results.json")))
        builds = builds or doc["builds"]
        corpora.append((f"{doc['title']} ({doc['minutes']:.0f} min)", doc["rows"]))
        text = open(os.path.join(d, "results.tsv")).read().splitlines()
        tsv += text[1:] if tsv else text
    pre = open(args.preamble).read() if args.preamble else ""
    open(args.md, "w").write(pre + matrix_markdown(corpora, builds, doc["teams"]))
    open(args.tsv, "w").write("\n".join(tsv) + "\n")


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
