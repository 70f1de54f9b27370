//! Region descriptors as the runtime reads them. The type, its encoding and its only parser
//! are the contract crate's (`ompadapt-abi`), shared with the plugin and the pass that write
//! them; see `include/ompadapt.h` for the format.

pub use ompadapt_abi::descriptor::{Association, DescriptorError, ModelType, Parsed, RegionDescriptor};
pub use ompadapt_abi::escape::unescape as decode;
pub use ompadapt_abi::MAX_VARIANTS;

/// What a call site passes beside its descriptor: the expressions of `min_train_data(...)` and
/// of `model_type(kind, a, b)`'s parameters, evaluated where the region runs (-1: not given).
/// The parameters mean what the model type says: a tree's depth; a forest's trees and depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallArgs {
    /// `min_train_data(...)` (-1: not given).
    pub min_train: i64,
    /// `model_type(kind, a, b)`'s `[a, b]` (-1: not given).
    pub model_params: [i64; 2],
}

impl Default for CallArgs {
    fn default() -> CallArgs {
        CallArgs::NONE
    }
}

impl CallArgs {
    /// Nothing given: every value from the descriptor, the environment or the defaults.
    pub const NONE: CallArgs = CallArgs { min_train: -1, model_params: [-1, -1] };

    /// `min_train_data` as given, if it is a usable count.
    pub fn min_train(&self) -> Option<usize> {
        (self.min_train >= 1).then_some(self.min_train as usize)
    }
}

/// Parses a descriptor (see [`RegionDescriptor::parse`]).
pub fn parse(text: &str) -> Result<Parsed, DescriptorError> {
    RegionDescriptor::parse(text)
}
