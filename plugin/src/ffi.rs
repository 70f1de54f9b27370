//! The C interface the frontend shims call (declared in shim/ffi.h): directive tokens in,
//! diagnostics and lowered pieces out.
//!
//! Every entry point runs under `guard`: a panic (a bug here) never unwinds into Clang and
//! never prints a backtrace; it becomes one located `internal error in the ompadapt plugin`
//! diagnostic on the directive, and the directive's statement is kept.

use ompadapt_syntax::auto_mode::AutoMode;
use ompadapt_syntax::statement::{StatementScanner, Step};
use ompadapt_syntax::{Diagnostic, Outcome, Piece, PragmaContext, Reply, Session, Severity, Src, Tok, TokKind};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi_enums::*;

#[repr(C)]
pub struct OaTok {
    text: *const c_char,
    len: usize,
    kind: u32,
    flags: u32,
    expansion: u64,
    written: *const c_char,
    written_len: usize,
}

#[repr(C)]
pub struct OaDiag {
    severity: u32,
    list: u32,
    tok: u32,
    end: u32,
    message: *const c_char,
    fixit: *const c_char,
}

#[repr(C)]
pub struct OaPiece {
    kind: u32,
    list: u32,
    a: u32,
    b: u32,
    at_list: u32,
    at_tok: u32,
    text: *const c_char,
    len: usize,
}

#[repr(C)]
pub struct OaResult {
    outcome: u32,
    save: u32,
    diags: *const OaDiag,
    ndiags: usize,
    pieces: *const OaPiece,
    npieces: usize,
}

#[repr(C)]
pub struct OaContext {
    location: *const c_char,
    block: u64,
    loc_cookie: u64,
    file: u64,
    open: *const u64,
    nopen: usize,
    function: *const c_char,
    first_in_statement: u32,
    templated: u32,
}

/// An OaResult with the storage its pointers point into. `header` must stay first.
#[repr(C)]
struct OwnedResult {
    header: OaResult,
    diags: Vec<OaDiag>,
    pieces: Vec<OaPiece>,
    strings: Vec<CString>,
}

fn tok_kind(k: u32) -> TokKind {
    match k {
        OA_IDENT => TokKind::Ident,
        OA_NUMBER => TokKind::Number,
        OA_LITERAL => TokKind::Literal,
        OA_PUNCT => TokKind::Punct,
        OA_OMP_BEGIN => TokKind::OmpBegin,
        OA_OMP_END => TokKind::OmpEnd,
        _ => TokKind::OtherAnnot,
    }
}

unsafe fn text(p: *const c_char, len: usize) -> String {
    if p.is_null() || len == 0 {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
}

unsafe fn tokens(toks: *const OaTok, n: usize) -> Vec<Tok> {
    if n == 0 || toks.is_null() {
        return Vec::new();
    }
    std::slice::from_raw_parts(toks, n)
        .iter()
        .map(|t| Tok {
            kind: tok_kind(t.kind),
            text: text(t.text, t.len),
            space: t.flags & OA_LEADING_SPACE != 0,
            exp: t.expansion,
            written: (!t.written.is_null()).then(|| text(t.written, t.written_len)),
        })
        .collect()
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX - 1)
}

