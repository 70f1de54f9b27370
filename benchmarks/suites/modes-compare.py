#!/usr/bin/env python3
"""Side by side: one suite's table built in zero-source-change mode (the frontend plugin,
--mode auto) and in pass-only mode (the pass alone, --mode pass), from the results.tsv of
cpu_suite.py or offload_suite.py. Per program: status and regions of each build, and whether the
two found the same regions under the same names (one store entry whichever built it).

Usage: modes-compare.py --suite NAME --auto OUT_AUTO --pass OUT_PASS --md FILE [--note TEXT]
(also hecbench.sh's OUT directories: their rows get a status from the modes' columns)
"""
import argparse
import csv
import glob
import json
import os


def read(out):
    rows = {}
    with open(os.path.join(out, "results.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            r.setdefault("status", hecbench_status(r))
            rows[r["program"]] = r
    return rows


def hecbench_status(r):
    """hecbench.sh's rows have no status: ok when every mode printed stock's output (a, b, d
    `yes`, c `yes`, not run or skipped), stock-nondeterministic where stock's two runs differ."""
    if r.get("stock_nondeterministic") == "yes":
        return "stock-nondeterministic"
    modes = [r.get(m, "") for m in "abcd"]
    return "ok" if all(v in ("yes", "-") or v.startswith("skip") for v in modes) else "DIFFERS"


def names(out, program):
    """The region names of a program: from its runs' JSON reports (names may hold commas)."""
    found = set()
    for path in glob.glob(os.path.join(out, "programs", program, "*.json")):
        try:
            found |= {r["region"] for r in json.load(open(path)).get("regions", [])}
        except (OSError, ValueError, KeyError):
            pass
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--auto", required=True)
    ap.add_argument("--pass", dest="passonly", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    a, p = read(args.auto), read(args.passonly)
    programs = sorted(set(a) | set(p))
    na = {x: names(args.auto, x) for x in programs}
    np_ = {x: names(args.passonly, x) for x in programs}
    same = [x for x in programs if na[x] == np_[x]]
    ok = lambda rows: len([x for x in programs if rows.get(x, {}).get("status") == "ok"])
    nondet = lambda rows: len([x for x in programs if rows.get(x, {}).get("status") == "stock-nondeterministic"])
    total = lambda rows: sum(int(rows.get(x, {}).get("regions", 0) or 0) for x in programs)
    lines = [
        f"# {args.suite}: zero-source-change mode (frontend plugin) and pass-only mode (the pass alone), side by side",
        "",
        args.note,
        "",
        f"- programs: **{len(programs)}**; identical to stock in every mode: plugin auto **{ok(a)}**, pass-only **{ok(p)}**"
        + (f"; stock-nondeterministic (not comparable): plugin auto {nondet(a)}, pass-only {nondet(p)}" if nondet(a) or nondet(p) else ""),
        f"- regions: plugin auto **{total(a)}**, pass-only **{total(p)}**; programs with the same regions under the same names: **{len(same)}** of {len(programs)}",
        "",
        "| program | plugin auto | regions | pass-only | regions | same regions |",
        "|---|---|---:|---|---:|---|",
    ]
    for x in programs:
        ra, rp = a.get(x, {}), p.get(x, {})
        only_a, only_p = sorted(na[x] - np_[x]), sorted(np_[x] - na[x])
        diff = "yes" if x in same else "; ".join(
            s for s in [("only auto: " + " · ".join(only_a)) if only_a else "", ("only pass: " + " · ".join(only_p)) if only_p else ""] if s)
        lines.append(f"| {x} | {ra.get('status', '-')} | {ra.get('regions', '-')} | {rp.get('status', '-')} | {rp.get('regions', '-')} | {diff} |")
    open(args.md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))


if __name__ == "__main__":
    main()
