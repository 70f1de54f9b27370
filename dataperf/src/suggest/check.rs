//! What a change takes for granted, and the check of it against what the run saw: the
//! suggestion's parts carry the assumption in words and, where the run contradicts the change as
//! first worded, what it saw.

use super::{at, Subject, Writer, WITHHELD};

/// What a change takes for granted about the program. Each is checked against what the run
/// saw of the finding's list item ([`crate::analysis::Seen`]) before the change is suggested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assumes {
    /// No kernel changes the data between the host's transfer and the copies back at the
    /// construct (removing a copy back, or mapping without `from`). Contradicted when a copy
    /// back there brought bytes other than those the device held.
    KernelsKeep,
    /// The host does not change the data between the transfers to the device at the construct
    /// (removing a `target update to`). Contradicted when one of them carried bytes the device
    /// did not hold.
    HostKeeps,
    /// The host does not change the data while a data region around the constructs keeps it on
    /// the device (hoisting a map, keeping data resident). Contradicted when a transfer of the
    /// same data to the device, at any construct, carried bytes the device did not hold.
    HostKeepsData,
    /// No kernel reads what the construct sends (mapping `alloc` or `from` instead, removing
    /// the update or copy). Contradicted when a kernel, or a copy back, read one of its
    /// transfers.
    Unread,
    /// No kernel runs while the construct's allocations live (removing the map). Contradicted
    /// when a kernel ran during one of them.
    Idle,
}

/// A suggestion being made: its action, clause, place and words, what it takes for granted,
/// and what the run saw against the change as first worded.
pub(super) struct Parts {
    pub(super) action: &'static str,
    pub(super) clause: Option<String>,
    pub(super) place: Option<String>,
    pub(super) text: String,
    pub(super) assumes: Option<String>,
    pub(super) contradicted: Option<String>,
}

impl Parts {
    pub(super) fn new(action: &'static str, clause: Option<String>, place: Option<String>, text: String) -> Parts {
        Parts { action, clause, place, text, assumes: None, contradicted: None }
    }

    /// The same, taking `assumes` for granted; `seen`: what the run saw against its first
    /// wording (the words already say how they take it into account).
    pub(super) fn assuming(mut self, assumes: String, seen: Option<String>) -> Parts {
        self.assumes = Some(assumes);
        self.contradicted = seen;
        self
    }
}

fn of(n: u64, total: u64, what: &str) -> String {
    if n == total {
        format!("all {total} {what}")
    } else {
        format!("{n} of the {total} {what}")
    }
}

impl Writer<'_> {
    /// What the run saw that contradicts `a`, in words; None when nothing did.
    pub(super) fn against(&self, a: Assumes) -> Option<String> {
        let Subject { seen: s, data_seen: d, .. } = self.s;
        let (v, here) = (&self.var, at(self.site));
        match a {
            Assumes::KernelsKeep => (s.device_changed > 0).then(|| {
                format!("{} of `{v}` at {here} brought bytes a kernel had changed", of(s.device_changed, s.from_device, "copies back"))
            }),
            Assumes::HostKeeps => (s.host_changed > 0).then(|| {
                format!(
                    "{} of `{v}` at {here} carried bytes the host had changed",
                    of(s.host_changed, s.to_device, "transfers to the device")
                )
            }),
            Assumes::HostKeepsData => (d.host_changed > 0).then(|| {
                format!(
                    "the host changed `{v}` between its transfers: {} carried bytes the device did not hold",
                    of(d.host_changed, d.to_device, "transfers to the device")
                )
            }),
            Assumes::Unread => (s.read > 0).then(|| format!("kernels read {} of `{v}` at {here}", of(s.read, s.to_device, "transfers"))),
            Assumes::Idle => {
                (s.allocs_used > 0).then(|| format!("kernels ran during {} of `{v}` at {here}", of(s.allocs_used, s.allocs, "allocations")))
            }
        }
    }

    /// `a` in words, for this finding.
    pub(super) fn words(&self, a: Assumes) -> String {
        let (v, here) = (&self.var, at(self.site));
        match a {
            Assumes::KernelsKeep => format!("no kernel changes `{v}` between its transfer to the device and its copy back at {here}"),
            Assumes::HostKeeps => format!("the host does not change `{v}` between the transfers to the device at {here}"),
            Assumes::HostKeepsData => format!("the host changes `{v}` only where the suggestion says to update the device"),
            Assumes::Unread => format!("no kernel reads what {here} sends of `{v}`"),
            Assumes::Idle => format!("no kernel runs while {here} has `{v}` allocated"),
        }
    }

    /// No change suggested: `why` says which change the finding asks for and what the run saw
    /// that rules it out.
    pub(super) fn withheld(&self, why: &str, assumes: String, seen: String) -> Parts {
        Parts {
            action: WITHHELD,
            clause: None,
            place: None,
            text: format!("no change suggested: {why}"),
            assumes: Some(assumes),
            contradicted: Some(seen),
        }
    }
}
