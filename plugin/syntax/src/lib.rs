//! The language side of ompadapt, free of any Clang dependency so that it can be unit-tested:
//! the Clang plugin hands over the tokens of each `#pragma omp` line and gets back either
//! "not ours" (the line goes to Clang's own OpenMP parser unchanged), diagnostics, or the
//! lowered token stream to inject.
//!
//! Directives handled:
//! - Georgakoudis et al. §3.1: `#pragma omp begin adaptation <clauses>` /
//!   `#pragma omp end adaptation [model_name(id)]`, `#pragma omp adaptation <clauses>` followed
//!   by a structured block, and
//!   `#pragma omp metadirective when(user={adaptation(<model> <relop> <variant>)} : ...) ...`
//! - Liao et al. §4: `#pragma omp declare adaptation <clauses>` followed by a `metadirective`.
//!
//! The papers cited by author here and in the other modules are listed in docs/references.md.
//!
//! Every input gives diagnostics or pieces, never a panic; nothing recurses deeper than the
//! directive's brackets nest (at most `limits::MAX_NESTING`), and every check is O(n log n).

#![deny(missing_docs)]

pub mod adaptation;
pub mod auto_mode;
pub mod brackets;
pub mod clauses;
pub mod constant;
pub mod coschedule;
pub mod data_env;
pub mod declare;
pub mod diag;
pub mod directive_variant;
pub mod feature_clause;
pub mod kernel_scan;
pub mod kinds;
pub mod limits;
pub mod loops;
pub mod lower;
pub mod metadirective;
pub mod numeric_range;
pub mod pass_form;
pub mod piece;
pub mod selector;
pub mod session;
pub mod statement;
pub mod token;
pub mod variants;

pub use diag::{Diagnostic, Severity};
pub use piece::Piece;
pub use session::{Outcome, PragmaContext, Reply, Session};
pub use token::{Src, Tok, TokKind};