fn build(outcome: u32, save: bool, diags: &[Diagnostic], pieces: &[Piece]) -> *mut OaResult {
    let mut r = Box::new(OwnedResult {
        header: OaResult { outcome, save: u32::from(save), diags: std::ptr::null(), ndiags: 0, pieces: std::ptr::null(), npieces: 0 },
        diags: Vec::with_capacity(diags.len()),
        pieces: Vec::with_capacity(pieces.len()),
        strings: Vec::new(),
    });
    for d in diags {
        let message = cstring(&d.message);
        let fixit = d.fixit.as_deref().map(cstring);
        r.diags.push(OaDiag {
            severity: match d.severity {
                Severity::Error => OA_ERROR,
                Severity::Warning => OA_WARNING,
                Severity::Note => OA_NOTE,
                Severity::Remark => OA_REMARK,
            },
            list: match d.src {
                Src::Here => OA_HERE,
                Src::Saved(k) => k,
            },
            tok: clamp(d.tok),
            end: clamp(d.end),
            message: message.as_ptr(),
            fixit: fixit.as_ref().map_or(std::ptr::null(), |f| f.as_ptr()),
        });
        r.strings.push(message);
        r.strings.extend(fixit);
    }
    for p in pieces {
        let (mut at_list, mut at_tok) = (OA_HERE, 0);
        let (kind, list, a, b, text) = match p {
            Piece::Text(t) => (OA_TEXT, OA_HERE, 0, 0, Some(cstring(t))),
            Piece::User(range) => (OA_USER, OA_HERE, clamp(range.start), clamp(range.end), None),
            Piece::OmpBegin => (OA_PIECE_OMP_BEGIN, OA_HERE, 0, 0, None),
            Piece::OmpEnd => (OA_PIECE_OMP_END, OA_HERE, 0, 0, None),
            Piece::Statement => (OA_STATEMENT, OA_HERE, 0, 0, None),
            Piece::TextAt(t, at) => (OA_TEXT_AT, OA_HERE, clamp(*at), 0, Some(cstring(t))),
            Piece::Saved(k, range) => (OA_SAVED, *k, clamp(range.start), clamp(range.end), None),
            Piece::TextAtSaved(t, k, at) => (OA_TEXT_AT_SAVED, *k, clamp(*at), 0, Some(cstring(t))),
            Piece::SavedAt(k, range, (src, tok)) => {
                at_list = match src {
                    Src::Here => OA_HERE,
                    Src::Saved(l) => *l,
                };
                at_tok = clamp(*tok);
                (OA_SAVED_AT, *k, clamp(range.start), clamp(range.end), None)
            }
        };
        let (ptr, len) = text.as_ref().map_or((std::ptr::null(), 0), |t| (t.as_ptr(), t.as_bytes().len()));
        r.pieces.push(OaPiece { kind, list, a, b, at_list, at_tok, text: ptr, len });
        r.strings.extend(text);
    }
    r.header.diags = r.diags.as_ptr();
    r.header.ndiags = r.diags.len();
    r.header.pieces = r.pieces.as_ptr();
    r.header.npieces = r.pieces.len();
    Box::into_raw(r).cast::<OaResult>()
}

fn reply(r: Reply) -> *mut OaResult {
    let (outcome, pieces) = match r.outcome {
        Outcome::NotOurs => (OA_NOT_OURS, vec![]),
        Outcome::Emit(p) => (OA_EMIT, p),
        Outcome::NeedStatement => (OA_NEED_STATEMENT, vec![]),
        Outcome::NeedNextToken => (OA_NEED_NEXT_TOKEN, vec![]),
        Outcome::NeedLookahead => (OA_NEED_LOOKAHEAD, vec![]),
        Outcome::NeedConstruct => (OA_NEED_CONSTRUCT, vec![]),
    };
    build(outcome, r.save, &r.diags, &pieces)
}

thread_local! {
    /// The message of the last panic on this thread, recorded by the hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Panics are reported as diagnostics, not printed: the hook only records the message.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
        }));
    });
}

/// Runs `f`; a panic becomes `fallback(internal error diagnostic)`.
fn guard<T>(f: impl FnOnce() -> T, fallback: impl FnOnce(Diagnostic) -> T) -> T {
    install_panic_hook();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            let why = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "unknown panic".to_string());
            fallback(Diagnostic::error(0, 0, format!("internal error in the ompadapt plugin: {why}; please report it with this directive")))
        }
    }
}

#[no_mangle]
pub extern "C" fn ompadapt_session_new(offload_targets: bool, cplusplus: bool) -> *mut Session {
    install_panic_hook();
    Box::into_raw(Box::new(Session::new(offload_targets, cplusplus)))
}

