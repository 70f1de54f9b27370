//! A seeded mutation fuzzer for the frontend plugin: it mutates a corpus of valid adaptive and
//! plain OpenMP sources (tokens deleted, duplicated, swapped; odd numbers and identifiers;
//! unbalanced and deeply nested brackets; directives turned into `_Pragma` or macros; clause
//! arguments from macros; truncation; directives inserted anywhere, also at the end of the
//! file), compiles each case with clang-19 and the plugin, and judges the outcome: a crash, a
//! Rust panic, an internal error, a hang or an error without a source location is a failure —
//! unless stock clang-19 fails the same way on the same input without the plugin.
//!
//! Case `i` of seed `s` is always the same source: a failure is reproduced by its number.

use crate::{plugin, CLANG, HOST_OFFLOAD};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// A source file of the corpus.
#[derive(Clone, Debug)]
pub struct Seed {
    pub name: String,
    pub text: String,
    pub cplusplus: bool,
}

/// The corpus: tests/fuzz/corpus, the test programs and the example.
pub fn corpus() -> Vec<Seed> {
    let root = crate::workspace_root();
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["tests/fuzz/corpus", "tests/programs", "examples"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        files.extend(rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "c" || x == "cpp")));
    }
    files.sort();
    files
        .into_iter()
        .map(|p| Seed {
            name: p.file_name().unwrap().to_string_lossy().into_owned(),
            cplusplus: p.extension().is_some_and(|x| x == "cpp"),
            text: std::fs::read_to_string(&p).unwrap(),
        })
        .collect()
}

/// Byte spans of the C tokens of `src` (comments and whitespace skipped; `#` is a token).
pub fn token_spans(src: &str) -> Vec<(usize, usize)> {
    const PUNCT: [&str; 22] = [
        "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "::", "##",
        "|=",
    ];
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
            continue;
        }
        if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80 || b[i] == b'.' && c.is_ascii_digit()) {
                i += 1;
            }
        } else {
            i += PUNCT.iter().find(|p| src[i..].starts_with(*p)).map_or(1, |p| p.len());
        }
        while !src.is_char_boundary(i) {
            i += 1;
        }
        out.push((start, i.min(b.len())));
    }
    out
}

const ODD_NUMBERS: [&str; 20] = [
    "0",
    "-1",
    "1e309",
    "0x7fffffffffffffff",
    "18446744073709551616",
    "99999999999999999999999",
    "1.5",
    "1e-320",
    "08",
    "0777",
    "0b101",
    "1'000",
    "0x1p-2",
    ".5",
    "1e",
    "0x",
    "4294967297",
    "-0",
    "1024",
    "0.001",
];

const ODD_IDENTIFIERS: [&str; 32] = [
    "for",
    "if",
    "when",
    "default",
    "otherwise",
    "variants",
    "model_name",
    "features",
    "feature",
    "use_model",
    "variant_mapping",
    "adaptation",
    "_Pragma",
    "__ompadapt_api",
    "_ompadapt_c1",
    "omp_num_threads",
    "omp_num_teams",
    "metadirective",
    "declare",
    "end",
    "begin",
    "target",
    "parallel",
    "int",
    "struct",
    "return",
    "sizeof",
    "range",
    "min_sample_points",
    "model_output",
    "cpu",
    "\u{3bb}",
];

