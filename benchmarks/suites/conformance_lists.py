#!/usr/bin/env python3
"""The program lists of conformance.sh: which single-file tests of a corpus run as plain programs
(single_file_suite.py --list: path, extra compile flags, run|skip, reason).

  drb      DataRaceBench's race-free programs (*-no.c, *-no.cpp, *-no.f95/F95); PolyBench ones get
           the suite's own flags and its polybench.c (the driver's --companion)
  lit      LLVM lit tests (openmp/runtime/test, offload/test): a test runs when its RUN lines are
           compiles and runs of the file itself (of several configurations, -DX and -DY, the first runs), with nothing but compile flags (-D, -f,
           -O, -std) added; the FileCheck part is ignored (stdout and the exit status are the
           oracle, compared with stock). Left out, with the reason: environment variables,
           arguments, several configurations, tool libraries, REQUIRES a GPU/feature the host
           offload lacks, UNSUPPORTED on x86_64-pc-linux-gnu. The OMPT tests of openmp/runtime/test/ompt
           (their tool, callback.h, includes ../../src/kmp_platform.h: the tree needs
           openmp/runtime/src too) get the output normalisation `ompt` (fifth column;
           single_file_suite.py's ompt_normal: threads sorted as lit's %sort-threads does,
           addresses and ids renamed in order of appearance).
  dejagnu  GCC's libgomp testsuite: tests that run (no dg-do compile/link), of one source (no
           dg-additional-sources), without dg-set-target-env-var and without an offload-device
           requirement; dg-options' -D/-std/-fopenmp-simd/-l flags kept, GCC's others dropped.
           --every K --offset I keeps every K-th such runnable test (a deterministic subset).

Usage: conformance_lists.py drb|lit|dejagnu ROOT [DIRS...] [--every K] [--offset I] > LIST.tsv
(columns: path, extra compile flags, run|skip, reason, output normalisation)
"""
import os
import re
import sys

C_EXT = (".c", ".cpp", ".cc")
F_EXT = (".f", ".f90", ".f95", ".F", ".F90", ".F95")


def files(root, dirs, exts):
    for d in dirs:
        for dp, _, fs in os.walk(os.path.join(root, d)):
            for f in sorted(fs):
                if f.endswith(exts):
                    yield os.path.join(dp, f)


def drb(root):
    for path in sorted(files(root, ["micro-benchmarks", "micro-benchmarks-fortran"], C_EXT + F_EXT)):
        if not re.search(r"-no\.(c|cpp|f95|F95|f90)$", path):
            continue
        text = open(path, errors="replace").read()
        if "PolyBench" in text and path.lower().endswith(F_EXT):
            yield path, "", "skip", "PolyBench Fortran: needs the suite's fpolybench.c linked in (two sources)"
        elif "PolyBench" in text:
            yield path, "-DPOLYBENCH_NO_FLUSH_CACHE -DPOLYBENCH_TIME -D_POSIX_C_SOURCE=200112L", "run", ""
        else:
            yield path, "", "run", ""


COMPILE = re.compile(r"^%(libomp-(c-|cxx-|cxx20-)?compile|libomptarget-compile(opt)?(xx|-fortran)?-(generic|x86_64-pc-linux-gnu))$")
BOTH = re.compile(r"^%(libomp-(cxx-|cxx20-|c99-)?compile-and-run|libomptarget-compile(opt)?(xx|-fortran)?-(run-and-check|and-run)-(generic|x86_64-pc-linux-gnu))$")
RUN = re.compile(r"^%(libomp-run|libomptarget-run(-fail)?-(generic|x86_64-pc-linux-gnu))$")
OTHER_TRIPLE = re.compile(r"nvptx|amdgcn|powerpc|aarch64|s390x|ve-unknown|-LTO")
REQ_OK = {"ompt", "linux", "x86_64-pc-linux-gnu", "host", "openmp-5.0", "openmp-4.5", "openmp-5.1", "clang", "multicpu", "x86-target-arch", "affinity", "hidden-helper"}


