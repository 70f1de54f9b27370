//! Which name a mistyped one most likely meant: one rule for the frontend's diagnostics
//! (clause names) and the `ompadapt` command (region names).

/// The candidate a mistyped `word` most likely meant (`varients` → `variants`): the closest by
/// edit distance (transpositions count once, as clap counts them), if within a third of the
/// word's length.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|&c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|&(d, c)| d <= limit && c != word)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn typos_find_their_name() {
        let clauses = ["model_name", "features", "variants", "min_train_data", "model_type", "model_output"];
        assert_eq!(closest("varients", &clauses), Some("variants"));
        assert_eq!(closest("feautres", &clauses), Some("features"));
        assert_eq!(closest("modle_type", &clauses), Some("model_type"));
        assert_eq!(closest("foo", &clauses), None);
        assert_eq!(closest("schedule", &clauses), None);
        assert_eq!(closest("by_m", &["by_n", "layout"]), Some("by_n"));
    }
}