/// Directive lines (and lines that upset statement collection) inserted at random places.
fn directive_snippets() -> Vec<String> {
    let mut v: Vec<String> = [
        "#pragma omp adaptation model_name(fz) features(n) variants(cpu, gpu)",
        "#pragma omp begin adaptation model_name(fz2) variants([1:8:1])",
        "#pragma omp end adaptation",
        "#pragma omp end adaptation model_name(fz2)",
        "#pragma omp declare adaptation feature(n)",
        "#pragma omp declare adaptation use_model(fz3) variant_mapping(0)",
        "#pragma omp declare adaptation use_model(\"later\") variant_mapping(1, 0)",
        "#pragma omp declare adaptation model_name(fz3) feature(range[0:10], min_sample_points(3): n)",
        "#pragma omp declare adaptation model_name(later) model(random_forest) feature(n)",
        "#pragma omp metadirective when(:) default(parallel for)",
        "#pragma omp metadirective when(: target enter data map(to: a[0:1]))",
        "#pragma omp metadirective when(user={adaptation(fz == cpu)}: parallel for) otherwise()",
        "#pragma omp metadirective when(user={adaptation(fz2 >= 4)}: parallel when)",
        "#pragma omp metadirective when(: parallel for notinbranch) default(simd)",
        "#pragma omp target",
        "#pragma omp parallel for",
        "#pragma omp barrier",
        "#pragma omp adaptation",
        "#pragma omp declare adaptation",
        "#pragma omp adaptation model_name(fz5) variants([0:1:0.0001])",
        "#pragma omp adaptation model_name(fz7) variants(a) model_output(x.y[3])",
        "#pragma omp adaptation model_name(fz8) features(omp_num_threads) variants(1, 2) model_output(*p)",
        "_Pragma(\"omp adaptation model_name(fz4) variants(a, b)\")",
        "_Pragma(\"omp declare adaptation feature(n)\") _Pragma(\"omp metadirective when(:) default(simd)\")",
        "#pragma unroll",
        "#pragma clang loop vectorize(enable)",
        "#pragma GCC diagnostic push",
        "#pragma pack(1)",
        "#pragma STDC FP_CONTRACT ON",
        "#include <stddef.h>",
        "#if 0",
        "#endif",
        "#define N 3",
        "#define _Pragma(x)",
        "{",
        "}",
        "try {",
        "do",
        "else",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("#pragma omp adaptation model_name(deep) features({}n{}) variants(a, b)", "(".repeat(300), ")".repeat(300)));
    v.push(format!(
        "#pragma omp adaptation model_name(many) variants({})",
        (0..2000).map(|i| format!("v{i}")).collect::<Vec<_>>().join(",")
    ));
    v
}

/// The `#pragma omp` lines of `src`, as byte ranges (with continuation lines).
fn pragma_lines(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < src.len() {
        let end = src[pos..].find('\n').map_or(src.len(), |e| pos + e);
        let mut line_end = end;
        while line_end > pos && src.as_bytes()[line_end - 1] == b'\\' && line_end < src.len() {
            line_end = src[line_end + 1..].find('\n').map_or(src.len(), |e| line_end + 1 + e);
        }
        if src[pos..line_end].trim_start().starts_with("#pragma omp") {
            out.push((pos, line_end));
        }
        pos = line_end + 1;
    }
    out
}

/// A C string literal holding `s` (for `_Pragma`).
fn quoted(s: &str) -> String {
    let mut q = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push(' '),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Applies one random mutation to `src`. `others` is the corpus, for crossover.
pub fn mutate_once(src: &str, rng: &mut ChaCha8Rng, others: &[Seed], plain_only: bool) -> String {
    let m = Mutable::new(src);
    let ops = if plain_only { 10 } else { 17 };
    if m.toks.is_empty() {
        return src.to_string();
    }
    match rng.random_range(0..ops) {
        op @ 0..=2 => m.token_edit(op, rng),
        3 => m.odd_number(rng),
        4 => m.odd_identifier(rng, plain_only),
        5 => m.stray_bracket(rng),
        6 => m.truncate(rng),
        7 => m.line_edit(rng),
        8 => m.crossover(rng, others, plain_only),
        9 => m.deep_nesting(rng),
        op @ 10..=12 => m.directive_rewrite(op, rng),
        13 | 14 => m.insert_directive(rng),
        15 => match m.pragma_tok(rng) {
            Some((s, e)) => m.splice(s, e, ""),
            None => src.to_string(),
        },
        _ => m.big_variant_list(rng),
    }
}

/// A source being mutated: its text, its tokens and its `#pragma omp` lines (byte ranges).
struct Mutable<'a> {
    src: &'a str,
    toks: Vec<(usize, usize)>,
    pragmas: Vec<(usize, usize)>,
}

