//! Region descriptors as the runtime reads them. The type, its encoding and its only parser
//! are the contract crate's (`ompadapt-abi`), shared with the plugin and the pass that write
//! them; see `include/ompadapt.h` for the format.

pub use ompadapt_abi::descriptor::{Association, DescriptorError, ModelType, Parsed, RegionDescriptor};
pub use ompadapt_abi::escape::unescape as decode;
pub use ompadapt_abi::MAX_VARIANTS;

/// Parses a descriptor (see [`RegionDescriptor::parse`]).
pub fn parse(text: &str) -> Result<Parsed, DescriptorError> {
    RegionDescriptor::parse(text)
}
