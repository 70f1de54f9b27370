//! Discovery and removal of the plugin's offload-site markers.
//!
//! The Clang plugin lowers `#pragma omp adaptation ... variants(cpu, gpu)` into a call of
//! [`MARKER_FUNCTION`] placed immediately before the target construct:
//!
//! ```c
//! static inline void __ompadapt_offload_site(int use_host, const char *model) {
//!   if (use_host) ompadapt_unlowered_offload_site(model); /* runtime warns once */
//! }
//! __ompadapt_offload_site(ctx.variant == 0, "model");
//! #pragma omp target teams distribute parallel for ...
//! ```
//!
//! The function's body only matters when this pass did not run; the pass reads the call's
//! operands and deletes the call.

use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue};
use llvm_sys::core::{
    LLVMGetAsString, LLVMGetConstOpcode, LLVMGetFirstUse, LLVMGetInitializer, LLVMGetNumOperands, LLVMGetOperand,
    LLVMIsAConstantDataSequential, LLVMIsAConstantExpr, LLVMIsAGlobalVariable,
};
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::LLVMOpcode;

use crate::cfg;
use crate::omp_calls::{called_function, num_call_args};

/// Name of the marker function the plugin defines (`static inline`, so any linkage).
pub const MARKER_FUNCTION: &str = "__ompadapt_offload_site";

/// The marker with launch settings: `__ompadapt_launch_site(use_host, num_teams, thread_limit,
/// model)`; a non-zero `num_teams` / `thread_limit` replaces the launch's.
pub const LAUNCH_MARKER_FUNCTION: &str = "__ompadapt_launch_site";

/// Itanium-mangled prefixes of the marker in C++: clang mangles a `static` function even inside
/// `extern "C"` (`_ZL23__ompadapt_offload_siteiPKc`); `_Z` if it is not static.
const MANGLED_MARKER_PREFIXES: &[&str] =
    &["_ZL23__ompadapt_offload_site", "_Z23__ompadapt_offload_site", "_ZL22__ompadapt_launch_site", "_Z22__ompadapt_launch_site"];

/// Whether `name` names the marker function (C name or C++ mangled name).
pub fn is_marker_name(name: &[u8]) -> bool {
    name == MARKER_FUNCTION.as_bytes()
        || name == LAUNCH_MARKER_FUNCTION.as_bytes()
        || MANGLED_MARKER_PREFIXES.iter().any(|p| {
            name.strip_prefix(p.as_bytes())
                .is_some_and(|rest| !rest.is_empty() && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'))
        })
}

/// Whether `inst` calls (or invokes) the marker.
pub fn is_marker_call(inst: InstructionValue<'_>) -> bool {
    called_function(inst).is_some_and(|f| is_marker_name(f.get_name().to_bytes()))
}

/// One marker call: the point before a target construct whose launch becomes a dispatch.
#[derive(Clone, Copy, Debug)]
pub struct OffloadSite<'ctx> {
    /// The `call` (or `invoke`, in C++ with cleanups) of [`MARKER_FUNCTION`].
    pub marker: InstructionValue<'ctx>,
    /// The function containing the marker.
    pub function: FunctionValue<'ctx>,
    /// First operand: non-zero when the `cpu` (host) variant is selected. An integer (`i32`
    /// from C's `int`, possibly `i1`).
    pub use_host: BasicValueEnum<'ctx>,
    /// Launch settings of the launch marker (integers; 0 at run time: as compiled).
    pub num_teams: Option<IntValue<'ctx>>,
    pub thread_limit: Option<IntValue<'ctx>>,
    /// Index of the model-name operand.
    model_arg: u32,
}

