//! What replaces a directive: pieces of a token stream, which the plugin turns into tokens
//! (lexing text, copying the directive's or a saved list's tokens, copying the statement).

use crate::token::{Src, STATEMENT_LIST};
use std::ops::Range;

/// A piece of the token stream that replaces a directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// C source text, lexed by the plugin; its tokens get the directive's location.
    Text(String),
    /// C source text whose tokens get the location of directive token `.1` (the clause it
    /// implements), so that Clang's errors on it point at that clause.
    TextAt(String, usize),
    /// C source text located at token `.2` of saved token list `.1`.
    TextAtSaved(String, u32, usize),
    /// Tokens of the directive itself (user expressions keep their source locations).
    User(Range<usize>),
    /// Tokens of saved token list `.0` (an earlier `declare adaptation`, or one found ahead).
    Saved(u32, Range<usize>),
    /// As `Saved`, the copies located at token `.2.1` of `.2.0`.
    SavedAt(u32, Range<usize>, (Src, usize)),
    /// `annot_pragma_openmp`: starts an OpenMP directive handed to Clang's parser.
    OmpBegin,
    /// `annot_pragma_openmp_end`.
    OmpEnd,
    /// A copy of the statement that follows the directive.
    Statement,
}

impl Piece {
    /// Tokens `range` of the statement that follows the directive (saved as `STATEMENT_LIST`).
    pub fn statement_tokens(range: Range<usize>) -> Piece {
        Piece::Saved(STATEMENT_LIST, range)
    }
}
