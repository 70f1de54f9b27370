//===- OmpPragmaHandler.h - ompadapt's `#pragma omp` handler ----*- C++ -*-===//
//
// Takes over `#pragma omp`: hands each directive's tokens to the Rust side
// (plugin/syntax), reports its diagnostics through Clang, and injects the
// lowered tokens. Directives that are not adaptation directives are re-emitted
// exactly as Clang's own OpenMP pragma handler does.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_OMPPRAGMAHANDLER_H
#define OMPADAPT_SHIM_OMPPRAGMAHANDLER_H

#include "BlockTracker.h"
#include "StatementCollector.h"
#include "ffi.h"

#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <functional>
#include <vector>
#include <string>
#include <map>
#include <memory>
#include <optional>

namespace ompadapt {

struct TokenRuns;

class OmpPragmaHandler : public clang::PragmaHandler {
public:
  OmpPragmaHandler(void *Session, BlockTracker &Blocks)
      : PragmaHandler("omp"), Session(Session), Blocks(Blocks) {}

  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Introducer,
                    clang::Token &FirstTok) override;

  /// -fplugin-arg-ompadapt-remarks: show remarks (the host compilation's).
  bool Remarks = false;
  /// The enclosing function's name as written, for region names of
  /// zero-source-change mode (unset: not needed).
  std::function<std::string()> CurrentFunction;
  /// Whether the directive is in a template (Sema's current context is dependent).
  std::function<bool()> InTemplate;
  /// How region locations spell file names: the prefix maps of the compile line
  /// (-ffile-prefix-map, -fdebug-prefix-map, applied as clang applies them to
  /// debug information), then -fplugin-arg-ompadapt-source-root (its prefix
  /// dropped), so that a moved checkout keeps its region names.
  std::vector<std::pair<std::string, std::string>> PathMap;
  std::string SourceRoot;
  /// A `declare variant`, `begin declare variant` or `metadirective` with a
  /// `device` or `target_device` selector was seen outside system headers: from
  /// here on the device compilation may call other code than the host's.
  bool DeviceSpecialised = false;

private:
  /// A directive's tokens kept for later use (a `declare adaptation`, also
  /// one found by looking ahead in the file).
  struct SavedTokens {
    llvm::SmallVector<clang::Token, 32> Toks;
    clang::SourceLocation End;
    /// Lexed raw: macros are expanded where the tokens are used.
    bool Raw;
  };

  /// The directive being handled.
  struct Directive {
    clang::PragmaIntroducer Introducer;
    llvm::SmallVector<clang::Token, 32> Toks;
    clang::SourceLocation End;
    /// The line ended at the end of the file (only in a _Pragma string).
    std::optional<clang::Token> Eof;
  };
  void noteDeviceSelector(clang::Preprocessor &PP, const Directive &D);

  struct ResultDeleter {
    void operator()(OaResult *R) const { ompadapt_result_free(R); }
  };
  using Result = std::unique_ptr<OaResult, ResultDeleter>;

  /// A directive whose lowering reads on past its line, waiting for its
  /// continuation marker.
  struct Continuation {
    Directive D;
    Result R;
  };

  Directive lexDirective(clang::Preprocessor &PP,
                         clang::PragmaIntroducer Introducer);
  /// The statement or token after a directive: read, then lowered. `InLexer`:
  /// called from inside the lexer of the directive's file, which must not
  /// reach the end of its file meanwhile.
  void finish(clang::Preprocessor &PP, const Directive &D, const OaResult &R,
              bool InLexer = false);
  /// Defers `finish` until the marker `_Pragma("omp __ompadapt_continue N")`
  /// injected here is lexed.
  void defer(clang::Preprocessor &PP, Directive D, Result R);

  Result handOver(clang::Preprocessor &PP, const Directive &D);
  void lookAhead(clang::Preprocessor &PP, const Directive &D);
  void report(clang::Preprocessor &PP, const OaResult &R, const Directive &D);
  void reinjectUnchanged(clang::Preprocessor &PP, const Directive &D);
  void inject(clang::Preprocessor &PP, const OaResult &R, const Directive &D,
              llvm::ArrayRef<clang::Token> Statement,
              std::optional<clang::Token> After);
  /// Appends the tokens of one piece of a lowering to `Out`.
  void appendPiece(clang::Preprocessor &PP, const OaPiece &P,
                   const Directive &D, llvm::ArrayRef<clang::Token> Statement,
                   TokenRuns &Out, bool &InDirective);
  void internalError(clang::Preprocessor &PP, clang::SourceLocation Loc,
                     llvm::StringRef What);
  /// Where token `I` of list `List` is (the directive's, or a saved one).
  clang::SourceLocation tokenLoc(const Directive &D, uint32_t List,
                                 uint32_t I) const;

  void *Session;
  BlockTracker &Blocks;
  /// The statement being read for the directive being finished (directives
  /// in it are handled while it is read), or null.
  const StatementCollector *Collecting = nullptr;
  /// The statement of the directive being finished (OA_STATEMENT_LIST).
  llvm::ArrayRef<clang::Token> Statement;
  std::deque<SavedTokens> Saved;
  std::map<unsigned, Continuation> Deferred;
  unsigned NextContinuation = 0;
  llvm::DenseSet<unsigned> ScannedFiles;
};

} // namespace ompadapt

#endif // OMPADAPT_SHIM_OMPPRAGMAHANDLER_H
