//! `auto_features=N1,N2`: the names of a region's automatic features (`features(auto)`), the
//! one field the LLVM pass adds to the descriptor the frontend printed.
//!
//! The pass derives the features, so the frontend cannot name them; rather than read the
//! frontend's descriptor and print it again, the pass appends this field to the text as it is
//! ([`AutoFeatures::append_to`]), and the runtime's one parse ([`super::RegionDescriptor::parse`])
//! appends the names to `features=` (explicit features first, as their values are in the
//! feature array), with no declared range or sample count. A descriptor therefore reaches the
//! runtime printed once (by the frontend) and is parsed once (by the runtime); what the runtime
//! holds, and prints (stored models, reports), is what it held when the pass printed the whole
//! descriptor again: `features=` with every name, no `auto_features=`.

use std::fmt;

use crate::escape::{escape, unescape};

/// The field's key.
pub const KEY: &str = "auto_features";

/// The names of the automatic features the pass computed for a region, in the order of their
/// values in the feature array (after the explicit features).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoFeatures {
    /// Each feature's name (`trip_count(i)`, `bytes_mapped`, `ops`, …).
    pub names: Vec<String>,
}

impl AutoFeatures {
    /// The names from the field's value (the text after `auto_features=`): percent-encoded items
    /// separated by `,`; an empty value names none.
    pub fn parse_value(value: &str) -> AutoFeatures {
        let value = value.trim();
        let names = if value.is_empty() { Vec::new() } else { value.split(',').map(|s| unescape(s.trim())).collect() };
        AutoFeatures { names }
    }

    /// `spec` (a descriptor, not read) with this field at its end; `spec` itself when there are
    /// no names.
    pub fn append_to(&self, spec: &str) -> String {
        if self.names.is_empty() {
            return spec.to_owned();
        }
        format!("{}{self}", spec.trim_end())
    }
}

/// `;auto_features=N1,N2` (the leading `;` separates it from the field before it).
impl fmt::Display for AutoFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.names.iter().map(|n| escape(n)).collect();
        write!(f, ";{KEY}={}", names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::RegionDescriptor;

    /// Names with every separator the descriptor uses come back as they were.
    #[test]
    fn round_trip() {
        for names in [vec![], vec!["ops".to_owned()], vec!["trip_count(i,j)".into(), "a;b=c%".into(), " x ".into(), "bytes_mapped".into()]]
        {
            let a = AutoFeatures { names };
            let text = a.to_string();
            let value = text.strip_prefix(&format!(";{KEY}=")).unwrap();
            assert_eq!(AutoFeatures::parse_value(value), a, "{text}");
        }
        assert_eq!(
            AutoFeatures { names: vec!["trip_count(i,j)".into(), "flops".into()] }.to_string(),
            ";auto_features=trip_count(i%2Cj),flops"
        );
    }

    /// The frontend's text stays a prefix, untouched, and the runtime's one parse reads what it
    /// read when the pass printed the whole descriptor again: the names after the explicit
    /// features, no range or sample count for them, everything else as it was.
    #[test]
    fn appended_names_read_as_the_reprinted_descriptor_did() {
        let frontend = [
            "ompadapt1;model=m;loc=a.c:1;features=n;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto;feature_ranges=1:9",
            "ompadapt1;model=e;loc=a.c:1;features=;variants=cpu;values=0;numeric=0;model_type=auto",
            "ompadapt1;model=s;loc=a.c:2;features=n,m;variants=a,b;values=0,1;numeric=0;model_type=dtree;min_sample_points=,4;in_parallel=as_written;instanced=1;explore=random",
        ];
        let auto = AutoFeatures { names: vec!["trip_count(i,j)".into(), "bytes_mapped".into(), "ops".into()] };
        for spec in frontend {
            let text = auto.append_to(spec);
            assert!(text.starts_with(spec), "{text}");
            let mut reprinted = RegionDescriptor::parse(spec).unwrap().descriptor;
            reprinted.add_features(&auto.names);
            let old = reprinted.to_string(); // what the pass used to substitute
            assert!(!old.contains(KEY));
            let once = RegionDescriptor::parse(&text).unwrap();
            assert_eq!(once.descriptor, reprinted, "{text}");
            assert!(once.warnings.is_empty());
            assert_eq!(RegionDescriptor::parse(&old).unwrap().descriptor, once.descriptor, "{old}");
            // printed again (a stored model, an instance's descriptor): the names in `features=`
            assert_eq!(once.descriptor.to_string(), old);
        }
        assert_eq!(AutoFeatures::default().append_to(frontend[0]), frontend[0]);
    }
}
