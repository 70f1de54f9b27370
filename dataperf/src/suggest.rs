//! What to write instead: for each finding, a concrete change to the program, built only from
//! what the tool saw — the constructs' kinds and lines, the map clause's text and map type, the
//! loop around a construct (read from the source), the call of an inlined function, how many
//! times, how many bytes — and what it would save.
//!
//! The saving of a suggestion is the finding's own operations: their bytes and the time they
//! took in this run (their bytes at the transfer rate measured for them). Suggestions can
//! overlap (a transfer can be a duplicate and the end of a round trip); the report's `savings`
//! counts each operation once.
//!
//! The tool hashes whole transfers: it knows *that* data is unchanged, never *which part*
//! changed, so it never suggests updating a part of an array.
//!
//! Every change takes something for granted ([`Assumes`]): that no kernel at the construct
//! writes the data, that the host does not change it between the transfers a data region would
//! remove, that no kernel reads what a transfer sends, that no kernel runs while an allocation
//! lives. Before a suggestion is made, what it takes for granted is checked against what the
//! run saw of the same list item ([`Seen`]): a change the run contradicts is reworded so that
//! it holds (a `target update` added where the host changes the data, "only when" instead of
//! "remove") or withheld (action `none`), and the suggestion says what was seen.

use serde::Serialize;

use crate::analysis::{Agg, Seen, UnusedWhy};
use crate::sites::{Construct, MapType};
use crate::symbolize::plain_name;
use crate::units::{fmt_bytes, fmt_ns};

mod check;
pub use check::Assumes;
use check::Parts;

/// The kind of finding a suggestion is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A device received content it had received before.
    Duplicate,
    /// Content came back unchanged to where it was sent from.
    RoundTrip,
    /// The same data allocated and deleted again.
    RepeatedAlloc,
    /// An allocation no kernel ran during.
    UnusedAlloc,
    /// A transfer no kernel read, and why.
    UnusedTransfer(UnusedWhy),
    /// A deletion of memory never seen allocated.
    UnmatchedDelete,
}

/// The call of an inlined function, in its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallPlace {
    /// The calling function.
    pub function: Option<String>,
    /// The caller's source file.
    pub file: String,
    /// The line of the call.
    pub line: u32,
    /// The line of the innermost loop around the call.
    pub loop_line: Option<u32>,
}

/// A construct as a suggestion names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// What kind of construct it is.
    pub construct: Construct,
    /// Its source file.
    pub file: Option<String>,
    /// Its line (0: unknown).
    pub line: u32,
    /// Its function.
    pub function: Option<String>,
    /// The line of the innermost loop around it in its function.
    pub loop_line: Option<u32>,
    /// Where its function was inlined into its caller.
    pub caller: Option<CallPlace>,
}

/// A finding as the suggestion sees it.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The kind of finding.
    pub pattern: Pattern,
    /// The construct that issued the operations (None: a row merged for lack of memory).
    pub site: Option<Place>,
    /// The other construct of the finding: where a duplicate's content first arrived, where a
    /// round trip's content was sent out, where a repeated allocation was first made, where an
    /// unused allocation was deleted, the transfer that overwrote an unused one.
    pub other: Option<Place>,
    /// The map clause's list item (`a[0:n]`), when the program has debug information.
    pub var: Option<String>,
    /// Its map type, when the entry points were seen.
    pub map_type: Option<MapType>,
    /// The data's host address (0: unknown).
    pub host_addr: u64,
    /// Its operations: count, bytes, time.
    pub ops: Agg,
    /// The data went to the host: a duplicate the host received, a round trip that started
    /// on the host.
    pub to_host: bool,
    /// What the run saw of the finding's list item at its construct on its target device.
    pub seen: Seen,
    /// What the run saw of the same data (its host address) on that device, at every construct.
    pub data_seen: Seen,
}

