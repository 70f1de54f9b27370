//===- ffi.h - Interface between the C++ shims and Rust ---------*- C++ -*-===//
//
// The C interface of the Rust side of libompadapt.so (plugin/src/ffi.rs). Keep
// in sync with the #[repr(C)] structs there. Every function catches Rust
// panics: an unexpected failure comes back as one "internal error" diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_FFI_H
#define OMPADAPT_SHIM_FFI_H

#include <cstddef>
#include <cstdint>

// The enums (OaTokKind, OaTokFlag, OaSeverity, OaOutcome, OaPieceKind, the
// list values OA_HERE and OA_STATEMENT_LIST, OaStatementStep) are written once,
// in src/ffi_enums.rs; build.rs writes them out as this header.
#include "ffi_enums.h"

extern "C" {

struct OaTok {
  const char *Text;
  size_t Len;
  uint32_t Kind;  // OaTokKind
  uint32_t Flags; // OaTokFlag
  /// Non-zero for a token from a macro expansion: identifies the outermost
  /// expansion (its expansion location).
  uint64_t Expansion;
  /// On the first token of an expansion: the expansion as written, or null.
  const char *Written;
  size_t WrittenLen;
};
struct OaDiag {
  uint32_t Severity;
  uint32_t List;     // OA_HERE or a saved token list
  uint32_t Tok, End; // token range; Tok == number of tokens: end of line
  const char *Message;
  const char *Fixit; // null, or replacement text for [Tok, End)
};
struct OaPiece {
  uint32_t Kind;
  uint32_t List; // OA_SAVED*, OA_TEXT_AT_SAVED: the saved token list
  uint32_t A, B; // token range; OA_TEXT_AT*: A gives the location
  /// OA_SAVED_AT: the copies are located at token AtTok of AtList (OA_HERE or
  /// a saved list).
  uint32_t AtList, AtTok;
  const char *Text;
  size_t Len;
};
struct OaResult {
  uint32_t Outcome; // OaOutcome
  uint32_t Save;    // keep this directive's tokens as the next saved list
  const OaDiag *Diags;
  size_t NumDiags;
  const OaPiece *Pieces;
  size_t NumPieces;
};
struct OaContext {
  const char *Location; // file:line
  uint64_t Block;       // innermost enclosing block, 0 at file scope
  uint64_t LocCookie;   // the directive's SourceLocation
  uint64_t File;        // the file the directive is written in
  const uint64_t *Open; // every enclosing block, outermost first
  size_t NumOpen;
  const char *Function; // the enclosing function's name, or ""
  /// The directive is the first token of the statement an adaptation
  /// directive reads (that directive governs its construct).
  uint32_t FirstInStatement;
  /// The directive is in a template (a dependent context): one region per instantiation.
  uint32_t Templated;
};

void *ompadapt_session_new(bool OffloadTargets, bool CPlusPlus);
/* The session's compilation is for an offload device: host parallel regions stay as written. */
void ompadapt_session_set_device(void *Session);
void ompadapt_session_free(void *Session);
/// Reads the value of -fplugin-arg-ompadapt-auto= once: the mode (freed with
/// ompadapt_auto_free), or null with *Error set to why (freed by
/// ompadapt_string_free).
void *ompadapt_auto_parse(const char *Kinds, char **Error);
void ompadapt_auto_free(void *Auto);
/// The kinds of zero-source-change mode the pass applies from the IR (freed with
/// ompadapt_string_free), or null where the frontend lowers the constructs itself.
char *ompadapt_auto_handover(const void *Auto);
/// Zero-source-change mode as ompadapt_auto_parse read it.
void ompadapt_session_set_auto(void *Session, const void *Auto);
OaResult *ompadapt_on_pragma(void *Session, const OaTok *Toks, size_t NumToks,
                             const OaContext *Ctx);
OaResult *ompadapt_on_statement(void *Session, const OaTok *Toks,
                                size_t NumToks);
OaResult *ompadapt_after_next_token(void *Session, uint32_t Saved);
/// A `declare adaptation` line found ahead (and the metadirective line after
/// it, if any); its tokens become the next saved list.
void ompadapt_on_lookahead(void *Session, const OaTok *Toks, size_t NumToks,
                           const OaTok *Meta, size_t NumMeta,
                           const char *Location);
void ompadapt_lookahead_done(void *Session, uint64_t File);
/// Where the statement after a directive ends: fed one token at a time
/// (answers: OaStatementStep).
void *ompadapt_statement_new(void);
void ompadapt_statement_free(void *Scanner);
uint32_t ompadapt_statement_feed(void *Scanner, const OaTok *Tok);
bool ompadapt_statement_is_empty(const void *Scanner);
void ompadapt_result_free(OaResult *Result);
/// The I-th region opened by 'begin adaptation' and never closed; null past
/// the last one.
const char *ompadapt_unclosed(void *Session, size_t I, uint64_t *LocCookie);
/// Text appended to the predefines of every translation unit (freed by
/// ompadapt_string_free). `PassRuns`: the ompadapt pass will run on this
/// compilation's host module, so that the runtime loader, where ompadapt has
/// it precompiled for `Triple`, is only declared (the pass adds its code).
char *ompadapt_prelude(const char *RuntimePath, const char *Triple, bool PassRuns,
                       const char *AutoKinds);
void ompadapt_string_free(char *S);
/// The annotation given to functions defined after a device-selector `declare
/// variant`/`metadirective` (static).
const char *ompadapt_device_specialised_annotation(void);

/// C++ side, referenced from Rust so that the linker keeps the plugin's
/// registrations.
int ompadapt_frontend_plugin_anchor(void);
}

#endif // OMPADAPT_SHIM_FFI_H
