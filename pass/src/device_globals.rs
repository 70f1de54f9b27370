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

use std::collections::VecDeque;

use crate::fast_hash::{HashMap, HashSet};

use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::{
    LLVMConstIntGetZExtValue, LLVMGetFirstGlobal, LLVMGetInitializer, LLVMGetLinkage, LLVMGetNextGlobal, LLVMGetNumOperands,
    LLVMGetOperand, LLVMGetSection, LLVMIsAConstant, LLVMIsAConstantExpr, LLVMIsAConstantInt, LLVMIsAFunction, LLVMIsAGlobalVariable,
    LLVMIsGlobalConstant,
};
use llvm_sys::prelude::LLVMValueRef;

use crate::omp_calls::{value_name, REGION_ID_SUFFIX};

/// Section of clang's offload entries.
pub const ENTRIES_SECTION: &str = crate::entry_points::name::ENTRIES_SECTION;
/// Functions searched from one host version, at most.
const MAX_FUNCTIONS: usize = 256;

/// The `declare target` variables of `module` and their sizes in bytes.
pub fn declare_target_variables(module: &Module<'_>) -> HashMap<LLVMValueRef, u64> {
    let mut vars = HashMap::default();
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
    let mut found: Vec<(LLVMValueRef, u64)> = Vec::new();
    if vars.is_empty() {
        return found;
    }
    for inst in kernel_functions(host_version).into_iter().flat_map(crate::ir::function_instructions) {
        for i in 0..crate::ir::num_operands(inst) {
            let v = crate::ir::operand(inst, i);
            if unsafe { LLVMIsAFunction(v).is_null() } {
                collect(v, vars, &mut found, 0);
            }
        }
    }
    found
}