/// What to write instead, and what it would save.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// The suggestion in words, with the saving.
    pub text: String,
    /// `hoist-to-target-data`, `keep-resident`, `skip-update`, `map-to`, `map-alloc`,
    /// `map-from`, `map-release`, `enter-exit-data`, `drop-map`, `remove-copy`, `check-free`,
    /// `raise-memory-cap` (a row merged for lack of memory has no place to name), or `none`
    /// (the change the finding asks for is contradicted by what the run saw: see
    /// `contradicted`).
    pub action: &'static str,
    /// The directive or clause to write (for `skip-update`: the one to remove or guard).
    pub clause: Option<String>,
    /// Where to change the program: `file:line` or `file:first-last`.
    #[serde(rename = "where")]
    pub place: Option<String>,
    /// Bytes the change would save (moved, or allocated for allocations).
    pub saving_bytes: u64,
    /// Time it would save: what those operations took in this run.
    pub saving_ns: u64,
    /// What the change takes for granted about the program, in words (None: nothing this run
    /// could have contradicted).
    pub assumes: Option<String>,
    /// What this run saw that contradicts the change as it would first have been worded: the
    /// suggestion was reworded so that it holds, or withheld (`action` `none`).
    pub contradicted: Option<String>,
}

impl Suggestion {
    /// Whether no change is suggested: the one the finding asks for is contradicted by the run.
    pub fn withheld(&self) -> bool {
        self.action == WITHHELD
    }
}

/// The action of a suggestion withheld because the run contradicts it.
pub const WITHHELD: &str = "none";

/// The suggestion for finding `s`: what it asks to change, checked against what the run saw
/// (reworded or withheld where the run contradicts it).
pub fn suggest(s: &Subject) -> Suggestion {
    let Some(site) = &s.site else {
        return Suggestion {
            text: "rows merged for lack of memory have no place to name: rerun with a larger OMPADAPT_DATA_MEM".into(),
            action: "raise-memory-cap",
            clause: None,
            place: None,
            saving_bytes: s.ops.bytes,
            saving_ns: s.ops.ns,
            assumes: None,
            contradicted: None,
        };
    };
    let w = Writer { s, site, var: var_text(s) };
    let p = match s.pattern {
        Pattern::Duplicate => w.duplicate(),
        Pattern::RoundTrip => w.round_trip(),
        Pattern::RepeatedAlloc => w.repeated_alloc(),
        Pattern::UnusedAlloc => w.unused_alloc(),
        Pattern::UnusedTransfer(why) => w.unused_transfer(why),
        Pattern::UnmatchedDelete => w.unmatched_delete(),
    };
    let unnamed = match (s.var.is_none() && s.pattern != Pattern::UnmatchedDelete, site.line == 0) {
        (true, true) => " (rebuild with -g for variable names and lines)",
        (true, false) => " (rebuild with -g for variable names)",
        (false, true) => " (rebuild with -g for lines)",
        (false, false) => "",
    };
    let withheld = p.action == WITHHELD;
    let saving = if s.pattern == Pattern::UnmatchedDelete || withheld {
        String::new()
    } else {
        format!("; saves {} ({}) in {} {}", fmt_bytes(s.ops.bytes), fmt_ns(s.ops.ns), s.ops.count, operations(s))
    };
    let (saving_bytes, saving_ns) = if withheld { (0, 0) } else { (s.ops.bytes, s.ops.ns) };
    Suggestion {
        text: format!("{}{saving}{unnamed}", p.text),
        action: p.action,
        clause: p.clause,
        place: p.place,
        saving_bytes,
        saving_ns,
        assumes: p.assumes,
        contradicted: p.contradicted,
    }
}

fn operations(s: &Subject) -> &'static str {
    match (s.pattern, s.ops.count) {
        (Pattern::RepeatedAlloc | Pattern::UnusedAlloc, 1) => "allocation",
        (Pattern::RepeatedAlloc | Pattern::UnusedAlloc, _) => "allocations",
        (_, 1) => "transfer",
        _ => "transfers",
    }
}

/// The variable as the program wrote it, or its size and host address.
fn var_text(s: &Subject) -> String {
    match &s.var {
        Some(v) => v.clone(),
        None => {
            let each = s.ops.bytes / s.ops.count.max(1);
            if s.host_addr != 0 {
                format!("<{each} bytes at {:#x}>", s.host_addr)
            } else {
                format!("<{each} bytes>")
            }
        }
    }
}

/// Where a region of code goes: around a loop, around lines, around the calls of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scope {
    /// The innermost loop around the constructs, in their function.
    Loop { file: String, line: u32 },
    /// The loop around the call of the constructs' (inlined) function.
    CallerLoop { call: CallPlace, loop_line: u32 },
    /// Lines `first..=last` of one function, and the whole of the loop at `loop_line` when
    /// one of the constructs is in a loop the other is not.
    Lines { file: String, first: u32, last: u32, loop_line: Option<u32> },
    /// The call of the constructs' inlined function, with no loop seen around it.
    Call { call: CallPlace },
    /// No loop or call seen: around whatever runs the construct repeatedly.
    Unseen,
}