impl<'a> Mutable<'a> {
    fn new(src: &'a str) -> Mutable<'a> {
        Mutable { src, toks: token_spans(src), pragmas: pragma_lines(src) }
    }

    /// The source with bytes `s..e` replaced by `with`.
    fn splice(&self, s: usize, e: usize, with: &str) -> String {
        format!("{}{}{}", &self.src[..s], with, &self.src[e..])
    }

    fn pick_tok(&self, rng: &mut ChaCha8Rng) -> (usize, usize) {
        self.toks[rng.random_range(0..self.toks.len())]
    }

    /// A token inside a pragma line, when there is one.
    fn pragma_tok(&self, rng: &mut ChaCha8Rng) -> Option<(usize, usize)> {
        let (ps, pe) = *self.pragmas.choose(rng)?;
        let inside: Vec<(usize, usize)> = self.toks.iter().copied().filter(|(s, e)| *s >= ps && *e <= pe).collect();
        inside.choose(rng).copied()
    }

    /// A token deleted (0), duplicated (1) or swapped with the next (2).
    fn token_edit(&self, op: u32, rng: &mut ChaCha8Rng) -> String {
        let src = self.src;
        match op {
            0 => {
                let (s, e) = self.pick_tok(rng);
                self.splice(s, e, "")
            }
            1 => {
                let (s, e) = self.pick_tok(rng);
                self.splice(e, e, &format!(" {}", &src[s..e]))
            }
            _ => {
                let toks = &self.toks;
                let i = rng.random_range(0..toks.len());
                let j = (i + 1).min(toks.len() - 1);
                let ((a, b), (c, d)) = (toks[i], toks[j]);
                if i == j {
                    return src.to_string();
                }
                format!("{}{}{}{}{}", &src[..a], &src[c..d], &src[b..c], &src[a..b], &src[d..])
            }
        }
    }

    /// A number replaced by an odd one.
    fn odd_number(&self, rng: &mut ChaCha8Rng) -> String {
        let nums: Vec<(usize, usize)> = self.toks.iter().copied().filter(|(s, _)| self.src.as_bytes()[*s].is_ascii_digit()).collect();
        match nums.choose(rng) {
            Some(&(s, e)) => self.splice(s, e, ODD_NUMBERS.choose(rng).unwrap()),
            None => self.src.to_string(),
        }
    }

    /// An identifier replaced by an odd one (now and then by a very long one).
    fn odd_identifier(&self, rng: &mut ChaCha8Rng, plain_only: bool) -> String {
        let b = self.src.as_bytes();
        let ids: Vec<(usize, usize)> = self.toks.iter().copied().filter(|(s, _)| b[*s].is_ascii_alphabetic() || b[*s] == b'_').collect();
        match ids.choose(rng) {
            Some(&(s, e)) if rng.random_bool(0.05) => self.splice(s, e, &"x".repeat(5000)),
            Some(&(s, e)) => {
                let id = ODD_IDENTIFIERS.choose(rng).unwrap();
                // Plain sources stay plain: no adaptation words, no names of the injected
                // header (a program declaring those is not plain OpenMP).
                self.splice(s, e, if plain_only && id.contains("adaptation") || id.contains("ompadapt") { "x" } else { id })
            }
            None => self.src.to_string(),
        }
    }

    /// An unbalanced bracket, mostly inside a directive.
    fn stray_bracket(&self, rng: &mut ChaCha8Rng) -> String {
        let at = if rng.random_bool(0.6) { self.pragma_tok(rng) } else { None }.unwrap_or_else(|| self.pick_tok(rng));
        let b = ["(", ")", "[", "]", "{", "}"].choose(rng).unwrap();
        self.splice(at.0, at.0, b)
    }

    /// Truncation, often right after a directive: a directive at the end of the file.
    fn truncate(&self, rng: &mut ChaCha8Rng) -> String {
        let cut = match self.pragmas.choose(rng) {
            Some(&(_, e)) if rng.random_bool(0.5) => e,
            _ => self.pick_tok(rng).1,
        };
        self.src[..cut].to_string()
    }

    /// A line removed or duplicated.
    fn line_edit(&self, rng: &mut ChaCha8Rng) -> String {
        let lines: Vec<&str> = self.src.lines().collect();
        let i = rng.random_range(0..lines.len().max(1));
        let mut out: Vec<&str> = lines.clone();
        if rng.random_bool(0.5) && !out.is_empty() {
            out.remove(i.min(out.len() - 1));
        } else if !out.is_empty() {
            out.insert(i.min(out.len()), lines[i.min(lines.len() - 1)]);
        }
        out.join("\n")
    }

    /// Crossover: a line of another source.
    fn crossover(&self, rng: &mut ChaCha8Rng, others: &[Seed], plain_only: bool) -> String {
        let src = self.src;
        let pool: Vec<&Seed> = others.iter().filter(|o| !plain_only || is_plain(&o.text)).collect();
        let other = pool.choose(rng).map_or(src, |o| o.text.as_str());
        let line = other.lines().collect::<Vec<_>>().choose(rng).copied().unwrap_or("");
        let at = src.match_indices('\n').map(|(i, _)| i + 1).collect::<Vec<_>>();
        let pos = at.choose(rng).copied().unwrap_or(0);
        self.splice(pos, pos, &format!("{line}\n"))
    }

    /// A bracket nesting Clang's limit (256) away from either side.
    fn deep_nesting(&self, rng: &mut ChaCha8Rng) -> String {
        let src = self.src;
        let k = *[255usize, 256, 257, 300, 2000, 20000].choose(rng).unwrap();
        let (s, e) = self.pick_tok(rng);
        format!("{}{}{}{}{}", &src[..s], "(".repeat(k), &src[s..e], ")".repeat(k), &src[e..])
    }

    /// A directive spelled `_Pragma` (10) or through a macro defined at the top (11), or a
    /// clause argument from a macro (12).
    fn directive_rewrite(&self, op: u32, rng: &mut ChaCha8Rng) -> String {
        let src = self.src;
        match op {
            10 => match self.pragmas.choose(rng) {
                // `#pragma omp X` -> `_Pragma("omp X")`
                Some(&(s, e)) => {
                    let body = src[s..e].trim_start().trim_start_matches("#pragma").replace("\\\n", " ");
                    self.splice(s, e, &format!("_Pragma({})", quoted(body.trim())))
                }
                None => src.to_string(),
            },
            11 => match self.pragmas.choose(rng) {
                // The directive through a macro defined at the top.
                Some(&(s, e)) => {
                    let body = src[s..e].trim_start().trim_start_matches("#pragma").replace("\\\n", " ");
                    format!("#define OA_FUZZ_PRAGMA _Pragma({})\n{}OA_FUZZ_PRAGMA{}", quoted(body.trim()), &src[..s], &src[e..])
                }
                None => src.to_string(),
            },
            _ => match self.pragma_tok(rng) {
                // A clause argument from a macro.
                Some((s, e)) => format!("#define OA_FUZZ_M {}\n{}OA_FUZZ_M{}", &src[s..e], &src[..s], &src[e..]),
                None => src.to_string(),
            },
        }
    }

    /// A directive line inserted at the start of a line, or at the end of the file.
    fn insert_directive(&self, rng: &mut ChaCha8Rng) -> String {
        let src = self.src;
        let snippets = directive_snippets();
        let snippet = snippets.choose(rng).unwrap();
        let at: Vec<usize> = std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let pos = if rng.random_bool(0.15) { src.len() } else { *at.choose(rng).unwrap() };
        self.splice(pos, pos, &format!("{snippet}\n"))
    }

    /// A big variant list where a small one was.
    fn big_variant_list(&self, rng: &mut ChaCha8Rng) -> String {
        let src = self.src;
        let Some(v) = src.find("variants(") else { return src.to_string() };
        let close = src[v..].find(')').map_or(src.len(), |c| v + c);
        let big = ["[1:1024:1]", "[1:1025:1]", "[0:1:0.001]", "[0:1:0.01]", "[32:1024:32]", "[1:1e18:1]"].choose(rng).unwrap();
        self.splice(v + "variants(".len(), close, big)
    }
}

/// Case `index` of `seed`: a corpus source with 1 to 3 mutations.
pub fn make_case(corpus: &[Seed], seed: u64, index: u64, plain_only: bool) -> Seed {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index);
    let pool: Vec<&Seed> = corpus.iter().filter(|s| !plain_only || is_plain(&s.text)).collect();
    let base = pool[rng.random_range(0..pool.len())];
    let mut text = base.text.clone();
    for _ in 0..rng.random_range(1..=3) {
        text = mutate_once(&text, &mut rng, corpus, plain_only);
    }
    Seed { name: format!("{}-{index}", base.name), text, cplusplus: base.cplusplus }
}

