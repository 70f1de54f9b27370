//! The rewrite: a kernel launch becomes a dispatch between the host version of the region and
//! the original offload.
//!
//! ```llvm
//! ; before                                  ; after
//! bb:                                       bb:
//!   ...                                       ...
//!   %r = call i32 @__tgt_target_kernel(..)    br label %ompadapt.dispatch
//!   %f = icmp ne i32 %r, 0                  ompadapt.dispatch:
//!   br i1 %f, label %failed, label %cont      %ompadapt.use_host = icmp ne i32 %use_host, 0
//!                                             br i1 %ompadapt.use_host, label %ompadapt.host,
//!                                                label %ompadapt.offload, !ompadapt.dispatch !N
//!                                           ompadapt.offload:
//!                                             %r = call i32 @__tgt_target_kernel(..)
//!                                             br label %ompadapt.join
//!                                           ompadapt.host:
//!                                             br label %ompadapt.join
//!                                           ompadapt.join:
//!                                             %ompadapt.launch = phi i32 [ %r, %ompadapt.offload ],
//!                                                                        [ -1, %ompadapt.host ]
//!                                             %f = icmp ne i32 %ompadapt.launch, 0
//!                                             br i1 %f, label %failed, label %cont
//! ```
//!
//! On the host path the launch "fails" with libomptarget's `OFFLOAD_FAIL`, so clang's own
//! failure path calls the host fallback: no data is mapped and no kernel is launched.

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::debug_info::DILocation;
use inkwell::module::Module;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{
    AnyValue, AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, InstructionValue, IntValue, PhiValue,
    PointerValue,
};
use inkwell::IntPredicate;
use llvm_sys::prelude::LLVMValueRef;

use crate::cfg;
use crate::metadata;
use crate::omp_calls::OFFLOAD_FAIL;

/// Names of the blocks and values the rewrite creates (LLVM appends a number when a function
/// has several sites).
pub const DISPATCH_BLOCK: &str = "ompadapt.dispatch";
pub const HOST_BLOCK: &str = "ompadapt.host";
pub const OFFLOAD_BLOCK: &str = "ompadapt.offload";
pub const JOIN_BLOCK: &str = "ompadapt.join";
pub const USE_HOST_VALUE: &str = "ompadapt.use_host";
pub const LAUNCH_RESULT_VALUE: &str = "ompadapt.launch";

/// The blocks and branch one rewrite created.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch<'ctx> {
    pub dispatch_block: BasicBlock<'ctx>,
    pub host_block: BasicBlock<'ctx>,
    pub offload_block: BasicBlock<'ctx>,
    pub join_block: BasicBlock<'ctx>,
    /// `br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload`
    pub branch: InstructionValue<'ctx>,
    /// `%ompadapt.launch`: the launch's result, or `OFFLOAD_FAIL` from the host path.
    pub result: InstructionValue<'ctx>,
}

/// Rewrites `launch` (a `__tgt_target_kernel` call whose result is used) into a dispatch on
/// `use_host` (an integer that dominates the launch; non-zero selects the host), with the
/// variant's launch `settings` set before the launch. The new instructions get the launch's
/// debug location, or `fallback_location` (the marker's: clang emits the launch without one).
pub fn build_dispatch<'ctx>(
    context: &ContextRef<'ctx>,
    launch: InstructionValue<'ctx>,
    use_host: IntValue<'ctx>,
    model: &str,
    fallback_location: Option<DILocation<'ctx>>,
    settings: LaunchSettings<'ctx>,
) -> Dispatch<'ctx> {
    let block = launch.get_parent().expect("the launch is in a block");
    let debug_location = launch.get_debug_location().or(fallback_location);
    let builder = context.create_builder();

    // bb -> dispatch -> {offload, host} -> join, laid out in that order after bb.
    let dispatch_block = context.insert_basic_block_after(block, DISPATCH_BLOCK);
    let offload_block = context.insert_basic_block_after(dispatch_block, OFFLOAD_BLOCK);
    let host_block = context.insert_basic_block_after(offload_block, HOST_BLOCK);
    let join_block = context.insert_basic_block_after(host_block, JOIN_BLOCK);

    split_at_launch(&builder, launch, offload_block, join_block);
    let branch = branch_on_use_host(&builder, use_host, [block, dispatch_block, host_block, offload_block, join_block], debug_location);
    metadata::tag_dispatch_branch(context, branch, model);
    let result = join_launch_result(&builder, launch, offload_block, host_block, join_block, debug_location);
    builder.position_before(&launch);
    set_launch_settings(context, &builder, launch, settings, debug_location);

    Dispatch { dispatch_block, host_block, offload_block, join_block, branch, result }
}

