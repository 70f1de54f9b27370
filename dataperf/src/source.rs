//! What the source says around a construct, read from the file: the loop around a line (so a
//! suggestion can say "around the loop at line L" instead of "around these lines"), and the
//! calls of a function (where the compiler inlined it and kept no record of the call).
//!
//! A byte-by-byte scan holding nothing but a stack as deep as the code's nesting (bounded: a
//! file nested deeper gives no answer). It knows comments, string and character literals,
//! preprocessor lines (skipped), blocks, and `for`, `while` and `do` statements with or without
//! braces. It does not preprocess: both branches of an `#if` are read, so a file whose braces
//! balance only after preprocessing can give a wrong loop or none — which makes a suggestion
//! less precise, never a finding wrong.

use std::io::{BufRead, BufReader};
use std::path::Path;

/// Blocks deeper than this: no answer.
const MAX_DEPTH: usize = 4096;
/// Calls of a function reported, at most.
const MAX_CALLS: usize = 16;

/// The line of the `for`, `while` or `do` of the innermost loop around line `line` of the
/// file at `path` (None: no loop there, or the file cannot be read).
pub fn enclosing_loop_in_file(path: &Path, line: u32) -> Option<u32> {
    let f = std::fs::File::open(path).ok()?;
    enclosing_loop(BufReader::new(f), line)
}

/// The line of the `for`, `while` or `do` of the innermost loop around line `line` (1-based)
/// of the source `src`: a loop whose body holds the line, or whose header is on it with its
/// body (`for (...) f(x);`).
pub fn enclosing_loop(src: impl BufRead, line: u32) -> Option<u32> {
    let mut t = LoopTracker::new(line);
    match scan(src, &mut t) {
        Ok(()) | Err(Stop::Done) => t.answer,
        Err(Stop::Unreadable) => None,
    }
}

/// The lines where the file at `path` calls `function` (a plain identifier), at most
/// [`MAX_CALLS`]; none when the file cannot be read.
pub fn calls_in_file(path: &Path, function: &str) -> Vec<u32> {
    match std::fs::File::open(path) {
        Ok(f) => calls(BufReader::new(f), function),
        Err(_) => Vec::new(),
    }
}

/// The lines where `src` calls `function`: the name followed by `(`, not after a type (which
/// would make it a declaration or definition).
pub fn calls(src: impl BufRead, function: &str) -> Vec<u32> {
    let mut c = CallFinder { name: function.as_bytes(), after_type: false, named_at: None, lines: Vec::new() };
    let _ = scan(src, &mut c);
    c.lines
}

/// Why a scan ended early.
enum Stop {
    /// The sink has its answer.
    Done,
    /// Unreadable, or nested too deep to follow.
    Unreadable,
}

/// A token the statement structure depends on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    /// A new line begins.
    LineStart,
    /// An identifier or keyword (its first 64 bytes), or a number.
    Word(&'a [u8]),
    Open,
    Close,
    BlockOpen,
    BlockClose,
    Semicolon,
    /// Any other punctuation (a string or character literal: `"`).
    Punct(u8),
}

trait Sink {
    fn token(&mut self, t: Token, line: u32) -> Result<(), Stop>;
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Code,
    LineComment,
    BlockComment,
    Literal(u8),
    Escape(u8),
    Preprocessor,
    PreprocessorEscape,
}

/// Feeds the tokens of `src` to `sink`, with their lines.
fn scan(src: impl BufRead, sink: &mut impl Sink) -> Result<(), Stop> {
    let mut l = Lexer { line: 1, mode: Mode::Code, at_line_start: true, slash: false, star: false, word: Vec::new() };
    sink.token(Token::LineStart, 1)?;
    for byte in src.bytes() {
        l.byte(byte.map_err(|_| Stop::Unreadable)?, sink)?;
    }
    l.flush_word(sink)
}

struct Lexer {
    line: u32,
    mode: Mode,
    at_line_start: bool,
    slash: bool,
    star: bool,
    word: Vec<u8>,
}

