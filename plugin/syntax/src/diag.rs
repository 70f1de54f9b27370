//! Diagnostics produced while parsing a directive. Locations are token indices into the
//! directive's tokens (the tokens after `omp`); index == len means the end of the line.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// First token of the highlighted range.
    pub tok: usize,
    /// One past the last token of the highlighted range (== tok for a point).
    pub end: usize,
    pub message: String,
    /// Replacement text for the range [tok, end), when there is an obvious fix.
    pub fixit: Option<String>,
}

impl Diagnostic {
    pub fn error(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, tok, end, message: message.into(), fixit: None }
    }
    pub fn warning(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, tok, end, message: message.into(), fixit: None }
    }
    pub fn note(tok: usize, end: usize, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Note, tok, end, message: message.into(), fixit: None }
    }
    pub fn with_fixit(mut self, text: impl Into<String>) -> Self {
        self.fixit = Some(text.into());
        self
    }
}

/// Result of parsing one piece of a directive: diagnostics are collected on the side.
pub type Diags = Vec<Diagnostic>;
