#!/usr/bin/env python3
"""The whole-run trial's verdict per program of a cpu_speed.py output folder (docs/runtime.md,
"Whole-run trials"), from the adaptive build's last training report (OUT/PROGRAM/
report-adaptive.json): what the next run runs, why, and the medians of the labelled and own
runs the verdict was taken on. Prints a Markdown table.

Usage: whole_run_verdicts.py OUT...
"""
import json
import os
import sys


def label(work):
    """`table/program`: the folder's last two names (one table's programs by name alone)."""
    return os.path.join(os.path.basename(os.path.dirname(work)), os.path.basename(work)) if len(sys.argv) > 2 else os.path.basename(work)


def row(work):
    try:
        w = json.load(open(os.path.join(work, "report-adaptive.json"))).get("whole_run")
    except (OSError, ValueError):
        return None
    if not w:
        return f"| {label(work)} | - | - | - | - | - |"
    ms = lambda x: "-" if x is None else f"{x * 1e3:.1f}"
    ratio = "-" if not w.get("own_median_s") else f"{w['labels_median_s'] / w['own_median_s']:.3f}"
    return f"| {label(work)} | {w['next_side']} | {w['next_why']} | {ms(w.get('labels_median_s'))} | {ms(w.get('own_median_s'))} | {ratio} |"


def main():
    print("| program | runs | why | labels median ms | own median ms | labels / own |")
    print("|---|---|---|---:|---:|---:|")
    for out in sys.argv[1:]:
        for name in sorted(os.listdir(out)):
            work = os.path.join(out, name)
            if os.path.isdir(work):
                r = row(work)
                if r:
                    print(r)


if __name__ == "__main__":
    main()
