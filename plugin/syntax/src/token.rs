//! Tokens as the plugin sees them: Clang's token kind folded into a few classes, plus spelling.

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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok {
    pub kind: TokKind,
    pub text: String,
}

impl Tok {
    pub fn new(kind: TokKind, text: &str) -> Tok {
        Tok { kind, text: text.to_string() }
    }
    pub fn is_ident(&self, s: &str) -> bool {
        self.kind == TokKind::Ident && self.text == s
    }
    pub fn is_punct(&self, s: &str) -> bool {
        self.kind == TokKind::Punct && self.text == s
    }
}

/// A very small C tokenizer for tests and for the reference in docs: splits identifiers,
/// numbers, string literals and the punctuators the directives use. The plugin never uses it:
/// there, Clang's preprocessor supplies the tokens.
pub fn lex(src: &str) -> Vec<Tok> {
    const PUNCT3: [&str; 2] = ["<<=", ">>="];
    const PUNCT2: [&str; 16] = [
        "==", "!=", "<=", ">=", "&&", "||", "->", "++", "--", "<<", ">>", "+=", "-=", "*=", "/=",
        "::",
    ];
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::new(TokKind::Ident, &src[s..i]));
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()) {
            let s = i;
            while i < b.len() {
                let d = b[i] as char;
                let exp_sign = (d == '+' || d == '-') && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == '.' || d == '_' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Tok::new(TokKind::Number, &src[s..i]));
        } else if c == '"' || c == '\'' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] as char != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            out.push(Tok::new(TokKind::Literal, &src[s..i]));
        } else {
            let rest = &src[i..];
            let p = PUNCT3
                .iter()
                .chain(PUNCT2.iter())
                .find(|p| rest.starts_with(*p))
                .map(|p| p.len())
                .unwrap_or(1);
            out.push(Tok::new(TokKind::Punct, &src[i..i + p]));
            i += p;
        }
    }
    out
}

/// Spells a token range back as C source, with spaces where two tokens would otherwise fuse.
pub fn spell(toks: &[Tok]) -> String {
    let mut s = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let prev = &toks[i - 1];
            let word = |k: TokKind| matches!(k, TokKind::Ident | TokKind::Number | TokKind::Literal);
            if word(prev.kind) && word(t.kind) || prev.kind == TokKind::Punct && t.kind == TokKind::Punct {
                s.push(' ');
            }
        }
        s.push_str(&t.text);
    }
    s
}
