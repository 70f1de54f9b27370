//! Finding the offload launch that follows a marker: the first `__tgt_target_kernel` call
//! reachable after it in the same function, walking forward in the marker's block and then
//! through successors breadth-first. A path ends at another marker (the launch after it is that
//! marker's) and at a launch another marker already claimed.

use std::collections::VecDeque;

use crate::fast_hash::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionValue};
use llvm_sys::prelude::LLVMValueRef;

use crate::cfg;
use crate::launch_site::{first_instruction_after, is_marker_call, LaunchSite};
use crate::omp_calls::{is_call_to, is_kernel_launch, KMPC_OMP_TARGET_TASK_ALLOC};

/// Result of looking for the launch of one site.
#[derive(Debug)]
pub enum LaunchSearch<'ctx> {
    /// The launch; the marker dominates it, so the marker's `use_host` is available there.
    Found(InstructionValue<'ctx>),
    /// No launch is reachable after the marker; `deferred` when a deferred target task
    /// (`nowait`/`depend`, launched from the task's entry) follows it instead.
    NotFound { deferred: bool },
    /// The first reachable launch can also be reached without passing the marker.
    NotDominated(InstructionValue<'ctx>),
}

/// Looks for the launch of `site`; `claimed` holds launches other sites already rewrote.
pub fn find_launch_after<'ctx>(site: &LaunchSite<'ctx>, claimed: &HashSet<LLVMValueRef>) -> LaunchSearch<'ctx> {
    let Some(marker_block) = site.marker.get_parent() else {
        return LaunchSearch::NotFound { deferred: false };
    };
    let mut deferred = false;
    let mut visited = HashSet::from_iter([marker_block.as_mut_ptr()]);
    let mut queue = VecDeque::new();
    // The rest of the marker's block (for an invoke: its normal destination), then successors.
    let mut next_scan = first_instruction_after(site.marker);
    loop {
        match scan_block_from(next_scan, claimed, &mut deferred) {
            Scan::Launch(launch) => {
                return if dominated_by_marker(site, launch) { LaunchSearch::Found(launch) } else { LaunchSearch::NotDominated(launch) }
            }
            Scan::Blocked => {}
            Scan::End(block) => {
                visited.insert(block.as_mut_ptr());
                for succ in cfg::successors(block) {
                    if visited.insert(succ.as_mut_ptr()) {
                        queue.push_back(succ);
                    }
                }
            }
        }
        match queue.pop_front() {
            Some(block) => next_scan = block.get_first_instruction(),
            None => return LaunchSearch::NotFound { deferred },
        }
    }
}

enum Scan<'ctx> {
    /// An unclaimed launch.
    Launch(InstructionValue<'ctx>),
    /// Another marker or a claimed launch ends this path.
    Blocked,
    /// The end of this block was reached.
    End(BasicBlock<'ctx>),
}

/// Walks from `start` to the end of its block; sets `deferred` on a deferred target task.
fn scan_block_from<'ctx>(start: Option<InstructionValue<'ctx>>, claimed: &HashSet<LLVMValueRef>, deferred: &mut bool) -> Scan<'ctx> {
    let Some(block) = start.and_then(|i| i.get_parent()) else {
        return Scan::Blocked;
    };
    let mut cursor = start;
    while let Some(inst) = cursor {
        if is_kernel_launch(inst) {
            return if claimed.contains(&inst.as_value_ref()) { Scan::Blocked } else { Scan::Launch(inst) };
        }
        if is_marker_call(inst) {
            return Scan::Blocked;
        }
        if is_call_to(inst, KMPC_OMP_TARGET_TASK_ALLOC) {
            *deferred = true;
        }
        cursor = inst.get_next_instruction();
    }
    Scan::End(block)
}

fn dominated_by_marker(site: &LaunchSite<'_>, launch: InstructionValue<'_>) -> bool {
    let (Some(marker_block), Some(launch_block)) = (site.marker.get_parent(), launch.get_parent()) else {
        return false;
    };
    if marker_block == launch_block {
        // Only reached walking forward from the marker (the block is never rescanned).
        return true;
    }
    cfg::dominates(site.function, marker_block, launch_block)
}