/// A source without any adaptation directive.
pub fn is_plain(text: &str) -> bool {
    !text.contains("adaptation")
}

/// How a compilation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Compiled, or rejected with located diagnostics.
    Fine {
        errors: bool,
    },
    Crash(String),
    Hang,
    /// A Rust panic that reached the user, or the plugin's last-resort internal error.
    Panic(String),
    /// An error without a file:line:col location in the user's source.
    Unlocated(String),
}

impl Verdict {
    pub fn is_failure(&self) -> bool {
        !matches!(self, Verdict::Fine { .. })
    }
}

/// A crash of stock clang-19 itself, which the plugin can expose where stock clang's error
/// recovery happens to skip the construct (the plugin's pragma handler reads a region's
/// statement ahead, so a directive inside a broken declaration is parsed instead of skipped).
pub struct StockCrash {
    /// What stock clang-19 crashes on.
    pub what: &'static str,
    /// Lines that must all appear in the crash's stderr (an error and a stack frame).
    pub signature: &'static [&'static str],
    /// A source without adaptation directives on which stock clang-19 crashes the same way.
    pub reproducer: &'static str,
}

pub static STOCK_CRASHES: &[StockCrash] = &[StockCrash {
    what: "a target construct whose num_teams, thread_limit or num_threads names a function \
           (Sema reports it, then crashes capturing the function as a variable)",
    signature: &[
        "error: expression must have integral or unscoped enumeration type, not '",
        "clang::SemaOpenMP::isOpenMPPrivateDecl",
    ],
    reproducer: "void f(double *C, int N) {\n  int G(int);\n#pragma omp target teams distribute parallel for thread_limit(G)\n  for (int i = 0; i < N; ++i) C[i] = 1;\n}\n",
}];

