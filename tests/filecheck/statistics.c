// The pass's statistics (pass/src/statistics.rs): with LLVM's -stats (opt, or clang -mllvm
// -stats) the constructs each compilation had, how many it made adaptive and how many it left as
// written, by reason (one line per remark identifier, docs/remarks.md); nothing without -stats.
// The inputs are the pass-only tests' programs (pass_only_offload.c: four launches, one made
// adaptive, three left as written; pass_only.c: four host parallel regions, one adaptive).
//
// RUN: cd %S && %clang -O0 --offload-host-only -S -emit-llvm -Xclang -disable-llvm-passes pass_only_offload.c -o %t.offload.ll
// RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=cpu;gpu>' -stats -disable-output %t.offload.ll 2>&1 | %FileCheck %s --check-prefix=OFFLOAD
// RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=cpu;gpu>' -disable-output %t.offload.ll 2> %t.quiet; test ! -s %t.quiet
// RUN: cd %S && %clang -O0 --offload-host-only -S -emit-llvm -Xclang -disable-llvm-passes pass_only.c -o %t.host.ll
// RUN: env -u OMPADAPT_AUTO %opt -load-pass-plugin=%passplugin -passes=ompadapt -stats -disable-output %t.host.ll 2>&1 | %FileCheck %s --check-prefix=HOST
// Inside clang, over a compilation's host and device modules (the device module adds nothing):
// RUN: cd %S && %clang -O2 -fpass-plugin=%passplugin -mllvm -stats -c pass_only_offload.c -o %t.o 2>&1 | %FileCheck %s --check-prefix=CLANG

// OFFLOAD:      ... ompadapt statistics ...
// OFFLOAD:      4 ompadapt - offload launches (target constructs) seen
// OFFLOAD-NEXT: 4 ompadapt - host parallel regions (fork calls) seen
// OFFLOAD-NEXT: 4 ompadapt - host teams regions (fork-teams calls) seen
// OFFLOAD-NEXT: 11 ompadapt - constructs or features left as written (missed remarks; reasons below)
// Every construct-starting call is decided: the 4 launches (1 a dispatch, 3 left as written),
// the 4 forks and 4 teams forks of the launches' host versions (theirs, OMPADAPT153).
// OFFLOAD-NEXT: 12 ompadapt - construct-starting calls (launches, forks, teams forks) seen
// OFFLOAD-NEXT: 12 ompadapt - construct-starting calls decided (adaptive, or left as written with a reason)
// OFFLOAD-NEXT: 1 ompadapt - [OMPADAPT100] The offload launch after a launch-site marker became a dispatch.
// OFFLOAD:      1 ompadapt - [OMPADAPT154] Pass-only mode: an offload launch became an adaptive region (its variants).
// OFFLOAD-NEXT: 3 ompadapt - [OMPADAPT155] Pass-only mode: an offload launch is left as written (why).

// HOST:      4 ompadapt - host parallel regions (fork calls) seen
// HOST-NEXT: 3 ompadapt - constructs or features left as written (missed remarks; reasons below)
// HOST-NEXT: 4 ompadapt - construct-starting calls (launches, forks, teams forks) seen
// HOST-NEXT: 4 ompadapt - construct-starting calls decided (adaptive, or left as written with a reason)
// HOST:      2 ompadapt - [OMPADAPT145] Left as written: every thread of the team has an effect outside worksharing.
// HOST:      1 ompadapt - [OMPADAPT150] Pass-only mode: a host parallel region became adaptive (its variants).
// HOST:      1 ompadapt - [OMPADAPT153] Pass-only mode: a parallel construct nested in another one is left as written.

// CLANG: 4 ompadapt - offload launches (target constructs) seen
// CLANG: 1 ompadapt - [OMPADAPT154] Pass-only mode: an offload launch became an adaptive region (its variants).

int statistics_test_has_no_code_of_its_own;
