//! The pass's optimisation remarks: what it did (passed), what it could not do and why
//! (missed), and what it found (analysis), as LLVM remarks of the pass `ompadapt`, so that
//! `clang -Rpass=ompadapt` / `-Rpass-missed=ompadapt` / `-Rpass-analysis=ompadapt` print them at
//! the source location, `-fsave-optimization-record` records them, and `opt -pass-remarks=…`
//! shows them. Each has a stable identifier, its remark name, also at the start of its text
//! (`[OMPADAPT100] region 'm': …`); docs/remarks.md says what each means and what to do.
//! Emitted by shim/remarks.cpp (LLVM's C API has no remarks).
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::{c_char, c_int, CString};

use llvm_sys::core::{LLVMGetBasicBlockParent, LLVMGetInstructionParent};
use llvm_sys::debuginfo::LLVMInstructionGetDebugLoc;
use llvm_sys::prelude::{LLVMMetadataRef, LLVMValueRef};

extern "C" {
    fn ompadapt_scope_file(scope: LLVMMetadataRef, file: *mut c_char, size: u32) -> bool;
    fn ompadapt_emit_remark(function: LLVMValueRef, location: LLVMMetadataRef, kind: c_int, id: *const c_char, message: *const c_char);
}

/// LLVM's three kinds of optimisation remark (the values shim/remarks.cpp expects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemarkKind {
    /// `OptimizationRemark`: a transformation done (`-Rpass`).
    Passed = 0,
    /// `OptimizationRemarkMissed`: one not done (`-Rpass-missed`).
    Missed = 1,
    /// `OptimizationRemarkAnalysis`: what the pass found (`-Rpass-analysis`).
    Analysis = 2,
}

/// Defines [`RemarkId`] from one list: variant, stable identifier, kind.
macro_rules! remark_ids {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $kind:ident;)*) => {
        /// Every remark the pass emits, each with a stable identifier (docs/remarks.md).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RemarkId {
            $($(#[doc = $doc])* $variant,)*
        }

        impl RemarkId {
            /// All of them, in identifier order.
            pub const ALL: &'static [RemarkId] = &[$(RemarkId::$variant),*];

            /// The stable identifier, `OMPADAPT<number>`: the remark's name in LLVM's terms.
            pub fn code(self) -> &'static str {
                match self {
                    $(RemarkId::$variant => $code,)*
                }
            }

            /// What the remark says happened, in one line (its documentation here), for
            /// the statistic counting it.
            pub fn summary(self) -> &'static str {
                match self {
                    $(RemarkId::$variant => concat!($($doc),*).trim_ascii_start(),)*
                }
            }

            pub fn kind(self) -> RemarkKind {
                match self {
                    $(RemarkId::$variant => RemarkKind::$kind,)*
                }
            }
        }
    };
}