/// Moves the launch to the end of `offload_block` and everything after it in its block (up to
/// and including the terminator) to `join_block`, whose successors' phis then see it as their
/// predecessor.
fn split_at_launch<'ctx>(
    builder: &Builder<'ctx>,
    launch: InstructionValue<'ctx>,
    offload_block: BasicBlock<'ctx>,
    join_block: BasicBlock<'ctx>,
) {
    let block = launch.get_parent().expect("the launch is in a block");
    let mut tail = Vec::new();
    let mut cursor = launch.get_next_instruction();
    while let Some(inst) = cursor {
        cursor = inst.get_next_instruction();
        tail.push(inst);
    }
    move_to_end(builder, launch, offload_block);
    for inst in tail {
        move_to_end(builder, inst, join_block);
    }
    for succ in cfg::successors(join_block) {
        cfg::retarget_phi_incoming(succ, block, join_block);
    }
}

/// The branches of the dispatch: the launch's old block to the dispatch block, which branches
/// on `use_host` to the host or the offload block, both of which go on to the join block.
/// `blocks`: old, dispatch, host, offload, join. Returns the conditional branch.
fn branch_on_use_host<'ctx>(
    builder: &Builder<'ctx>,
    use_host: IntValue<'ctx>,
    blocks: [BasicBlock<'ctx>; 5],
    debug_location: Option<DILocation<'ctx>>,
) -> InstructionValue<'ctx> {
    let [block, dispatch_block, host_block, offload_block, join_block] = blocks;
    builder.position_at_end(block);
    builder.build_unconditional_branch(dispatch_block).expect("positioned").set_debug_location(debug_location);

    builder.position_at_end(dispatch_block);
    let condition = if use_host.get_type().get_bit_width() == 1 {
        use_host
    } else {
        let zero = use_host.get_type().const_zero();
        let cmp = builder.build_int_compare(IntPredicate::NE, use_host, zero, USE_HOST_VALUE).expect("positioned");
        if let Some(inst) = cmp.as_instruction() {
            inst.set_debug_location(debug_location);
        }
        cmp
    };
    let branch = builder.build_conditional_branch(condition, host_block, offload_block).expect("positioned");
    branch.set_debug_location(debug_location);

    for from in [offload_block, host_block] {
        builder.position_at_end(from);
        builder.build_unconditional_branch(join_block).expect("positioned").set_debug_location(debug_location);
    }
    branch
}

/// At the start of the join block, the phi the launch's users now read: the launch's result
/// from the offload block, `OFFLOAD_FAIL` from the host block.
fn join_launch_result<'ctx>(
    builder: &Builder<'ctx>,
    launch: InstructionValue<'ctx>,
    offload_block: BasicBlock<'ctx>,
    host_block: BasicBlock<'ctx>,
    join_block: BasicBlock<'ctx>,
    debug_location: Option<DILocation<'ctx>>,
) -> InstructionValue<'ctx> {
    let result_type = launch.get_type().into_int_type();
    match join_block.get_first_instruction() {
        Some(first) => builder.position_before(&first),
        None => builder.position_at_end(join_block),
    }
    let phi = builder.build_phi(result_type, LAUNCH_RESULT_VALUE).expect("positioned");
    phi.as_instruction().set_debug_location(debug_location);
    launch.replace_all_uses_with(&phi.as_instruction());
    let launch_value: BasicValueEnum<'ctx> = launch_result(launch);
    let failed = result_type.const_int(OFFLOAD_FAIL as u64, true);
    phi.add_incoming(&[(&launch_value as &dyn BasicValue<'ctx>, offload_block), (&failed as &dyn BasicValue<'ctx>, host_block)]);
    phi.as_instruction()
}

/// Values the chosen variant sets in the launch; 0 at run time keeps what clang compiled.
#[derive(Clone, Copy, Debug)]
pub struct LaunchSettings<'ctx> {
    pub num_teams: IntValue<'ctx>,
    pub thread_limit: IntValue<'ctx>,
}

