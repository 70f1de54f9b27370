//! The call sites and map-clause names the events refer to, interned: a site is the return
//! address of a call into the OpenMP runtime (with the construct it belongs to and, where the
//! entry-point stubs saw it, the compiler's record of its source), a variable the name of a
//! map clause's list item. Events carry their ids; the report resolves them.

#![allow(non_upper_case_globals)] // the OMPT constants keep their C names

use std::ffi::{c_char, CStr};

use rustc_hash::FxHashMap;

use crate::event::{SiteId, VarId};
use crate::intercept;
use crate::ompt::*;

/// What kind of code a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construct {
    /// A `target` construct (a kernel launch and its maps).
    Target,
    /// A `target enter data` construct.
    EnterData,
    /// A `target exit data` construct.
    ExitData,
    /// A `target update` construct.
    Update,
    /// A device memory routine (omp_target_alloc, omp_target_memcpy, ...), no construct.
    Api,
}

impl Construct {
    /// The construct of an OMPT target callback's `kind`.
    pub fn from_ompt(kind: ompt_target_t) -> Construct {
        match kind {
            ompt_target | ompt_target_nowait => Construct::Target,
            ompt_target_enter_data | ompt_target_enter_data_nowait => Construct::EnterData,
            ompt_target_exit_data | ompt_target_exit_data_nowait => Construct::ExitData,
            ompt_target_update | ompt_target_update_nowait => Construct::Update,
            _ => Construct::Api,
        }
    }

    /// The construct as the report names it.
    pub fn name(self) -> &'static str {
        match self {
            Construct::Target => "target",
            Construct::EnterData => "target enter data",
            Construct::ExitData => "target exit data",
            Construct::Update => "target update",
            Construct::Api => "device memory routine",
        }
    }
}

/// What is known of one call site.
#[derive(Clone, Debug)]
pub struct SiteInfo {
    /// Return address of the call into the OpenMP runtime.
    pub ra: usize,
    /// The construct it belongs to.
    pub construct: Construct,
    /// Kernel launches seen through the entry-point stubs: the offload entry's address.
    pub entry: usize,
    /// The construct's `;file;function;line;column;;` from the compiler (entry-point stubs).
    pub source: Option<String>,
    /// Where the function holding the construct was called from, read from the stack at its
    /// first event (None: not looked for; 0: not found).
    pub caller_ra: Option<usize>,
}

/// Interned return addresses; id 0 is "unknown or too many".
pub struct Sites {
    index: FxHashMap<usize, SiteId>,
    /// Per id, the site (index 0: unknown).
    pub info: Vec<SiteInfo>,
    cap: usize,
}

impl Sites {
    /// A table of at most `cap` sites (id 0 included).
    pub fn new(cap: usize) -> Self {
        Sites {
            index: FxHashMap::default(),
            info: vec![SiteInfo { ra: 0, construct: Construct::Api, entry: 0, source: None, caller_ra: None }],
            cap,
        }
    }

    /// The id of the site at return address `ra` (0: unknown, or the table is full).
    pub fn intern(&mut self, ra: usize, construct: Construct) -> SiteId {
        if ra == 0 {
            return 0;
        }
        if let Some(&id) = self.index.get(&ra) {
            // A data operation may be seen before its construct: the construct wins.
            if construct != Construct::Api {
                self.info[id as usize].construct = construct;
            }
            return id;
        }
        if self.info.len() >= self.cap {
            return 0;
        }
        let id = self.info.len() as SiteId;
        self.info.push(SiteInfo { ra, construct, entry: 0, source: None, caller_ra: None });
        self.index.insert(ra, id);
        id
    }
}

/// The map type the compiler passes to libomptarget with a map-clause list item (its
/// `OMP_TGT_MAPTYPE_*` bits): what the program asked to copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapType(pub u64);

impl MapType {
    const TO: u64 = 0x1;
    const FROM: u64 = 0x2;
    const DELETE: u64 = 0x8;
    const IMPLICIT: u64 = 0x200;

    /// Copies to the device.
    pub fn to(self) -> bool {
        self.0 & Self::TO != 0
    }

    /// Copies back from the device.
    pub fn from(self) -> bool {
        self.0 & Self::FROM != 0
    }

    /// The compiler mapped it without a clause (a variable the construct uses).
    pub fn implicit(self) -> bool {
        self.0 & Self::IMPLICIT != 0
    }

    /// The map-type word of a `map` clause: `to`, `from`, `tofrom`, `delete`, or `alloc`
    /// (`release` on a `target exit data`, which the compiler encodes as `alloc`).
    pub fn word(self) -> &'static str {
        match (self.to(), self.from()) {
            (true, true) => "tofrom",
            (true, false) => "to",
            (false, true) => "from",
            _ if self.0 & Self::DELETE != 0 => "delete",
            _ => "alloc",
        }
    }
}

/// One map-clause list item: its text and map type.
#[derive(Clone, Debug, Default)]
pub struct VarInfo {
    /// The list item as written (`a[0:n]`); empty: unknown.
    pub name: String,
    /// Its map type (unknown: the default, no bits).
    pub map_type: Option<MapType>,
}

/// Interned map-clause names, keyed by the address of the compiler's string.
pub struct Vars {
    index: FxHashMap<usize, VarId>,
    /// Per id, the list item (index 0: the empty name, unknown).
    pub info: Vec<VarInfo>,
    cap: usize,
}

impl Vars {
    /// A table of at most `cap` names (id 0, the empty name, included).
    pub fn new(cap: usize) -> Self {
        Vars { index: FxHashMap::default(), info: vec![VarInfo::default()], cap }
    }

    /// The id of the name at `p` mapped with `map_type` (0: none, or the table is full). The
    /// compiler's string and map type are constants of one construct's list item: the first
    /// map type seen with a name is its own.
    ///
    /// # Safety
    /// `p` is null or a NUL-terminated string.
    pub unsafe fn intern(&mut self, p: *const c_char, map_type: Option<MapType>) -> VarId {
        if p.is_null() {
            return 0;
        }
        if let Some(&id) = self.index.get(&(p as usize)) {
            return id;
        }
        if self.info.len() >= self.cap {
            return 0;
        }
        let raw = CStr::from_ptr(p).to_string_lossy();
        let id = self.info.len() as VarId;
        self.info.push(VarInfo { name: intercept::mapname(&raw).to_owned(), map_type });
        self.index.insert(p as usize, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_type_words() {
        // The bits clang 19 emits: to 0x1, from 0x2, delete 0x8, implicit 0x200, with
        // TARGET_PARAM (0x20) on a kernel's arguments.
        assert_eq!(MapType(0x21).word(), "to");
        assert_eq!(MapType(0x23).word(), "tofrom");
        assert_eq!(MapType(0x2).word(), "from");
        assert_eq!(MapType(0x8).word(), "delete");
        assert_eq!(MapType(0x20).word(), "alloc");
        assert!(MapType(0x223).implicit() && !MapType(0x23).implicit());
    }
}
