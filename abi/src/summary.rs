//! Summaries across translation units: what the team analysis found in the functions a
//! translation unit defines, so that a parallel region whose code calls a function of another
//! translation unit (or of a shared library built with ompadapt) is decided when the whole
//! program is known — by the runtime, from the summaries of every loaded image — instead of
//! being left as written because the compiler could not see the callee.
//!
//! Two pieces, both text:
//!
//! * a **module summary** ([`ModuleSummary`]), one per translation unit, in an ELF note
//!   (`.note.ompadapt`, name [`NOTE_NAME`], type [`NOTE_TYPE`]) of the object: the linker
//!   concatenates the notes of every object into the image's `PT_NOTE` segment, which the
//!   runtime reads in memory (`dl_iterate_phdr`) for the executable and each shared library;
//! * a region's **dependencies** ([`Dependencies`]), the descriptor field `depends=`: the
//!   functions of other translation units its code calls, each with how the region runs the
//!   call ([`Key`]). The runtime runs the region's variants only where every dependency — and
//!   everything those call, transitively — has a summary and none of them found anything; else
//!   the region runs as written (variant -1) and the report says why.
//!
//! The format of one summary line:
//!
//! ```text
//! F <key> <symbol> clean [<key>:<symbol>,...]   nothing found; calls these of other units
//! F <key> <symbol> left <id> <why, escaped>      the analysis found <why> (remark OMPADAPT<id>)
//! T <why, escaped>                               the unit's parallel code uses thread-local data
//! ```
//!
//! after a first line `ompadapt-summary 1`. Symbols are the linker's names (C++ mangled,
//! Fortran's trailing `_`); text is percent-encoded ([`crate::escape`]).
#![allow(clippy::module_name_repetitions)]

use std::collections::BTreeSet;
use std::fmt;

use crate::escape::{escape, unescape};

/// The ELF note's name (its owner).
pub const NOTE_NAME: &str = "ompadapt";
/// The ELF note's type: a module summary.
pub const NOTE_TYPE: u32 = 0x4f41_0001;
/// The section the notes go to.
pub const NOTE_SECTION: &str = ".note.ompadapt";
/// The first line of a module summary.
pub const HEADER: &str = "ompadapt-summary 1";
/// Why thread-local data in parallel code keeps every team as it is (the pass's remark and the
/// runtime's report say it alike).
pub const THREAD_LOCAL_CONSEQUENCE: &str = "its values persist between parallel regions only while their teams keep one size";
/// The descriptor field that lists a region's dependencies.
pub const DEPENDS_KEY: &str = "depends";

/// How a region's code runs a call of another unit's function: every thread of the team, once
/// each (`R`; `P` where every pointer it passes points at the thread's own memory), divided
/// among the team or by one thread (`D`), or by every thread of an enclosing team, worksharing
/// and all (`N`: in a nested parallel region started by every thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// Every thread calls it; its pointer arguments may be shared.
    Replicated,
    /// Every thread calls it; every pointer argument is the thread's own.
    ReplicatedPrivate,
    /// One thread calls it, or the team divides the calls.
    Divided,
    /// Every thread of an enclosing team runs it, worksharing included.
    Nested,
}

impl Key {
    /// Every key, in the order summaries list them.
    pub const ALL: [Key; 4] = [Key::Replicated, Key::ReplicatedPrivate, Key::Divided, Key::Nested];

    /// The one-letter spelling.
    pub fn letter(self) -> char {
        match self {
            Key::Replicated => 'R',
            Key::ReplicatedPrivate => 'P',
            Key::Divided => 'D',
            Key::Nested => 'N',
        }
    }

    /// The key spelled `c`.
    pub fn from_letter(c: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| c.len() == 1 && c.starts_with(k.letter()))
    }

    /// In words, for reports.
    pub fn words(self) -> &'static str {
        match self {
            Key::Replicated => "called by every thread",
            Key::ReplicatedPrivate => "called by every thread with its own memory",
            Key::Divided => "called in divided work",
            Key::Nested => "called in a nested region",
        }
    }
}

/// One function of another unit that a region's code calls, and how.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dependency {
    /// How the call runs.
    pub key: Key,
    /// The callee's symbol.
    pub symbol: String,
}

impl fmt::Display for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.key.letter(), escape(&self.symbol))
    }
}

impl Dependency {
    /// Reads `K:symbol`.
    pub fn parse(s: &str) -> Option<Dependency> {
        let (k, sym) = s.trim().split_once(':')?;
        let symbol = unescape(sym);
        (!symbol.is_empty()).then_some(Dependency { key: Key::from_letter(k)?, symbol })
    }
}