/// Reads the value of `-fplugin-arg-ompadapt-auto=` once, where the plugin's arguments are
/// read: the parsed mode (freed with `ompadapt_auto_free`, used by every translation unit), or
/// null with `*error` set to why (a message naming the flag, freed with `ompadapt_string_free`).
///
/// # Safety
/// `kinds` is a NUL-terminated string; `error` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_auto_parse(kinds: *const c_char, error: *mut *mut c_char) -> *mut AutoMode {
    let kinds = if kinds.is_null() { String::new() } else { CStr::from_ptr(kinds).to_string_lossy().into_owned() };
    match guard(|| AutoMode::parse(&kinds), |d| Err(d.message)) {
        Ok(mode) => Box::into_raw(Box::new(mode)),
        Err(why) => {
            if !error.is_null() {
                *error = cstring(&why).into_raw();
            }
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// `auto` comes from `ompadapt_auto_parse` (or is null) and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_auto_free(auto: *mut AutoMode) {
    if !auto.is_null() {
        drop(Box::from_raw(auto));
    }
}

/// The kinds of zero-source-change mode to hand to the pass (a string freed with
/// `ompadapt_string_free`), or null where the frontend lowers the constructs itself (see
/// `AutoMode::handed_to_pass`).
///
/// # Safety
/// `auto` comes from `ompadapt_auto_parse` and is alive (or is null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_auto_handover(auto: *const AutoMode) -> *mut c_char {
    auto.as_ref().and_then(AutoMode::handed_to_pass).map_or(std::ptr::null_mut(), |k| cstring(k).into_raw())
}

/// Marks the session's compilation as one for an offload device (`-fopenmp-is-target-device`).
///
/// # Safety
/// `session` comes from `ompadapt_session_new` and is alive.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_session_set_device(session: *mut Session) {
    if let Some(s) = session.as_mut() {
        s.set_device();
    }
}

/// Turns on zero-source-change mode with `auto`, the flag's value as `ompadapt_auto_parse`
/// read it (each translation unit gets its own copy: region names are counted per unit).
///
/// # Safety
/// `session` is valid; `auto` comes from `ompadapt_auto_parse` and is alive (or is null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_session_set_auto(session: *mut Session, auto: *const AutoMode) {
    if let (Some(s), Some(mode)) = (session.as_mut(), auto.as_ref()) {
        s.set_auto(mode.clone());
    }
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
pub unsafe extern "C" fn ompadapt_on_pragma(session: *mut Session, toks: *const OaTok, n: usize, ctx: *const OaContext) -> *mut OaResult {
    guard(
        || {
            let toks = tokens(toks, n);
            let c = &*ctx;
            let location = if c.location.is_null() { String::new() } else { CStr::from_ptr(c.location).to_string_lossy().into_owned() };
            let open = if c.open.is_null() || c.nopen == 0 { Vec::new() } else { std::slice::from_raw_parts(c.open, c.nopen).to_vec() };
            let function = if c.function.is_null() { String::new() } else { CStr::from_ptr(c.function).to_string_lossy().into_owned() };
            let first_in_statement = c.first_in_statement != 0;
            let ctx = PragmaContext {
                location,
                block: c.block,
                loc_cookie: c.loc_cookie,
                file: c.file,
                open,
                function,
                first_in_statement,
                templated: c.templated != 0,
            };
            reply((*session).on_pragma(&toks, &ctx))
        },
        |d| build(OA_EMIT, false, &[d], &[]),
    )
}

/// # Safety
/// As `ompadapt_on_pragma`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_on_statement(session: *mut Session, toks: *const OaTok, n: usize) -> *mut OaResult {
    guard(
        || {
            let toks = tokens(toks, n);
            let pieces = (*session).on_statement(&toks);
            let diags = (*session).take_statement_diags();
            build(OA_EMIT, false, &diags, &pieces)
        },
        |d| build(OA_EMIT, false, &[d], &[Piece::Statement]),
    )
}

/// # Safety
/// `session` is valid.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_after_next_token(session: *mut Session, saved: u32) -> *mut OaResult {
    guard(|| build(OA_EMIT, false, &(*session).after_next_token(saved), &[]), |d| build(OA_EMIT, false, &[d.in_saved(saved)], &[]))
}