impl<'ctx> OffloadSite<'ctx> {
    /// The model name, read from the marker's second operand (a constant C string), or an empty
    /// string when it is not a constant.
    pub fn model(&self) -> String {
        match self.marker.get_operand(self.model_arg).and_then(|op| op.value()) {
            Some(v) => constant_c_string(v.as_value_ref()).unwrap_or_default(),
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
pub fn find_offload_sites<'ctx>(module: &Module<'ctx>) -> (Vec<OffloadSite<'ctx>>, Vec<MalformedMarker>) {
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

fn as_site<'ctx>(inst: InstructionValue<'ctx>, function: FunctionValue<'ctx>) -> Result<OffloadSite<'ctx>, &'static str> {
    let launch = called_function(inst).is_some_and(|f| {
        let name = f.get_name().to_bytes();
        name == LAUNCH_MARKER_FUNCTION.as_bytes() || name.windows(22).any(|w| w == b"22__ompadapt_launch_si")
    });
    if launch && num_call_args(inst) < 4 {
        return Err("the launch marker has fewer than four arguments (use_host, num_teams, thread_limit, model)");
    }
    if num_call_args(inst) < 2 {
        return Err("the marker call has fewer than two arguments (use_host, model)");
    }
    let int_arg = |i: u32| -> Result<Option<IntValue<'ctx>>, &'static str> {
        if !launch {
            return Ok(None);
        }
        match inst.get_operand(i).and_then(|op| op.value()) {
            Some(v) if v.is_int_value() => Ok(Some(v.into_int_value())),
            _ => Err("a launch setting of the marker is not an integer"),
        }
    };
    let (num_teams, thread_limit) = (int_arg(1)?, int_arg(2)?);
    if !inst.get_type().is_void_type() && inst.get_first_use().is_some() {
        return Err("the marker call's result is used");
    }
    let use_host = inst.get_operand(0).and_then(|op| op.value()).ok_or("the marker's first argument is not a value")?;
    if !use_host.is_int_value() {
        return Err("the marker's first argument (use_host) is not an integer");
    }
    Ok(OffloadSite { marker: inst, function, use_host, num_teams, thread_limit, model_arg: if launch { 3 } else { 1 } })
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
pub fn remove_marker(site: &OffloadSite<'_>) {
    let marker = site.marker;
    if marker.get_opcode() == InstructionOpcode::Invoke {
        let Some(block) = marker.get_parent() else {
            return;
        };
        let succs = cfg::successors(block);
        let (normal, unwind) = (succs[0], succs[1]);
        let builder = site.function.get_type().get_context().create_builder();
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
        if unsafe { LLVMGetFirstUse(f.as_value_ref()) }.is_null() {
            unsafe { f.delete() };
            removed += 1;
        }
    }
    removed
}

/// The bytes of a constant C string behind `value` (a global constant, possibly behind a
/// constant GEP to its first character, as older IR has it), without the trailing NUL.
fn constant_c_string(value: LLVMValueRef) -> Option<String> {
    unsafe {
        let mut v = value;
        // Strip constant GEPs / casts to the global.
        for _ in 0..8 {
            if LLVMIsAConstantExpr(v).is_null() {
                break;
            }
            match LLVMGetConstOpcode(v) {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast if LLVMGetNumOperands(v) > 0 => {
                    v = LLVMGetOperand(v, 0)
                }
                _ => return None,
            }
        }
        if LLVMIsAGlobalVariable(v).is_null() {
            return None;
        }
        let init = LLVMGetInitializer(v);
        if init.is_null() || LLVMIsAConstantDataSequential(init).is_null() {
            return None;
        }
        let mut len = 0usize;
        let ptr = LLVMGetAsString(init, &mut len);
        if ptr.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The host guard marker: `__ompadapt_host_guard(ctx, cpu, replacement, model)`, right before
/// the launch-site marker of a region with a `cpu` variant (see the lowering header). The pass
/// calls [`HOST_ENTER_FUNCTION`] with its first three operands and the launch's device and
/// kernel arguments on the stub's host path, [`HOST_EXIT_FUNCTION`] after the host version,
/// and deletes it.
pub const GUARD_FUNCTION: &str = "__ompadapt_host_guard";
/// What the stub calls around the host version (defined in the lowering header; emitted
/// because the guard marker's own body calls them).
pub const HOST_ENTER_FUNCTION: &str = "__ompadapt_host_enter";
pub const HOST_EXIT_FUNCTION: &str = "__ompadapt_host_exit";

/// Whether `name` is `c_name` or its Itanium mangling (`_ZL<len><name><params>`, also `_Z`):
/// clang mangles a `static` function in C++ even inside `extern "C"`.
fn names_function(name: &[u8], c_name: &str) -> bool {
    if name == c_name.as_bytes() {
        return true;
    }
    let len = c_name.len().to_string();
    ["_ZL", "_Z"].iter().any(|p| {
        name.strip_prefix(p.as_bytes())
            .and_then(|r| r.strip_prefix(len.as_bytes()))
            .and_then(|r| r.strip_prefix(c_name.as_bytes()))
            .is_some_and(|rest| !rest.is_empty() && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'))
    })
}

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
        self.call.get_operand(3).and_then(|op| op.value()).and_then(|v| constant_c_string(v.as_value_ref())).unwrap_or_default()
    }
}

/// Whether `inst` calls the guard marker.
pub fn is_guard_call(inst: InstructionValue<'_>) -> bool {
    called_function(inst).is_some_and(|f| names_function(f.get_name().to_bytes(), GUARD_FUNCTION)) && num_call_args(inst) >= 4
}

/// The enter and exit functions of `module`, if the lowering header's definitions were emitted.
pub fn host_run_functions<'ctx>(module: &Module<'ctx>) -> Option<(FunctionValue<'ctx>, FunctionValue<'ctx>)> {
    let find = |name: &str, params: u32| {
        module.get_functions().find(|f| names_function(f.get_name().to_bytes(), name) && f.count_params() == params)
    };
    Some((find(HOST_ENTER_FUNCTION, 7)?, find(HOST_EXIT_FUNCTION, 1)?))
}

/// The guard of `site`: a guard call of the same model, in the same function, whose block
/// dominates the launch-site marker's (its operands are then available at the launch) and from
/// which the first launch-site marker reached going forward is this one. Between the two
/// there may be branches (the launch settings' `?:` and `&&` make some).
pub fn guard_of<'ctx>(site: &OffloadSite<'ctx>) -> Option<HostGuard<'ctx>> {
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
    let mut visited = std::collections::HashSet::new();
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
    remove_marker(&OffloadSite {
        marker: guard.call,
        function: guard.function,
        use_host: guard.call.get_operand(1).and_then(|op| op.value()).expect("the guard has operands"),
        num_teams: None,
        thread_limit: None,
        model_arg: 3,
    });
}

/// Deletes the guard marker functions nothing calls any more.
pub fn remove_unused_guard_functions(module: &Module<'_>) {
    for f in module.get_functions().filter(|f| names_function(f.get_name().to_bytes(), GUARD_FUNCTION)).collect::<Vec<_>>() {
        if unsafe { LLVMGetFirstUse(f.as_value_ref()) }.is_null() {
            unsafe { f.delete() };
        }
    }
}