remark_ids! {
    /// The offload launch after a launch-site marker became a dispatch.
    LaunchDispatched = "OMPADAPT100", Passed;
    /// The host path of a dispatch runs the host version between the runtime's copies.
    HostGuardPlaced = "OMPADAPT101", Passed;
    /// A region's host guard could not be placed: the cpu variant will be reported unavailable.
    HostGuardNotPlaced = "OMPADAPT102", Missed;
    /// No offload launch follows a marker.
    NoLaunch = "OMPADAPT110", Missed;
    /// The module has no offload launch at all (no `-fopenmp-targets`).
    NoOffloadInModule = "OMPADAPT111", Missed;
    /// The target construct is deferred (`nowait`/`depend`).
    DeferredTarget = "OMPADAPT112", Missed;
    /// The launch can be reached without passing the marker.
    NotDominated = "OMPADAPT113", Missed;
    /// The launch's result is unused.
    UnusedLaunchResult = "OMPADAPT114", Missed;
    /// A `features(auto)` marker became the region's automatic features (their names).
    AutoFeatures = "OMPADAPT120", Passed;
    /// The static features counted over the region's code (their values).
    StaticFeatures = "OMPADAPT121", Analysis;
    /// No OpenMP launch follows a `features(auto)` marker.
    NoRegionLaunch = "OMPADAPT130", Missed;
    /// The capacity of the feature array is not a constant.
    CapacityNotConstant = "OMPADAPT131", Missed;
    /// The region's descriptor is not a constant string at the marker.
    DescriptorNotConstant = "OMPADAPT132", Missed;
    /// A worksharing loop's trip count cannot be computed at the marker.
    NoTripCount = "OMPADAPT133", Missed;
    /// The bytes the launch maps cannot be computed at the marker.
    NoBytesMapped = "OMPADAPT134", Missed;
    /// More automatic features than the feature array holds.
    FeaturesDropped = "OMPADAPT135", Missed;
    /// A host region of zero-source-change mode cannot observe its team: its variants apply.
    TeamInvariant = "OMPADAPT140", Passed;
    /// Left as written: its code asks for the team.
    TeamQuery = "OMPADAPT141", Missed;
    /// Left as written: thread-local data (in it, or in a parallel region of the module).
    TeamThreadLocal = "OMPADAPT142", Missed;
    /// Left as written: it calls code the compiler cannot see.
    TeamOpaqueCall = "OMPADAPT143", Missed;
    /// Left as written: it calls through a pointer.
    TeamIndirectCall = "OMPADAPT144", Missed;
    /// Left as written: every thread of the team has an effect outside worksharing.
    TeamReplicatedEffect = "OMPADAPT145", Missed;
    /// Left as written: a reduction's private copy is updated outside worksharing.
    TeamReductionCopy = "OMPADAPT146", Missed;
    /// Left as written: no parallel region follows the marker.
    TeamNoRegion = "OMPADAPT147", Missed;
    /// Left as written: a thread waits in a loop for what another thread writes.
    TeamWaits = "OMPADAPT148", Missed;
    /// Left as written: a private copy carries a value from one iteration to the next.
    TeamCarriedCopy = "OMPADAPT149", Missed;
    /// Pass-only mode: a host parallel region became adaptive (its variants).
    HostRegionAdaptive = "OMPADAPT150", Passed;
    /// Pass-only mode: a region without a debug location, named by its order.
    RegionNamedByOrder = "OMPADAPT151", Analysis;
    /// Pass-only mode: kinds of the list that no region of the module takes.
    AutoKindsUnused = "OMPADAPT152", Analysis;
    /// Pass-only mode: a parallel construct nested in another one is left as written.
    NestedRegion = "OMPADAPT153", Missed;
    /// Pass-only mode: an offload launch became an adaptive region (its variants).
    OffloadRegionAdaptive = "OMPADAPT154", Passed;
    /// Pass-only mode: an offload launch is left as written (why).
    LaunchNotAdapted = "OMPADAPT155", Missed;
    /// Pass-only mode: variants dropped for a launch whose kernel could tell them apart.
    LaunchKindsDropped = "OMPADAPT156", Missed;
    /// Left as written: the program is an OMPT tool, told of every region's team and launch.
    ObservedByTool = "OMPADAPT157", Missed;
    /// A region's code calls functions of other translation units: the runtime completes its verdict from their summaries.
    DependsOnOtherUnits = "OMPADAPT158", Analysis;
    /// Left as written: a construct pass-only mode has no variants for (a host teams region; host regions when the kinds have no host kind).
    NoVariantsForConstruct = "OMPADAPT159", Missed;
    /// A parallel or teams construct of an explicit adaptive region: its directive decides.
    ExplicitRegionConstruct = "OMPADAPT160", Analysis;
}

/// One remark about an adaptive region, kept until it is emitted (after the rewrite, which may
/// delete the instruction it is about: its location is kept instead).
#[derive(Clone, Debug)]
pub struct Remark {
    pub id: RemarkId,
    /// The function the remark is about (its code region).
    pub function: LLVMValueRef,
    /// The `DILocation` it is at (null: the function's own location).
    pub location: LLVMMetadataRef,
    /// The region's model name.
    pub model: String,
    /// What happened, after `region '<model>': `.
    pub message: String,
}

