#!/usr/bin/env python3
"""Which host parallel regions of a suite zero-source-change mode makes adaptive, and why the
others stay as written — for one plugin, or two side by side (before/after a change).

Every source of every program is compiled once per plugin (-c, -O2, the program's flags,
-fplugin-arg-ompadapt-auto and its remarks). From the remarks:

  eligible      a host region whose variants apply: the pass's OMPADAPT140, or OMPADAPT150 since
                the pass takes the host regions (the team-size analysis found nothing that
                observes the team); for a plugin without that
                analysis, a region with automatic features (OMPADAPT120/13x) and no offload
                launch (OMPADAPT100/11x)
  rejected      the pass's OMPADAPT141-149 and OMPADAPT157, by identifier (the analysis' reason)
  left          the frontend's "this '<host construct>' construct is left as written: <why>"
                or the pass's OMPADAPT153 (nested in another construct),
                by why (nested in another construct, declare target, ... and, before the
                analysis, the list of shapes: ordered, num_threads, threadprivate)

Fortran sources (.f90, .F90) are compiled by flang-new-19 in pass-only mode with the pass beside
the plugin (there is no frontend for Fortran).

Usage: eligibility.py --suite NAME (--table TABLE.tsv --tree DIR | --hecbench DIR --list ARGS.tsv)
                      --plugin NEW.so [--before OLD.so] --out OUT.md [--jobs 2] [--only NAME]...
The table is cpu_suite.py's (name, sources, flags, ...); HeCBench programs are read with
makefile-info.py and compiled for host offload (-fopenmp-targets=x86_64-pc-linux-gnu). The
default kinds apply (host kinds for host regions, cpu,gpu for target constructs).
"""
import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REMARK = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): remark: (?P<text>.*?)(?: \[-R[^\]]*\])?$")
PASS = re.compile(r"\[OMPADAPT(?P<id>\d+)\] region '(?P<region>[^']*)': (?P<what>.*)")
FRONTEND_LEFT = re.compile(r"this '(?P<construct>parallel[^']*)' construct is left as written: (?P<why>.*)")
TARGET_IDS = {"100", "101", "102", "110", "111", "112", "113", "114", "154", "155", "156"}
# the pass's verdicts since zero-source-change mode hands host regions to it (issue 33): 150 for a
# host region made adaptive (140 before), 153 for a construct nested in another one (a parallel
# region inside a parallel region or inside the host version of an offload region)
ELIGIBLE_IDS = {"140", "150"}
NESTED_ID = "153"
FEATURE_IDS = {"120", "130", "131", "132", "133", "134", "135"}
REASONS = {
    "141": "asks for the team (omp_get_thread_num, ...)",
    "142": "threadprivate / thread-local data",
    "143": "calls code it cannot see (another translation unit, unknown library)",
    "144": "calls through a pointer (or a virtual call)",
    "145": "an effect every thread has outside worksharing",
    "146": "a reduction copy updated outside worksharing",
    "147": "no parallel region after the marker",
    "148": "a thread may wait for another one",
    "149": "a private copy carried from one iteration of a thread to the next",
    "157": "the program is its own OMPT tool (defines ompt_start_tool)",
}


def frontend_reason(why):
    """A short class for the frontend's reason."""
    for key, name in [("nested in", "nested in another construct"), ("declare target", "in declare target code"),
                      ("adaptation region", "inside an explicit adaptation"), ("offload device", "device compilation"),
                      ("'ordered'", "ordered (list rule)"), ("ordered' construct", "ordered (list rule)"),
                      ("'num_threads' on a parallel region", "num_threads on a parallel region (list rule)"),
                      ("threadprivate", "threadprivate in the translation unit (list rule)")]:
        if key in why:
            return name
    return why


def programs(args):
    if args.table:
        rows = []
        for line in open(args.table):
            if not line.strip() or line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t") + [""] * 5
            rows.append({"name": f[0], "sources": [os.path.join(args.tree, s) for s in f[1].split()],
                         "flags": [x.replace("{tree}", args.tree) for x in f[2].split()], "offload": False})
        return rows
    rows = []
    names = [l.split("\t")[0] for l in open(args.list) if l.strip() and not l.startswith("#")]
    for name in names:
        d = os.path.join(args.hecbench, "src", name)
        p = subprocess.run([sys.executable, os.path.join(HERE, "makefile-info.py"), d], capture_output=True, text=True)
        info = {}
        for line in p.stdout.splitlines():
            k, _, v = line.partition("=")
            info[k] = shlex.split(v.strip("()")) if v.startswith("(") else shlex.split(v)
        if any(info.get("MF_ERROR", [])) or not info.get("MF_SOURCES"):
            continue
        rows.append({"name": name, "sources": [os.path.join(d, s) for s in info["MF_SOURCES"]],
                     "flags": info.get("MF_FLAGS", []), "offload": True, "cwd": d})
    return rows


