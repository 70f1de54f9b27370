//! How an Apollo handle's `model_info` becomes settings of its ompadapt region.
//!
//! | `model_info` | region |
//! |---|---|
//! | `DecisionTree` / `RandomForest` | `model_type` dtree / rfc with `max_depth`, `num_trees`; trains at `min_training_data` |
//! | `LogisticRegression` | [`Region::set_model`]`(LogisticRegression)` |
//! | `explore=S` | the descriptor's `explore=` field (round-robin, random, elimination) |
//! | `min_training_data ≤ 0` | [`Region::set_explore_only`]: trains only on `__apollo_region_train` (as Apollo) |
//! | `RoundRobin` | explore-only, round-robin per feature vector |
//! | `Random` | explore-only, a uniformly random policy per execution |
//! | `Static,policy=N` | [`Region::set_fixed_variant`]`(N)` |
//!
//! Every mode runs through the region, so every execution is timed, counted, reported and
//! saved like a directive's. An environment override of the model (`OMPADAPT_MODEL`, globally
//! or for the region: `OMPADAPT_MODEL='<id>:logistic'`) wins over `model_info`'s model family,
//! as it does over a directive's `model_type`.

use super::model_info::{Kind, ModelInfo, Mode};
use ompadapt_abi::descriptor::Explore;
use crate::model::ModelChoice;
use crate::region::Region;
use crate::registry;
use crate::spec::RegionDescriptor;

/// The region of a handle, created (or found) through the registry and configured.
pub(super) fn region_for(
    mut spec: RegionDescriptor,
    info: &ModelInfo,
    mode: Mode,
    min_training_data: i32,
    num_policies: usize,
) -> &'static Region {
    let explore = match info.kind {
        Kind::Random => Some(Explore::Random),
        Kind::RoundRobin | Kind::Static { .. } => Some(Explore::RoundRobin),
        _ => info.explore,
    };
    spec.explore = explore.map(ompadapt_abi::descriptor::Setting::of);
    let model_params = match info.kind {
        Kind::DecisionTree { max_depth } => [max_depth.map_or(-1, |d| d as i64), -1],
        Kind::RandomForest { num_trees, max_depth } => [num_trees.map_or(-1, |t| t as i64), max_depth.map_or(-1, |d| d as i64)],
        _ => [-1, -1],
    };
    let auto = info.learns() && min_training_data > 0;
    // A region that must not train automatically is created with an unreachable min_train, so
    // that data loaded at creation cannot train it before it is set explore-only.
    let min_train = if auto { min_training_data as i64 } else { i64::MAX };
    let g = registry::global();
    let region = g.lookup(Some(&spec.to_string()), crate::spec::CallArgs { min_train, model_params });
    if !auto {
        region.set_explore_only(true);
        region.set_min_train(num_policies);
    }
    if info.kind == Kind::LogisticRegression && g.config().model_override.get(&region.spec.model).is_none() {
        region.set_model(ModelChoice::LogisticRegression);
    }
    if let Mode::Fixed(policy) = mode {
        region.set_fixed_variant(Some(policy));
    }
    region
}

/// `__apollo_region_train`: train now on what was measured (also before `min_training_data`).
pub(super) fn train_now(region: &Region) -> Result<(), String> {
    region.train_now().map(|_| ())
}
