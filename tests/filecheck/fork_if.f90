! flang-19's `if()` clause on a parallel construct: one call, __kmpc_fork_call_if(loc, argc,
! microtask, cond, args). The pass writes out the branch libomp takes inside it: a fork where the
! condition holds, which becomes an adaptive region like clang's form of the clause, and the
! original call (marked, so that a second run leaves it) where it does not — the program's own
! serialized region. Every fork of the module gets a decision: sites seen = sites decided.
!
! RUN: mkdir -p %t.mods && %flang -O0 -S -emit-llvm -J %t.mods %s -o %t.ll
! RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -stats -S < %t.ll > %t.opt.ll 2> %t.remarks
! RUN: %FileCheck %s --check-prefix=IR < %t.opt.ll
! RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
! Running the pass again changes nothing:
! RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll > %t.twice.ll
! (the order of a block's predecessors in the comments follows the reading of the text)
! RUN: diff <(sed 's/; preds = .*//' %t.opt.ll) <(sed 's/; preds = .*//' %t.twice.ll)
! Kinds without a host kind: the forks are left as written, each with the reason.
! RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=cpu;gpu>' -pass-remarks-missed=ompadapt -stats -disable-output < %t.ll 2> %t.nohost
! RUN: %FileCheck %s --check-prefix=NOHOST < %t.nohost

! IR-LABEL: define void @scale_(
! IR: %ompadapt.if = icmp ne i32 %{{[0-9]+}}, 0
! IR-NEXT: br i1 %ompadapt.if, label %ompadapt.fork_if.true, label %ompadapt.fork_if.false
! IR: ompadapt.fork_if.true:
! IR: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 1, ptr @scale_..omp_par, ptr %structArg){{.*}}!ompadapt.region
! IR: ompadapt.fork_if.false:
! IR-NEXT: call void @__kmpc_fork_call_if(ptr @{{[0-9]+}}, i32 1, ptr @scale_..omp_par, i32 %{{[0-9]+}}, ptr %structArg), !ompadapt.region
subroutine scale(n, x, big)
  integer, intent(in) :: n
  logical, intent(in) :: big
  double precision, intent(inout) :: x(n)
  integer :: i
  !$omp parallel do if(big)
  do i = 1, n
    x(i) = x(i) * 2 + i
  end do
  !$omp end parallel do
end subroutine

! REMARK: [OMPADAPT150] region 'scale_#1': the parallel region became adaptive
! REMARK: 1 ompadapt - host parallel regions with flang's if clause (fork-call-if calls) seen
! REMARK: 1 ompadapt - construct-starting calls (launches, forks, teams forks) seen
! REMARK-NEXT: 1 ompadapt - construct-starting calls decided

! NOHOST: [OMPADAPT159] region 'scale_#1': left as written: the kinds given have none for host parallel regions
! NOHOST: 1 ompadapt - construct-starting calls (launches, forks, teams forks) seen
! NOHOST-NEXT: 1 ompadapt - construct-starting calls decided