impl Lexer {
    fn byte(&mut self, c: u8, sink: &mut impl Sink) -> Result<(), Stop> {
        match self.mode {
            Mode::Code => self.code(c, sink)?,
            Mode::LineComment if c == b'\n' => self.mode = Mode::Code,
            Mode::BlockComment => {
                if self.star && c == b'/' {
                    self.mode = Mode::Code;
                }
                self.star = c == b'*';
            }
            Mode::Literal(q) if c == q => self.mode = Mode::Code,
            Mode::Literal(q) if c == b'\\' => self.mode = Mode::Escape(q),
            Mode::Escape(q) => self.mode = Mode::Literal(q),
            Mode::Preprocessor if c == b'\\' => self.mode = Mode::PreprocessorEscape,
            Mode::Preprocessor if c == b'\n' => self.mode = Mode::Code,
            Mode::PreprocessorEscape => self.mode = Mode::Preprocessor,
            _ => {}
        }
        if c == b'\n' {
            self.line += 1;
            self.at_line_start = true;
            sink.token(Token::LineStart, self.line)?;
        }
        Ok(())
    }

    fn code(&mut self, c: u8, sink: &mut impl Sink) -> Result<(), Stop> {
        if c.is_ascii_alphanumeric() || c == b'_' {
            if std::mem::take(&mut self.slash) {
                sink.token(Token::Punct(b'/'), self.line)?;
            }
            if self.word.len() < 64 {
                self.word.push(c);
            }
            self.at_line_start = false;
            return Ok(());
        }
        self.flush_word(sink)?;
        if std::mem::take(&mut self.slash) {
            match c {
                b'/' => self.mode = Mode::LineComment,
                b'*' => {
                    self.star = false;
                    self.mode = Mode::BlockComment;
                }
                _ => sink.token(Token::Punct(b'/'), self.line)?,
            }
            if self.mode != Mode::Code {
                return Ok(());
            }
        }
        if c.is_ascii_whitespace() {
            return Ok(());
        }
        let first_on_line = std::mem::replace(&mut self.at_line_start, false);
        let token = match c {
            b'#' if first_on_line => {
                self.mode = Mode::Preprocessor;
                return Ok(());
            }
            b'/' => {
                self.slash = true;
                return Ok(());
            }
            b'"' | b'\'' => {
                self.mode = Mode::Literal(c);
                Token::Punct(b'"')
            }
            b'(' => Token::Open,
            b')' => Token::Close,
            b'{' => Token::BlockOpen,
            b'}' => Token::BlockClose,
            b';' => Token::Semicolon,
            _ => Token::Punct(c),
        };
        sink.token(token, self.line)
    }

    fn flush_word(&mut self, sink: &mut impl Sink) -> Result<(), Stop> {
        if self.word.is_empty() {
            return Ok(());
        }
        let r = sink.token(Token::Word(&self.word), self.line);
        self.word.clear();
        r
    }
}

/// The innermost loop around one line.
struct LoopTracker {
    target: u32,
    /// Per open brace: the loop's line when the block is a loop's body.
    blocks: Vec<Option<u32>>,
    /// Loops whose body is a single statement not yet ended: (loop line, block depth).
    braceless: Vec<(u32, usize)>,
    /// A `for`/`while` whose parenthesis is not closed yet: its line and the depth it opened at.
    header: Option<(u32, Option<usize>)>,
    parens: usize,
    /// A loop header just ended: its body starts with the next token.
    body_of: Option<u32>,
    /// The innermost loop at the last token of the target line.
    answer: Option<u32>,
}

impl LoopTracker {
    fn new(target: u32) -> LoopTracker {
        LoopTracker { target, blocks: Vec::new(), braceless: Vec::new(), header: None, parens: 0, body_of: None, answer: None }
    }

