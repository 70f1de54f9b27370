//! The worksharing loops of a `features(auto)` region, as the frontend names them for the pass:
//! the plugin writes them into the auto-features marker's last argument, and the pass names each
//! loop's `trip_count(...)` feature after them.
//!
//! ```text
//! i,j;k
//! ```
//!
//! Loops in source order separated by `;`, the variables of a collapsed nest joined by `,`
//! (above: a nest of two loops over `i` and `j`, then a loop over `k`). The empty text is no
//! loop (a construct without worksharing loops).

use std::fmt;

/// The loops of a region, each named by the variables of its (collapsed) nest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopNames {
    /// Per loop, the variables of its nest, outermost first (never empty).
    pub loops: Vec<Vec<String>>,
}

impl LoopNames {
    /// Reads the text the frontend wrote; empty loops (`;;`) and blank names are left out, so
    /// that any text reads as some list.
    pub fn parse(text: &str) -> LoopNames {
        let loops = text
            .split(';')
            .map(|nest| nest.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned).collect::<Vec<_>>())
            .filter(|nest| !nest.is_empty())
            .collect();
        LoopNames { loops }
    }

    /// Loop `i`'s name in a feature: its variables joined by `,` (`i,j`).
    pub fn label(&self, i: usize) -> Option<String> {
        self.loops.get(i).map(|nest| nest.join(","))
    }

    /// How many loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether there is no loop.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }
}

impl fmt::Display for LoopNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nests: Vec<String> = self.loops.iter().map(|nest| nest.join(",")).collect();
        f.write_str(&nests.join(";"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_leniency() {
        let n = LoopNames::parse("i,j;k");
        assert_eq!(n.loops, vec![vec!["i".to_owned(), "j".to_owned()], vec!["k".to_owned()]]);
        assert_eq!((n.to_string().as_str(), n.label(0).as_deref(), n.len()), ("i,j;k", Some("i,j"), 2));
        assert!(LoopNames::parse("").is_empty() && LoopNames::default().to_string().is_empty());
        assert_eq!(LoopNames::parse(" i ; ;k, ").to_string(), "i;k");
    }
}
