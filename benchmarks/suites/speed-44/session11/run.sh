#!/bin/bash
# As run on 2026-12-07, session 11 (docs/performance.md, "Session 11: the final control rule in
# every table"): session 10's run.sh as it is (every speed table against the build before the
# rechecks and control runs, 3023e13, in the same alternation; the same trees), with main at
# afb9704 (the final control rule of session 10), nothing else running.
exec "$(dirname "$0")/../session10/run.sh" "${1:-/work/s8/speed11}"