def lit(root, dirs):
    for path in sorted(files(root, dirs, C_EXT + (".f90",))):
        text = open(path, errors="replace").read()
        runs, cont = [], ""
        for line in text.splitlines():
            m = re.match(r"^\s*(//|!|;|#)\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            cmd = cont + m.group(2).rstrip()
            if cmd.endswith("\\"):
                cont = cmd[:-1] + " "
                continue
            cont = ""
            runs.append(cmd.strip())
        if not runs:
            continue  # not a test: a header or an input of another test
        why = ""
        for m in re.finditer(r"(REQUIRES|UNSUPPORTED):\s*(.*)", text):
            items = [x.strip() for x in re.split(r"[,&|]", m.group(2)) if x.strip()]
            if m.group(1) == "REQUIRES" and any(x not in REQ_OK for x in items):
                why = why or f"REQUIRES: {m.group(2).strip()}"
            if m.group(1) == "UNSUPPORTED" and any(x in ("x86_64-pc-linux-gnu", "linux", "clang", "clang-19") for x in items):
                why = why or f"UNSUPPORTED: {m.group(2).strip()}"
        configs, flags, lang = [], None, None
        for cmd in runs:
            if OTHER_TRIPLE.search(cmd.split("|")[0]):
                continue
            pipeline = cmd.split("|")[0].replace("2>&1", " ").strip()
            atoms = [a.strip() for a in pipeline.split("&&") if a.strip()]
            compiled = ran = False
            for a in atoms:
                toks = a.split()
                if toks and toks[0] in ("not", "%not"):
                    toks = toks[1:]
                if not toks:
                    continue
                head, rest = toks[0], toks[1:]
                if COMPILE.match(head) or BOTH.match(head):
                    bad = [t for t in rest if not re.match(r"^-(D\S+|O\d|std=\S+|fopenmp-version=\d+|fopenmp-simd|fno-\S+|Wno-\S+|lm)$", t)]
                    if bad:
                        why = why or f"special compile line: {a[:80]}"
                    mine = [t for t in rest if not re.match(r"^-O\d$", t)] + (["-std=c++20"] if "cxx20" in head else ["-std=c99"] if "c99" in head else [])
                    if flags is None:
                        flags = mine
                    lang = "fortran" if "fortran" in head else lang
                    compiled = True
                    ran = ran or bool(BOTH.match(head))
                elif RUN.match(head):
                    if rest:
                        why = why or f"run arguments: {a[:80]}"
                    ran = True
                elif head.startswith("env") or re.match(r"^[A-Z_]+=", head):
                    why = why or f"environment: {a[:80]}"
                elif "FileCheck" in head or "fcheck" in head or head.startswith(("rm", "mkdir", "cd")):
                    pass
                else:
                    why = why or f"special harness: {a[:80]}"
            if compiled or ran:
                configs.append((compiled, ran))
        # several RUN configurations (-O0 and -O3, or -DX and -DY): the first one runs
        flags = flags or []
        if not why and not any(r for _, r in configs):
            why = "not run (compile-only test)"
        here = os.path.dirname(path)
        inc = [f"-I{here}"] + [f"-I{os.path.join(root, d)}" for d in ("openmp/runtime/test", "openmp/runtime/test/ompt", "offload/test/include") if os.path.isdir(os.path.join(root, d))]
        ompt = "ompt" if os.path.relpath(path, root).startswith("openmp/runtime/test/ompt/") else ""
        yield path, " ".join(inc + flags), "skip" if why else "run", why, ompt


def dejagnu(root, dirs, every, offset):
    k = 0
    for path in sorted(files(root, dirs, (".c",) + F_EXT)):
        text = open(path, errors="replace").read()
        why = ""
        if re.search(r"dg-do\s+(compile|link|preprocess|assemble)", text):
            continue  # not a program that runs
        if re.search(r"dg-additional-sources", text):
            why = "dg-additional-sources (two sources)"
        elif re.search(r"dg-set-target-env-var", text):
            why = "environment (dg-set-target-env-var)"
        elif re.search(r"offload_device|offload_target_|openacc|dg-require-effective-target\s+(offload|omp_usm|omp_managedmem)", text):
            why = "needs an offload device / target (effective-target)"
        flags = []
        for m in re.finditer(r"dg-(additional-)?options\s+\"([^\"]*)\"", text):
            flags += [t for t in m.group(2).split() if re.match(r"^-(D\S+|std=\S+|fopenmp-simd|lm)$", t) and t not in flags]
        if not why:
            k += 1
            if (k - 1 - offset) % every:
                continue
        elif every > 1:
            continue  # a subset lists only the runnable tests it keeps
        yield path, " ".join(flags), "skip" if why else "run", why


def main():
    argv = sys.argv[1:]
    every, offset = 1, 0
    if "--every" in argv:
        i = argv.index("--every")
        every = int(argv[i + 1])
        del argv[i : i + 2]
    if "--offset" in argv:
        i = argv.index("--offset")
        offset = int(argv[i + 1])
        del argv[i : i + 2]
    kind, root, dirs = argv[0], os.path.abspath(argv[1]), argv[2:]
    rows = drb(root) if kind == "drb" else lit(root, dirs) if kind == "lit" else dejagnu(root, dirs, every, offset)
    for r in rows:
        print("\t".join(r))


if __name__ == "__main__":
    main()