/// The stock clang-19 crash a crash's stderr shows, if it is one of `STOCK_CRASHES`.
pub fn stock_crash(stderr: &str) -> Option<&'static StockCrash> {
    STOCK_CRASHES.iter().find(|c| c.signature.iter().all(|s| stderr.contains(s)))
}

/// Judges a compilation from its exit and stderr; `src` is the path clang was given.
pub fn judge(status: Option<std::process::ExitStatus>, stderr: &str, src: &Path) -> Verdict {
    let Some(status) = status else { return Verdict::Hang };
    let first = |pat: &str| stderr.lines().find(|l| l.contains(pat)).unwrap_or(pat).to_string();
    for pat in ["PLEASE submit a bug report", "Stack dump:", "Assertion", "due to signal", "Segmentation fault"] {
        if stderr.contains(pat) {
            return Verdict::Crash(first(pat));
        }
    }
    use std::os::unix::process::ExitStatusExt;
    if status.signal().is_some() || status.code().is_some_and(|c| c > 1) {
        return Verdict::Crash(format!("exit {status}"));
    }
    for pat in ["panicked at", "RUST_BACKTRACE", "internal error in the ompadapt plugin"] {
        if stderr.contains(pat) {
            return Verdict::Panic(first(pat));
        }
    }
    let path = src.to_string_lossy();
    for line in stderr.lines() {
        if !line.contains("error:") || line.contains("too many errors emitted") {
            continue;
        }
        // `FILE:LINE:COL: error:` in the case itself (or a header it includes).
        let located = line.split(": ").next().is_some_and(|loc| {
            let mut parts = loc.rsplitn(3, ':');
            let (col, ln, file) = (parts.next(), parts.next(), parts.next());
            col.is_some_and(|c| c.parse::<u32>().is_ok())
                && ln.is_some_and(|l| l.parse::<u32>().is_ok())
                && file.is_some_and(|f| f == path || f.starts_with('/') && !f.starts_with("<"))
        });
        if !located {
            return Verdict::Unlocated(line.to_string());
        }
    }
    Verdict::Fine { errors: !status.success() }
}

/// How to compile one case.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    pub full: bool,
    pub offload: bool,
    pub with_plugin: bool,
    /// Zero-source-change mode (with remarks), when with the plugin.
    pub auto: bool,
}

/// The kinds fuzzed cases use in zero-source-change mode: every kind for target constructs.
pub const AUTO_KINDS_FLAG: &str = "-fplugin-arg-ompadapt-auto=cpu,gpu,thread_limit[64:128:64],num_teams[2:4:2],coschedule[0:1:0.5]";

/// Compiles `path` (C or C++ by extension) and judges the result within `timeout`.
pub fn compile_case(path: &Path, mode: Mode, timeout: Duration) -> (Verdict, String) {
    compile_with(path, mode, &["-ferror-limit=40", "-fno-caret-diagnostics", "-w"], timeout)
}