impl Scope {
    /// Around which code the constructs at `p` and `q` (the same one when `q` is None) can
    /// share one data region.
    fn of(p: &Place, q: Option<&Place>) -> Scope {
        let file = p.file.clone().unwrap_or_default();
        let q = q.filter(|q| q.line > 0 && q.file == p.file && q.function == p.function);
        if let Some(q) = q.filter(|q| q.line != p.line) {
            if let Some(line) = p.loop_line.filter(|_| p.loop_line == q.loop_line) {
                return Scope::Loop { file, line };
            }
            let lines = [Some(p.line), Some(q.line), p.loop_line, q.loop_line];
            let first = lines.iter().flatten().min().copied().unwrap_or(p.line);
            let loop_line = p.loop_line.max(q.loop_line);
            return Scope::Lines { file, first, last: p.line.max(q.line), loop_line };
        }
        if p.line == 0 {
            return Scope::Unseen;
        }
        if let Some(line) = p.loop_line {
            return Scope::Loop { file, line };
        }
        match &p.caller {
            Some(c) => match c.loop_line {
                Some(loop_line) => Scope::CallerLoop { call: c.clone(), loop_line },
                None => Scope::Call { call: c.clone() },
            },
            None => Scope::Unseen,
        }
    }

    /// "around ..." in words; `site` is the construct a data region would enclose.
    fn around(&self, site: &Place) -> String {
        match self {
            Scope::Loop { line, .. } => format!("around the loop at line {line}"),
            Scope::CallerLoop { call, loop_line } => format!(
                "around the loop at {}{} that calls {} (line {})",
                line_in(&call.file, *loop_line, site),
                in_function(&call.function),
                function_name(site),
                call.line
            ),
            Scope::Lines { first, last, loop_line, .. } => {
                let whole = loop_line.map_or(String::new(), |l| format!(" and the whole loop at line {l}"));
                format!("around lines {first}\u{2013}{last}{whole}")
            }
            Scope::Call { call } => {
                format!(
                    "around the call of {} at {}{}",
                    function_name(site),
                    line_in(&call.file, call.line, site),
                    in_function(&call.function)
                )
            }
            Scope::Unseen => format!("around the loop or the calls that run {}", at(site)),
        }
    }

    /// The `where` of a suggestion for this scope.
    fn place(&self, site: &Place) -> Option<String> {
        match self {
            Scope::Loop { file, line } => Some(format!("{file}:{line}")),
            Scope::CallerLoop { call, loop_line } => Some(format!("{}:{loop_line}", call.file)),
            Scope::Lines { file, first, last, .. } => Some(format!("{file}:{first}-{last}")),
            Scope::Call { call } => Some(format!("{}:{}", call.file, call.line)),
            Scope::Unseen => place_of(site),
        }
    }
}

/// "line L" of the file of `site`, or "file:L" of another file.
fn line_in(file: &str, line: u32, site: &Place) -> String {
    if site.file.as_deref() == Some(file) {
        format!("line {line}")
    } else {
        format!("{file}:{line}")
    }
}

fn in_function(f: &Option<String>) -> String {
    f.as_ref().map_or(String::new(), |f| format!(" in `{}`", plain_name(f)))
}

fn function_name(p: &Place) -> String {
    p.function.as_ref().map_or("its function".to_owned(), |f| format!("`{}`", plain_name(f)))
}

fn times(n: u64) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        _ => format!("{n} times"),
    }
}

/// "line L", or the function when the line is unknown.
fn at(p: &Place) -> String {
    if p.line > 0 {
        format!("line {}", p.line)
    } else {
        format!("the construct in {}", function_name(p))
    }
}

/// `file:line` of a construct.
fn place_of(p: &Place) -> Option<String> {
    match (&p.file, p.line) {
        (Some(f), l) if l > 0 => Some(format!("{f}:{l}")),
        _ => p.function.clone(),
    }
}

/// "line L" or "lines L1–L2" for the constructs at `p` and `q`.
fn lines(p: &Place, q: Option<&Place>) -> String {
    match q.filter(|q| q.line > 0 && q.line != p.line && q.file == p.file) {
        Some(q) => format!("lines {}\u{2013}{}", p.line.min(q.line), p.line.max(q.line)),
        None => at(p),
    }
}

