#!/usr/bin/env python3
"""What the cpu variant copied in a suite run: from the JSON reports of the runs with every
region pinned to cpu (hecbench.sh's mode `a`, `a.json`; offload_suite.py's `cpu.json`), per
region the bytes of the device mappings its launches reached and the bytes it brought in from
the device, per execution, and the regions that refused cpu. The two byte counts are equal
unless an `always to` map sends a section from the host anyway (brought in is then less).

Usage: host-copies.py PROGRAMS_DIR [--report a.json] [--out OUT.md]
  PROGRAMS_DIR holds one folder per program (hecbench.sh's OUT/programs).
"""
import argparse
import json
import os


def regions(path):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return None
    out = []
    for r in doc.get("regions", []):
        h = r.get("host_copies") or {}
        out.append((r["region"], bool(r.get("unavailable")), h.get("executions", 0), h.get("mapped_bytes", 0.0), h.get("brought_in_bytes", 0.0)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("programs")
    ap.add_argument("--report", default="a.json")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows, mismatched, refused = [], [], []
    total_mapped = total_brought = 0.0
    for name in sorted(os.listdir(args.programs)):
        regs = regions(os.path.join(args.programs, name, args.report))
        if regs is None:
            continue
        for region, unavailable, runs, mapped, brought in regs:
            if unavailable:
                refused.append((name, region))
            total_mapped += mapped * runs
            total_brought += brought * runs
            if brought > mapped:
                mismatched.append((name, region, mapped, brought))
            rows.append((name, region, runs, mapped, brought, unavailable))
    lines = [
        f"- programs with a report: {len({r[0] for r in rows})}; regions: {len(rows)}; with copies: {len([r for r in rows if r[2]])}",
        f"- bytes brought in from the device: {total_brought:.0f} for {total_mapped:.0f} bytes of the mappings reached "
        f"({'equal' if total_brought == total_mapped else f'{total_mapped - total_brought:.0f} less: always-to sections'})",
        f"- regions that brought in more than was mapped: **{len(mismatched)}**",
        f"- regions that refused cpu: {len(refused)}" + (": " + ", ".join(f"{n} {r}" for n, r in refused) if refused else ""),
        "",
        "| program | region | executions | mapped bytes / execution | brought in / execution |",
        "|---|---|---:|---:|---:|",
    ]
    for name, region, runs, mapped, brought, unavailable in rows:
        if runs:
            lines.append(f"| {name} | `{region}` | {runs} | {mapped:.0f} | {brought:.0f} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        open(args.out, "w").write(text)
    print("\n".join(lines[:5]))


if __name__ == "__main__":
    main()
