// The numbers the C interface (shim/ffi.h) and this crate agree on, written once.
//
// The shims and the Rust side used to spell each enum twice, by hand, in ffi.h and here; a
// reordered enumerator on one side silently turned a warning into an error or a token into
// another. Now this file is the one definition: build.rs `include!`s it and writes
// `ffi_enums.h` (the C++ enums, with their documentation) into the build folder, ffi.h includes
// that header, and the Rust side names the same constants. The file holds data only (no `use`
// of this crate, no inner attributes or `//!` documentation), so that build.rs can include it.

/// Defines each C enum's constants (`pub const OA_X: u32`) and the table [`C_ENUMS`] that
/// build.rs writes out as C++.
macro_rules! c_enums {
    ($($(#[doc = $edoc:literal])* enum $cname:ident { $($(#[doc = $doc:literal])* $variant:ident = $value:expr,)* })*) => {
        $($($(#[doc = $doc])* pub const $variant: u32 = $value;)*)*

        /// Every enum: its C name, documentation, and enumerators (name, value, documentation).
        pub const C_ENUMS: &[CEnum] = &[$(CEnum {
            name: stringify!($cname),
            doc: concat!($($edoc, "\n",)* ""),
            values: &[$((stringify!($variant), $value, concat!($($doc, "\n",)* ""))),*],
        }),*];
    };
}

/// One C enum of the interface.
pub struct CEnum {
    /// Its C++ name (`OaTokKind`); `None`-like empty-enumerator lists never occur.
    pub name: &'static str,
    /// Its documentation, one line per `///` line.
    pub doc: &'static str,
    /// Enumerator name, value, documentation.
    pub values: &'static [(&'static str, u32, &'static str)],
}

c_enums! {
    /// What a token is (`OaTok::Kind`).
    enum OaTokKind {
        OA_IDENT = 0,
        OA_NUMBER = 1,
        OA_LITERAL = 2,
        OA_PUNCT = 3,
        /// An annotation token that starts an OpenMP directive.
        OA_OMP_BEGIN = 4,
        /// The annotation token that ends an OpenMP directive.
        OA_OMP_END = 5,
        OA_OTHER_ANNOT = 6,
    }
    /// Bits of `OaTok::Flags`.
    enum OaTokFlag {
        OA_LEADING_SPACE = 1,
    }
    /// `OaDiag::Severity`.
    enum OaSeverity {
        OA_ERROR = 0,
        OA_WARNING = 1,
        OA_NOTE = 2,
        OA_REMARK = 3,
    }
    /// `OaResult::Outcome`: what the shim does next with the directive.
    enum OaOutcome {
        OA_NOT_OURS = 0,
        OA_EMIT = 1,
        OA_NEED_STATEMENT = 2,
        OA_NEED_NEXT_TOKEN = 3,
        OA_NEED_LOOKAHEAD = 4,
        /// Zero-source-change mode: the directive starts a construct made adaptive;
        /// pass the statement after it with the directive in front.
        OA_NEED_CONSTRUCT = 5,
    }
    /// `OaPiece::Kind`: what a piece of the lowered text is.
    enum OaPieceKind {
        OA_TEXT = 0,
        OA_USER = 1,
        OA_PIECE_OMP_BEGIN = 2,
        OA_PIECE_OMP_END = 3,
        OA_STATEMENT = 4,
        OA_TEXT_AT = 5,
        OA_SAVED = 6,
        OA_TEXT_AT_SAVED = 7,
        OA_SAVED_AT = 8,
    }
    /// `list` of a diagnostic or piece: a saved token list's index, or one of these.
    enum OaList {
        /// Refers to the directive being handled.
        OA_HERE = 0xffff_ffff,
        /// Refers to the statement after the directive (only in replies to
        /// `ompadapt_on_statement`).
        OA_STATEMENT_LIST = 0xffff_fffe,
    }
    /// Where the statement after a directive ends: what `ompadapt_statement_feed` answers.
    enum OaStatementStep {
        OA_TAKE = 0,
        OA_TAKE_AND_STOP = 1,
        OA_GIVE_BACK = 2,
    }
}