/// The suggestion being written for one finding.
struct Writer<'a> {
    s: &'a Subject,
    site: &'a Place,
    var: String,
}

impl Writer<'_> {
    /// For a data region in a caller (the construct's function is inlined there): the clause
    /// names the data as the called function does, which the caller may not — say whose names
    /// they are, and why the caller is the one to change. Empty for a scope in the function.
    fn names_note(&self, scope: &Scope) -> String {
        let call = match scope {
            Scope::CallerLoop { call, .. } | Scope::Call { call } => call,
            _ => return String::new(),
        };
        if self.s.var.is_none() {
            return String::new();
        }
        format!(
            " (`{}` is how {} names the data: in {} write the expressions its call at line {} passes for them; {} maps the data at every call, so only its caller can keep it on the device across calls)",
            self.var,
            function_name(self.site),
            call.function.as_deref().map_or("the caller".to_owned(), |f| format!("`{}`", plain_name(f))),
            call.line,
            function_name(self.site)
        )
    }

    /// The map-type word of the clause, or `default` when it is unknown.
    fn word(&self, default: &'static str) -> &'static str {
        self.s.map_type.map_or(default, |m| m.word())
    }

    /// The program's clause for the variable at `site`, as it reads or as the compiler made it.
    fn clause_as_written(&self, default: &'static str) -> String {
        let implicit = if self.s.map_type.is_some_and(|m| m.implicit()) { "the implicit " } else { "" };
        format!("{implicit}`map({}: {})`", self.word(default), self.var)
    }

    fn update(&self, direction: &str) -> String {
        format!("#pragma omp target update {direction}({})", self.var)
    }

    /// A `target update` at the construct that a duplicate or a round trip finds redundant:
    /// `dir` is its direction, `why` what makes it so. Removed, unless the run saw updates there
    /// carry changes: then it is to run only when the data changed.
    fn redundant_update(&self, dir: &str, why: &str) -> Parts {
        let site = self.site;
        let (assumes, who) = if dir == "from" { (Assumes::KernelsKeep, "a kernel") } else { (Assumes::HostKeeps, "the host") };
        let update = self.update(dir);
        let (text, seen) = match self.against(assumes) {
            Some(seen) => {
                (format!("run `{update}` at {} only when {who} changed `{}`, not every time: {why}", at(site), self.var), Some(seen))
            }
            None => (format!("remove `{update}` at {}, or run it only when {who} changed `{}`: {why}", at(site), self.var), None),
        };
        Parts::new("skip-update", Some(update), place_of(site), text).assuming(self.words(assumes), seen)
    }

    fn duplicate(&self) -> Parts {
        let (site, first) = (self.site, self.s.other.as_ref());
        if site.construct == Construct::Update {
            let (dir, who) = if self.s.to_host { ("from", "the host") } else { ("to", "the device") };
            return self.redundant_update(dir, &format!("{who} already received these bytes"));
        }
        let scope = Scope::of(site, first);
        if self.s.to_host {
            return self.keep_resident(&scope, self.word_among(&["from", "tofrom"], "from"), "the host already received these bytes");
        }
        let word = self.word_among(&["to", "tofrom"], "to");
        let clause = format!("#pragma omp target data map({word}: {})", self.var);
        let (copies, seen) = self.region_copies(word == "tofrom" && self.s.data_seen.device_changed > 0);
        let text = format!(
            "hoist {} of {} into `{clause}` {}{copies}{}",
            self.clause_as_written("to"),
            lines(site, first),
            scope.around(site),
            self.names_note(&scope)
        );
        Parts::new("hoist-to-target-data", Some(clause), scope.place(site), text).assuming(self.words(Assumes::HostKeepsData), seen)
    }

    /// The clause's map-type word when it is one of `allowed`, else `default`.
    fn word_among(&self, allowed: &[&str], default: &'static str) -> &'static str {
        let w = self.word(default);
        if allowed.contains(&w) {
            w
        } else {
            default
        }
    }

    /// The `target update`s a data region around the constructs needs, as words to append, and
    /// what the run saw that asks for them: `update to` where the host changes the data (when
    /// it did), `update from` where the host reads it (when `from` is asked for).
    fn region_copies(&self, from: bool) -> (String, Option<String>) {
        let seen = self.against(Assumes::HostKeepsData);
        let to = seen.as_ref().map(|_| format!("`{}` after each change the host makes to it", self.update("to")));
        let from = from.then(|| format!("`{}` where the host reads it", self.update("from")));
        let copies: Vec<String> = to.into_iter().chain(from).collect();
        let text = if copies.is_empty() { String::new() } else { format!(", with {}", copies.join(" and ")) };
        let text = match &seen {
            Some(seen) => format!("{text} ({seen})"),
            None => text,
        };
        (text, seen)
    }

    /// Keep the data on the device in a data region around `scope`, copying it to the host only
    /// where the host reads it (and to the device where the host changes it, when it did).
    fn keep_resident(&self, scope: &Scope, word: &str, why: &str) -> Parts {
        let clause = format!("#pragma omp target data map({word}: {})", self.var);
        let seen = self.against(Assumes::HostKeepsData);
        let to = match &seen {
            Some(seen) => format!(", `{}` after each change the host makes to it ({seen})", self.update("to")),
            None => String::new(),
        };
        let text = format!(
            "keep `{}` on the device: `{clause}` {}{to}, and `{}` only where the host reads it ({why}){}",
            self.var,
            scope.around(self.site),
            self.update("from"),
            self.names_note(scope)
        );
        Parts::new("keep-resident", Some(clause), scope.place(self.site), text).assuming(self.words(Assumes::HostKeepsData), seen)
    }

    fn round_trip(&self) -> Parts {
        let (site, sent) = (self.site, self.s.other.as_ref());
        if self.s.to_host {
            // Host -> device -> host, unchanged: the copy back is the waste.
            let sent_at = sent.map_or(String::new(), |p| format!(" after the host sent it at {}", at(p)));
            if site.construct == Construct::Update {
                let from = sent.map_or(String::new(), |p| format!(" at {}", at(p)));
                let why = format!("it brought back unchanged what the host had sent{from} ({})", times(self.s.ops.count));
                return self.redundant_update("from", &why);
            }
            return self.drop_from(&sent_at);
        }
        if site.construct == Construct::Update {
            let why = format!(
                "the device sent these bytes to the host{} and holds them unless a kernel changed them since",
                sent.map_or(String::new(), |p| format!(" at {}", at(p)))
            );
            return self.redundant_update("to", &why);
        }
        let scope = Scope::of(site, sent);
        let why = format!("the host sent it back unchanged {}", times(self.s.ops.count));
        self.keep_resident(&scope, "tofrom", &why)
    }

    /// A copy back to the host of data no kernel changed: map it without `from` — unless the
    /// run saw the copies back at this construct bring a kernel's changes, which that would lose.
    fn drop_from(&self, sent_at: &str) -> Parts {
        let site = self.site;
        let (action, word) = match (self.word("tofrom"), site.construct) {
            ("tofrom", _) => ("map-to", "to"),
            (_, Construct::ExitData) => ("map-release", "release"),
            _ => ("map-alloc", "alloc"),
        };
        let clause = format!("map({word}: {})", self.var);
        let instead = format!("`{clause}` instead of {} at {}", self.clause_as_written("tofrom"), at(site));
        let assumes = self.words(Assumes::KernelsKeep);
        if let Some(seen) = self.against(Assumes::KernelsKeep) {
            return self.withheld(&format!("{instead} would lose what the kernels write: {seen}"), assumes, seen);
        }
        let text = format!(
            "{instead}, if no kernel there ever writes `{}`: the device sent it back unchanged {}{sent_at}",
            self.var,
            times(self.s.ops.count)
        );
        Parts::new(action, Some(clause), place_of(site), text).assuming(assumes, None)
    }

    fn repeated_alloc(&self) -> Parts {
        let (site, first) = (self.site, self.s.other.as_ref());
        let scope = Scope::of(site, first);
        if site.construct == Construct::Api {
            let text = format!("call omp_target_alloc for {} once and omp_target_free after it, {}", self.var, scope.around(site));
            return Parts::new("enter-exit-data", None, scope.place(site), text);
        }
        let enter = format!("#pragma omp target enter data map(alloc: {})", self.var);
        let exit = format!("#pragma omp target exit data map(delete: {})", self.var);
        let mut copies = Vec::new();
        let m = self.s.map_type;
        if m.is_none_or(|m| m.to()) {
            copies.push(format!("`{}` where the host changed it", self.update("to")));
        }
        if m.is_none_or(|m| m.from()) {
            copies.push(format!("`{}` where the host reads it", self.update("from")));
        }
        let copies = if copies.is_empty() { String::new() } else { format!(", then {}", copies.join(" and ")) };
        let text =
            format!("allocate `{}` once: `{enter}` and `{exit}` {}{copies}{}", self.var, scope.around(site), self.names_note(&scope));
        Parts::new("enter-exit-data", Some(enter), scope.place(site), text)
    }

    fn unused_alloc(&self) -> Parts {
        let (site, deleted) = (self.site, self.s.other.as_ref());
        let until = match deleted {
            Some(d) if d.line > 0 && d.line != site.line => format!(" (until line {})", d.line),
            Some(_) => String::new(),
            None => " (never deleted)".into(),
        };
        // Removing the allocation takes for granted that no kernel ever uses it; where the run
        // saw kernels use other allocations here, only "when its kernels run" holds.
        let seen = self.against(Assumes::Idle);
        let assumes = self.words(Assumes::Idle);
        if site.construct == Construct::Api {
            let text = match &seen {
                Some(seen) => format!("call the omp_target_alloc at {} only when a kernel will use it: no kernel ran while {} was allocated{until}, but {seen}", at(site), self.var),
                None => format!("no kernel ran while {} was allocated{until}: remove the omp_target_alloc at {}", self.var, at(site)),
            };
            return Parts::new("drop-map", None, place_of(site), text).assuming(assumes, seen);
        }
        // A `target data` region: OMPT shows it as an enter and an exit at the same line.
        let data = if deleted.is_some_and(|d| d.line == site.line && d.construct == Construct::ExitData) {
            "target data"
        } else {
            "target enter data"
        };
        let clause = format!("#pragma omp {data} if(...) map({}: {})", self.word("alloc"), self.var);
        let (head, tail) = (format!("no kernel ran while `{}` was allocated{until}", self.var), self.clause_as_written("alloc"));
        let text = match &seen {
            Some(seen) => format!("{head}, but {seen}: map it at {} only when its kernels run: `{clause}`", at(site)),
            None => format!("{head}: remove {tail} at {}, or map it only when its kernels run: `{clause}`", at(site)),
        };
        Parts::new("drop-map", Some(clause), place_of(site), text).assuming(assumes, seen)
    }

    fn unused_transfer(&self, why: UnusedWhy) -> Parts {
        let site = self.site;
        let reason = match why {
            UnusedWhy::Overwritten => match &self.s.other {
                Some(o) => format!("the `{}` at {} overwrites it before any kernel reads it", o.construct.name(), at(o)),
                None => "a later transfer overwrites it before any kernel reads it".to_owned(),
            },
            UnusedWhy::Deleted => "it is deleted before any kernel reads it".to_owned(),
            UnusedWhy::NoKernelAfter => "no kernel runs after it".to_owned(),
        };
        let (action, clause, change) = match site.construct {
            Construct::Update => ("skip-update", Some(self.update("to")), format!("remove `{}` at {}", self.update("to"), at(site))),
            Construct::Api => ("remove-copy", None, format!("remove the copy of {} at {}", self.var, at(site))),
            _ => {
                let (action, word) = if self.word("to") == "tofrom" { ("map-from", "from") } else { ("map-alloc", "alloc") };
                let clause = format!("map({word}: {})", self.var);
                let change = format!("`{clause}` instead of {} at {}", self.clause_as_written("to"), at(site));
                (action, Some(clause), change)
            }
        };
        let assumes = self.words(Assumes::Unread);
        if let Some(seen) = self.against(Assumes::Unread) {
            // Some transfers here were unused, others read: the change would lose the latter.
            return self.withheld(&format!("{change} would lose what the kernels read: {reason} here, but {seen}"), assumes, seen);
        }
        Parts::new(action, clause, place_of(site), format!("{change}: {reason}")).assuming(assumes, None)
    }

    fn unmatched_delete(&self) -> Parts {
        let site = self.site;
        let what = if site.construct == Construct::Api { "the omp_target_free" } else { "the deletion" };
        let text = format!(
            "{what} at {} frees device memory never allocated through OpenMP, or freed already: free only what omp_target_alloc \
             returned on that device, once",
            at(site)
        );
        Parts::new("check-free", None, place_of(site), text)
    }
}

#[cfg(test)]
mod tests;
