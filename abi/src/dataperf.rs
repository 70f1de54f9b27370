//! What the data-movement tool (`libompadapt_dataperf.so`, an OMPT tool) shares with the
//! runtime: per-thread counters the tool adds to and the runtime reads around each execution.

/// `ompadapt_dataperf_counters` (`dataperf/include/ompadapt_dataperf.h`): one per thread.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Bytes copied host to device.
    pub to_device_bytes: u64,
    /// Bytes copied device to host.
    pub from_device_bytes: u64,
    /// Time in transfers (both directions), ns.
    pub transfer_ns: u64,
    /// Transfers (both directions).
    pub transfers: u64,
    /// Bytes allocated on devices.
    pub alloc_bytes: u64,
    /// Device allocations.
    pub allocs: u64,
    /// Written by the adaptive runtime: the region this thread is executing (an id from
    /// `ompadapt_dataperf_region_id`), 0 outside regions.
    pub region: u32,
    /// Padding; zero.
    pub reserved: u32,
}

/// The file name of the tool library (the runtime finds it among the loaded objects).
pub const TOOL_LIBRARY: &str = "libompadapt_dataperf.so";

/// The tool's exported functions the runtime looks up at run time (`dlsym`): the runtime does
/// not link the tool, which a program loads only when asked to. The tool's unit tests check that
/// its `#[no_mangle]` functions carry exactly these names.
pub mod symbols {
    use std::ffi::CStr;

    /// `Counters *ompadapt_dataperf_thread_counters(void)`: the calling thread's counters, NULL
    /// when the tool is not active.
    pub const THREAD_COUNTERS: &CStr = c"ompadapt_dataperf_thread_counters";
    /// `uint32_t ompadapt_dataperf_region_id(const char *name)`: the id the report names a region by.
    pub const REGION_ID: &CStr = c"ompadapt_dataperf_region_id";
    /// `void ompadapt_dataperf_runtime_copies(int on)`: the runtime's own copies start (1) or end (0).
    pub const RUNTIME_COPIES: &CStr = c"ompadapt_dataperf_runtime_copies";
}
