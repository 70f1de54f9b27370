//! The OpenMP runtime entry points the pass knows, with the role each plays — one table, the way
//! LLVM's `OMPKinds.def` serves `OpenMPOpt`: libomp's `__kmpc_*` (what clang and flang lower
//! constructs to), libomptarget's `__tgt_*`, and the OpenMP API's `omp_*` (C names; a Fortran
//! binding's trailing underscore is ignored).
//!
//! The team-size analysis ([`crate::team`]) reads a role as what a call can reveal or change:
//! whether it answers with the thread's number or the team's size, where a worksharing
//! construct divides work among the team, which function pointer argument runs code (a
//! parallel region's microtask, a task's entry, a reduction's combiner). A name of these
//! families that is not in the table is an entry point the pass does not know, and the analysis
//! treats it as code it cannot see.

/// What a call of an entry point does, as far as the team of the enclosing parallel region is
/// concerned. Argument indices count from 0, without the callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Answers with something the team changes: the thread's number, the team's size, whether
    /// the region is active, the thread's place, the run-time schedule (which the schedule
    /// variants set).
    TeamQuery,
    /// Its result and effect are the same whatever the team: ICVs the team does not set, the
    /// clock, devices, locks, allocation, synchronisation, task and offload bookkeeping,
    /// `ordered` (iterations run in order with any team).
    Neutral,
    /// Neutral, but it writes memory through its arguments: run by every thread of a team, it
    /// writes once per thread.
    NeutralWrites,
    /// Thread-private storage (`threadprivate` without thread-local storage).
    Threadprivate,
    /// Start of a loop with a static schedule (also `sections`): its iterations are divided
    /// among the team until the matching [`Role::StaticLoopEnd`]; argument `last` points at the
    /// flag that says whether the thread ran the last iteration.
    StaticLoopStart { last: u32 },
    /// End of a loop with a static schedule.
    StaticLoopEnd,
    /// Start of a dynamically scheduled loop.
    DispatchStart,
    /// The next chunk of a dynamically scheduled loop: non-zero while the thread got iterations;
    /// argument `last` as for [`Role::StaticLoopStart`].
    DispatchNext { last: u32 },
    /// Returns non-zero in one thread of the team (`single`, `master`, `masked`).
    OneThread,
    /// Combines the threads' partial results of a reduction: returns 1 (combine under a lock)
    /// or 2 (atomically) in the threads that must add theirs; argument `list` points at the
    /// pointers to the private copies, `combiner` is the reduction function.
    Reduce { list: u32, combiner: u32 },
    /// Starts a parallel region (or a league of host teams) that runs `microtask` in every thread.
    Fork { microtask: u32 },
    /// Creates a task (or a deferred target task) whose code is `entry`.
    TaskAlloc { entry: u32 },
    /// Broadcasts the values of a `single` to the private copies of every thread of the team
    /// through `copier`.
    Copyprivate { copier: u32 },
}

/// One entry point: its name (or, ending in `*`, the prefix of a family) and role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    pub name: &'static str,
    pub role: Role,
}

const fn ep(name: &'static str, role: Role) -> EntryPoint {
    EntryPoint { name, role }
}

use Role::*;

/// The prefixes of the OpenMP runtime's families of names.
pub const FAMILIES: [&str; 3] = [name::prefix::KMPC, name::prefix::TGT, name::prefix::OMP];
/// The entry points the pass calls or matches by name, each written once: here and, through
/// these constants, in [`ENTRY_POINTS`] (a test keeps other files free of such literals). Those
/// the runtime also looks up at run time come from `ompadapt_abi::openmp` (here and in [`shared`]).
pub mod name {
    use ompadapt_abi::openmp::{self, as_str};