/// A region's or a function's dependencies, in order, without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependencies(pub BTreeSet<Dependency>);

impl Dependencies {
    /// Reads a `,`-separated list; None if an item cannot be read.
    pub fn parse(s: &str) -> Option<Dependencies> {
        let s = s.trim();
        if s.is_empty() {
            return Some(Dependencies::default());
        }
        s.split(',').map(Dependency::parse).collect::<Option<BTreeSet<_>>>().map(Dependencies)
    }

    /// `spec` (a region descriptor, not read) with the field `;depends=…` at its end; `spec`
    /// itself when there are none.
    pub fn append_to(&self, spec: &str) -> String {
        if self.0.is_empty() {
            return spec.to_owned();
        }
        format!("{};{DEPENDS_KEY}={self}", spec.trim_end())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Dependencies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.0.iter().map(Dependency::to_string).collect();
        f.write_str(&items.join(","))
    }
}

/// What the analysis found in one function, run one way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing that observes the team; it calls these functions of other units.
    Clean(Dependencies),
    /// It observes the team: the remark's number and why, in words.
    Left {
        /// The remark identifier's number (`OMPADAPT<id>`).
        id: u16,
        /// What was found and where.
        why: String,
    },
}

/// One function's summary for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSummary {
    /// How its caller runs it.
    pub key: Key,
    /// Its symbol.
    pub symbol: String,
    /// What the analysis found.
    pub verdict: Verdict,
}

/// The summary of one translation unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleSummary {
    /// The functions it defines for other units, each under every key.
    pub functions: Vec<FunctionSummary>,
    /// Where its parallel code uses thread-local data (whose values persist between parallel
    /// regions only while teams keep one size), in words.
    pub thread_local: Option<String>,
}

impl fmt::Display for ModuleSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        if let Some(t) = &self.thread_local {
            writeln!(f, "T {}", escape(t))?;
        }
        for s in &self.functions {
            write!(f, "F {} {} ", s.key.letter(), escape(&s.symbol))?;
            match &s.verdict {
                Verdict::Clean(deps) => writeln!(f, "clean {deps}")?,
                Verdict::Left { id, why } => writeln!(f, "left {id} {}", escape(why))?,
            }
        }
        Ok(())
    }
}

impl ModuleSummary {
    /// Reads a summary; None if its header is not [`HEADER`] (another version). Lines that
    /// cannot be read are skipped: their functions then have no summary, which only leaves
    /// regions as written.
    pub fn parse(text: &str) -> Option<ModuleSummary> {
        let mut lines = text.lines();
        if lines.next()?.trim() != HEADER {
            return None;
        }
        let mut m = ModuleSummary::default();
        for line in lines {
            if let Some(t) = line.strip_prefix("T ") {
                m.thread_local = Some(unescape(t.trim()));
            } else if let Some(s) = line.strip_prefix("F ").and_then(parse_function) {
                m.functions.push(s);
            }
        }
        Some(m)
    }
}

fn parse_function(rest: &str) -> Option<FunctionSummary> {
    let mut parts = rest.splitn(4, ' ');
    let key = Key::from_letter(parts.next()?)?;
    let symbol = unescape(parts.next()?);
    let verdict = match parts.next()? {
        "clean" => Verdict::Clean(Dependencies::parse(parts.next().unwrap_or(""))?),
        "left" => {
            let (id, why) = parts.next()?.split_once(' ')?;
            Verdict::Left { id: id.parse().ok()?, why: unescape(why) }
        }
        _ => return None,
    };
    Some(FunctionSummary { key, symbol, verdict })
}

/// The summaries of a whole program (its executable and shared libraries), indexed, to
/// complete the verdicts of regions whose code calls other units.
#[derive(Debug, Default)]
pub struct Program {
    /// Per function and key, what its summaries say (a function summarised by several units,
    /// weak definitions: the first finding wins, else every dependency of every one).
    functions: std::collections::HashMap<(Key, String), Verdict>,
    /// Where a unit's parallel code uses thread-local data.
    thread_local: Option<String>,
}

