//! Tokens as the plugin sees them: Clang's token kind folded into a few classes, plus spelling
//! and whether whitespace preceded the token (so that source text can be shown as written).

/// The class of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// Identifiers and keywords.
    Ident,
    /// Numeric literal (pp-number).
    Number,
    /// String or character literal.
    Literal,
    /// Punctuator; the spelling tells which.
    Punct,
    /// `annot_pragma_openmp`: start of an OpenMP directive re-emitted for Clang's parser.
    OmpBegin,
    /// `annot_pragma_openmp_end`.
    OmpEnd,
    /// Any other annotation token (another pragma already turned into a token).
    OtherAnnot,
}

/// One token: its class, its spelling, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok {
    /// The token's class.
    pub kind: TokKind,
    /// The spelling.
    pub text: String,
    /// Whitespace preceded the token in the source.
    pub space: bool,
    /// Non-zero for a token that comes from a macro expansion: identifies the outermost
    /// expansion (tokens of one expansion are contiguous and share it).
    pub exp: u64,
    /// On the first token of an expansion: the source text of the whole expansion as written
    /// (`N`, `MAX(a, b)`).
    pub written: Option<String>,
}

impl Tok {
    /// A token of `kind` spelled `text`, with no preceding whitespace and not from a macro.
    pub fn new(kind: TokKind, text: &str) -> Tok {
        Tok { kind, text: text.to_string(), space: false, exp: 0, written: None }
    }
    /// Whether the token is the identifier or keyword `s`.
    pub fn is_ident(&self, s: &str) -> bool {
        self.kind == TokKind::Ident && self.text == s
    }
    /// Whether the token is the punctuator `s`.
    pub fn is_punct(&self, s: &str) -> bool {
        self.kind == TokKind::Punct && self.text == s
    }
    /// `(`, `[` or `{`.
    pub fn is_open(&self) -> bool {
        self.kind == TokKind::Punct && matches!(self.text.as_str(), "(" | "[" | "{")
    }
    /// `)`, `]` or `}`.
    pub fn is_close(&self) -> bool {
        self.kind == TokKind::Punct && matches!(self.text.as_str(), ")" | "]" | "}")
    }
}

/// A small C tokenizer for tests and for the reference in docs: identifiers, numbers, string
/// literals and the punctuators the directives use. The plugin uses it only for the value of
/// `-fplugin-arg-ompadapt-auto=<kinds>`; directives' tokens come from Clang's preprocessor.
pub fn lex(src: &str) -> Vec<Tok> {
    const PUNCT3: [&str; 3] = ["<<=", ">>=", "..."];
    const PUNCT2: [&str; 16] = ["==", "!=", "<=", ">=", "&&", "||", "->", "++", "--", "<<", ">>", "+=", "-=", "*=", "/=", "::"];
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let mut space = false;
    while i < b.len() {
        let c = b[i] as char;
        let start = i;
        let kind = if c.is_whitespace() {
            i += 1;
            space = true;
            continue;
        } else if c.is_ascii_alphabetic() || c == '_' || !c.is_ascii() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || !b[i].is_ascii()) {
                i += 1;
            }
            TokKind::Ident
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()) {
            while i < b.len() {
                let d = b[i] as char;
                let exp_sign = (d == '+' || d == '-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric() || d == '.' || d == '_' || d == '\'' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            TokKind::Number
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < b.len() && b[i] as char != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            TokKind::Literal
        } else {
            let rest = &src[i..];
            let p = PUNCT3.iter().chain(PUNCT2.iter()).find(|p| rest.starts_with(*p)).map_or(1, |p| p.len());
            i += p;
            TokKind::Punct
        };
        // Multi-byte characters are kept whole.
        while !src.is_char_boundary(i) {
            i += 1;
        }
        out.push(Tok { kind, text: src[start..i].to_string(), space, exp: 0, written: None });
        space = false;
    }
    out
}

fn is_word(k: TokKind) -> bool {
    matches!(k, TokKind::Ident | TokKind::Number | TokKind::Literal)
}

/// Spells a token range back as C source, as written: a space where the source had whitespace,
/// and where two tokens would otherwise fuse.
pub fn spell(toks: &[Tok]) -> String {
    let mut s = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let prev = &toks[i - 1];
            let fuse = is_word(prev.kind) && is_word(t.kind)
                || prev.kind == TokKind::Punct && t.kind == TokKind::Punct && fuses(&prev.text, &t.text);
            if t.space || fuse {
                s.push(' ');
            }
        }
        s.push_str(&t.text);
    }
    s
}

/// Spells a token range as the user wrote it: like `spell`, but a macro expansion that lies
/// entirely inside the range is shown as written (`N`, not `100`). O(len).
pub fn spell_written(toks: &[Tok], range: std::ops::Range<usize>) -> String {
    let mut out: Vec<Tok> = Vec::new();
    let mut i = range.start;
    while i < range.end {
        let t = &toks[i];
        if t.exp != 0 && (i == 0 || toks[i - 1].exp != t.exp) {
            let mut j = i + 1;
            while j < toks.len() && toks[j].exp == t.exp {
                j += 1;
            }
            if let (true, Some(w)) = (j <= range.end, &t.written) {
                out.push(Tok { kind: TokKind::Ident, text: w.clone(), space: t.space, exp: 0, written: None });
                i = j;
                continue;
            }
        }
        out.push(Tok { exp: 0, written: None, ..t.clone() });
        i += 1;
    }
    spell(&out)
}

/// Whether two punctuators written next to each other would lex as another token.
fn fuses(a: &str, b: &str) -> bool {
    let joined = format!("{a}{b}");
    const LONGER: [&str; 24] = [
        "==", "!=", "<=", ">=", "&&", "||", "->", "++", "--", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "<<=",
        ">>=", "...", "->*",
    ];
    LONGER.iter().any(|l| joined.starts_with(l) && l.len() > a.len()) || (a == "/" && (b.starts_with('/') || b.starts_with('*')))
}

/// Where a range of token indices points: the directive being handled, or a token list the
/// plugin saved earlier (the tokens of a `declare adaptation` line, also one found by looking
/// ahead in the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// The directive being handled (the tokens after `omp`).
    Here,
    /// The saved token list with this index (or `STATEMENT_LIST`).
    Saved(u32),
}

/// `Src::Saved(STATEMENT_LIST)` refers to the statement after the directive (in the reply to
/// `Session::on_statement`: diagnostics located in it, pieces copied from it).
pub const STATEMENT_LIST: u32 = u32::MAX - 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_follows_the_source() {
        assert_eq!(spell(&lex("y.size()")), "y.size()");
        assert_eq!(spell(&lex("a  +   b")), "a + b");
        assert_eq!(spell(&lex("f(a,b)")), "f(a,b)");
        let mut t = lex("a - -b");
        t[2].space = false;
        assert_eq!(spell(&t), "a - -b", "tokens that would fuse keep a space");
    }

    #[test]
    fn macro_expansions_are_shown_as_written() {
        let mut t = lex("features ( 100 * 2 , 7 )");
        for i in [2, 3, 4] {
            t[i].exp = 9;
        }
        t[2].written = Some("N".into());
        assert_eq!(spell_written(&t, 2..5), "N");
        assert_eq!(spell_written(&t, 3..5), "* 2", "a partial expansion is spelled");
        assert_eq!(spell_written(&t, 0..t.len()), "features ( N , 7 )");
    }

    #[test]
    fn lexer_marks_spaces() {
        let t = lex("a (b)");
        assert!(!t[0].space && t[1].space && !t[2].space);
    }
}