def remarks_of(row, plugin):
    """The remarks of one plugin's build of `row`, deduplicated (an offloading build compiles
    the host side twice), with the verdicts of regions that wait for other translation units
    (OMPADAPT158) completed from the summaries of the program's objects, as the runtime would."""
    seen, out = set(), []
    with tempfile.TemporaryDirectory() as objdir:
        objects = []
        for k, src in enumerate(row["sources"]):
            obj = os.path.join(objdir, f"{k}.o")
            if src.endswith((".f90", ".F90", ".f", ".F")):
                # Fortran has no frontend plugin: pass-only mode, the pass beside the plugin, the
                # sources in the table's order (modules first), .mod files in the object folder
                pass_plugin = os.path.join(os.path.dirname(plugin), "libompadapt_pass.so")
                cmd = ["flang-new-19", "-O2", "-fopenmp", "-gline-tables-only", "-J", objdir] + row["flags"] + [
                    f"-fpass-plugin={pass_plugin}", "-Rpass=ompadapt", "-Rpass-missed=ompadapt",
                    "-Rpass-analysis=ompadapt", "-mllvm", "-stats", "-c", src, "-o", obj]
            else:
                cxx = src.endswith((".cpp", ".cc", ".cxx", ".cu")) or row["offload"]
                cmd = ["clang++-19" if cxx else "clang-19", "-O2", "-fopenmp"]
                if row["offload"]:
                    cmd += ["-fopenmp-targets=x86_64-pc-linux-gnu", "-x", "c++"]
                cmd += row["flags"] + [f"-fplugin={plugin}", "-fplugin-arg-ompadapt-auto",
                                       "-fplugin-arg-ompadapt-remarks", "-Rpass-analysis=ompadapt", "-mllvm", "-stats",
                                       "-c", src, "-o", obj]
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=row.get("cwd"))
            if os.path.exists(obj):
                objects.append(obj)
            for line in p.stderr.splitlines():
                s = STAT.match(line)
                if s:
                    SITES[(row["name"], plugin, s["what"])] += int(s["n"])
                m = REMARK.match(line)
                if not m:
                    continue
                key = (os.path.basename(m["file"]), m["line"], m["text"])
                if key not in seen:
                    seen.add(key)
                    out.append((os.path.basename(m["file"]), int(m["line"]), m["text"]))
        return across_units(out, objects, plugin)


# the pass's -stats lines: every construct-starting call seen, and those it decided
STAT = re.compile(r"^\s*(?P<n>\d+) ompadapt - construct-starting calls (?P<what>\(launches|decided)")
SITES = collections.Counter()


def sites_report(plugin):
    """Per program: construct-starting calls seen and decided (from -stats), and whether equal."""
    names = sorted({n for (n, p, _) in SITES if p == plugin})
    rows = []
    for n in names:
        seen, decided = SITES[(n, plugin, "(launches")], SITES[(n, plugin, "decided")]
        rows.append((n, seen, decided))
    return rows


DEPENDS = re.compile(r"\(depends=(?P<deps>[^)\s]*)\)")


def across_units(remarks, objects, plugin):
    """`remarks` with each region that waits for other units (OMPADAPT158) decided by `ompadapt
    summaries` over the program's objects: where the runtime would run it as written, its
    OMPADAPT140/150 becomes the reason's remark (the finding's identifier; 143 where a function
    has no summary)."""
    cli = os.path.join(os.path.dirname(plugin), "ompadapt")
    held = {}
    for file, line, text in remarks:
        m, d = PASS.search(text), DEPENDS.search(text)
        if not (m and d and m["id"] == "158" and os.path.exists(cli)):
            continue
        p = subprocess.run([cli, "--json", "summaries", "--depends", d["deps"]] + objects, capture_output=True, text=True)
        try:
            verdict = json.loads(p.stdout)["verdict"]
        except (ValueError, KeyError, TypeError):
            verdict = {"adaptive": False, "why": f"ompadapt summaries failed: {p.stderr.strip()}"}
        if not verdict["adaptive"]:
            ident = re.search(r"\[OMPADAPT(\d+)\]", verdict["why"])
            held[(m["region"], file, line)] = (ident.group(1) if ident else "143", verdict["why"])
    out = []
    for file, line, text in remarks:
        m = PASS.search(text)
        key = m and (m["region"], file, line)
        if m and key in held and m["id"] in ELIGIBLE_IDS:
            ident, why = held[key]
            text = f"[OMPADAPT{ident}] region '{m['region']}': left as written (across translation units): {why}"
        out.append((file, line, text))
    return out


