//! What the compiler decided for each OpenMP construct of a translation unit, kept in the
//! binary so that `ompadapt inspect BINARY` can say why a region is or is not adaptive without
//! a rebuild with `-Rpass-missed=ompadapt`.
//!
//! One note per translation unit, in the same ELF section as the summaries
//! ([`crate::summary::NOTE_SECTION`], owner [`crate::summary::NOTE_NAME`], type [`NOTE_TYPE`]):
//! the linker concatenates them, so an executable or a shared library lists every unit's
//! decisions. The text, after a first line [`HEADER`], has one line per decided construct,
//! tab-separated, each field percent-encoded ([`crate::escape`]):
//!
//! ```text
//! <status> <remark id> <place> <region> <variants> <depends> <why>
//! ```
//!
//! `place` is where the compiler's remark about it is (`file:line:column`, the construct's
//! directive), `region` the region's name (the store's and the remarks'), `variants` an adaptive
//! region's variants (comma-separated, from its descriptor; empty otherwise), `depends` the other
//! units' functions the verdict waits for (the descriptor's `depends=`, empty if none) and `why`
//! the remark's text after `region '<name>': `.
#![allow(clippy::module_name_repetitions)]

use std::fmt;

use crate::escape::{escape, unescape};

/// The ELF note's type: a unit's decisions.
pub const NOTE_TYPE: u32 = 0x4f41_0002;
/// The first line of a unit's decisions.
pub const HEADER: &str = "ompadapt-decisions 1";

/// What became of a construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Adaptive: the runtime picks among its variants.
    Adaptive,
    /// Adaptive where the summaries of other units, read at run time, clear the functions it
    /// calls (`depends`); else it runs as written.
    Pending,
    /// Left as written, for the reason given.
    AsWritten,
    /// A construct of an explicit adaptive region: its directive decides.
    Explicit,
}

impl Status {
    /// Every status, in the order listings give them.
    pub const ALL: [Status; 4] = [Status::Adaptive, Status::Pending, Status::AsWritten, Status::Explicit];

    /// The word a note and `--json` use.
    pub fn word(self) -> &'static str {
        match self {
            Status::Adaptive => "adaptive",
            Status::Pending => "pending",
            Status::AsWritten => "as-written",
            Status::Explicit => "explicit",
        }
    }

    /// The status spelled `w`.
    pub fn from_word(w: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.word() == w)
    }
}

/// One construct's decision.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decision {
    /// What became of it.
    pub status: Status,
    /// The remark that decided it (`OMPADAPT141`).
    pub remark: String,
    /// `file:line:column` of the remark.
    pub place: String,
    /// The region's name.
    pub region: String,
    /// An adaptive region's variants, comma-separated (empty: none known, or left as written).
    pub variants: String,
    /// The descriptor's `depends=` list (empty: none).
    pub depends: String,
    /// The remark's text after `region '<name>': `.
    pub why: String,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields = [self.status.word(), &self.remark, &self.place, &self.region, &self.variants, &self.depends, &self.why];
        let fields: Vec<String> = fields.iter().map(|s| escape(s)).collect();
        write!(f, "{}", fields.join("\t"))
    }
}

impl Decision {
    /// Reads one line written by [`Decision`]'s `Display`.
    pub fn parse(line: &str) -> Option<Decision> {
        let fields: Vec<String> = line.split('\t').map(unescape).collect();
        let [status, remark, place, region, variants, depends, why] = <[String; 7]>::try_from(fields).ok()?;
        Some(Decision { status: Status::from_word(&status)?, remark, place, region, variants, depends, why })
    }
}

/// A translation unit's decisions, as its note holds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitDecisions(pub Vec<Decision>);

impl fmt::Display for UnitDecisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl UnitDecisions {
    /// Reads a note's text; None where it is not one (another version, not text). A line that
    /// does not parse is skipped: a later writer's extra line must not hide the others.
    pub fn parse(text: &str) -> Option<UnitDecisions> {
        let mut lines = text.lines();
        (lines.next()? == HEADER).then(|| UnitDecisions(lines.filter_map(Decision::parse).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_reads_back_what_it_wrote() {
        let unit = UnitDecisions(vec![
            Decision {
                status: Status::AsWritten,
                remark: "OMPADAPT141".into(),
                place: "/src/a b.c:5:1".into(),
                region: "tid_sum@a b.c:5".into(),
                variants: String::new(),
                depends: String::new(),
                why: "left as written: it calls omp_get_thread_num\t(at a.c:6; in 'f')".into(),
            },
            Decision {
                status: Status::Pending,
                remark: "OMPADAPT150".into(),
                place: "m.f90:3:7".into(),
                region: "main@m.f90:3".into(),
                variants: "serial,threads=0.5".into(),
                depends: "R:work_,D:_Z1fv".into(),
                why: "became adaptive, 50% faster".into(),
            },
        ]);
        let text = unit.to_string();
        assert!(text.starts_with(HEADER));
        assert_eq!(text.lines().count(), 3, "one line per decision: {text}");
        assert_eq!(UnitDecisions::parse(&text), Some(unit));
    }

    #[test]
    fn other_text_is_no_unit_and_bad_lines_are_skipped() {
        assert_eq!(UnitDecisions::parse("ompadapt-summary 1\n"), None);
        let text = format!("{HEADER}\nadaptive\tOMPADAPT150\ta.c:1:1\tr@a.c:1\tserial\t\tok\nnonsense\nfuture\tx\ty\tz\tw\tv\n");
        let unit = UnitDecisions::parse(&text).unwrap();
        assert_eq!(unit.0.len(), 1);
        assert_eq!(unit.0[0].region, "r@a.c:1");
    }
}