    pub const FORK_CALL: &str = as_str(openmp::FORK_CALL);
    pub const FORK_TEAMS: &str = "__kmpc_fork_teams";
    /// flang's fork with an `if` clause: `__kmpc_fork_call_if(loc, argc, microtask, cond, args)`.
    pub const FORK_CALL_IF: &str = "__kmpc_fork_call_if";
    /// The thread's number: a thread-0 guard compares it with 0.
    pub const GET_THREAD_NUM: &str = "omp_get_thread_num";
    pub const GLOBAL_THREAD_NUM: &str = "__kmpc_global_thread_num";
    pub const PUSH_NUM_THREADS: &str = "__kmpc_push_num_threads";
    pub const SERIALIZED_PARALLEL: &str = "__kmpc_serialized_parallel";
    pub const END_SERIALIZED_PARALLEL: &str = "__kmpc_end_serialized_parallel";
    pub const OMP_TASK_ALLOC: &str = "__kmpc_omp_task_alloc";
    pub const OMP_TARGET_TASK_ALLOC: &str = "__kmpc_omp_target_task_alloc";
    pub const TARGET_KERNEL: &str = as_str(openmp::TARGET_KERNEL);
    pub const GET_MAX_THREADS: &str = as_str(openmp::GET_MAX_THREADS);
    pub const IS_INITIAL_DEVICE: &str = "omp_is_initial_device";
    pub const GET_DEVICE_NUM: &str = "omp_get_device_num";
    pub const GET_NUM_TEAMS: &str = "omp_get_num_teams";
    pub const GET_TEAM_NUM: &str = "omp_get_team_num";
    pub const GET_THREAD_LIMIT: &str = "omp_get_thread_limit";
    pub const GET_NUM_PROCS: &str = "omp_get_num_procs";
    /// `__kmpc_masked(loc, gtid, filter)`: the block runs on the thread numbered `filter`.
    pub const MASKED: &str = "__kmpc_masked";
    /// `flush`: in a loop, a thread polling what another writes.
    pub const FLUSH: &str = "__kmpc_flush";
    /// Polling a lock in a loop: a thread waiting for another.
    pub const TEST_LOCK: &str = "omp_test_lock";
    pub const TEST_NEST_LOCK: &str = "omp_test_nest_lock";
    /// Name prefixes: a runtime family, or a group of entry points (their integer widths).
    pub mod prefix {
        pub const KMPC: &str = "__kmpc_";
        pub const TGT: &str = "__tgt_";
        pub const OMP: &str = "omp_";
        pub const OMP_GET: &str = "omp_get_";
        pub const OMP_IS: &str = "omp_is_";
        pub const FORK: &str = "__kmpc_fork";
        pub const DISPATCH_NEXT: &str = "__kmpc_dispatch_next";
        pub const FOR_STATIC_INIT: &str = "__kmpc_for_static_init_";
        pub const DISTRIBUTE_STATIC_INIT: &str = "__kmpc_distribute_static_init_";
        pub const DIST_FOR_STATIC_INIT: &str = "__kmpc_dist_for_static_init_";
        pub const DISPATCH_INIT: &str = "__kmpc_dispatch_init_";
    }
    /// Entries of [`super::ENTRY_POINTS`] the pass matches only through the table, which the
    /// runtime also looks up at run time: spelt by `ompadapt_abi::openmp`.
    pub mod shared {
        use ompadapt_abi::openmp::{self, as_str};

        pub const IN_PARALLEL: &str = as_str(openmp::IN_PARALLEL);
        pub const GET_MAPPED_PTR: &str = as_str(openmp::GET_MAPPED_PTR);
        pub const TARGET_MEMCPY: &str = as_str(openmp::TARGET_MEMCPY);
        pub const GET_DEFAULT_DEVICE: &str = as_str(openmp::GET_DEFAULT_DEVICE);
        pub const GET_INITIAL_DEVICE: &str = as_str(openmp::GET_INITIAL_DEVICE);
    }
    /// The section libomptarget's offload entries are in (`__start_`/`__stop_` symbols).
    pub const ENTRIES_SECTION: &str = "omp_offloading_entries";
}

