//! The pass's statistics, in LLVM's `-stats` report (`opt -stats`, `clang -mllvm -stats`,
//! `clang -save-stats`): how many OpenMP constructs each compilation saw, how many became
//! adaptive, and how many were left as written, by reason.
//!
//! The reasons are the remarks' identifiers: every remark names one outcome for one region
//! (OMPADAPT100 a launch made a dispatch, OMPADAPT113 a launch left as written because it can be
//! reached without the marker, ...), so one counter per identifier, named by it and described by
//! its summary, is the table of outcomes by reason, and docs/remarks.md explains each. Beside
//! them, what the module had before the pass ran: offload launches and forks seen. LLVM keeps
//! the counters (shim/statistics.cpp), so they add up over the modules of a compilation and
//! print with LLVM's own.

use std::ffi::{c_char, CString};

use inkwell::module::Module;
use inkwell::values::AsValueRef;

use crate::entry_points::name;
use crate::ir;
use crate::remarks::{Remark, RemarkId, RemarkKind};

extern "C" {
    fn ompadapt_add_statistic(name: *const c_char, description: *const c_char, n: u64);
}

/// The OpenMP constructs a module holds before the pass runs: calls of the runtime entry points
/// that start them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// `__tgt_target_kernel` calls: target constructs that offload.
    pub launches: u64,
    /// `__kmpc_fork_call` calls: host parallel regions.
    pub forks: u64,
    /// `__kmpc_fork_teams` calls: host teams regions.
    pub teams: u64,
    /// `__kmpc_fork_call_if` calls: flang's host parallel regions with an `if` clause.
    pub forks_if: u64,
}

impl Seen {
    /// Every construct-starting call: launches, forks (with `if` or not) and teams forks.
    pub fn sites(self) -> u64 {
        self.launches + self.forks + self.forks_if + self.teams
    }
}

/// The remarks that decide one construct-starting call each (adaptive, or left as written and
/// why): a launch made a dispatch or not (zero-source-change mode's markers, pass-only mode), a
/// host region's verdict (markers, pass-only mode; nested regions; regions no variant applies
/// to; explicit regions' constructs). Pass-only mode's OMPADAPT154 is not one: the launch it
/// makes adaptive then gets its marker's OMPADAPT100 (or why not).
pub const DECISIONS: [RemarkId; 20] = [
    RemarkId::LaunchDispatched,
    RemarkId::NoLaunch,
    RemarkId::DeferredTarget,
    RemarkId::NotDominated,
    RemarkId::UnusedLaunchResult,
    RemarkId::TeamInvariant,
    RemarkId::TeamQuery,
    RemarkId::TeamThreadLocal,
    RemarkId::TeamOpaqueCall,
    RemarkId::TeamIndirectCall,
    RemarkId::TeamReplicatedEffect,
    RemarkId::TeamReductionCopy,
    RemarkId::TeamWaits,
    RemarkId::TeamCarriedCopy,
    RemarkId::HostRegionAdaptive,
    RemarkId::NestedRegion,
    RemarkId::LaunchNotAdapted,
    RemarkId::ObservedByTool,
    RemarkId::NoVariantsForConstruct,
    RemarkId::ExplicitRegionConstruct,
];

/// Counts the construct-starting calls of `module`.
pub fn seen(module: &Module<'_>) -> Seen {
    let calls_of = |entry: &str| {
        module.get_function(entry).map_or(0, |f| ir::users(f.as_value_ref()).into_iter().filter(|u| ir::is_call(*u)).count() as u64)
    };
    Seen {
        launches: calls_of(name::TARGET_KERNEL),
        forks: calls_of(name::FORK_CALL),
        teams: calls_of(name::FORK_TEAMS),
        forks_if: calls_of(crate::fork_if::FORK_CALL_IF),
    }
}

/// Adds a module's figures to the statistics: what it had (`seen`), the remarks by kind, and one
/// counter per remark identifier. The names only order the report (LLVM prints descriptions).
pub fn record(seen: Seen, remarks: &[Remark]) {
    add("0 launches", "offload launches (target constructs) seen", seen.launches);
    add("1 forks", "host parallel regions (fork calls) seen", seen.forks);
    add("2 teams", "host teams regions (fork-teams calls) seen", seen.teams);
    add("1 forks if", "host parallel regions with flang's if clause (fork-call-if calls) seen", seen.forks_if);
    // in zero-source-change and pass-only modes each site gets one decision (a test checks the
    // two are equal on the tables' programs; with explicit directives only, the directives decide)
    let decided = remarks.iter().filter(|r| DECISIONS.contains(&r.id)).count() as u64;
    add("4 sites", "construct-starting calls (launches, forks, teams forks) seen", seen.sites());
    add("5 decided", "construct-starting calls decided (adaptive, or left as written with a reason)", decided);
    let missed = remarks.iter().filter(|r| r.id.kind() == RemarkKind::Missed).count() as u64;
    add("3 missed", "constructs or features left as written (missed remarks; reasons below)", missed);
    for remark in remarks {
        let id = remark.id;
        add(id.code(), &format!("[{}] {}", id.code(), id.summary()), 1);
    }
}

fn add(name: &str, description: &str, n: u64) {
    if n == 0 {
        return;
    }
    let (name, description) = (CString::new(name).expect("no NUL"), CString::new(description.replace('\0', " ")).expect("NULs replaced"));
    // SAFETY: two NUL-terminated strings the shim copies before returning.
    unsafe { ompadapt_add_statistic(name.as_ptr(), description.as_ptr(), n) };
}
