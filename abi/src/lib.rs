//! The contract between the programs of ompadapt: what the Clang plugin and the LLVM pass
//! write into a program and what the runtime linked into it reads.
//!
//! Every piece of that contract has one definition here, used by all sides, so that a field
//! added to the region descriptor or a limit changed is one edit that every writer and reader
//! sees (in the spirit of a small interface crate such as ripgrep's `grep-matcher`, and of
//! LLVM's `OMPKinds.def`, one list shared by Clang and OpenMPOpt):
//!
//! * [`RegionDescriptor`]: the one-line text a region's call sites pass to the runtime
//!   (`ompadapt1;model=…;variants=…`), with its only encoder (`Display`) and its only parser
//!   (`FromStr` / [`RegionDescriptor::parse`]);
//! * [`loop_names`]: how the frontend names a `features(auto)` region's loops for the pass
//!   (`i,j;k`);
//! * [`markers`]: the names of the marker functions the frontend's lowering calls and the pass
//!   replaces, each with what it means;
//! * [`kinds`]: the variant kinds (`cpu`, `threads=0.25`, ...), their names, lists and the team-size
//!   formula;
//! * [`limits`]: the most features and variants a region may have (the C header's
//!   `OMPADAPT_MAX_FEATURES` is checked against it by the runtime's tests);
//! * [`store`]: how the store on disk names programs and regions, and `PROGRAM/REGION`;
//! * [`openmp`]: the OpenMP runtime's entry points (libomp, libomptarget, the OpenMP API, OMPT)
//!   that the runtime and the data-movement tool find by name while a program runs;
//! * [`summary`]: what the pass found in each function a translation unit defines, in an ELF
//!   note, and the `depends=` field of a region whose verdict waits for them;
//! * [`dataperf::Counters`]: the per-thread counters the data-movement tool shares with the
//!   runtime (`ompadapt_dataperf_counters` in C).
//!
//! The crate depends only on `strsim` (for [`names::closest`]): the plugin (a Clang plugin), the pass (an LLVM pass plugin)
//! and the runtime (linked into every adaptive program) all link it.
#![deny(missing_docs)]

pub mod dataperf;
pub mod decisions;
pub mod descriptor;
pub mod escape;
pub mod kinds;
pub mod limits;
pub mod loop_names;
pub mod markers;
pub mod names;
pub mod openmp;
pub mod store;
pub mod summary;

pub use descriptor::{Association, DescriptorError, ModelType, Parsed, RegionDescriptor, FORMAT};
pub use limits::{MAX_FEATURES, MAX_VARIANTS};
pub use loop_names::LoopNames;
