//! Discovery and removal of the launch-site markers the frontend emits.
//!
//! The Clang plugin lowers `#pragma omp adaptation ... variants(cpu, gpu)` into a call of
//! [`LAUNCH_SITE`] placed immediately before the target construct (see the lowering header,
//! plugin/include/ompadapt_lowering.h):
//!
//! ```c
//! static inline void __ompadapt_launch_site(int use_host, int num_teams, int thread_limit,
//!                                           const char *model) {
//!   if (use_host || num_teams || thread_limit)
//!     __ompadapt_api()->unlowered_offload_site(model); /* runtime warns once */
//! }
//! __ompadapt_launch_site(ctx.variant == 0, 0, 0, "model");
//! #pragma omp target teams distribute parallel for ...
//! ```
//!
//! The function's body only matters when this pass did not run; the pass reads the call's
//! operands and deletes the call.

use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue};
pub use ompadapt_abi::markers::{Marker, HOST_ENTER, HOST_EXIT, HOST_GUARD, LAUNCH_SITE};

use crate::cfg;
use crate::ir;
use crate::omp_calls::{called_function, num_call_args};

/// Operands of the launch-site marker: use_host, num_teams, thread_limit, model.
const USE_HOST_ARG: u32 = 0;
const NUM_TEAMS_ARG: u32 = 1;
const THREAD_LIMIT_ARG: u32 = 2;
const MODEL_ARG: u32 = 3;

/// Whether `name` names the launch-site marker function (C name or C++ mangled name).
pub fn is_marker_name(name: &[u8]) -> bool {
    LAUNCH_SITE.names(name)
}

/// Whether `inst` calls (or invokes) the marker.
pub fn is_marker_call(inst: InstructionValue<'_>) -> bool {
    called_function(inst).is_some_and(|f| is_marker_name(f.get_name().to_bytes()))
}

/// One marker call: the point before a target construct whose launch becomes a dispatch.
#[derive(Clone, Copy, Debug)]
pub struct LaunchSite<'ctx> {
    /// The `call` (or `invoke`, in C++ with cleanups) of [`LAUNCH_SITE`].
    pub marker: InstructionValue<'ctx>,
    /// The function containing the marker.
    pub function: FunctionValue<'ctx>,
    /// First operand: non-zero when the `cpu` (host) variant is selected. An integer (`i32`
    /// from C's `int`, possibly `i1`).
    pub use_host: BasicValueEnum<'ctx>,
    /// Launch settings (integers; 0 at run time: as compiled).
    pub num_teams: IntValue<'ctx>,
    pub thread_limit: IntValue<'ctx>,
}

impl<'ctx> LaunchSite<'ctx> {
    /// The model name, read from the marker's last operand (a constant C string), or an empty
    /// string when it is not a constant.
    pub fn model(&self) -> String {
        match self.marker.get_operand(MODEL_ARG).and_then(|op| op.value()) {
            Some(v) => ir::c_string(v.as_value_ref()).unwrap_or_default(),
            None => String::new(),
        }
    }

    /// Name of the function containing the marker.
    pub fn function_name(&self) -> String {
        self.function.get_name().to_string_lossy().into_owned()
    }
}

/// A marker call the pass cannot use (wrong operands).
#[derive(Debug)]
pub struct MalformedMarker {
    pub function: String,
    pub reason: &'static str,
}

/// The marker functions of `module` (normally at most one).
pub fn marker_functions<'ctx>(module: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    module.get_functions().filter(|f| is_marker_name(f.get_name().to_bytes())).collect()
}