/// Every entry point the pass knows.
pub const ENTRY_POINTS: &[EntryPoint] = &[
    // libomp: what clang and flang lower host constructs to.
    ep(name::FORK_CALL, Fork { microtask: 2 }),
    ep(name::FORK_CALL_IF, Fork { microtask: 2 }),
    ep(name::FORK_TEAMS, Fork { microtask: 2 }),
    ep(name::GLOBAL_THREAD_NUM, Neutral),
    ep(name::PUSH_NUM_THREADS, Neutral),
    ep("__kmpc_push_proc_bind", Neutral),
    ep("__kmpc_push_num_teams", Neutral),
    ep("__kmpc_push_num_teams_51", Neutral),
    ep(name::SERIALIZED_PARALLEL, Neutral),
    ep(name::END_SERIALIZED_PARALLEL, Neutral),
    ep("__kmpc_for_static_init_4", StaticLoopStart { last: 3 }),
    ep("__kmpc_for_static_init_4u", StaticLoopStart { last: 3 }),
    ep("__kmpc_for_static_init_8", StaticLoopStart { last: 3 }),
    ep("__kmpc_for_static_init_8u", StaticLoopStart { last: 3 }),
    ep("__kmpc_distribute_static_init_4", StaticLoopStart { last: 3 }),
    ep("__kmpc_distribute_static_init_4u", StaticLoopStart { last: 3 }),
    ep("__kmpc_distribute_static_init_8", StaticLoopStart { last: 3 }),
    ep("__kmpc_distribute_static_init_8u", StaticLoopStart { last: 3 }),
    ep("__kmpc_dist_for_static_init_4", StaticLoopStart { last: 3 }),
    ep("__kmpc_dist_for_static_init_4u", StaticLoopStart { last: 3 }),
    ep("__kmpc_dist_for_static_init_8", StaticLoopStart { last: 3 }),
    ep("__kmpc_dist_for_static_init_8u", StaticLoopStart { last: 3 }),
    ep("__kmpc_for_static_fini", StaticLoopEnd),
    ep("__kmpc_distribute_static_fini", StaticLoopEnd),
    ep("__kmpc_dispatch_init_4", DispatchStart),
    ep("__kmpc_dispatch_init_4u", DispatchStart),
    ep("__kmpc_dispatch_init_8", DispatchStart),
    ep("__kmpc_dispatch_init_8u", DispatchStart),
    ep("__kmpc_dist_dispatch_init_4", DispatchStart),
    ep("__kmpc_dist_dispatch_init_4u", DispatchStart),
    ep("__kmpc_dist_dispatch_init_8", DispatchStart),
    ep("__kmpc_dist_dispatch_init_8u", DispatchStart),
    ep("__kmpc_dispatch_next_4", DispatchNext { last: 2 }),
    ep("__kmpc_dispatch_next_4u", DispatchNext { last: 2 }),
    ep("__kmpc_dispatch_next_8", DispatchNext { last: 2 }),
    ep("__kmpc_dispatch_next_8u", DispatchNext { last: 2 }),
    ep("__kmpc_dispatch_fini_4", Neutral),
    ep("__kmpc_dispatch_fini_4u", Neutral),
    ep("__kmpc_dispatch_fini_8", Neutral),
    ep("__kmpc_dispatch_fini_8u", Neutral),
    ep("__kmpc_dispatch_deinit", Neutral),
    ep("__kmpc_single", OneThread),
    ep("__kmpc_end_single", Neutral),
    ep("__kmpc_master", OneThread),
    ep("__kmpc_end_master", Neutral),
    ep(name::MASKED, OneThread),
    ep("__kmpc_end_masked", Neutral),
    ep("__kmpc_reduce", Reduce { list: 4, combiner: 5 }),
    ep("__kmpc_reduce_nowait", Reduce { list: 4, combiner: 5 }),
    ep("__kmpc_end_reduce", Neutral),
    ep("__kmpc_end_reduce_nowait", Neutral),
    ep("__kmpc_copyprivate", Copyprivate { copier: 4 }),
    ep("__kmpc_barrier", Neutral),
    ep("__kmpc_cancel_barrier", Neutral),
    ep(name::FLUSH, Neutral),
    ep("__kmpc_critical", Neutral),
    ep("__kmpc_critical_with_hint", Neutral),
    ep("__kmpc_end_critical", Neutral),
    ep("__kmpc_ordered", Neutral),
    ep("__kmpc_end_ordered", Neutral),
    ep("__kmpc_doacross_init", Neutral),
    ep("__kmpc_doacross_post", Neutral),
    ep("__kmpc_doacross_wait", Neutral),
    ep("__kmpc_doacross_fini", Neutral),
    ep("__kmpc_scope", Neutral),
    ep("__kmpc_end_scope", Neutral),
    ep("__kmpc_cancel", Neutral),
    ep("__kmpc_cancellationpoint", Neutral),
    ep("__kmpc_error", Neutral),
    ep(name::OMP_TASK_ALLOC, TaskAlloc { entry: 5 }),
    ep(name::OMP_TARGET_TASK_ALLOC, TaskAlloc { entry: 5 }),
    ep("__kmpc_omp_task", Neutral),
    ep("__kmpc_omp_task_with_deps", Neutral),
    ep("__kmpc_omp_wait_deps", Neutral),
    ep("__kmpc_omp_taskwait", Neutral),
    ep("__kmpc_omp_taskwait_51", Neutral),
    ep("__kmpc_omp_taskwait_deps_51", Neutral),
    ep("__kmpc_omp_taskyield", Neutral),
    ep("__kmpc_omp_task_begin_if0", Neutral),
    ep("__kmpc_omp_task_complete_if0", Neutral),
    ep("__kmpc_omp_reg_task_with_affinity", Neutral),
    ep("__kmpc_omp_get_target_async_handle_ptr", Neutral),
    ep("__kmpc_omp_has_task_team", Neutral),
    ep("__kmpc_taskgroup", Neutral),
    ep("__kmpc_end_taskgroup", Neutral),
    ep("__kmpc_taskloop", Neutral),
    ep("__kmpc_taskloop_5", Neutral),
    ep("__kmpc_task_reduction_init", Neutral),
    ep("__kmpc_taskred_init", Neutral),
    ep("__kmpc_task_reduction_modifier_init", Neutral),
    ep("__kmpc_taskred_modifier_init", Neutral),
    ep("__kmpc_task_reduction_modifier_fini", Neutral),
    ep("__kmpc_task_reduction_get_th_data", Neutral),
    ep("__kmpc_alloc", Neutral),
    ep("__kmpc_aligned_alloc", Neutral),
    ep("__kmpc_free", Neutral),
    ep("__kmpc_init_allocator", Neutral),
    ep("__kmpc_destroy_allocator", Neutral),
    ep("__kmpc_push_target_tripcount_mapper", Neutral),
    ep("__kmpc_begin", Neutral),
    ep("__kmpc_end", Neutral),
    // Atomic operations on types the hardware has no instruction for: one update per call.
    ep("__kmpc_atomic_*", Neutral),
    ep("__kmpc_threadprivate_cached", Threadprivate),
    ep("__kmpc_threadprivate_register", Threadprivate),
    ep("__kmpc_threadprivate_register_vec", Threadprivate),
    ep("__kmpc_threadprivate", Threadprivate),
    ep("__kmpc_bound_thread_num", TeamQuery),
    ep("__kmpc_bound_num_threads", TeamQuery),
    ep("__kmpc_in_parallel", TeamQuery),
    // libomptarget: data mapping and kernel launches, whose host fallback is a direct call.
    ep("__tgt_*", Neutral),
    // The OpenMP API: what asks for the team.
    ep(name::GET_THREAD_NUM, TeamQuery),
    ep("omp_get_num_threads", TeamQuery),
    ep("omp_get_team_size", TeamQuery),
    ep("omp_get_ancestor_thread_num", TeamQuery),
    ep("omp_get_active_level", TeamQuery),
    ep(name::shared::IN_PARALLEL, TeamQuery),
    ep("omp_get_place_num", TeamQuery),
    ep("omp_get_partition_num_places", TeamQuery),
    ep("omp_get_partition_place_nums", TeamQuery),
    ep("omp_display_affinity", TeamQuery),
    ep("omp_capture_affinity", TeamQuery),
    ep("omp_get_schedule", TeamQuery),
    // The OpenMP API: what the team does not change.
    ep(name::GET_MAX_THREADS, Neutral),
    ep(name::GET_NUM_PROCS, Neutral),
    ep("omp_get_wtime", Neutral),
    ep("omp_get_wtick", Neutral),
    ep("omp_get_level", Neutral),
    ep("omp_get_dynamic", Neutral),
    ep("omp_get_nested", Neutral),
    ep("omp_get_max_active_levels", Neutral),
    ep("omp_get_supported_active_levels", Neutral),
    ep(name::GET_THREAD_LIMIT, Neutral),
    ep("omp_in_final", Neutral),
    ep("omp_get_cancellation", Neutral),
    ep("omp_get_proc_bind", Neutral),
    ep("omp_get_num_places", Neutral),
    ep("omp_get_place_num_procs", Neutral),
    ep("omp_get_place_proc_ids", Neutral),
    ep("omp_get_affinity_format", Neutral),
    ep("omp_set_affinity_format", Neutral),
    ep(name::shared::GET_DEFAULT_DEVICE, Neutral),
    ep("omp_set_default_device", Neutral),
    ep("omp_get_num_devices", Neutral),
    ep(name::shared::GET_INITIAL_DEVICE, Neutral),
    ep(name::IS_INITIAL_DEVICE, Neutral),
    ep(name::GET_DEVICE_NUM, Neutral),
    ep("omp_get_max_task_priority", Neutral),
    ep(name::GET_NUM_TEAMS, Neutral),
    ep(name::GET_TEAM_NUM, Neutral),
    ep("omp_get_max_teams", Neutral),
    ep("omp_get_teams_thread_limit", Neutral),
    ep("omp_set_num_teams", Neutral),
    ep("omp_set_teams_thread_limit", Neutral),
    ep("omp_set_num_threads", Neutral),
    ep("omp_set_dynamic", Neutral),
    ep("omp_set_nested", Neutral),
    ep("omp_set_schedule", Neutral),
    ep("omp_set_max_active_levels", Neutral),
    ep("omp_display_env", Neutral),
    ep("omp_init_lock", Neutral),
    ep("omp_init_lock_with_hint", Neutral),
    ep("omp_destroy_lock", Neutral),
    ep("omp_set_lock", Neutral),
    ep("omp_unset_lock", Neutral),
    ep(name::TEST_LOCK, Neutral),
    ep("omp_init_nest_lock", Neutral),
    ep("omp_init_nest_lock_with_hint", Neutral),
    ep("omp_destroy_nest_lock", Neutral),
    ep("omp_set_nest_lock", Neutral),
    ep("omp_unset_nest_lock", Neutral),
    ep(name::TEST_NEST_LOCK, Neutral),
    ep("omp_alloc", Neutral),
    ep("omp_aligned_alloc", Neutral),
    ep("omp_calloc", Neutral),
    ep("omp_aligned_calloc", Neutral),
    ep("omp_realloc", Neutral),
    ep("omp_free", Neutral),
    ep("omp_init_allocator", Neutral),
    ep("omp_destroy_allocator", Neutral),
    ep("omp_set_default_allocator", Neutral),
    ep("omp_get_default_allocator", Neutral),
    ep("omp_target_alloc", Neutral),
    ep("omp_target_free", Neutral),
    ep("omp_target_is_present", Neutral),
    ep("omp_target_is_accessible", Neutral),
    ep(name::shared::GET_MAPPED_PTR, Neutral),
    ep("omp_target_associate_ptr", Neutral),
    ep("omp_target_disassociate_ptr", Neutral),
    ep(name::shared::TARGET_MEMCPY, NeutralWrites),
    ep("omp_target_memcpy_rect", NeutralWrites),
    ep("omp_target_memcpy_async", NeutralWrites),
    ep("omp_target_memcpy_rect_async", NeutralWrites),
    ep("omp_target_memset", NeutralWrites),
    ep("omp_target_memset_async", NeutralWrites),
    ep("omp_fulfill_event", Neutral),
    ep("omp_pause_resource", Neutral),
    ep("omp_pause_resource_all", Neutral),
    ep("omp_control_tool", Neutral),
];