/// # Safety
/// Pointers are valid for the call.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_on_lookahead(
    session: *mut Session,
    toks: *const OaTok,
    n: usize,
    meta: *const OaTok,
    m: usize,
    location: *const c_char,
) {
    let s = &mut *session;
    let before = s.saved_lists();
    let ok = guard(
        || {
            let location = if location.is_null() { String::new() } else { CStr::from_ptr(location).to_string_lossy().into_owned() };
            s.on_lookahead(&tokens(toks, n), &tokens(meta, m), &location);
            true
        },
        |_| false,
    );
    // The C++ side saves these tokens in any case: keep the numbering in step.
    if !ok {
        (*session).pad_saved_lists(before + 1);
    }
}

/// # Safety
/// `session` is valid.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_lookahead_done(session: *mut Session, file: u64) {
    guard(|| (*session).lookahead_done(file), |_| ());
}

/// A scanner of the statement after a directive (see `ompadapt_syntax::statement`).
#[no_mangle]
pub extern "C" fn ompadapt_statement_new() -> *mut StatementScanner {
    Box::into_raw(Box::new(StatementScanner::new()))
}

/// # Safety
/// `s` comes from `ompadapt_statement_new` and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_statement_free(s: *mut StatementScanner) {
    if !s.is_null() {
        drop(Box::from_raw(s));
    }
}

/// What to do with the next token: 0 take it, 1 take it and stop, 2 give it back and stop.
///
/// # Safety
/// `s` is valid; `tok` points to one token.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_statement_feed(s: *mut StatementScanner, tok: *const OaTok) -> u32 {
    guard(
        || match (*s).feed(&tokens(tok, 1)[0]) {
            Step::Take => OA_TAKE,
            Step::TakeAndStop => OA_TAKE_AND_STOP,
            Step::GiveBack => OA_GIVE_BACK,
        },
        // the scanner is broken: end the statement here, keeping what was read
        |_| OA_GIVE_BACK,
    )
}

/// Whether the scanner took no token (the statement is missing).
///
/// # Safety
/// `s` is valid.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_statement_is_empty(s: *const StatementScanner) -> bool {
    (*s).is_empty()
}

/// # Safety
/// `result` comes from one of the functions above (or is null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_result_free(result: *mut OaResult) {
    if !result.is_null() {
        drop(Box::from_raw(result.cast::<OwnedResult>()));
    }
}

/// # Safety
/// `session` is valid; the returned string lives until the next call on this thread.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_unclosed(session: *mut Session, i: usize, loc_cookie: *mut u64) -> *const c_char {
    thread_local! {
        static NAME: RefCell<CString> = RefCell::new(CString::default());
    }
    guard(
        || {
            let unclosed = (*session).unclosed_regions();
            let Some((model, cookie)) = unclosed.get(i) else { return std::ptr::null() };
            *loc_cookie = *cookie;
            NAME.with(|n| {
                *n.borrow_mut() = cstring(model);
                n.borrow().as_ptr()
            })
        },
        |_| std::ptr::null(),
    )
}

/// The public runtime header and the lowering support, as text for Clang's predefines.
const RUNTIME_HEADER: &str = include_str!("../../runtime/include/ompadapt.h");
const LOWERING_HEADER: &str = include_str!("../include/ompadapt_lowering.h");