/// All marker calls of `module`, in module order (functions, blocks, instructions), and the
/// calls of the marker function that cannot be markers.
pub fn find_launch_sites<'ctx>(module: &Module<'ctx>) -> (Vec<LaunchSite<'ctx>>, Vec<MalformedMarker>) {
    let mut sites = Vec::new();
    let mut malformed = Vec::new();
    if marker_functions(module).is_empty() {
        return (sites, malformed);
    }
    for function in module.get_functions() {
        for block in function.get_basic_blocks() {
            for inst in block.get_instructions() {
                if !is_marker_call(inst) {
                    continue;
                }
                match as_site(inst, function) {
                    Ok(site) => sites.push(site),
                    Err(reason) => malformed.push(MalformedMarker { function: function.get_name().to_string_lossy().into_owned(), reason }),
                }
            }
        }
    }
    (sites, malformed)
}

fn as_site<'ctx>(inst: InstructionValue<'ctx>, function: FunctionValue<'ctx>) -> Result<LaunchSite<'ctx>, &'static str> {
    if num_call_args(inst) < 4 {
        return Err("the launch marker has fewer than four arguments (use_host, num_teams, thread_limit, model)");
    }
    let int_arg = |i: u32| -> Result<IntValue<'ctx>, &'static str> {
        match inst.get_operand(i).and_then(|op| op.value()) {
            Some(v) if v.is_int_value() => Ok(v.into_int_value()),
            _ => Err("a launch setting of the marker is not an integer"),
        }
    };
    let (num_teams, thread_limit) = (int_arg(NUM_TEAMS_ARG)?, int_arg(THREAD_LIMIT_ARG)?);
    if !inst.get_type().is_void_type() && inst.get_first_use().is_some() {
        return Err("the marker call's result is used");
    }
    let use_host = inst.get_operand(USE_HOST_ARG).and_then(|op| op.value()).ok_or("the marker's first argument is not a value")?;
    if !use_host.is_int_value() {
        return Err("the marker's first argument (use_host) is not an integer");
    }
    Ok(LaunchSite { marker: inst, function, use_host, num_teams, thread_limit })
}

/// Where the code after the marker starts: the next instruction for a `call`, the first
/// instruction of the normal destination for an `invoke`.
pub fn first_instruction_after<'ctx>(marker: InstructionValue<'ctx>) -> Option<InstructionValue<'ctx>> {
    if marker.get_opcode() == InstructionOpcode::Invoke {
        cfg::successors(marker.get_parent()?).first()?.get_first_instruction()
    } else {
        marker.get_next_instruction()
    }
}

/// Deletes a marker call. An `invoke` becomes a branch to its normal destination, and its block
/// leaves the phis of the unwind destination.
pub fn remove_marker(site: &LaunchSite<'_>) {
    remove_marker_call(site.marker, site.function);
}

/// Deletes `marker`, a call or invoke in `function` (see [`remove_marker`]).
fn remove_marker_call<'ctx>(marker: InstructionValue<'ctx>, function: FunctionValue<'ctx>) {
    if marker.get_opcode() == InstructionOpcode::Invoke {
        let Some(block) = marker.get_parent() else {
            return;
        };
        let succs = cfg::successors(block);
        let (normal, unwind) = (succs[0], succs[1]);
        let builder = function.get_type().get_context().create_builder();
        builder.position_before(&marker);
        let br = builder.build_unconditional_branch(normal).expect("builder is positioned");
        br.set_debug_location(marker.get_debug_location());
        if unwind != normal {
            cfg::remove_phi_incoming(unwind, block);
        }
    }
    marker.erase_from_basic_block();
}

/// Deletes the marker functions nothing uses any more; returns how many.
pub fn remove_unused_marker_functions(module: &Module<'_>) -> usize {
    let mut removed = 0;
    for f in marker_functions(module) {
        if ir::unused(f.as_value_ref()) {
            unsafe { f.delete() };
            removed += 1;
        }
    }
    removed
}

// The host guard marker, [`HOST_GUARD`]: `__ompadapt_host_guard(ctx, cpu, replacement, model)`,
// right before the launch-site marker of a region with a `cpu` variant (see the lowering
// header). The pass calls [`HOST_ENTER`] with its first three operands and the launch's device
// and kernel arguments on the stub's host path, [`HOST_EXIT`] after the host version, and
// deletes it. Those two are defined in the lowering header and emitted because the guard
// marker's own body calls them.

