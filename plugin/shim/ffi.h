// Interface between the C++ shims and the Rust side of libompadapt.so (plugin/src/ffi.rs).
// Keep in sync with the #[repr(C)] structs there.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

enum OaTokKind : uint32_t { OA_IDENT, OA_NUMBER, OA_LITERAL, OA_PUNCT, OA_OMP_BEGIN, OA_OMP_END, OA_OTHER_ANNOT };
enum OaSeverity : uint32_t { OA_ERROR, OA_WARNING, OA_NOTE };
enum OaOutcome : uint32_t { OA_NOT_OURS, OA_EMIT, OA_NEED_STATEMENT };
enum OaPieceKind : uint32_t { OA_TEXT, OA_USER, OA_PIECE_OMP_BEGIN, OA_PIECE_OMP_END, OA_STATEMENT, OA_TEXT_AT };

struct OaTok {
  const char *text;
  size_t len;
  uint32_t kind;
};
struct OaDiag {
  uint32_t severity;
  uint32_t tok, end;       // token range in the directive; tok == ntoks: end of line
  const char *message;     // NUL-terminated
  const char *fixit;       // NULL or replacement text for [tok, end)
};
struct OaPiece {
  uint32_t kind;
  uint32_t a, b;           // OA_USER: token range; OA_TEXT_AT: a = token giving the location
  const char *text;        // OA_TEXT, OA_TEXT_AT
  size_t len;
};
struct OaResult {
  uint32_t outcome;
  const OaDiag *diags;
  size_t ndiags;
  const OaPiece *pieces;
  size_t npieces;
};

// offload_targets: the compilation has -fopenmp-targets (target constructs can be dispatched).
void *ompadapt_session_new(bool offload_targets);
void ompadapt_session_free(void *session);
OaResult *ompadapt_on_pragma(void *session, const OaTok *toks, size_t ntoks, const char *location,
                             uint64_t block, uint64_t loc_cookie);
OaResult *ompadapt_on_statement(void *session, const OaTok *toks, size_t ntoks);
void ompadapt_result_free(OaResult *result);
// The i-th region opened by 'begin adaptation' and never closed; NULL past the last one.
const char *ompadapt_unclosed(void *session, size_t i, uint64_t *loc_cookie);
// Text appended to the predefines of every translation unit (freed by ompadapt_string_free).
char *ompadapt_prelude(const char *runtime_path);
void ompadapt_string_free(char *s);

// C++ side, referenced from Rust so that the linker keeps the plugin's registrations.
int ompadapt_frontend_plugin_anchor(void);
}