/// `auto_kinds`: the kinds of zero-source-change mode handed to the pass (null or empty: none).
///
/// # Safety
/// `runtime_path`, `triple` and `auto_kinds` are NUL-terminated strings (may be empty or null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_prelude(
    runtime_path: *const c_char,
    triple: *const c_char,
    pass_runs: bool,
    auto_kinds: *const c_char,
) -> *mut c_char {
    let given = if runtime_path.is_null() { String::new() } else { CStr::from_ptr(runtime_path).to_string_lossy().into_owned() };
    // Baked in as an absolute, link-free path: a relative one (`-fplugin=./libompadapt.so`)
    // would be resolved against whatever directory the program later runs in, and
    // secure-execution mode loads only absolute paths it can check (ompadapt_lowering.h).
    let path = std::fs::canonicalize(&given).map(|p| p.to_string_lossy().into_owned()).unwrap_or(given);
    // The headers are the plugin's, not the user's: no warning of theirs shows, whatever the
    // user's -W flags (-pedantic would call diagnose_if a clang extension). A system header
    // rather than `#pragma clang diagnostic ignored "-Weverything"`: once a translation unit has
    // a diagnostic pragma, clang looks up the diagnostic state of every source location it
    // checks a warning at through a per-file map (DiagStateMap), which cost ~5 M instructions
    // per translation unit (half the plugin's fixed cost on PolyBench's gemm). Clang's own
    // predefines are a system header the same way, by a line marker (`#pragma clang
    // system_header` needs a file: in the predefines it crashes clang 19).
    let mut s = String::from("\n# 1 \"<built-in>\" 3\n");
    s.push_str(RUNTIME_HEADER);
    if !path.is_empty() {
        s.push_str(&format!("#define __OMPADAPT_DEFAULT_RUNTIME {}\n", ompadapt_syntax::lower::c_string(&path)));
    }
    // C89 has no `inline`: the header's static inline functions use GNU's spelling there, for
    // the header only.
    s.push_str(
        "#if !defined(__cplusplus) && !defined(__STDC_VERSION__)\n#define inline __inline__\n#define __OMPADAPT_UNDEF_INLINE\n#endif\n",
    );
    // The loader was compiled once, for this target, when ompadapt was built: the pass adds it.
    let triple = if triple.is_null() { String::new() } else { CStr::from_ptr(triple).to_string_lossy().into_owned() };
    if pass_runs && ompadapt_abi::markers::has_precompiled_loader(&triple) {
        s.push_str("#define __OMPADAPT_PRECOMPILED_LOADER 1\n");
    }
    s.push_str(LOWERING_HEADER);
    // Wherever the pass runs on this module (here, or at link time under LTO), it must know the
    // frontend compiled it, and whether zero-source-change mode was handed to it: without this
    // mark the pass makes regions adaptive on its own (pass-only mode). An internal string (the
    // kinds, or empty); not in device compilations, where the pass does nothing.
    let auto_kinds = if auto_kinds.is_null() { String::new() } else { CStr::from_ptr(auto_kinds).to_string_lossy().into_owned() };
    s.push_str(&format!(
        "\n#if !defined(__NVPTX__) && !defined(__AMDGCN__) && !defined(__SPIR__)\n\
         static const char __ompadapt_frontend_mark_[] __asm__(\"{}\") __attribute__((used)) = {};\n#endif\n",
        ompadapt_abi::markers::FRONTEND_MARK,
        ompadapt_syntax::lower::c_string(&auto_kinds)
    ));
    s.push_str("\n#ifdef __OMPADAPT_UNDEF_INLINE\n#undef inline\n#undef __OMPADAPT_UNDEF_INLINE\n#endif\n");
    cstring(&s).into_raw()
}

/// The annotation the frontend gives functions whose calls the device may resolve otherwise
/// ([`ompadapt_abi::markers::DEVICE_SPECIALISED`]); static, never freed.
#[no_mangle]
pub extern "C" fn ompadapt_device_specialised_annotation() -> *const c_char {
    static NAME: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    NAME.get_or_init(|| cstring(ompadapt_abi::markers::DEVICE_SPECIALISED)).as_ptr()
}

/// # Safety
/// `s` comes from `ompadapt_prelude`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_string_free(s: *mut c_char) {
    if !s.is_null() {
        drop(CString::from_raw(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_numbers_are_consistent() {
        assert_eq!(OA_STATEMENT_LIST, ompadapt_syntax::token::STATEMENT_LIST, "one 'statement' list number on both sides");
        for e in crate::ffi_enums::C_ENUMS {
            let mut values: Vec<u32> = e.values.iter().map(|v| v.1).collect();
            values.sort_unstable();
            values.dedup();
            assert_eq!(values.len(), e.values.len(), "{}: two enumerators share a value", e.name);
        }
    }

    #[test]
    fn a_panic_becomes_one_located_internal_error() {
        let d = guard(|| -> Option<Diagnostic> { panic!("index out of bounds") }, Some).expect("the fallback ran");
        assert_eq!(d.severity, Severity::Error);
        assert_eq!((d.tok, d.end), (0, 0), "located at the directive");
        assert!(d.message.starts_with("internal error in the ompadapt plugin: index out of bounds at "), "{}", d.message);
        // Later calls work normally.
        assert_eq!(guard(|| 7, |_| 0), 7);
    }
}