/// One guard marker call.
#[derive(Clone, Copy, Debug)]
pub struct HostGuard<'ctx> {
    pub call: InstructionValue<'ctx>,
    pub function: FunctionValue<'ctx>,
}

impl<'ctx> HostGuard<'ctx> {
    /// ctx, cpu, replacement: what the enter function takes before the launch's operands.
    pub fn enter_operands(&self) -> Option<Vec<BasicValueEnum<'ctx>>> {
        (0..3).map(|i| self.call.get_operand(i).and_then(|op| op.value())).collect()
    }

    /// The model name (fourth operand).
    pub fn model(&self) -> String {
        self.call.get_operand(3).and_then(|op| op.value()).and_then(|v| ir::c_string(v.as_value_ref())).unwrap_or_default()
    }
}

/// Whether `inst` calls the guard marker.
pub fn is_guard_call(inst: InstructionValue<'_>) -> bool {
    called_function(inst).is_some_and(|f| HOST_GUARD.names(f.get_name().to_bytes())) && num_call_args(inst) >= 4
}

/// The enter and exit functions of `module`, if the lowering header's definitions were emitted.
pub fn host_run_functions<'ctx>(module: &Module<'ctx>) -> Option<(FunctionValue<'ctx>, FunctionValue<'ctx>)> {
    let find =
        |marker: Marker, params: u32| module.get_functions().find(|f| marker.names(f.get_name().to_bytes()) && f.count_params() == params);
    Some((find(HOST_ENTER, 7)?, find(HOST_EXIT, 1)?))
}

/// The guard of `site`: a guard call of the same model, in the same function, whose block
/// dominates the launch-site marker's (its operands are then available at the launch) and from
/// which the first launch-site marker reached going forward is this one. Between the two
/// there may be branches (the launch settings' `?:` and `&&` make some).
pub fn guard_of<'ctx>(site: &LaunchSite<'ctx>) -> Option<HostGuard<'ctx>> {
    let model = site.model();
    let marker_block = site.marker.get_parent()?;
    for block in site.function.get_basic_blocks() {
        for inst in block.get_instructions() {
            if !is_guard_call(inst) {
                continue;
            }
            let g = HostGuard { call: inst, function: site.function };
            if g.model() == model
                && cfg::dominates(site.function, block, marker_block)
                && next_marker(inst).is_some_and(|m| m == site.marker)
            {
                return Some(g);
            }
        }
    }
    None
}

/// The first marker call reached going forward from `from` (the rest of its block, then
/// successors breadth-first; a path ends at the first marker on it).
fn next_marker<'ctx>(from: InstructionValue<'ctx>) -> Option<InstructionValue<'ctx>> {
    let mut visited = crate::fast_hash::HashSet::default();
    let mut queue = std::collections::VecDeque::new();
    let mut cursor = first_instruction_after(from);
    let mut block = from.get_parent()?;
    visited.insert(block.as_mut_ptr());
    loop {
        while let Some(i) = cursor {
            if is_marker_call(i) {
                return Some(i);
            }
            cursor = i.get_next_instruction();
        }
        for succ in cfg::successors(block) {
            if visited.insert(succ.as_mut_ptr()) {
                queue.push_back(succ);
            }
        }
        block = queue.pop_front()?;
        cursor = block.get_first_instruction();
    }
}

/// Deletes a guard call (an `invoke` becomes a branch to its normal destination).
pub fn remove_guard(guard: &HostGuard<'_>) {
    remove_marker_call(guard.call, guard.function);
}

/// Deletes the guard marker functions nothing calls any more.
pub fn remove_unused_guard_functions(module: &Module<'_>) {
    for f in module.get_functions().filter(|f| HOST_GUARD.names(f.get_name().to_bytes())).collect::<Vec<_>>() {
        if ir::unused(f.as_value_ref()) {
            unsafe { f.delete() };
        }
    }
}