impl Program {
    /// The program of these module summaries.
    pub fn new<'a>(modules: impl IntoIterator<Item = &'a ModuleSummary>) -> Program {
        let mut p = Program::default();
        for m in modules {
            if p.thread_local.is_none() {
                p.thread_local.clone_from(&m.thread_local);
            }
            for f in &m.functions {
                let entry = p.functions.entry((f.key, f.symbol.clone())).or_insert_with(|| f.verdict.clone());
                match (&mut *entry, &f.verdict) {
                    (Verdict::Clean(mine), Verdict::Clean(more)) => mine.0.extend(more.0.iter().cloned()),
                    (Verdict::Clean(_), left) => *entry = left.clone(),
                    (Verdict::Left { .. }, _) => {}
                }
            }
        }
        p
    }

    /// How many functions (under every key) it summarises.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// Whether it summarises nothing.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// Whether a region with dependencies `deps` runs its variants: Ok where every dependency,
    /// and everything it calls in turn, has a summary that found nothing (and no unit's parallel
    /// code uses thread-local data); else why not, in words.
    pub fn resolve(&self, deps: &Dependencies) -> Result<(), String> {
        if let Some(t) = &self.thread_local {
            return Err(format!("{t}; {THREAD_LOCAL_CONSEQUENCE}"));
        }
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<(Dependency, Vec<String>)> = deps.0.iter().map(|d| (d.clone(), Vec::new())).collect();
        while let Some((d, path)) = stack.pop() {
            if !seen.insert(d.clone()) {
                continue;
            }
            let through = if path.is_empty() { String::new() } else { format!(", called from '{}'", path.join("' <- '")) };
            match self.functions.get(&(d.key, d.symbol.clone())) {
                None => {
                    return Err(format!(
                        "'{}'{through} has no summary: no unit of the program or of its loaded libraries built with ompadapt defines it",
                        d.symbol
                    ))
                }
                Some(Verdict::Left { id, why }) => return Err(format!("in '{}'{through}: {why} [OMPADAPT{id}]", d.symbol)),
                Some(Verdict::Clean(more)) => {
                    let mut inner = vec![d.symbol.clone()];
                    inner.extend(path.iter().cloned());
                    stack.extend(more.0.iter().map(|m| (m.clone(), inner.clone())));
                }
            }
        }
        Ok(())
    }
}

/// The bytes of an ELF note holding `desc`: name and description each padded to 4 bytes (the
/// layout of `Elf64_Nhdr` and `Elf32_Nhdr` alike), in the byte order `little_endian` says.
pub fn note_bytes(desc: &[u8], little_endian: bool) -> Vec<u8> {
    note_bytes_of(NOTE_TYPE, desc, little_endian)
}

/// An ompadapt ELF note of type `kind` (a summary, [`crate::decisions::NOTE_TYPE`]) holding `desc`.
pub fn note_bytes_of(kind: u32, desc: &[u8], little_endian: bool) -> Vec<u8> {
    let word = |v: u32| if little_endian { v.to_le_bytes() } else { v.to_be_bytes() };
    let name = NOTE_NAME.as_bytes();
    let mut out = Vec::new();
    out.extend(word(name.len() as u32 + 1));
    out.extend(word(desc.len() as u32));
    out.extend(word(kind));
    out.extend(name);
    out.push(0);
    pad4(&mut out);
    out.extend(desc);
    pad4(&mut out);
    out
}

fn pad4(v: &mut Vec<u8>) {
    while v.len() % 4 != 0 {
        v.push(0);
    }
}

/// The descriptions of the notes in `segment` (the bytes of a `PT_NOTE` segment, in the
/// machine's byte order) that are module summaries.
pub fn summaries_in_notes(segment: &[u8]) -> Vec<&[u8]> {
    notes_of_type(segment, NOTE_TYPE)
}