/// `host_version` and the functions defined in the module that it calls or hands to the OpenMP
/// runtime (outlined parallel regions are passed to `__kmpc_fork_call`, not called), in the
/// order found; at most [`MAX_FUNCTIONS`].
fn kernel_functions(host_version: FunctionValue<'_>) -> Vec<LLVMValueRef> {
    let mut order = vec![host_version.as_value_ref()];
    let mut seen: HashSet<LLVMValueRef> = order.iter().copied().collect();
    let mut queue = VecDeque::from([host_version.as_value_ref()]);
    while let Some(f) = queue.pop_front() {
        for inst in crate::ir::function_instructions(f) {
            for i in 0..crate::ir::num_operands(inst) {
                let v = crate::ir::strip_to_global(crate::ir::operand(inst, i));
                if crate::ir::is_function(v) && !crate::ir::is_declaration(v) && seen.len() < MAX_FUNCTIONS && seen.insert(v) {
                    order.push(v);
                    queue.push_back(v);
                }
            }
        }
    }
    order
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

/// Streams of the C library: a kernel printing to `stderr` prints to the same stream from either
/// side, and the program's meaning does not hang on which copy of the `FILE *` it read.
const SAME_ON_BOTH_SIDES: [&str; 3] = ["stdout", "stderr", "stdin"];

/// The variable with static storage that instruction `i` of a kernel's code uses by name, where
/// the device keeps a copy of its own that the offload entries (`entries`, see
/// [`declare_target_variables`]) do not name, so that the runtime cannot swap it in around the
/// host version: a `static` local of the kernel or of a function it calls (device code, given
/// its own storage on the device; libgomp's `pr90779.c`), or a `declare target` variable defined
/// in another translation unit. Constants and variables nothing writes hold the same bytes on
/// both sides; the runtime's own handles (a `critical` construct's lock) are not the program's
/// data.
pub fn unnamed_device_copy(i: LLVMValueRef, entries: &HashMap<LLVMValueRef, u64>) -> Option<String> {
    if crate::ir::is_call(i) {
        let callee = crate::ir::callee_name(i);
        if callee.starts_with("llvm.lifetime") || crate::entry_points::lookup(&callee).is_some() {
            return None;
        }
    }
    (0..crate::ir::num_operands(i)).map(|k| crate::ir::strip_to_global(crate::ir::operand(i, k))).find_map(|g| {
        if !crate::ir::is_global_variable(g) || entries.contains_key(&g) || unsafe { LLVMIsGlobalConstant(g) } != 0 {
            return None;
        }
        let name = value_name_of(g);
        (!SAME_ON_BOTH_SIDES.contains(&name.as_str()) && may_be_written(g)).then_some(name)
    })
}

/// Whether anything may write global `g`: code of another translation unit (it is declared, or
/// visible outside this one), or a use here that is not a read.
fn may_be_written(g: LLVMValueRef) -> bool {
    use llvm_sys::LLVMLinkage::{LLVMInternalLinkage, LLVMPrivateLinkage};
    let linkage = unsafe { LLVMGetLinkage(g) };
    if crate::ir::is_declaration(g) || !matches!(linkage, LLVMInternalLinkage | LLVMPrivateLinkage) {
        return true;
    }
    fn written_through(v: LLVMValueRef, depth: u32) -> bool {
        depth > 8
            || crate::ir::users(v).into_iter().any(|u| match crate::ir::opcode(u) {
                Some(llvm_sys::LLVMOpcode::LLVMLoad) => false,
                Some(llvm_sys::LLVMOpcode::LLVMGetElementPtr | llvm_sys::LLVMOpcode::LLVMBitCast) => written_through(u, depth + 1),
                // a constant expression of its address; an initializer of another global hands
                // the address on
                None if unsafe { !LLVMIsAConstantExpr(u).is_null() } => written_through(u, depth + 1),
                _ => true,
            })
    }
    written_through(g, 0)
}

/// Why a kernel using `name` ([`unnamed_device_copy`]) cannot run as its host version.
pub fn device_copy_reason(name: &str) -> String {
    format!(
        "the kernel uses {}, a variable with static storage of which the device keeps a copy of its own (a static local of device code, or a declare target variable of another translation unit) that the offload entries do not name: its host version would use the host's copy",
        source_name(name)
    )
}

/// A static local as the source names it: clang's `function.variable`, flang's
/// `_QM<module>F<procedure>E<variable>` (`_QF...` outside a module), quoted.
fn source_name(symbol: &str) -> String {
    if let Some(rest) = symbol.strip_prefix("_Q") {
        if let (Some(f), Some(e)) = (rest.rfind('F'), rest.rfind('E')) {
            // flang's names are lower case; its separators upper case
            match &rest[f + 1..e.max(f + 1)] {
                _ if f > e => {}
                "" => return format!("'{}' (a saved variable of the main program)", &rest[e + 1..]),
                procedure => return format!("'{}' (a saved variable of '{procedure}')", &rest[e + 1..]),
            }
        }
    }
    match symbol.split_once('.') {
        Some((function, variable)) if !function.is_empty() && !variable.contains('.') => {
            format!("'{variable}' (a static local of '{function}')")
        }
        _ => format!("'{symbol}'"),
    }
}

/// The first variable of [`unnamed_device_copy`] that `host_version` or a function it calls
/// uses.
pub fn first_unnamed_device_copy(host_version: FunctionValue<'_>, entries: &HashMap<LLVMValueRef, u64>) -> Option<String> {
    kernel_functions(host_version).into_iter().flat_map(crate::ir::function_instructions).find_map(|i| unnamed_device_copy(i, entries))
}

#[cfg(test)]
mod tests {
    use super::source_name;

    #[test]
    fn static_locals_are_named_as_the_source_names_them() {
        assert_eq!(source_name("main.calls"), "'calls' (a static local of 'main')");
        assert_eq!(source_name("_QMcountersFnext_ticketEissued"), "'issued' (a saved variable of 'next_ticket')");
        assert_eq!(source_name("_QFEcount"), "'count' (a saved variable of the main program)");
        assert_eq!(source_name("_QMfluxEx"), "'_QMfluxEx'");
        assert_eq!(source_name("shared_counter"), "'shared_counter'");
    }
}
