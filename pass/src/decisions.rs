//! Each construct's decision kept in the binary (see `ompadapt_abi::decisions`): the remarks
//! that decide a construct ([`crate::statistics::DECISIONS`]) become one line each of the unit's
//! decisions note, read by `ompadapt inspect`, so that why a region is not adaptive does not
//! need a rebuild with `-Rpass-missed=ompadapt`.

use crate::fast_hash::HashMap;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use ompadapt_abi::decisions::{Decision, Status, UnitDecisions, NOTE_TYPE};
use ompadapt_abi::markers::DECISIONS_NOTE;
use ompadapt_abi::{RegionDescriptor, FORMAT};

use crate::remarks::{Remark, RemarkId, RemarkKind};
use crate::statistics::DECISIONS;

/// What a deciding remark says became of its construct.
fn status(id: RemarkId) -> Status {
    match id {
        RemarkId::ExplicitRegionConstruct => Status::Explicit,
        id if id.kind() == RemarkKind::Passed => Status::Adaptive,
        _ => Status::AsWritten,
    }
}

/// The regions whose descriptor `module` holds (a constant string `ompadapt1;model=...`), in
/// module order.
fn descriptors(module: &Module<'_>) -> Vec<RegionDescriptor> {
    module
        .get_globals()
        .filter_map(|g| crate::ir::c_string(g.as_value_ref()))
        .filter(|text| text.starts_with(FORMAT))
        .filter_map(|text| RegionDescriptor::parse(&text).ok())
        .map(|p| p.descriptor)
        .collect()
}

/// The regions of explicit directives no remark decided (a `begin adaptation` around a parallel
/// construct, a `declare adaptation`): adaptive as their directive says, placed at it.
fn by_directive(descriptors: &[RegionDescriptor], decided: &UnitDecisions) -> Vec<Decision> {
    let mut out: Vec<Decision> = Vec::new();
    for d in descriptors {
        if decided.0.iter().chain(&out).any(|x| x.region == d.model) {
            continue;
        }
        out.push(Decision {
            status: Status::Adaptive,
            remark: DIRECTIVE.to_owned(),
            place: d.loc.clone(),
            region: d.model.clone(),
            variants: d.variants.join(","),
            depends: String::new(),
            why: "an explicit adaptation directive: its variants".to_owned(),
        });
    }
    out
}

/// The `remark` of a decision an explicit directive made.
pub const DIRECTIVE: &str = "directive";

/// The decisions `remarks` hold, in their order; a region that waits for other units' summaries
/// (OMPADAPT158 beside its verdict) is pending, with their list; an adaptive region's variants
/// are its descriptor's in `variants`.
pub fn of_remarks(remarks: &[Remark], variants: &HashMap<String, String>) -> UnitDecisions {
    let depends_of = |model: &str| {
        remarks
            .iter()
            .filter(|r| r.id == RemarkId::DependsOnOtherUnits && r.model == model)
            .find_map(|r| crate::team::depends_of_remark(&r.message))
            .unwrap_or_default()
            .to_owned()
    };
    UnitDecisions(
        remarks
            .iter()
            .filter(|r| DECISIONS.contains(&r.id))
            .map(|r| {
                let depends = depends_of(&r.model);
                let status = match status(r.id) {
                    Status::Adaptive if !depends.is_empty() => Status::Pending,
                    s => s,
                };
                let (remark, place, region, why) =
                    (r.id.code().to_owned(), r.place().unwrap_or_default(), r.model.clone(), r.message.clone());
                let variants = match status {
                    Status::Adaptive | Status::Pending => variants.get(&r.model).cloned().unwrap_or_default(),
                    _ => String::new(),
                };
                Decision { status, remark, place, region, variants, depends, why }
            })
            .fold(Vec::new(), |mut unit, d| {
                // (copies of one construct decide alike: one line)
                if !unit.contains(&d) {
                    unit.push(d);
                }
                unit
            }),
    )
}

/// Adds the decisions of `remarks` to `module` as its note, once: a second run of the pass (or
/// one over modules LTO linked) adds none. Returns whether it added the note.
pub fn record(module: &Module<'_>, remarks: &[Remark]) -> bool {
    let descriptors = descriptors(module);
    let variants = descriptors.iter().map(|d| (d.model.clone(), d.variants.join(","))).collect();
    let mut unit = of_remarks(remarks, &variants);
    let directives = by_directive(&descriptors, &unit);
    unit.0.extend(directives);
    if unit.0.is_empty() || crate::notes::has_global(module, DECISIONS_NOTE) {
        return false;
    }
    crate::notes::add(module, NOTE_TYPE, DECISIONS_NOTE, &unit.to_string());
    true
}
