//! Diagnostics produced while parsing a directive. Locations are token indices into the
//! directive's tokens (the tokens after `omp`), or into a token list the plugin saved earlier
//! (an earlier `declare adaptation` line); index == len means the end of the line.

use crate::token::Src;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The directive is rejected.
    Error,
    /// Accepted, but probably not what was meant.
    Warning,
    /// Context for the diagnostic before it (where something was first written, what is allowed).
    Note,
    /// Said only on request (`-fplugin-arg-ompadapt-remarks`): what zero-source-change mode
    /// left alone, and why.
    Remark,
}

/// One message about a directive, located at a range of tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Which tokens `tok` and `end` index.
    pub src: Src,
    /// First token of the highlighted range.
    pub tok: usize,
    /// One past the last token of the highlighted range (== tok for a point).
    pub end: usize,
    /// The message, without location.
    pub message: String,
    /// Replacement text for the range [tok, end), when there is an obvious fix.
    pub fixit: Option<String>,
}

impl Diagnostic {
    fn new(severity: Severity, tok: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic { severity, src: Src::Here, tok, end, message: message.into(), fixit: None }
    }
    /// An error at tokens `[tok, end)`.
    pub fn error(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, tok, end, message)
    }
    /// A warning at tokens `[tok, end)`.
    pub fn warning(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, tok, end, message)
    }
    /// A note at tokens `[tok, end)`.
    pub fn note(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, tok, end, message)
    }
    /// A remark at tokens `[tok, end)`.
    pub fn remark(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Self::new(Severity::Remark, tok, end, message)
    }
    /// Adds replacement text for the diagnostic's range.
    pub fn with_fixit(mut self, text: impl Into<String>) -> Self {
        self.fixit = Some(text.into());
        self
    }
    /// Located in saved token list `list` instead of the current directive.
    pub fn in_saved(mut self, list: u32) -> Self {
        self.src = Src::Saved(list);
        self
    }
}

/// Diagnostics are collected on the side while a directive is parsed.
pub type Diags = Vec<Diagnostic>;

/// Whether any of `d` is an error.
pub fn has_error(d: &[Diagnostic]) -> bool {
    d.iter().any(|d| d.severity == Severity::Error)
}

pub use ompadapt_abi::names::closest;