impl LaunchSettings<'_> {
    /// Whether both are the constant 0: the launch keeps what clang compiled.
    pub fn are_all_zero(&self) -> bool {
        [self.num_teams, self.thread_limit].iter().all(|v| is_constant_zero(*v))
    }
}

fn is_constant_zero(value: IntValue<'_>) -> bool {
    value.is_const() && value.get_zero_extended_constant() == Some(0)
}

/// Byte offsets in libomptarget's `KernelArgsTy` (version 3, LLVM 19) of `NumTeams[0]` and
/// `ThreadLimit[0]`: two i32, two i32... (Version, NumArgs), six pointers, Tripcount and Flags
/// (i64 each), then `uint32_t NumTeams[3]`, `uint32_t ThreadLimit[3]`.
pub const KERNEL_ARGS_NUM_TEAMS_OFFSET: u64 = 72;
pub const KERNEL_ARGS_THREAD_LIMIT_OFFSET: u64 = 84;
/// Operands of `__tgt_target_kernel`: num_teams, thread_limit, the kernel arguments.
const LAUNCH_NUM_TEAMS_ARG: u32 = 2;
const LAUNCH_THREAD_LIMIT_ARG: u32 = 3;
const LAUNCH_KERNEL_ARGS_ARG: u32 = 5;

/// Before `launch`: a non-zero setting replaces the launch's argument and the kernel
/// arguments' first dimension (what libomptarget reads), at run time; no kernel changes.
fn set_launch_settings<'ctx>(
    context: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    launch: InstructionValue<'ctx>,
    settings: LaunchSettings<'ctx>,
    debug_location: Option<DILocation<'ctx>>,
) {
    let i32t = context.i32_type();
    let i8t = context.i8_type();
    let kernel_args = launch
        .get_operand(LAUNCH_KERNEL_ARGS_ARG)
        .and_then(|op| op.value())
        .filter(|v| v.is_pointer_value())
        .map(|v| v.into_pointer_value());
    let located = |v: &dyn BasicValue<'ctx>| {
        if let Some(i) = v.as_instruction_value() {
            i.set_debug_location(debug_location);
        }
    };
    for (value, arg, offset, name) in [
        (settings.num_teams, LAUNCH_NUM_TEAMS_ARG, KERNEL_ARGS_NUM_TEAMS_OFFSET, "ompadapt.num_teams"),
        (settings.thread_limit, LAUNCH_THREAD_LIMIT_ARG, KERNEL_ARGS_THREAD_LIMIT_OFFSET, "ompadapt.thread_limit"),
    ] {
        if is_constant_zero(value) {
            continue;
        }
        let value =
            if value.get_type().get_bit_width() == 32 { value } else { builder.build_int_cast(value, i32t, "").expect("positioned") };
        let set = builder.build_int_compare(IntPredicate::NE, value, i32t.const_zero(), &format!("{name}.set")).expect("positioned");
        located(&set);
        if let Some(old) = launch.get_operand(arg).and_then(|op| op.value()).filter(|v| v.is_int_value()) {
            let old = old.into_int_value();
            if old.get_type() == i32t {
                let new = builder.build_select(set, value, old, name).expect("positioned");
                located(&new);
                launch.set_operand(arg, new);
            }
        }
        if let Some(kernel_args) = kernel_args {
            let field = unsafe { builder.build_in_bounds_gep(i8t, kernel_args, &[context.i64_type().const_int(offset, false)], "") }
                .expect("positioned");
            let old = builder.build_load(i32t, field, "").expect("positioned").into_int_value();
            located(&old);
            let new = builder.build_select(set, value, old, "").expect("positioned");
            located(&new);
            let st = builder.build_store(field, new).expect("positioned");
            st.set_debug_location(debug_location);
        }
    }
}

/// Moves `inst` to the end of `block`, keeping its name (the builder never carries a debug
/// location, so the instruction keeps its own).
fn move_to_end<'ctx>(builder: &Builder<'ctx>, inst: InstructionValue<'ctx>, block: BasicBlock<'ctx>) {
    let name = inst.get_name().map(|n| n.to_string_lossy().into_owned());
    inst.remove_from_basic_block();
    builder.position_at_end(block);
    builder.insert_instruction(&inst, name.as_deref().filter(|n| !n.is_empty()));
}

