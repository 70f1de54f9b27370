#!/usr/bin/env python3
"""Find smaller run arguments for suite programs that run too long (a helper for building
hecbench-args.tsv; its output is reviewed by hand before it goes into the table).

For each program it takes the arguments of the Makefile's run target (or --args) and tries
reduced versions of them with the stock binary already built in the program directory
(`ompadapt-stock`, left there by `hecbench.sh --stock-only`): the last integer argument is taken
as a repetition count (kept, 10, 2) and the other integer arguments >= --min-size are divided
by 1, 4, 16, 64, 256, 1024 (powers of two stay powers of two). Candidates are tried from the
cheapest (estimated by the product of the reductions) upwards; the most expensive one that
exits 0, prints no FAIL and runs within --target seconds wins.

usage: find-args.py --dir PROGRAM_DIR --args 'ARGS' [--target 2] [--limit 8]
prints: args<TAB>seconds<TAB>how   (or "-<TAB>-<TAB>reason" when nothing fits)
"""
import argparse
import re
import shlex
import subprocess
import sys
import time


def is_int(s):
    return re.fullmatch(r"[0-9]+", s) is not None


def scaled(v, d):
    if d == 1:
        return v
    if v & (v - 1) == 0:  # power of two
        return max(1, v // d)
    return max(1, round(v / d))


def candidates(args, min_size):
    ints = [i for i, a in enumerate(args) if is_int(a)]
    rep = None
    if len(ints) >= 2 and int(args[ints[-1]]) >= 10:
        rep = ints[-1]
    sizes = [i for i in ints if i != rep and int(args[i]) >= min_size]
    if rep is None and len(ints) == 1 and int(args[ints[0]]) >= min_size:
        sizes = ints
    reps = [None]
    if rep is not None:
        orig = int(args[rep])
        reps += [r for r in (10, 2) if r < orig]
    out = []
    for d in (1, 4, 16, 64, 256, 1024):
        if d > 1 and not sizes:
            break
        for r in reps:
            new = list(args)
            cost = 1.0
            for i in sizes:
                v = int(args[i])
                nv = scaled(v, d)
                new[i] = str(nv)
                cost *= nv / v
            if r is not None:
                cost *= r / int(args[rep])
                new[rep] = str(r)
            how = []
            if d > 1:
                how.append(f"sizes/{d}")
            if r is not None:
                how.append(f"repeat {r}")
            out.append((cost, new, " ".join(how) or "as in the Makefile"))
    # unique, cheapest first
    seen, uniq = set(), []
    for c in sorted(out, key=lambda c: c[0]):
        k = tuple(c[1])
        if k not in seen:
            seen.add(k)
            uniq.append(c)
    return uniq


def run(d, binary, args, limit):
    t0 = time.time()
    try:
        p = subprocess.run(["timeout", "-k", "2", str(limit), "./" + binary, *args], cwd=d,
                           capture_output=True, timeout=limit + 10)
    except subprocess.TimeoutExpired:
        return None, 124, b""
    return time.time() - t0, p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--args", required=True)
    ap.add_argument("--binary", default="ompadapt-stock")
    ap.add_argument("--target", type=float, default=2.0)
    ap.add_argument("--limit", type=float, default=8.0)
    ap.add_argument("--min-size", type=int, default=64)
    ap.add_argument("--verbose", action="store_true", help="each trial on stderr")
    o = ap.parse_args()
    args = shlex.split(o.args)
    best = None
    tried = 0
    for cost, cand, how in candidates(args, o.min_size):
        tried += 1
        t, rc, out = run(o.dir, o.binary, cand, o.limit)
        if o.verbose:
            print(f"  {' '.join(cand)}: rc {rc}, {t if t is None else round(t, 2)} s, "
                  f"FAIL-like output: {bool(re.search(rb'FAIL|[Ff]ailed|[Mm]ismatch|[Ii]ncorrect', out))}",
                  file=sys.stderr)
        if t is None or rc in (124, 137):
            break  # more expensive candidates take longer still
        sane = rc == 0 and not re.search(rb"FAIL|[Ff]ailed|[Mm]ismatch|[Ii]ncorrect", out)
        if sane and t <= o.target:
            best = (cand, t, how)
        if t > o.target:
            break
    if best:
        print(" ".join(shlex.quote(a) for a in best[0]) + f"\t{best[1]:.2f}\t{best[2]}")
    else:
        print(f"-\t-\tno candidate within {o.target}s that exits 0 without FAIL ({tried} tried)")


if __name__ == "__main__":
    main()