/// Where remarks about an instruction go: its function and debug location, which stay valid
/// after the instruction is deleted.
#[derive(Clone, Copy, Debug)]
pub struct RemarkPlace {
    function: LLVMValueRef,
    location: LLVMMetadataRef,
}

impl RemarkPlace {
    pub fn of(instruction: LLVMValueRef) -> RemarkPlace {
        unsafe {
            RemarkPlace {
                function: LLVMGetBasicBlockParent(LLVMGetInstructionParent(instruction)),
                location: LLVMInstructionGetDebugLoc(instruction),
            }
        }
    }

    pub fn remark(self, id: RemarkId, model: &str, message: impl Into<String>) -> Remark {
        Remark { id, function: self.function, location: self.location, model: model.to_owned(), message: message.into() }
    }
}

impl Remark {
    /// A remark at `instruction` (its function, its debug location), which must still be in
    /// the module (see [`RemarkPlace`] otherwise).
    pub fn at(id: RemarkId, instruction: LLVMValueRef, model: &str, message: impl Into<String>) -> Remark {
        RemarkPlace::of(instruction).remark(id, model, message)
    }

    /// `[OMPADAPT1xx] region '<model>': <message>`.
    pub fn text(&self) -> String {
        format!("[{}] region '{}': {}", self.id.code(), self.model, self.message)
    }

    /// `file:line:column` where the remark is (its location, or its function's line where it has
    /// none; column 0: none known), the file as region names spell it (as the compile line did,
    /// relative to the compilation directory where under it); None without debug information.
    pub fn place(&self) -> Option<String> {
        use llvm_sys::debuginfo::*;
        unsafe {
            let (scope, line, column) = if self.location.is_null() {
                let sp = LLVMGetSubprogram(self.function);
                (sp, if sp.is_null() { 0 } else { LLVMDISubprogramGetLine(sp) }, 0)
            } else {
                (LLVMDILocationGetScope(self.location), LLVMDILocationGetLine(self.location), LLVMDILocationGetColumn(self.location))
            };
            if scope.is_null() {
                return None;
            }
            let mut file = [0 as c_char; 1024];
            // SAFETY: a buffer of the size given; the shim writes NUL-terminated text into it.
            let name = if ompadapt_scope_file(scope, file.as_mut_ptr(), file.len() as u32) {
                crate::construct_places::without_dot_slash(&std::ffi::CStr::from_ptr(file.as_ptr()).to_string_lossy()).to_owned()
            } else {
                "?".to_owned()
            };
            Some(format!("{name}:{line}:{column}"))
        }
    }

    /// Hands the remark to LLVM (which drops it unless a consumer asked for remarks of the pass).
    pub fn emit(&self) {
        let id = CString::new(self.id.code()).expect("no NUL in an identifier");
        let text = CString::new(self.text().replace('\0', " ")).expect("NULs replaced");
        unsafe { ompadapt_emit_remark(self.function, self.location, self.id.kind() as c_int, id.as_ptr(), text.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Identifiers are unique, and docs/remarks.md has one section per identifier, in order.
    #[test]
    fn every_identifier_is_documented_once() {
        let doc = include_str!("../../docs/remarks.md");
        let headings: Vec<&str> =
            doc.lines().filter_map(|l| l.strip_prefix("## ")).map(|h| h.split_whitespace().next().unwrap_or("")).collect();
        let codes: Vec<&str> = RemarkId::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(headings, codes, "docs/remarks.md sections vs the identifiers");
        for id in RemarkId::ALL {
            let kind = match id.kind() {
                RemarkKind::Passed => "passed",
                RemarkKind::Missed => "missed",
                RemarkKind::Analysis => "analysis",
            };
            let heading = doc.lines().find(|l| l.starts_with(&format!("## {}", id.code()))).unwrap();
            assert!(heading.contains(&format!("({kind})")), "{heading}: should say ({kind})");
        }
    }
}