    /// The innermost loop now: one whose body starts next, or the deeper of the innermost loop
    /// block and the innermost single-statement loop.
    fn innermost(&self) -> Option<u32> {
        if self.body_of.is_some() {
            return self.body_of;
        }
        let block = self.blocks.iter().enumerate().rev().find_map(|(i, l)| l.map(|l| (i + 1, l)));
        match (block, self.braceless.last()) {
            // A single-statement loop at depth d sits inside block d, outside block d + 1.
            (Some((depth, l)), Some(&(_, d))) if depth > d => Some(l),
            (_, Some(&(l, _))) => Some(l),
            (b, None) => b.map(|(_, l)| l),
        }
    }

    /// A loop header has ended and something other than `{` or `;` follows: its body is that
    /// one statement.
    fn body_is_a_statement(&mut self) {
        if let Some(l) = self.body_of.take() {
            self.braceless.push((l, self.blocks.len()));
        }
    }

    /// A statement ended at the current depth: so did the single-statement loops around it.
    fn end_statements(&mut self) {
        let depth = self.blocks.len();
        while self.braceless.last().is_some_and(|&(_, d)| d >= depth) {
            self.braceless.pop();
        }
    }

    fn header_paren(&mut self, t: Token) {
        match t {
            Token::Open => {
                self.body_is_a_statement();
                if let Some((l, None)) = self.header {
                    self.header = Some((l, Some(self.parens)));
                }
                self.parens += 1;
            }
            _ => {
                self.parens = self.parens.saturating_sub(1);
                if let Some((l, Some(depth))) = self.header {
                    if depth == self.parens {
                        self.header = None;
                        self.body_of = Some(l);
                    }
                }
            }
        }
    }
}

impl Sink for LoopTracker {
    fn token(&mut self, t: Token, line: u32) -> Result<(), Stop> {
        if line > self.target {
            return Err(Stop::Done);
        }
        if line == self.target {
            self.answer = self.innermost();
        }
        match t {
            Token::LineStart => {}
            Token::Word(b"for" | b"while") if self.parens == 0 => {
                self.body_is_a_statement();
                self.header = Some((line, None));
            }
            Token::Word(b"do") => {
                self.body_is_a_statement();
                self.body_of = Some(line);
            }
            Token::Open | Token::Close => self.header_paren(t),
            Token::BlockOpen => {
                if self.blocks.len() >= MAX_DEPTH {
                    return Err(Stop::Unreadable);
                }
                let body = self.body_of.take();
                self.blocks.push(body);
            }
            Token::BlockClose => {
                self.body_of = None;
                self.blocks.pop();
                self.end_statements();
            }
            Token::Semicolon if self.parens == 0 => {
                // `while (c);`, the end of a `do ... while (c);`: an empty body.
                self.body_of = None;
                self.end_statements();
            }
            _ => self.body_is_a_statement(),
        }
        if self.braceless.len() > MAX_DEPTH {
            return Err(Stop::Unreadable);
        }
        Ok(())
    }
}

/// The calls of one function.
struct CallFinder<'a> {
    name: &'a [u8],
    /// The last token could be a declaration's type (a word that is no statement keyword, or
    /// `*` or `&`).
    after_type: bool,
    /// The function's name was the last token, at this line, not after a type.
    named_at: Option<u32>,
    lines: Vec<u32>,
}

