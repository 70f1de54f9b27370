//! The C interface the frontend shim calls (declared in shim/ffi.h): directive tokens in,
//! diagnostics and lowered pieces out. Every entry point catches panics: a bug here must
//! become "directive left to Clang", never a crashed compiler.

use ompadapt_syntax::{Diagnostic, Outcome, Piece, PragmaContext, Session, Severity, Tok, TokKind};
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[repr(C)]
pub struct OaTok {
    text: *const c_char,
    len: usize,
    kind: u32,
}

#[repr(C)]
pub struct OaDiag {
    severity: u32,
    tok: u32,
    end: u32,
    message: *const c_char,
    fixit: *const c_char,
}

#[repr(C)]
pub struct OaPiece {
    kind: u32,
    a: u32,
    b: u32,
    text: *const c_char,
    len: usize,
}

#[repr(C)]
pub struct OaResult {
    outcome: u32,
    diags: *const OaDiag,
    ndiags: usize,
    pieces: *const OaPiece,
    npieces: usize,
}

/// An OaResult with the storage its pointers point into. `header` must stay first.
#[repr(C)]
struct OwnedResult {
    header: OaResult,
    diags: Vec<OaDiag>,
    pieces: Vec<OaPiece>,
    strings: Vec<CString>,
}

const OUTCOME_NOT_OURS: u32 = 0;
const OUTCOME_EMIT: u32 = 1;
const OUTCOME_NEED_STATEMENT: u32 = 2;

fn tok_kind(k: u32) -> TokKind {
    match k {
        0 => TokKind::Ident,
        1 => TokKind::Number,
        2 => TokKind::Literal,
        3 => TokKind::Punct,
        4 => TokKind::OmpBegin,
        5 => TokKind::OmpEnd,
        _ => TokKind::OtherAnnot,
    }
}

unsafe fn tokens(toks: *const OaTok, n: usize) -> Vec<Tok> {
    if n == 0 {
        return Vec::new();
    }
    std::slice::from_raw_parts(toks, n)
        .iter()
        .map(|t| {
            let bytes = if t.len == 0 { &[][..] } else { std::slice::from_raw_parts(t.text.cast::<u8>(), t.len) };
            Tok { kind: tok_kind(t.kind), text: String::from_utf8_lossy(bytes).into_owned() }
        })
        .collect()
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).expect("no NUL")
}

fn build(outcome: u32, diags: &[Diagnostic], pieces: &[Piece]) -> *mut OaResult {
    let mut r = Box::new(OwnedResult {
        header: OaResult { outcome, diags: std::ptr::null(), ndiags: 0, pieces: std::ptr::null(), npieces: 0 },
        diags: Vec::new(),
        pieces: Vec::new(),
        strings: Vec::new(),
    });
    for d in diags {
        let message = cstring(&d.message);
        let fixit = d.fixit.as_deref().map(cstring);
        r.diags.push(OaDiag {
            severity: match d.severity {
                Severity::Error => 0,
                Severity::Warning => 1,
                Severity::Note => 2,
            },
            tok: d.tok as u32,
            end: d.end as u32,
            message: message.as_ptr(),
            fixit: fixit.as_ref().map_or(std::ptr::null(), |f| f.as_ptr()),
        });
        r.strings.push(message);
        r.strings.extend(fixit);
    }
    for p in pieces {
        let (kind, a, b, text) = match p {
            Piece::Text(t) => (0, 0, 0, Some(cstring(t))),
            Piece::User(range) => (1, range.start as u32, range.end as u32, None),
            Piece::OmpBegin => (2, 0, 0, None),
            Piece::OmpEnd => (3, 0, 0, None),
            Piece::Statement => (4, 0, 0, None),
            Piece::TextAt(t, at) => (5, *at as u32, 0, Some(cstring(t))),
        };
        let (ptr, len) = text.as_ref().map_or((std::ptr::null(), 0), |t| (t.as_ptr(), t.as_bytes().len()));
        r.pieces.push(OaPiece { kind, a, b, text: ptr, len });
        r.strings.extend(text);
    }
    r.header.diags = r.diags.as_ptr();
    r.header.ndiags = r.diags.len();
    r.header.pieces = r.pieces.as_ptr();
    r.header.npieces = r.pieces.len();
    Box::into_raw(r).cast::<OaResult>()
}

