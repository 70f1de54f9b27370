//! The language side of ompadapt, free of any Clang dependency so that it can be unit-tested:
//! the Clang plugin hands over the tokens of each `#pragma omp` line and gets back either
//! "not ours" (the line goes to Clang's own OpenMP parser unchanged), diagnostics, or the
//! lowered token stream to inject.
//!
//! Directives handled (seed 000 §3.1):
//! - `#pragma omp begin adaptation <clauses>` / `#pragma omp end adaptation [model_name(id)]`
//! - `#pragma omp adaptation <clauses>` followed by a structured block
//! - `#pragma omp metadirective when(user={adaptation(<model> <relop> <variant>)} : ...) ...`

pub mod clauses;
pub mod diag;
pub mod lower;
pub mod selector;
pub mod session;
pub mod token;
pub mod variants;

pub use diag::{Diagnostic, Severity};
pub use session::{Outcome, Piece, PragmaContext, Session};
pub use token::{Tok, TokKind};
