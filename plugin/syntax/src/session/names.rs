//! Names the session gives: of regions' locations, of the model of an erroneous directive, of
//! a metadirective's variants.

use crate::directive_variant::DirectiveVariant;
use crate::token::{spell_written, Tok};
use std::collections::HashSet;

/// `file:line` with the file's directory left out, for generated region names (which name the
/// region's folder of learned data: no slashes).
pub(super) fn short_location(location: &str) -> String {
    location.rsplit('/').next().unwrap_or(location).to_string()
}

/// The name of a model in an erroneous directive, for suppressing follow-up errors.
pub(super) fn guess_model_name(toks: &[Tok]) -> String {
    toks.windows(3)
        .find(|w| w[0].is_ident("model_name") && w[1].is_punct("("))
        .map(|w| w[2].text.trim_matches('"').to_string())
        .unwrap_or_default()
}

/// Display names of a metadirective's variants: the directive as written (`parallel for`), or
/// `plain` for a variant without a directive; unique (a repeated name gets `#index`).
pub(super) fn variant_names<'a>(toks: &[Tok], variants: impl Iterator<Item = &'a DirectiveVariant>) -> Vec<String> {
    const LONGEST: usize = 64;
    let mut out: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (i, v) in variants.enumerate() {
        let mut name = if v.pieces.is_empty() {
            "plain".to_string()
        } else {
            v.pieces.iter().map(|r| spell_written(toks, r.clone())).collect::<Vec<_>>().join(" ")
        };
        if name.chars().count() > LONGEST {
            name = name.chars().take(LONGEST).collect::<String>() + "...";
        }
        if !seen.insert(name.clone()) {
            name = format!("{name} #{i}");
            seen.insert(name.clone());
        }
        out.push(name);
    }
    out
}
