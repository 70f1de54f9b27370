//! `declare target` variables a kernel reaches: the host version of the kernel reads and writes
//! the host's copy of such a global, the offload the device's. The cpu variant's runtime copies
//! treat each as present storage (brought in before the host version, sent back after, the
//! host copy restored), so the pass hands their addresses and sizes to `__ompadapt_host_enter`.
//!
//! Clang 19 lists every `declare target` variable of a module in its offload entries
//! (`@.offloading.entry.<name> = { ptr @var, ptr @name, i64 size, i32 flags, i32 0 }`, section
//! `omp_offloading_entries`); kernels are listed there too, by their `.region_id`. The globals a
//! kernel reaches are those its host version and the functions it calls or hands to the OpenMP
//! runtime (outlined parallel regions) use, in this module.

use std::collections::{HashMap, HashSet, VecDeque};

use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::{
    LLVMConstIntGetZExtValue, LLVMGetFirstGlobal, LLVMGetInitializer, LLVMGetNextGlobal, LLVMGetNumOperands, LLVMGetOperand,
    LLVMGetSection, LLVMIsAConstant, LLVMIsAConstantInt, LLVMIsAFunction, LLVMIsAGlobalVariable,
};
use llvm_sys::prelude::LLVMValueRef;

use crate::omp_calls::{called_function, value_name, REGION_ID_SUFFIX};

/// Section of clang's offload entries.
pub const ENTRIES_SECTION: &str = crate::entry_points::name::ENTRIES_SECTION;
/// Functions searched from one host version, at most.
const MAX_FUNCTIONS: usize = 256;

/// The `declare target` variables of `module` and their sizes in bytes.
pub fn declare_target_variables(module: &Module<'_>) -> HashMap<LLVMValueRef, u64> {
    let mut vars = HashMap::new();
    unsafe {
        let mut g = LLVMGetFirstGlobal(module.as_mut_ptr());
        while !g.is_null() {
            let section = LLVMGetSection(g);
            let in_entries = !section.is_null() && std::ffi::CStr::from_ptr(section).to_bytes() == ENTRIES_SECTION.as_bytes();
            let init = if in_entries { LLVMGetInitializer(g) } else { std::ptr::null_mut() };
            if !init.is_null() && LLVMGetNumOperands(init) >= 3 {
                let var = LLVMGetOperand(init, 0);
                let size = LLVMGetOperand(init, 2);
                if !LLVMIsAGlobalVariable(var).is_null()
                    && !value_name_of(var).ends_with(REGION_ID_SUFFIX)
                    && !LLVMIsAConstantInt(size).is_null()
                {
                    let bytes = LLVMConstIntGetZExtValue(size);
                    if bytes > 0 {
                        vars.insert(var, bytes);
                    }
                }
            }
            g = LLVMGetNextGlobal(g);
        }
    }
    vars
}

fn value_name_of(v: LLVMValueRef) -> String {
    value_name(&unsafe { inkwell::values::PointerValue::new(v) })
}

/// The variables of `vars` that `host_version` or a function it calls uses, in a stable order.
pub fn reached(host_version: FunctionValue<'_>, vars: &HashMap<LLVMValueRef, u64>) -> Vec<(LLVMValueRef, u64)> {
    if vars.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(LLVMValueRef, u64)> = Vec::new();
    let mut seen_fn: HashSet<LLVMValueRef> = HashSet::new();
    let mut queue = VecDeque::from([host_version]);
    seen_fn.insert(host_version.as_value_ref());
    while let Some(f) = queue.pop_front() {
        for block in f.get_basic_blocks() {
            for inst in block.get_instructions() {
                if let Some(callee) = called_function(inst) {
                    if callee.count_basic_blocks() > 0 && seen_fn.len() < MAX_FUNCTIONS && seen_fn.insert(callee.as_value_ref()) {
                        queue.push_back(callee);
                    }
                }
                for i in 0..inst.get_num_operands() {
                    let Some(op) = inst.get_operand(i).and_then(|o| o.value()) else { continue };
                    let v = op.as_value_ref();
                    // outlined parallel regions are passed to __kmpc_fork_call, not called
                    if unsafe { !LLVMIsAFunction(v).is_null() } {
                        let f = unsafe { FunctionValue::new(v) }.filter(|f| f.count_basic_blocks() > 0);
                        if let Some(f) = f.filter(|_| seen_fn.len() < MAX_FUNCTIONS) {
                            if seen_fn.insert(v) {
                                queue.push_back(f);
                            }
                        }
                        continue;
                    }
                    collect(v, vars, &mut found, 0);
                }
            }
        }
    }
    found
}

/// `v` if it is one of `vars`, or the ones inside a constant expression.
fn collect(v: LLVMValueRef, vars: &HashMap<LLVMValueRef, u64>, found: &mut Vec<(LLVMValueRef, u64)>, depth: u32) {
    if let Some(&size) = vars.get(&v) {
        if !found.iter().any(|(g, _)| *g == v) {
            found.push((v, size));
        }
        return;
    }
    unsafe {
        if depth > 4 || LLVMIsAConstant(v).is_null() || !LLVMIsAGlobalVariable(v).is_null() || !LLVMIsAFunction(v).is_null() {
            return;
        }
        for i in 0..LLVMGetNumOperands(v).max(0) as u32 {
            collect(LLVMGetOperand(v, i), vars, found, depth + 1);
        }
    }
}