impl Sink for CallFinder<'_> {
    fn token(&mut self, t: Token, line: u32) -> Result<(), Stop> {
        if t == Token::LineStart {
            return Ok(());
        }
        if let (Some(at), Token::Open) = (self.named_at.take(), t) {
            if self.lines.last() != Some(&at) {
                self.lines.push(at);
            }
            if self.lines.len() >= MAX_CALLS {
                return Err(Stop::Done);
            }
        }
        if t == Token::Word(self.name) && !self.after_type {
            self.named_at = Some(line);
        }
        self.after_type = match t {
            Token::Word(w) => !matches!(w, b"return" | b"else" | b"do" | b"case"),
            Token::Punct(b'*' | b'&') => true,
            _ => false,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, marker: &str) -> Option<u32> {
        enclosing_loop(src.as_bytes(), line_of(src, marker))
    }

    fn line_of(src: &str, marker: &str) -> u32 {
        src.lines().position(|l| l.contains(marker)).expect("marker") as u32 + 1
    }

    #[test]
    fn loops_with_braces() {
        let src = "int main(void) {\n\
                   #pragma omp target data map(to: a[0:n]) /* @outside */\n\
                   \x20 for (int s = 0; s < STEPS; s++) { // @loop\n\
                   #pragma omp target map(tofrom: a[0:n]) /* @inside */\n\
                   \x20   for (int i = 0; i < n; i++) a[i] += 1;\n\
                   \x20 }\n\
                   #pragma omp target update from(a[0:n]) /* @after */\n\
                   }\n";
        assert_eq!(at(src, "@inside"), Some(line_of(src, "@loop")));
        assert_eq!(at(src, "@outside"), None);
        assert_eq!(at(src, "@after"), None);
    }

    #[test]
    fn loops_without_braces_and_calls_in_their_header_line() {
        let src = "void f(void) {\n\
                   \x20 for (int s = 0; s < 4; s++) scale(o, in, n); // @call\n\
                   \x20 g(); // @later\n\
                   \x20 while (k < 3)\n\
                   #pragma omp target update to(x) /* @update */\n\
                   \x20   k++;\n\
                   \x20 for (a = 0; a < 2; a++) // @outer\n\
                   \x20   for (b = 0; b < 2; b++)\n\
                   \x20     if (c) { h(); } // @nested\n\
                   \x20 done(); // @done\n\
                   }\n";
        assert_eq!(at(src, "@call"), Some(line_of(src, "@call")));
        assert_eq!(at(src, "@later"), None);
        assert_eq!(at(src, "@update"), Some(line_of(src, "@update") - 1));
        assert_eq!(at(src, "@nested"), Some(line_of(src, "@outer") + 1));
        assert_eq!(at(src, "@done"), None);
    }

    #[test]
    fn do_while_and_what_is_not_code() {
        let src = "int main(void) {\n\
                   \x20 const char *s = \"for (;;) {\"; /* while ( { */ char q = '{';\n\
                   \x20 do { // @do\n\
                   \x20   stop = 1;\n\
                   #pragma omp target map(tofrom: stop) /* @kernel */\n\
                   \x20   for (int v = 0; v < n; v++) {}\n\
                   \x20 } while (!stop);\n\
                   \x20 x = 1 / 2; // @after\n\
                   \x20 while (busy()); // @spin\n\
                   \x20 y = 2; // @then\n\
                   #define LOOP for (;;) { \\\n\
                   \x20  }\n\
                   \x20 z = 3; // @macro\n\
                   }\n";
        assert_eq!(at(src, "@kernel"), Some(line_of(src, "@do")));
        assert_eq!(at(src, "@after"), None);
        assert_eq!(at(src, "@spin"), Some(line_of(src, "@spin")));
        assert_eq!(at(src, "@then"), None);
        assert_eq!(at(src, "@macro"), None);
    }

    #[test]
    fn unreadable_or_too_deep_gives_no_answer() {
        assert_eq!(enclosing_loop_in_file(Path::new("/nonexistent/x.c"), 3), None);
        assert!(calls_in_file(Path::new("/nonexistent/x.c"), "f").is_empty());
        let deep = format!("for (;;) {}\n x;\n", "{".repeat(MAX_DEPTH + 1));
        assert_eq!(enclosing_loop(deep.as_bytes(), 2), None);
    }

    #[test]
    fn calls_not_declarations() {
        let src = "static void step(const float *t, int n);\n\
                   static void step(const float *t, int n) {\n\
                   \x20 /* step(x) */ t[0] = 1;\n\
                   }\n\
                   int main(void) {\n\
                   \x20 for (int s = 0; s < 9; s++) { step(t, n); float *x = t; } // @first\n\
                   \x20 if (k) return step2(t) + step (t, 1); // @second\n\
                   \x20 const char *m = \"step(\";\n\
                   }\n";
        assert_eq!(calls(src.as_bytes(), "step"), vec![line_of(src, "@first"), line_of(src, "@second")]);
        assert!(calls(src.as_bytes(), "main").is_empty());
    }
}
