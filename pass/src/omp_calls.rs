//! The libomptarget entry points the pass looks for, and how to recognise calls to them.
//!
//! Modelled on LLVM's `OpenMPOpt.cpp`, which names the OpenMP runtime calls it walks. Clang 19
//! lowers every `#pragma omp target ...` construct in host code to a call of
//! [`TGT_TARGET_KERNEL`]; a non-zero result means "the offload failed", and the block clang
//! branches to then calls the host version of the outlined region (the *host fallback*):
//!
//! ```llvm
//! %r = call i32 @__tgt_target_kernel(ptr @loc, i64 -1, i32 %teams, i32 %threads,
//!                                    ptr @.__omp_offloading_<id>_l<line>.region_id, ptr %kargs)
//! %failed = icmp ne i32 %r, 0
//! br i1 %failed, label %omp_offload.failed, label %omp_offload.cont
//! omp_offload.failed:
//!   call void @__omp_offloading_<id>_l<line>(<captured values>)
//! ```

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};
use inkwell::IntPredicate;
use llvm_sys::core::{
    LLVMGetCalledValue, LLVMGetFirstUse, LLVMGetNextUse, LLVMGetNumArgOperands, LLVMGetUser, LLVMGetValueName2, LLVMIsAFunction,
    LLVMIsAInstruction,
};

/// `int __tgt_target_kernel(ident_t *loc, int64_t device, int32_t teams, int32_t threads,
/// void *host_ptr /* region id */, __tgt_kernel_arguments *args)`: maps the data and launches
/// the kernel of one target construct.
pub const TGT_TARGET_KERNEL: &str = crate::entry_points::name::TARGET_KERNEL;

/// `kmp_task_t *__kmpc_omp_target_task_alloc(...)`: a deferred target construct (`nowait` or
/// `depend`) becomes a task whose entry launches the kernel, outside the marker's function.
pub const KMPC_OMP_TARGET_TASK_ALLOC: &str = crate::entry_points::name::OMP_TARGET_TASK_ALLOC;

/// Index of the `host_ptr` (region id) argument of [`TGT_TARGET_KERNEL`].
pub const TGT_TARGET_KERNEL_REGION_ID_ARG: u32 = 4;

/// Value a launch returns when it did not run the kernel: libomptarget's `OFFLOAD_FAIL` (`~0`).
/// Clang only tests the result against zero.
pub const OFFLOAD_FAIL: i64 = -1;

/// Prefix of the outlined target regions (host fallbacks) and of their region ids
/// (`.__omp_offloading_<...>.region_id`).
pub const OFFLOADING_PREFIX: &str = "__omp_offloading_";

/// Suffix of a region id global.
pub const REGION_ID_SUFFIX: &str = ".region_id";

/// The function a call or invoke calls directly, if any (not through a cast or a pointer).
pub fn called_function<'ctx>(inst: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    match inst.get_opcode() {
        InstructionOpcode::Call | InstructionOpcode::Invoke => {}
        _ => return None,
    }
    unsafe {
        let callee = LLVMGetCalledValue(inst.as_value_ref());
        if callee.is_null() || LLVMIsAFunction(callee).is_null() {
            return None;
        }
        FunctionValue::new(callee)
    }
}

/// Whether `inst` is a call or invoke of the function named `name`.
pub fn is_call_to(inst: InstructionValue<'_>, name: &str) -> bool {
    called_function(inst).is_some_and(|f| f.get_name().to_bytes() == name.as_bytes())
}

/// Number of call arguments of a call or invoke (without the callee).
pub fn num_call_args(inst: InstructionValue<'_>) -> u32 {
    unsafe { LLVMGetNumArgOperands(inst.as_value_ref()) }
}

/// Whether `inst` is a kernel launch the pass can turn into a dispatch: a plain `call` (never an
/// `invoke`; libomptarget's entry points are `nounwind`) of [`TGT_TARGET_KERNEL`] returning an
/// integer.
pub fn is_kernel_launch(inst: InstructionValue<'_>) -> bool {
    inst.get_opcode() == InstructionOpcode::Call && is_call_to(inst, TGT_TARGET_KERNEL) && inst.get_type().is_int_type()
}

/// Name of a value (empty when it has none).
pub fn value_name(value: &impl AsValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let ptr = LLVMGetValueName2(value.as_value_ref(), &mut len);
        if ptr.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Name of the region id global a launch passes (`.__omp_offloading_<...>.region_id`), or an
/// empty string when the argument is not a named global.
pub fn region_id_name(launch: InstructionValue<'_>) -> String {
    match launch.get_operand(TGT_TARGET_KERNEL_REGION_ID_ARG) {
        Some(op) => match op.value() {
            Some(v) => value_name(&v),
            None => String::new(),
        },
        None => String::new(),
    }
}

/// The host fallback of a launch: the `__omp_offloading_*` function called on the path taken
/// when the launch fails (`icmp ne %r, 0` / `br i1 %failed, label %omp_offload.failed, ...`).
/// Prefers the function whose name matches the region id; `None` when clang's pattern is not
/// there.
pub fn host_fallback<'ctx>(launch: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    let expected = region_id_name(launch).strip_prefix('.').and_then(|n| n.strip_suffix(REGION_ID_SUFFIX)).map(str::to_owned);
    let candidates: Vec<FunctionValue<'ctx>> = fallback_calls(launch).into_iter().filter_map(called_function).collect();
    if let Some(expected) = expected {
        if let Some(f) = candidates.iter().find(|f| f.get_name().to_bytes() == expected.as_bytes()) {
            return Some(*f);
        }
    }
    candidates.into_iter().next()
}

/// The calls of `__omp_offloading_*` functions (the host fallback) on the paths taken when
/// `result` — a launch, or the value that replaced its result — is non-zero.
pub fn fallback_calls<'ctx>(result: InstructionValue<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut calls = Vec::new();
    for failed_block in failure_blocks(result) {
        for inst in failed_block.get_instructions() {
            if called_function(inst).is_some_and(|f| f.get_name().to_bytes().starts_with(OFFLOADING_PREFIX.as_bytes())) {
                calls.push(inst);
            }
        }
    }
    calls
}

/// Blocks entered when the launch result is non-zero: for each `icmp ne %r, 0` (or `eq`) use of
/// the result, the matching successor of each conditional branch on that comparison.
fn failure_blocks<'ctx>(launch: InstructionValue<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let mut blocks = Vec::new();
    for cmp in instruction_users(launch) {
        if cmp.get_opcode() != InstructionOpcode::ICmp {
            continue;
        }
        let failed_when_true = match cmp.get_icmp_predicate() {
            Some(IntPredicate::NE) => true,
            Some(IntPredicate::EQ) => false,
            _ => continue,
        };
        for br in instruction_users(cmp) {
            if br.get_opcode() != InstructionOpcode::Br || br.get_num_operands() != 3 {
                continue;
            }
            // A conditional `br` stores its operands as (cond, false dest, true dest).
            let dest_index = if failed_when_true { 2 } else { 1 };
            if let Some(bb) = br.get_operand(dest_index).and_then(|op| op.block()) {
                blocks.push(bb);
            }
        }
    }
    blocks
}

/// Instructions that use `value`, in use-list order.
pub fn instruction_users<'ctx>(value: InstructionValue<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut users = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(value.as_value_ref());
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null() {
                users.push(InstructionValue::new(user));
            }
            u = LLVMGetNextUse(u);
        }
    }
    users
}