#[no_mangle]
pub extern "C" fn ompadapt_session_new(offload_targets: bool) -> *mut Session {
    Box::into_raw(Box::new(Session::new(offload_targets)))
}

/// # Safety
/// `session` comes from `ompadapt_session_new` and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_session_free(session: *mut Session) {
    if !session.is_null() {
        drop(Box::from_raw(session));
    }
}

/// # Safety
/// Pointers are valid for the call; `toks` has `n` elements.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_on_pragma(
    session: *mut Session,
    toks: *const OaTok,
    n: usize,
    location: *const c_char,
    block: u64,
    loc_cookie: u64,
) -> *mut OaResult {
    let run = AssertUnwindSafe(|| {
        let toks = tokens(toks, n);
        let location = CStr::from_ptr(location).to_string_lossy().into_owned();
        let ctx = PragmaContext { location, block, loc_cookie };
        let (outcome, diags) = (*session).on_pragma(&toks, &ctx);
        match outcome {
            Outcome::NotOurs => build(OUTCOME_NOT_OURS, &diags, &[]),
            Outcome::Emit(pieces) => build(OUTCOME_EMIT, &diags, &pieces),
            Outcome::NeedStatement => build(OUTCOME_NEED_STATEMENT, &diags, &[]),
        }
    });
    catch_unwind(run).unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// As `ompadapt_on_pragma`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_on_statement(session: *mut Session, toks: *const OaTok, n: usize) -> *mut OaResult {
    let run = AssertUnwindSafe(|| {
        let toks = tokens(toks, n);
        let pieces = (*session).on_statement(&toks);
        build(OUTCOME_EMIT, &[], &pieces)
    });
    catch_unwind(run).unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `result` comes from `ompadapt_on_pragma`/`ompadapt_on_statement` (or is null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_result_free(result: *mut OaResult) {
    if !result.is_null() {
        drop(Box::from_raw(result.cast::<OwnedResult>()));
    }
}

/// # Safety
/// `session` is valid; the returned string lives until the session is freed.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_unclosed(session: *mut Session, i: usize, loc_cookie: *mut u64) -> *const c_char {
    thread_local! {
        static NAMES: std::cell::RefCell<Vec<CString>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let unclosed = (*session).unclosed_regions();
    let Some((model, cookie)) = unclosed.get(i) else { return std::ptr::null() };
    *loc_cookie = *cookie;
    NAMES.with(|n| {
        let mut n = n.borrow_mut();
        n.push(cstring(model));
        n.last().expect("pushed").as_ptr()
    })
}

/// The public runtime header and the lowering support, as text for Clang's predefines.
const RUNTIME_HEADER: &str = include_str!("../../runtime/include/ompadapt.h");
const LOWERING_HEADER: &str = include_str!("../include/ompadapt_lowering.h");

/// # Safety
/// `runtime_path` is a NUL-terminated string (may be empty).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_prelude(runtime_path: *const c_char) -> *mut c_char {
    let given = CStr::from_ptr(runtime_path).to_string_lossy();
    // Baked in as an absolute, link-free path: a relative one (`-fplugin=./libompadapt.so`)
    // would be resolved against whatever directory the program later runs in, and
    // secure-execution mode loads only absolute paths it can check (ompadapt_lowering.h).
    let path = std::fs::canonicalize(&*given).map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| given.into_owned());
    let mut s = String::from("\n");
    s.push_str(RUNTIME_HEADER);
    if !path.is_empty() {
        s.push_str(&format!("#define __OMPADAPT_DEFAULT_RUNTIME {}\n", ompadapt_syntax::lower::c_string(&path)));
    }
    s.push_str(LOWERING_HEADER);
    cstring(&s).into_raw()
}

/// # Safety
/// `s` comes from `ompadapt_prelude`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_string_free(s: *mut c_char) {
    if !s.is_null() {
        drop(CString::from_raw(s));
    }
}
