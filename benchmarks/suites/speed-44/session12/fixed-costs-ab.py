#!/usr/bin/env python3
# As run on 2026-12-07, session 12, in a cpu_speed.py work folder of an offload program (its
# stock and adaptive binaries and store): N alternations of stock, the adaptive build in its
# whole-run verdict, the same without the runtime (OMPADAPT_RUNTIME pointing nowhere) and
# without the store (OMPADAPT_PERSIST=0); medians and fastest runs. Arguments: the program's.
import subprocess, time, os, statistics, sys
args = sys.argv[1:]
def env(store, extra={}):
    e = dict(os.environ); [e.pop(k, None) for k in ["OMPADAPT_REPORT","OMP_NUM_THREADS","OMPADAPT_VARIANT"]]
    e["OMPADAPT_DIR"] = store; e.update(extra); return e
cfg = [("stock", "./stock", env("store")), ("trial-own", "./adaptive", env("store")), ("no-runtime", "./adaptive", env("store", {"OMPADAPT_RUNTIME": "/nonexistent.so"})), ("persist0", "./adaptive", env("store", {"OMPADAPT_PERSIST": "0", "OMPADAPT_VARIANT":"gpu"}))]
t = {n: [] for n, _, _ in cfg}
for i in range(int(os.environ.get("N", "30"))):
    for n, exe, e in cfg:
        t0 = time.perf_counter(); p=subprocess.run([exe] + args, env=e, capture_output=True, text=True); t[n].append(time.perf_counter() - t0)
        if i == 0: print(n, p.stderr[-300:])
s = statistics.median(t["stock"])
for n in t:
    print(n, f"median {statistics.median(t[n])*1e3:.1f} ms  min {min(t[n])*1e3:.1f}  ratio {statistics.median(t[n])/s:.3f}  min-ratio {min(t[n])/min(t['stock']):.3f}")