/// As `compile_case`, with `flags` instead of the fuzzer's own.
pub fn compile_with(path: &Path, mode: Mode, flags: &[&str], timeout: Duration) -> (Verdict, String) {
    let mut c = Command::new(CLANG);
    if path.extension().is_some_and(|e| e == "cpp") {
        c.arg("-x").arg("c++");
    }
    // The test programs include their common.h.
    let programs = crate::workspace_root().join("tests/programs");
    c.args(["-fopenmp", "-fno-color-diagnostics"]).arg("-I").arg(programs).args(flags);
    if mode.offload {
        c.arg(HOST_OFFLOAD);
    }
    if mode.full {
        c.args(["-c", "-O1", "-o", "/dev/null"]);
    } else {
        c.arg("-fsyntax-only");
    }
    if mode.with_plugin {
        c.arg(format!("-fplugin={}", plugin().display()));
        if mode.auto {
            c.args([AUTO_KINDS_FLAG, "-fplugin-arg-ompadapt-remarks"]);
        }
    }
    c.arg(path).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    // Its own process group, so that a hang is ended with the driver's cc1 jobs.
    std::os::unix::process::CommandExt::process_group(&mut c, 0);
    // The compiler's own crash-report files go to the scratch dir, not /tmp.
    c.env("TMPDIR", path.parent().unwrap());
    let mut child = c.spawn().expect("spawn clang-19");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = match child.wait_timeout(timeout).expect("wait") {
        Some(s) => Some(s),
        None => {
            // End the driver's process group (the driver and its cc1 jobs).
            let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    let text = reader.join().unwrap_or_default();
    (judge(status, &text, path), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_pragmas() {
        let src = "int a = 1; // c\n#pragma omp adaptation model_name(m) \\\n variants(a)\nx;";
        let t: Vec<&str> = token_spans(src).iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(&t[..5], ["int", "a", "=", "1", ";"]);
        let p = pragma_lines(src);
        assert_eq!(p.len(), 1);
        assert!(src[p[0].0..p[0].1].ends_with("variants(a)"));
    }

    #[test]
    fn cases_are_reproducible() {
        let corpus = corpus();
        assert!(corpus.len() >= 8);
        for i in 0..50 {
            assert_eq!(make_case(&corpus, 7, i, false).text, make_case(&corpus, 7, i, false).text);
        }
        assert!((0..50).all(|i| is_plain(&make_case(&corpus, 7, i, true).text)));
    }

    #[test]
    fn a_hang_is_ended_with_its_compiler_jobs() {
        // Stock clang-19 never finishes this (a 300-deep condition in a metadirective).
        let dir = crate::scratch();
        let path = dir.path().join("hang.c");
        let cond = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        std::fs::write(
            &path,
            format!("void f(int n) {{\n#pragma omp metadirective when(user={{condition({cond})}}: parallel) default(simd)\n  n++;\n}}\n"),
        )
        .unwrap();
        let t = std::time::Instant::now();
        let mode = Mode { full: false, offload: true, with_plugin: false, auto: false };
        let (v, _) = compile_with(&path, mode, &["-w"], Duration::from_secs(3));
        assert_eq!(v, Verdict::Hang);
        assert!(t.elapsed() < Duration::from_secs(30), "the stderr reader waited for the compiler's jobs");
    }

    #[test]
    fn verdicts() {
        use std::os::unix::process::ExitStatusExt;
        let p = Path::new("/tmp/x.c");
        let ok = std::process::ExitStatus::from_raw(0);
        let err = std::process::ExitStatus::from_raw(1 << 8);
        assert_eq!(judge(Some(ok), "", p), Verdict::Fine { errors: false });
        assert_eq!(judge(Some(err), "/tmp/x.c:3:4: error: bad\n1 error generated.\n", p), Verdict::Fine { errors: true });
        assert!(matches!(judge(Some(err), "error: bad\n", p), Verdict::Unlocated(_)));
        assert!(matches!(judge(Some(err), "<built-in>:3:4: error: bad\n", p), Verdict::Unlocated(_)));
        assert!(matches!(judge(Some(err), "/tmp/x.c:1:1: error: internal error in the ompadapt plugin: x\n", p), Verdict::Panic(_)));
        assert!(matches!(judge(Some(std::process::ExitStatus::from_raw(11)), "", p), Verdict::Crash(_)));
        assert_eq!(judge(None, "", p), Verdict::Hang);
    }
}
