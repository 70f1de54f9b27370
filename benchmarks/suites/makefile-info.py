#!/usr/bin/env python3
"""Read what a HeCBench-style Makefile would build and run, without building anything.

GNU make itself evaluates the Makefile (variables, conditionals, continuation lines,
pattern rules): the compiler variables are replaced by a marker and `make -n -B` prints the
compile and link commands, from which the sources, include directories, defines, language
standard and libraries are taken; `make -n run` gives the run command. Nothing the Makefile
says about the compiler itself (icpx, -fiopenmp, -fopenmp-targets=spir64, -O3, ...) is kept.

usage: makefile-info.py PROGRAM_DIR
prints shell-quoted assignments, one per line:
  MF_PROGRAM=main  MF_SOURCES=(...)  MF_FLAGS=(...)  MF_LIBS=(...)  MF_RUN=(...)  MF_RUNS=N
  MF_ERROR='...' (when something could not be determined)
"""
import os
import re
import shlex
import subprocess
import sys

MARK = "__OMPADAPT_CC__"
SRC_EXT = (".c", ".cc", ".cpp", ".cxx", ".C", ".c++")
COMPILER_VARS = ["CC", "CXX", "CPP", "NVCC", "MPICC", "MPICXX"]

PRINT_MK = """
__ompadapt_print:
\t@echo 'PROGRAM=$(program)'
"""


def make(args, cwd):
    overrides = [f"{v}={MARK}" for v in COMPILER_VARS] + ["LAUNCHER=", "DEVICE=gpu",
                                                         "OPTIMIZE=yes", "DEBUG=no"]
    p = subprocess.run(["make", "--no-print-directory", *args, *overrides], cwd=cwd,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def logical_lines(text):
    out, cur = [], ""
    for line in text.splitlines():
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        out.append(cur + line)
        cur = ""
    if cur:
        out.append(cur)
    return out


def split_commands(line):
    """Split a shell line on ; && || (crudely, outside quotes)."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        toks = list(lex)
    except ValueError:
        return [line.split()]
    cmds, cur = [], []
    for t in toks:
        if t in (";", "&&", "||", "&", "|"):
            if cur:
                cmds.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        cmds.append(cur)
    return cmds


def main():
    d = sys.argv[1]
    res = {"MF_ERROR": ""}
    # print the program variable through an extra makefile
    helper = os.path.join(d, ".ompadapt-print.mk")
    with open(helper, "w") as f:
        f.write(PRINT_MK)
    try:
        rc, out, err = make(["-s", "-f", "Makefile", "-f", ".ompadapt-print.mk",
                             "__ompadapt_print"], d)
    finally:
        os.remove(helper)
    program = ""
    for line in out.splitlines():
        if line.startswith("PROGRAM="):
            program = line[len("PROGRAM="):].strip()
    goal = []
    if program and len(program.split()) == 1:
        goal = [program]
    elif program:
        res["MF_ERROR"] = f"several programs: {program}"
    rc, out, err = make(["-n", "-B", *goal], d)
    if rc != 0:
        res["MF_ERROR"] = (res["MF_ERROR"] + "; " if res["MF_ERROR"] else "") + \
            "make -n failed: " + (err.strip().splitlines() or [""])[-1]
    sources, flags, libs = [], [], []
    std = None
    link_output = None
    for line in logical_lines(out):
        for cmd in split_commands(line):
            if not cmd or cmd[0] != MARK:
                continue
            args = cmd[1:]
            xlang = None
            i = 0
            compile_only = "-c" in args
            while i < len(args):
                a = args[i]
                nxt = args[i + 1] if i + 1 < len(args) else None
                if a in ("-I", "-D", "-U", "-include", "-isystem", "-L", "-o", "-x") and nxt:
                    if a == "-o":
                        if not compile_only:
                            link_output = nxt
                    elif a == "-L":
                        libs += [a + nxt]
                    elif a == "-x":
                        xlang = nxt
                    else:
                        flags += [a, nxt] if a in ("-include", "-isystem") else [a + nxt]
                    i += 2
                    continue
                if a.startswith("-I") or a.startswith("-U"):
                    flags.append(a)
                elif a.startswith("-D"):
                    if a not in ("-D__STRICT_ANSI__",):
                        flags.append(a)
                elif a.startswith("-std="):
                    std = a
                elif a.startswith("-l") or a.startswith("-L") or a == "-pthread":
                    libs.append(a)
                elif a.startswith("-x") and len(a) > 2:
                    xlang = a[2:]
                elif (a.endswith(SRC_EXT) or (xlang and a.endswith(".cu"))) and \
                        not a.startswith("-"):
                    sources.append(a)
                i += 1
    if not program and link_output:
        program = link_output
    # keep the order, drop duplicates
    def uniq(xs):
        seen, out = set(), []
        for x in xs:
            if x not in seen:
                seen.add(x)
                out.append(x)
        return out
    sources, flags, libs = uniq(sources), uniq(flags), uniq(libs)
    if std:
        flags.insert(0, std)
    if any(src.endswith(".cu") for src in sources):
        flags += ["-x", "c++"]  # CUDA-named files that the Makefile compiles as C++
    # run command: the first command of `make -n run` that runs ./<program>
    run, nruns = [], 0
    rc, out, err = make(["-n", "-o", program or "main", "run"], d)
    for line in logical_lines(out):
        for cmd in split_commands(line):
            if cmd and program and cmd[0] in ("./" + program, program):
                nruns += 1
                if not run:
                    run = cmd[1:]
            elif cmd and cmd[0] in ("mpirun", "mpiexec", "srun"):
                res["MF_ERROR"] = (res["MF_ERROR"] + "; " if res["MF_ERROR"] else "") + \
                    "run uses " + cmd[0]
    if not sources:
        res["MF_ERROR"] = (res["MF_ERROR"] + "; " if res["MF_ERROR"] else "") + "no sources found"
    print("MF_PROGRAM=" + shlex.quote(program))
    print("MF_SOURCES=(" + " ".join(shlex.quote(s) for s in sources) + ")")
    print("MF_FLAGS=(" + " ".join(shlex.quote(s) for s in flags) + ")")
    print("MF_LIBS=(" + " ".join(shlex.quote(s) for s in libs) + ")")
    print("MF_RUN=(" + " ".join(shlex.quote(s) for s in run) + ")")
    print("MF_RUNS=" + str(nruns))
    print("MF_ERROR=" + shlex.quote(res["MF_ERROR"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