/// The descriptions of the ompadapt notes of type `wanted` in `segment` (the machine's byte order).
pub fn notes_of_type(segment: &[u8], wanted: u32) -> Vec<&[u8]> {
    let word = |at: usize| segment.get(at..at + 4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let up4 = |n: usize| n.div_ceil(4) * 4;
    let mut out = Vec::new();
    let mut at = 0;
    while let (Some(namesz), Some(descsz), Some(kind)) = (word(at), word(at + 4), word(at + 8)) {
        let name_at = at + 12;
        let desc_at = name_at + up4(namesz);
        let Some(desc) = segment.get(desc_at..desc_at + descsz) else { break };
        let name = segment.get(name_at..name_at + namesz).unwrap_or_default();
        if kind as u32 == wanted && name.strip_suffix(&[0]) == Some(NOTE_NAME.as_bytes()) {
            out.push(desc);
        }
        at = desc_at + up4(descsz);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ModuleSummary {
        let deps = Dependencies::parse("D:timer_start,P:randlc").unwrap();
        ModuleSummary {
            functions: vec![
                FunctionSummary { key: Key::Divided, symbol: "_Z3fooPd".into(), verdict: Verdict::Clean(deps) },
                FunctionSummary { key: Key::Replicated, symbol: "bar_".into(), verdict: Verdict::Clean(Dependencies::default()) },
                FunctionSummary {
                    key: Key::Nested,
                    symbol: "baz".into(),
                    verdict: Verdict::Left { id: 141, why: "it calls omp_get_thread_num (at a.c:3, in 'baz'); x=1,y".into() },
                },
            ],
            thread_local: Some("'counter' in 'tick'".into()),
        }
    }

    /// What is written reads back the same.
    #[test]
    fn round_trip() {
        let m = sample();
        assert_eq!(ModuleSummary::parse(&m.to_string()), Some(m));
    }

    /// Another version's header is not read; a line that cannot be read is skipped.
    #[test]
    fn versions_and_bad_lines() {
        assert_eq!(ModuleSummary::parse("ompadapt-summary 2\nF R f clean \n"), None);
        let m = ModuleSummary::parse("ompadapt-summary 1\nF Q f clean \nF R g clean \nF R h left x y\n").unwrap();
        assert_eq!(m.functions.len(), 1);
        assert_eq!(m.functions[0].symbol, "g");
    }

    /// Notes of several objects, concatenated as a linker does, give back each summary; other
    /// owners' notes are skipped.
    #[test]
    fn notes_concatenated() {
        let mut segment = note_bytes(b"one", cfg!(target_endian = "little"));
        let mut other = Vec::new();
        for w in [4u32, 2, 3] {
            other.extend(w.to_ne_bytes());
        }
        other.extend(b"GNU\0ab\0\0");
        segment.extend(other);
        segment.extend(note_bytes(b"second one", cfg!(target_endian = "little")));
        assert_eq!(summaries_in_notes(&segment), vec![&b"one"[..], &b"second one"[..]]);
        assert!(summaries_in_notes(&segment[..5]).is_empty());
    }

    /// A region runs its variants only where every function it reaches through other units has
    /// a clean summary; a missing one, a finding anywhere on the way, or thread-local data in any
    /// unit keeps it as written, and the reason names the function and the way there.
    #[test]
    fn program_resolution() {
        let m = sample();
        let deps = |t: &str| Dependencies::parse(t).unwrap();
        let p = Program::new([&ModuleSummary { thread_local: None, ..m.clone() }]);
        assert!(p.resolve(&deps("R:bar_")).is_ok());
        let other = ModuleSummary {
            functions: vec![
                FunctionSummary { key: Key::Divided, symbol: "timer_start".into(), verdict: Verdict::Clean(deps("D:wtime_")) },
                FunctionSummary { key: Key::Divided, symbol: "wtime_".into(), verdict: Verdict::Clean(deps("D:_Z3fooPd")) },
                FunctionSummary { key: Key::ReplicatedPrivate, symbol: "randlc".into(), verdict: Verdict::Clean(Dependencies::default()) },
            ],
            thread_local: None,
        };
        let p = Program::new([&ModuleSummary { thread_local: None, ..m.clone() }, &other]);
        // _Z3fooPd (D) calls timer_start (D) -> wtime_ -> _Z3fooPd again: a cycle, and randlc (P)
        assert_eq!(p.resolve(&deps("D:_Z3fooPd")), Ok(()));
        let why = p.resolve(&deps("D:timer_start,N:baz")).unwrap_err();
        assert!(why.contains("'baz'") && why.contains("OMPADAPT141"), "{why}");
        let why = p.resolve(&deps("R:randlc")).unwrap_err();
        assert!(why.contains("'randlc' has no summary"), "{why}");
        let with_tls = Program::new([&m, &other]);
        assert!(with_tls.resolve(&deps("R:bar_")).unwrap_err().contains("'counter'"));
        // several units summarise a weak function: a finding in one wins
        let weak = |v: Verdict| ModuleSummary {
            functions: vec![FunctionSummary { key: Key::Divided, symbol: "w".into(), verdict: v }],
            thread_local: None,
        };
        let (clean, left) = (weak(Verdict::Clean(Dependencies::default())), weak(Verdict::Left { id: 145, why: "x".into() }));
        assert!(Program::new([&clean, &left]).resolve(&deps("D:w")).is_err());
        assert!(Program::new([&left, &clean]).resolve(&deps("D:w")).is_err());
    }

    /// Dependencies append after the descriptor and read back.
    #[test]
    fn depends_field() {
        let d = Dependencies::parse("R:a,D:b%2Cc").unwrap();
        assert_eq!(d.0.iter().map(|x| x.symbol.as_str()).collect::<Vec<_>>(), vec!["a", "b,c"]);
        assert_eq!(d.append_to("ompadapt1;model=m"), "ompadapt1;model=m;depends=R:a,D:b%2Cc");
        assert_eq!(Dependencies::default().append_to("x"), "x");
        assert!(Dependencies::parse("R:a,Z:b").is_none());
    }
}