/// Whether `name` is of one of the runtime's families (known or not).
pub fn in_family(name: &str) -> bool {
    FAMILIES.iter().any(|f| name.starts_with(f))
}

/// The entry point `name` calls, if the pass knows it: exact names first, then families
/// (`__kmpc_atomic_*`); an `omp_*` name with a Fortran binding's trailing underscore is its C
/// name.
pub fn lookup(name: &str) -> Option<&'static EntryPoint> {
    let c_name = match name.strip_suffix('_') {
        Some(stem) if name.starts_with(self::name::prefix::OMP) => stem,
        _ => name,
    };
    // Every entry is of a family (a test checks), so a name of none is no entry: most names the
    // team analysis asks about are the program's (two scans of the table each cost LULESH's
    // compilation ~70 M instructions).
    if !in_family(c_name) {
        return None;
    }
    static EXACT: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static EntryPoint>> = std::sync::OnceLock::new();
    let exact = EXACT.get_or_init(|| ENTRY_POINTS.iter().map(|e| (e.name, e)).collect());
    exact
        .get(c_name)
        .copied()
        .or_else(|| ENTRY_POINTS.iter().find(|e| e.name.strip_suffix('*').is_some_and(|prefix| c_name.starts_with(prefix))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_in_a_family() {
        let mut seen = std::collections::HashSet::new();
        for e in ENTRY_POINTS {
            assert!(seen.insert(e.name), "{} twice", e.name);
            assert!(in_family(e.name), "{} is not of a runtime family", e.name);
        }
    }

    #[test]
    fn lookup_finds_names_families_and_fortran_bindings() {
        assert_eq!(lookup("omp_get_thread_num").unwrap().role, TeamQuery);
        assert_eq!(lookup("omp_get_thread_num_").unwrap().role, TeamQuery);
        assert_eq!(lookup("omp_get_max_threads_").unwrap().role, Neutral);
        assert_eq!(lookup("__kmpc_atomic_float8_add").unwrap().role, Neutral);
        assert_eq!(lookup("__tgt_target_data_begin_mapper").unwrap().role, Neutral);
        assert_eq!(lookup("__kmpc_fork_call").unwrap().role, Fork { microtask: 2 });
        assert!(lookup("__kmpc_something_new").is_none());
        assert!(lookup("omp_get_thread_numx").is_none());
        assert!(lookup("printf").is_none());
    }
}