fn launch_result<'ctx>(launch: InstructionValue<'ctx>) -> BasicValueEnum<'ctx> {
    IntValue::try_from(launch).expect("a launch returns an integer").as_basic_value_enum()
}

/// `[start, end, ...]` of the `declare target` variables a kernel reaches, as a private constant
/// array (a null pointer and 0 when there are none).
fn globals_table<'ctx>(
    context: &ContextRef<'ctx>,
    module: &Module<'ctx>,
    globals: &[(LLVMValueRef, u64)],
    ptr: inkwell::types::PointerType<'ctx>,
) -> (BasicValueEnum<'ctx>, u64) {
    if globals.is_empty() {
        return (ptr.const_null().as_basic_value_enum(), 0);
    }
    let i8t = context.i8_type();
    let mut items = Vec::with_capacity(2 * globals.len());
    for &(g, size) in globals {
        let start = unsafe { inkwell::values::PointerValue::new(g) };
        let end = unsafe { start.const_gep(i8t, &[context.i64_type().const_int(size, false)]) };
        items.push(start);
        items.push(end);
    }
    let init = ptr.const_array(&items);
    let table = module.add_global(init.get_type(), None, "ompadapt.device_globals");
    table.set_initializer(&init);
    table.set_constant(true);
    table.set_linkage(inkwell::module::Linkage::Private);
    (table.as_pointer_value().as_basic_value_enum(), globals.len() as u64)
}

/// Name of the block the host guard adds between the dispatch and the host path.
pub const GUARD_BLOCK: &str = "ompadapt.guard";
pub const HOST_RUN_VALUE: &str = "ompadapt.host_run";
pub const HOST_SAFE_VALUE: &str = "ompadapt.host_safe";
/// Operands of `__tgt_target_kernel`: the device.
const LAUNCH_DEVICE_ARG: u32 = 1;

/// Puts the host guard on `d`'s host path, so that the host version ends as the offload would:
///
/// ```llvm
/// ompadapt.guard:                           ; the dispatch's host edge
///   %ompadapt.host_run = call ptr @enter(ctx, cpu, replacement, i64 %device, ptr %kernel_args,
///                                        ptr @ompadapt.device_globals, i32 <n>)
///   %ompadapt.host_safe = icmp ne ptr %ompadapt.host_run, null
///   br i1 %ompadapt.host_safe, label %ompadapt.host, label %ompadapt.offload
/// ompadapt.join:
///   %ompadapt.launch = phi i32 ...
///   %ompadapt.host_run1 = phi ptr [ %ompadapt.host_run, %ompadapt.host ], [ null, %ompadapt.offload ]
///   ...
/// omp_offload.failed:
///   call void @__omp_offloading_...(...)    ; the host version
///   call void @exit(ptr %ompadapt.host_run1)
/// ```
///
/// `enter`/`exit` are the lowering header's `__ompadapt_host_enter`/`__ompadapt_host_exit`;
/// `guard_operands` the guard marker's ctx, cpu and replacement; `globals` the `declare target`
/// variables the kernel reaches (see [`crate::device_globals`]). When the failure path has no
/// host-version call to close the run after, `enter` gets no kernel arguments and refuses.
#[allow(clippy::too_many_arguments)]
pub fn add_host_guard<'ctx>(
    context: &ContextRef<'ctx>,
    module: &Module<'ctx>,
    dispatch: &Dispatch<'ctx>,
    launch: InstructionValue<'ctx>,
    enter: FunctionValue<'ctx>,
    exit: FunctionValue<'ctx>,
    guard_operands: &[BasicValueEnum<'ctx>],
    globals: &[(LLVMValueRef, u64)],
) -> Option<BasicBlock<'ctx>> {
    let device = launch.get_operand(LAUNCH_DEVICE_ARG).and_then(|op| op.value()).filter(|v| v.is_int_value())?;
    let kernel_args = launch.get_operand(LAUNCH_KERNEL_ARGS_ARG).and_then(|op| op.value()).filter(|v| v.is_pointer_value())?;
    let params = enter.get_type().get_param_types();
    let token_type = enter.get_type().get_return_type().filter(|t| t.is_pointer_type())?.into_pointer_type();
    if guard_operands.len() != 3 || params.len() != 7 || exit.count_params() != 1 {
        return None;
    }
    let (globals_array, globals_count) = globals_table(context, module, globals, token_type);
    let host_versions = crate::omp_calls::fallback_calls(dispatch.result);
    // Without a host-version call to close the run after, enter gets no kernel arguments and refuses.
    let kernel_args = if host_versions.is_empty() { token_type.const_null().as_basic_value_enum() } else { kernel_args };
    let debug_location = dispatch.branch.get_debug_location();
    let builder = context.create_builder();
    let guard_block = context.insert_basic_block_after(dispatch.dispatch_block, GUARD_BLOCK);
    builder.position_at_end(guard_block);
    let count = context.i32_type().const_int(globals_count, false).as_basic_value_enum();
    let operands: Vec<BasicValueEnum<'ctx>> = guard_operands.iter().copied().chain([device, kernel_args, globals_array, count]).collect();
    let token = call_host_enter(&builder, enter, &params, &operands)?;
    let safe = builder.build_int_compare(IntPredicate::NE, token, token_type.const_null(), HOST_SAFE_VALUE).expect("positioned");
    let br = builder.build_conditional_branch(safe, dispatch.host_block, dispatch.offload_block).expect("positioned");
    let host_run = host_run_phi(&builder, dispatch, token);
    close_host_runs(&builder, exit, host_run, &host_versions, debug_location);
    for i in [token.as_instruction(), safe.as_instruction(), Some(br), Some(host_run.as_instruction())].into_iter().flatten() {
        i.set_debug_location(debug_location);
    }
    // the dispatch's host edge now goes through the guard
    unsafe { llvm_sys::core::LLVMSetSuccessor(dispatch.branch.as_value_ref(), 0, guard_block.as_mut_ptr()) };
    Some(guard_block)
}

