#!/usr/bin/env python3
"""Re-runs programs the conformance harness flagged, to tell stock nondeterminism from a
difference: the stock binary and the flagged build under the flagged check, N runs each at 2
threads, stdout normalised as the harness compares OMPT traces (`ompt_normal`), then counts the
distinct outputs of each and how many of the build's were also seen from stock.

Usage: ompt_recheck.py WORK N PROGRAM:BUILD:CHECK...
  WORK   the harness's work folder (WORK/<program>/{stock,plugin,pass})
  CHECK  a host pin (`serial`, `threads=0.5`, ...) or `runtime` (the real runtime on one store)
"""
import collections
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from single_file_suite import ompt_normal  # noqa: E402


def run(exe, check, store):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMPADAPT")}
    env["OMP_NUM_THREADS"] = "2"
    if check == "runtime":
        env["OMPADAPT_DIR"] = store
    elif check != "stock":
        env.update(OMPADAPT_VARIANT=check, OMPADAPT_PERSIST="0")
    p = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, "\n".join(ompt_normal(p.stdout.splitlines()))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    work, n = sys.argv[1], int(sys.argv[2])
    stock = {}
    for case in sys.argv[3:]:
        prog, build, check = case.split(":")
        with tempfile.TemporaryDirectory() as store:
            if prog not in stock:
                stock[prog] = collections.Counter(run(f"{work}/{prog}/stock", "stock", store) for _ in range(n))
            got = collections.Counter(run(f"{work}/{prog}/{build}", check, store) for _ in range(n))
        both = set(got) & set(stock[prog])
        print(f"{prog}\t{build}\t{check}\tstock {len(stock[prog])} distinct in {n}\t{build} {len(got)} distinct in {n}\t"
              f"also seen from stock {len(both)}/{len(got)} (runs {sum(got[t] for t in both)}/{n})\t"
              f"exits stock {sorted({t[0] for t in stock[prog]})} {build} {sorted({t[0] for t in got})}", flush=True)


if __name__ == "__main__":
    main()