def classify(remarks):
    """(eligible, rejected {id: [(region, what)]}, left {reason: n}, verdicts {(region, file, line):
    'adaptive' | (id, what)}) of one build's remarks."""
    by_region = collections.defaultdict(set)
    texts = {}
    left = collections.Counter()
    for file, line, text in remarks:
        m = PASS.search(text)
        if m:
            key = (m["region"], file, line)
            by_region[key].add(m["id"])
            texts[(key, m["id"])] = m["what"]
            continue
        m = FRONTEND_LEFT.search(text)
        if m:
            left[frontend_reason(m["why"])] += 1
    eligible, rejected, verdicts = 0, collections.defaultdict(list), {}
    analysed = any(ids & ELIGIBLE_IDS or ids & set(REASONS) for ids in by_region.values())
    for key, ids in by_region.items():
        if ids & TARGET_IDS:
            continue
        # a teams fork (of an offload region's host version, or a host teams construct) is no
        # host parallel construct: since issue 42 it gets its own decision (OMPADAPT153/159)
        said = [texts.get((key, i), "") for i in ids]
        if any("teams region of" in t or "host teams construct" in t for t in said):
            continue
        if NESTED_ID in ids:
            left[frontend_reason("nested in")] += 1
            verdicts[key] = "nested"
            continue
        if analysed:
            if ids & ELIGIBLE_IDS:
                eligible += 1
                verdicts[key] = "adaptive"
            for i in sorted(ids & set(REASONS)):
                rejected[i].append((key[0], texts[(key, i)]))
                verdicts.setdefault(key, (i, texts[(key, i)]))
        elif ids & FEATURE_IDS:
            eligible += 1
            verdicts[key] = "adaptive"
    return eligible, rejected, left, verdicts


