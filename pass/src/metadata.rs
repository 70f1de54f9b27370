//! Metadata the pass leaves behind for later tools (and tests):
//!
//! ```llvm
//! !ompadapt.regions = !{!0}
//! !0 = !{!"<model>", !"<region id global>", !"<host fallback function or empty>"}
//! br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch !1
//! !1 = !{!"<model>"}
//! ```

use inkwell::context::ContextRef;
use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, InstructionValue};

/// Named metadata with one node per rewritten site.
pub const REGIONS_METADATA: &str = "ompadapt.regions";

/// Metadata kind attached to each dispatch branch.
pub const DISPATCH_METADATA: &str = "ompadapt.dispatch";

/// One entry of [`REGIONS_METADATA`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionRecord {
    /// Model name, from the marker's string.
    pub model: String,
    /// Name of the region id global passed to the launch (`.__omp_offloading_<...>.region_id`).
    pub region_id: String,
    /// Name of the host fallback (`__omp_offloading_<...>`), empty if none was found.
    pub host_fallback: String,
}

/// Appends `record` to [`REGIONS_METADATA`].
pub fn record_region(module: &Module<'_>, record: &RegionRecord) {
    let context = module.get_context();
    let node = context.metadata_node(&[
        string(&context, &record.model),
        string(&context, &record.region_id),
        string(&context, &record.host_fallback),
    ]);
    module.add_global_metadata(REGIONS_METADATA, &node).expect("a metadata node is valid named metadata");
}

/// Attaches `!ompadapt.dispatch !{!"<model>"}` to a dispatch branch.
pub fn tag_dispatch_branch(context: &ContextRef<'_>, branch: InstructionValue<'_>, model: &str) {
    let node = context.metadata_node(&[string(context, model)]);
    let kind = context.get_kind_id(DISPATCH_METADATA);
    branch.set_metadata(node, kind).expect("a metadata node can be attached to a branch");
}

/// The records of [`REGIONS_METADATA`] in `module`, in order (operands that are not strings
/// read as empty).
pub fn recorded_regions(module: &Module<'_>) -> Vec<RegionRecord> {
    module
        .get_global_metadata(REGIONS_METADATA)
        .into_iter()
        .map(|node| {
            let values = node.get_node_values().unwrap_or_default();
            let field = |i: usize| -> String {
                match values.get(i) {
                    Some(BasicMetadataValueEnum::MetadataValue(m)) => {
                        m.get_string_value().map(|s| String::from_utf8_lossy(s).into_owned()).unwrap_or_default()
                    }
                    _ => String::new(),
                }
            };
            RegionRecord { model: field(0), region_id: field(1), host_fallback: field(2) }
        })
        .collect()
}

fn string<'ctx>(context: &ContextRef<'ctx>, s: &str) -> BasicMetadataValueEnum<'ctx> {
    context.metadata_string(s).into()
}
