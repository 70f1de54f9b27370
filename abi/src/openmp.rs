//! The OpenMP runtime's entry points that ompadapt's runtime and data-movement tool find by
//! name while a program runs (`dlsym`, or an OMPT tool's lookup function), each written once:
//! here. A name looked up by a misspelt literal would not fail to build: `dlsym` would answer
//! NULL and the feature would quietly be off, so every such name comes from this table
//! (tests/tests/openmp_names.rs keeps `__kmpc_`/`__tgt_`/`omp_`/`ompt_` literals out of the
//! runtime's, the tool's, the OMPT bindings' and the command's sources).
//!
//! The pass has its own table of the entry points it matches in a program's code, with their
//! roles (`pass/src/entry_points.rs`); where it names one of these entry points it spells it
//! through the constant here (pass/tests/entry_point_names.rs checks that every name here of the
//! families it knows is in its table and is not spelt there by a literal).
//!
//! The OMPT names (`ompt_start_tool`, `ompt_set_callback`) are part of the same contract with
//! the OpenMP runtime, only looked up by another mechanism, so they are here too; the pass
//! never sees them (a program does not call them), so its table does not know them.

use std::ffi::CStr;

/// `name` as `&str`, for tables keyed by `&str` (the pass's): every name here is ASCII.
pub const fn as_str(name: &'static CStr) -> &'static str {
    match name.to_str() {
        Ok(s) => s,
        Err(_) => panic!("an OpenMP runtime name is ASCII"),
    }
}

// libomp.

/// `void __kmpc_fork_call(ident_t *, kmp_int32 argc, kmpc_micro, ...)`: the runtime runs one
/// empty parallel region through it when its first region is created, so that libomp's
/// start-up is not timed as part of the first variant measured (`runtime/src/openmp_start.rs`);
/// absent, the program's OpenMP runtime is not libomp and is left alone.
pub const FORK_CALL: &CStr = c"__kmpc_fork_call";

// The OpenMP API.

/// `int omp_get_max_threads(void)`: the team a host parallel region would get, which the
/// `threads=F` variants take a share of (`runtime/src/team.rs`).
pub const GET_MAX_THREADS: &CStr = c"omp_get_max_threads";
/// `int omp_in_parallel(void)`: whether a team-size variant would run nested inside another
/// parallel region (`runtime/src/team.rs`).
pub const IN_PARALLEL: &CStr = c"omp_in_parallel";
/// `void *omp_get_mapped_ptr(const void *, int device)`: the device copy of a mapping the
/// `cpu` variant brings to the host and sends back (`runtime/src/host_run.rs`).
pub const GET_MAPPED_PTR: &CStr = c"omp_get_mapped_ptr";
/// `int omp_target_memcpy(...)`: those copies (`runtime/src/host_run.rs`).
pub const TARGET_MEMCPY: &CStr = c"omp_target_memcpy";
/// `int omp_get_default_device(void)`: the device a launch with device -1 runs on
/// (`runtime/src/host_run.rs`).
pub const GET_DEFAULT_DEVICE: &CStr = c"omp_get_default_device";
/// `int omp_get_initial_device(void)`: the host's device number, the other side of those
/// copies (`runtime/src/host_run.rs`).
pub const GET_INITIAL_DEVICE: &CStr = c"omp_get_initial_device";

// libomptarget: the entry points clang 19 calls for data mapping and kernel launches.

/// `__tgt_target_kernel(loc, device, teams, threads, host_ptr, KernelArgsTy *)`: a kernel
/// launch. The runtime looks it up only to know whether libomptarget is in the process (the
/// program was built to offload: `runtime/src/offload_build.rs`); the data-movement tool
/// intercepts it to learn the launch's map entries (`dataperf/src/intercept.rs`), as it does the
/// other entry points below.
pub const TARGET_KERNEL: &CStr = c"__tgt_target_kernel";
/// `__tgt_target_kernel_nowait`: a launch with `nowait`.
pub const TARGET_KERNEL_NOWAIT: &CStr = c"__tgt_target_kernel_nowait";
/// `__tgt_target_data_begin_mapper(loc, device, n, base, args, sizes, types, names, mappers)`:
/// `target data` / `target enter data`.
pub const TARGET_DATA_BEGIN_MAPPER: &CStr = c"__tgt_target_data_begin_mapper";
/// `__tgt_target_data_end_mapper`: the end of `target data` / `target exit data`.
pub const TARGET_DATA_END_MAPPER: &CStr = c"__tgt_target_data_end_mapper";
/// `__tgt_target_data_update_mapper`: `target update`.
pub const TARGET_DATA_UPDATE_MAPPER: &CStr = c"__tgt_target_data_update_mapper";
/// `__tgt_target_data_begin_nowait_mapper`: `target enter data nowait`.
pub const TARGET_DATA_BEGIN_NOWAIT_MAPPER: &CStr = c"__tgt_target_data_begin_nowait_mapper";
/// `__tgt_target_data_end_nowait_mapper`: `target exit data nowait`.
pub const TARGET_DATA_END_NOWAIT_MAPPER: &CStr = c"__tgt_target_data_end_nowait_mapper";
/// `__tgt_target_data_update_nowait_mapper`: `target update nowait`.
pub const TARGET_DATA_UPDATE_NOWAIT_MAPPER: &CStr = c"__tgt_target_data_update_nowait_mapper";

// OMPT (OpenMP 5.1, chapter 19).

/// `ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *)`: how libomp
/// starts a tool. The data-movement tool defines it; the runtime's tool looks it up in each
/// library of `OMP_TOOL_LIBRARIES` to start another tool beside itself
/// (`runtime/src/ompt_tool.rs`), as libomp would have.
pub const START_TOOL: &CStr = c"ompt_start_tool";
/// `ompt_set_callback`: found through the lookup function libomp passes a tool's `initialize`,
/// by the runtime's tool and the data-movement tool to register their callbacks; the runtime
/// answers it itself in the lookup function it gives the tool beside it, to share the
/// data-operation callback.
pub const SET_CALLBACK: &CStr = c"ompt_set_callback";

/// Every name above.
pub const ALL: [&CStr; 17] = [
    FORK_CALL,
    GET_MAX_THREADS,
    IN_PARALLEL,
    GET_MAPPED_PTR,
    TARGET_MEMCPY,
    GET_DEFAULT_DEVICE,
    GET_INITIAL_DEVICE,
    TARGET_KERNEL,
    TARGET_KERNEL_NOWAIT,
    TARGET_DATA_BEGIN_MAPPER,
    TARGET_DATA_END_MAPPER,
    TARGET_DATA_UPDATE_MAPPER,
    TARGET_DATA_BEGIN_NOWAIT_MAPPER,
    TARGET_DATA_END_NOWAIT_MAPPER,
    TARGET_DATA_UPDATE_NOWAIT_MAPPER,
    START_TOOL,
    SET_CALLBACK,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_c_identifiers_of_a_runtime_family() {
        let mut seen = std::collections::HashSet::new();
        for n in ALL {
            let s = as_str(n);
            assert!(seen.insert(s), "{s} twice");
            assert!(["__kmpc_", "__tgt_", "omp_", "ompt_"].iter().any(|p| s.starts_with(p)), "{s}");
            assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'), "{s}");
        }
    }
}