def commit_of(plugin):
    """The commit of the checkout that holds `plugin` (target/release/ below it)."""
    p = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(plugin)), "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return p.stdout.strip() or "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--table")
    ap.add_argument("--tree")
    ap.add_argument("--hecbench")
    ap.add_argument("--list")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--before")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--before-label", default=None,
                    help="what the before plugin is, for the report (default: ompadapt <commit>: a list of shapes)")
    ap.add_argument("--after-label", default=None,
                    help="what the plugin is, for the report (default: ompadapt <commit>: the team-size analysis)")
    args = ap.parse_args()
    if args.tree:
        args.tree = os.path.abspath(args.tree)
    rows = [r for r in programs(args) if not args.only or r["name"] in args.only]
    plugins = [("after", os.path.abspath(args.plugin))] + ([("before", os.path.abspath(args.before))] if args.before else [])

    def one(row):
        return row["name"], {tag: classify(remarks_of(row, p)) for tag, p in plugins}

    results = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, res in pool.map(one, rows):
            a = res["after"]
            b = res.get("before")
            print(f"{name}: after {a[0]} eligible, {sum(len(v) for v in a[1].values())} rejected"
                  + (f"; before {b[0]} eligible" if b else ""), flush=True)
            results.append((name, res))
    results.sort()
    tot = lambda tag, i: sum(r[tag][i] if i == 0 else 0 for _, r in results if tag in r)  # noqa: E731
    rejected = collections.defaultdict(list)
    left = {tag: collections.Counter() for tag, _ in plugins}
    for name, res in results:
        for i, regs in res["after"][1].items():
            rejected[i] += [(name, r, w) for r, w in regs]
        for tag, _ in plugins:
            left[tag].update(res[tag][2])
    n_rejected = sum(len(v) for v in rejected.values())
    considered_after = tot("after", 0) + n_rejected + sum(left["after"].values())
    lines = [f"# {args.suite}: host parallel regions zero-source-change mode makes adaptive", "",
             f"`eligibility.py --suite {args.suite}`: {len(results)} programs, every source compiled with "
             f"`-fplugin-arg-ompadapt-auto` and its remarks.", ""]
    lines.append(f"- host parallel constructs: **{considered_after}**")
    if args.before:
        considered_before = (tot("before", 0) + sum(left["before"].values())
                             + sum(len(v) for _, r in results for v in r["before"][1].values()))
        share_b = 100.0 * tot("before", 0) / max(considered_before, 1)
        label_b = args.before_label or f"ompadapt `{commit_of(args.before)}`: a list of shapes"
        lines.append(f"- adaptive before ({label_b}): "
                     f"**{tot('before', 0)}** of {considered_before} ({share_b:.0f} %)")
    share_a = 100.0 * tot("after", 0) / max(considered_after, 1)
    label_a = args.after_label or f"ompadapt `{commit_of(args.plugin)}`: the team-size analysis"
    lines.append(f"- adaptive after ({label_a}): **{tot('after', 0)}** of {considered_after} ({share_a:.0f} %)")
    lines.append(f"- left as written by the analysis: **{n_rejected}**; by the frontend (where they are): {sum(left['after'].values())}")
    lines += ["", "| left as written because | regions |", "|---|---:|"]
    for i in sorted(rejected):
        lines.append(f"| OMPADAPT{i}: {REASONS[i]} | {len(rejected[i])} |")
    for why, n in left["after"].most_common():
        lines.append(f"| frontend: {why} | {n} |")
    if args.before:
        lines += ["", "Before, the frontend left as written:", "", "| reason | constructs |", "|---|---:|"]
        for why, n in left["before"].most_common():
            lines.append(f"| {why} | {n} |")
    lines += ["", "| program | adaptive after | left by the analysis | " + ("adaptive before | left before |" if args.before else ""),
              "|---|---:|---:|" + ("---:|---:|" if args.before else "")]
    for name, res in results:
        a = res["after"]
        row = f"| {name} | {a[0]} | {sum(len(v) for v in a[1].values())} |"
        if args.before:
            row += f" {res['before'][0]} | {sum(len(v) for v in res['before'][1].values())} |"
        lines.append(row)
    lines += ["", "## Every region the analysis left as written", ""]
    for i in sorted(rejected):
        for name, region, what in rejected[i]:
            lines.append(f"- `{name}` `{region}` (OMPADAPT{i}): {what}")
    if args.before:
        # every region whose verdict differs between the two builds (a region only one build
        # names is listed too: 'no region')
        changed = []
        for name, res in results:
            vb, va = res["before"][3], res["after"][3]
            for key in sorted(set(vb) | set(va), key=lambda k: (k[1], k[2], k[0])):
                b, a = vb.get(key, "no region"), va.get(key, "no region")
                if (b if isinstance(b, str) else b[0]) != (a if isinstance(a, str) else a[0]):
                    changed.append((name, key[0], b, a))
        say = lambda v: v if isinstance(v, str) else f"left as written (OMPADAPT{v[0]})"  # noqa: E731
        lines += ["", "## Every region whose verdict changed", ""]
        for name, region, b, a in changed:
            why = a[1] if isinstance(a, tuple) else (b[1] if isinstance(b, tuple) else "")
            lines.append(f"- `{name}` `{region}`: before {say(b)}, after {say(a)}" + (f": {why}" if why else ""))
        if not changed:
            lines.append("None.")
    sites = sites_report(plugins[0][1])
    if sites:
        unequal = [r for r in sites if r[1] != r[2]]
        lines += ["", "## Every construct-starting call decided (`-mllvm -stats`, after)", "",
                  f"Calls of `__kmpc_fork_call`, `__kmpc_fork_call_if`, `__kmpc_fork_teams` and `__tgt_target_kernel` "
                  f"seen and decided (adaptive, or a remark with the reason), over every source: "
                  f"**{sum(r[1] for r in sites)}** seen, **{sum(r[2] for r in sites)}** decided; "
                  f"programs where they differ: **{len(unequal)}**" + (": " + ", ".join(r[0] for r in unequal) if unequal else "."),
                  "", "| program | seen | decided |", "|---|---:|---:|"]
        lines += [f"| {n} | {a} | {b} |" for n, a, b in sites]
    open(args.out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))


if __name__ == "__main__":
    main()
