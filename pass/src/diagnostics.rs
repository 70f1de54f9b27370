//! The pass's messages: one line each on stderr, starting with [`WARNING_PREFIX`], naming the
//! function and the adaptive region and saying what happens at run time. A marker left
//! unlowered is also a missed-optimisation remark (see [`crate::remarks`]).

use crate::remarks::RemarkId;

/// Prefix of every message the pass prints.
pub const WARNING_PREFIX: &str = "ompadapt: warning: ";

/// Why a marker was left in place (its region keeps the plain offload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlowered {
    /// No `__tgt_target_kernel` call is reachable after the marker.
    NoLaunch,
    /// The module has no launch at all: compiled without `-fopenmp-targets`.
    NoOffloadInModule,
    /// A deferred target task (`nowait`/`depend`) follows the marker: the launch is in the
    /// task's entry function.
    DeferredTarget,
    /// The launch can be reached without passing the marker.
    NotDominated,
    /// The launch's result is unused, so there is no failure path to the host fallback.
    UnusedLaunchResult,
}

impl Unlowered {
    /// The remark that says it.
    pub fn remark_id(self) -> RemarkId {
        match self {
            Unlowered::NoLaunch => RemarkId::NoLaunch,
            Unlowered::NoOffloadInModule => RemarkId::NoOffloadInModule,
            Unlowered::DeferredTarget => RemarkId::DeferredTarget,
            Unlowered::NotDominated => RemarkId::NotDominated,
            Unlowered::UnusedLaunchResult => RemarkId::UnusedLaunchResult,
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Unlowered::NoLaunch => {
                "no offload launch (__tgt_target_kernel) follows its marker; left unlowered, so \
                 its 'cpu' variant will run the offload"
            }
            Unlowered::NoOffloadInModule => {
                "no offload launch follows its marker, and this module has none (compiled \
                 without -fopenmp-targets?); left as is: both variants run on the host"
            }
            Unlowered::DeferredTarget => {
                "its target construct is deferred (nowait or depend): the launch runs in a task, \
                 which ompadapt cannot dispatch yet; left unlowered, so its 'cpu' variant will \
                 run the offload"
            }
            Unlowered::NotDominated => {
                "the offload launch after its marker can also be reached without passing the \
                 marker; left unlowered, so its 'cpu' variant will run the offload"
            }
            Unlowered::UnusedLaunchResult => {
                "the result of the offload launch after its marker is unused (no failure path \
                 to the host fallback); left unlowered, so its 'cpu' variant will run the \
                 offload"
            }
        }
    }
}

/// `ompadapt: warning: in function 'f': adaptive region 'm': <reason>`.
pub fn unlowered_warning(function: &str, model: &str, why: Unlowered) -> String {
    format!("{WARNING_PREFIX}in function '{function}': adaptive region '{model}': {}", why.reason())
}

/// A call of the marker function that is not a marker (wrong operands).
pub fn malformed_marker_warning(function: &str, marker: &str, reason: &str) -> String {
    format!("{WARNING_PREFIX}in function '{function}': ignoring a call of {marker}: {reason}")
}

/// A module that calls the precompiled runtime loader for a target it was not built for (the
/// plugin only asks for it where it exists: a plugin and pass of different builds).
pub fn no_loader_warning(triple: &str) -> String {
    format!(
        "{WARNING_PREFIX}the module calls the precompiled support code ({}*) but this build of the pass has none for \
         '{triple}'; the link will fail: use a plugin and pass of the same build",
        ompadapt_abi::markers::SUPPORT_PREFIX
    )
}
