#!/usr/bin/env python3
"""Combines the per-suite reports of eligibility.py into benchmarks/suites/eligibility.md: one
summary table, then each suite's reasons, programs with regions, and every region left as
written (paths of the fetched trees made relative).

Usage: eligibility-combine.py OUT.md NAME=REPORT.md...   (names: polybench npb hecbench proxy)
"""
import re
import sys

TITLES = {
    "polybench": "PolyBench/C 4.2.1 with OpenMP (EEESlab, `f845ba2`; `polybench-args.tsv`)",
    "npb": "NAS Parallel Benchmarks 4.1, C++ OpenMP (GMAP/NPB-CPP `5bc1e2c`, class S; `npb-args.tsv`)",
    "hecbench": "HeCBench host regions (`f27000a`, the 146 `*-omp` programs of `hecbench-args.tsv` whose Makefile `makefile-info.py` reads; host offload)",
    "proxy": "Proxy apps and mini-apps (`proxy-apps-args.tsv`: LLNL LULESH 2.0 `3e01c40`, ANL XSBench `ba08e52` and RSBench `34b6447` openmp-threading, Mantevo HPCCG `80dd2f1` and miniFE `c79e0f7` openmp, ECP CoMD `3d48396` src-openmp)",
}
HEAD = """# Which host regions zero-source-change mode makes adaptive: the team-size analysis, before and after

Issue 31 replaced a list of shapes (`ordered`, a `num_threads` clause on a `parallel` region, a
translation unit declaring `threadprivate`) by an analysis of everything a region runs
([docs/zero-source-change.md](../../docs/zero-source-change.md#what-is-eligible)). What it costs, counted
by `eligibility.py` from the compilers' remarks (every source of every program compiled once with each
plugin, `-fplugin-arg-ompadapt-auto`, the default kinds; combined by `eligibility-combine.py`): *before*
is ompadapt `1b13faa` (the list), *after* the analysis. A host construct nested in another construct
(device code inside a `target` region, a loop inside a `parallel` region) is no region in either.
2026-11-27, 2 cores.
"""
NOTES = """PolyBench counts its utility's `parallel for` (polybench.c, compiled into each of the 30 programs,
never run) 30 times. NPB's cost is its timers and random-number generator (`timer_start`, `vranlc`
of `c_timers.cpp`, `c_randdp.cpp`), called inside parallel regions from another translation unit:
harmless, but the compiler cannot see them, and the analysis guesses nothing (compiled into the same
file, or `static inline` in a header, they would be seen); IS keeps its `threadprivate` regions as
written, as before. Left because they ask for the team: LULESH's two time-step constraints (the
issue's wrong energy), NPB EP/IS/BT/SP, HPCCG and amgmk printing or dividing by thread numbers.
miniFE's two are `std::cout` on error paths (the C++ library's inline stream code calls its locale
facets through virtual functions). The four regions the list left in the proxy apps (`num_threads`
on a parallel region) are adaptive now: the analysis finds nothing in them.
"""


def main():
    out_path, pairs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    summary = ["| suite | host constructs | nested (no region) | adaptive before | adaptive after | left by the analysis |",
               "|---|---:|---:|---:|---:|---:|"]
    sections = []
    for key, path in pairs:
        s = open(path).read()
        s = re.sub(r"/tmp/suites/[^/\s']+/", "", s)
        s = s.replace("/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/", "<libstdc++>/")
        total = int(re.search(r"host parallel constructs: \*\*(\d+)", s)[1])
        before = re.search(r"adaptive before[^*]*\*\*(\d+)\*\*", s)
        after = re.search(r"adaptive after[^*]*\*\*(\d+)\*\*", s)
        left = int(re.search(r"left as written by the analysis: \*\*(\d+)", s)[1])
        nested = sum(int(m) for m in re.findall(r"\| frontend: nested in another construct \| (\d+) \|", s))
        regions = max(total - nested, 1)
        pct = lambda n: f"{n} of {regions} ({100 * n / regions:.0f} %)"  # noqa: E731
        summary.append(f"| {TITLES[key].split(' (')[0]} | {total} | {nested} | {pct(int(before[1]))} | {pct(int(after[1]))} | {left} |")
        keep, in_programs = [], False
        for line in s.split("\n")[2:]:
            if line.startswith("| program |"):
                in_programs = True
            # programs without any region say nothing
            if in_programs and re.match(r"\| \S+ \| 0 \| 0 \|( 0 \|){0,2}$", line):
                continue
            if line.startswith("## Every region"):
                line = "Every region the analysis left as written:"
            keep.append(line)
        sections += ["", f"## {TITLES[key]}", ""] + keep
    open(out_path, "w").write(HEAD + "\n" + "\n".join(summary) + "\n\n" + NOTES + "\n".join(sections) + "\n")


if __name__ == "__main__":
    main()