/// `%ompadapt.host_run = call ptr @enter(operands...)` at the builder's position, the integers
/// converted to the types `enter` declares (C's int / long long; pointers are opaque).
fn call_host_enter<'ctx>(
    builder: &Builder<'ctx>,
    enter: FunctionValue<'ctx>,
    params: &[BasicMetadataTypeEnum<'ctx>],
    operands: &[BasicValueEnum<'ctx>],
) -> Option<PointerValue<'ctx>> {
    let args: Vec<BasicMetadataValueEnum<'ctx>> = operands
        .iter()
        .zip(params)
        .map(|(&v, ty)| match (v, ty) {
            (BasicValueEnum::IntValue(i), BasicMetadataTypeEnum::IntType(t)) if i.get_type() != *t => {
                builder.build_int_s_extend_or_bit_cast(i, *t, "").map(Into::into).unwrap_or(v)
            }
            _ => v,
        })
        .map(Into::into)
        .collect();
    let call = builder.build_call(enter, &args, HOST_RUN_VALUE).expect("positioned");
    call.set_call_convention(enter.get_call_conventions());
    Some(call.try_as_basic_value().basic()?.into_pointer_value())
}

/// The token reaches the failure path through the join block (after the launch's phi): the
/// enter function's result from the host path, null from the offload path.
fn host_run_phi<'ctx>(builder: &Builder<'ctx>, dispatch: &Dispatch<'ctx>, token: PointerValue<'ctx>) -> PhiValue<'ctx> {
    match dispatch.result.get_next_instruction() {
        Some(next) => builder.position_before(&next),
        None => builder.position_at_end(dispatch.join_block),
    }
    let phi = builder.build_phi(token.get_type(), HOST_RUN_VALUE).expect("positioned");
    let null = token.get_type().const_null();
    phi.add_incoming(&[(&token as &dyn BasicValue<'ctx>, dispatch.host_block), (&null as &dyn BasicValue<'ctx>, dispatch.offload_block)]);
    phi
}

/// `call void @exit(%ompadapt.host_run)` after each call of the host version.
fn close_host_runs<'ctx>(
    builder: &Builder<'ctx>,
    exit: FunctionValue<'ctx>,
    host_run: PhiValue<'ctx>,
    host_versions: &[InstructionValue<'ctx>],
    debug_location: Option<DILocation<'ctx>>,
) {
    for host_version in host_versions {
        match host_version.get_next_instruction() {
            Some(next) => builder.position_before(&next),
            None => continue,
        }
        let c = builder.build_call(exit, &[host_run.as_basic_value().into()], "").expect("positioned");
        c.set_call_convention(exit.get_call_conventions());
        c.as_any_value_enum().into_instruction_value().set_debug_location(host_version.get_debug_location().or(debug_location));
    }
}
