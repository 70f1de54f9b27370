// The Clang side of libompadapt.so: a plugin action that takes over `#pragma omp`, hands each
// directive's tokens to the Rust lowering (plugin/syntax), reports its diagnostics through
// Clang, and injects the lowered tokens. Directives that are not adaptation directives are
// re-emitted exactly as Clang's own OpenMP pragma handler does. It also registers the ompadapt
// pass (libompadapt_pass.so, beside this library) with the compilation, so -fplugin alone
// enables the pass.
#include "ffi.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"

#include <dlfcn.h>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace clang;

extern template struct llvm::Any::TypeId<const llvm::Module *>;

namespace {

std::string thisLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&ompadapt_frontend_plugin_anchor), &info) && info.dli_fname)
    return info.dli_fname;
  return {};
}

OaTokKind classify(const Token &T) {
  if (T.is(tok::annot_pragma_openmp)) return OA_OMP_BEGIN;
  if (T.is(tok::annot_pragma_openmp_end)) return OA_OMP_END;
  if (T.isAnnotation()) return OA_OTHER_ANNOT;
  if (T.is(tok::identifier) || T.is(tok::raw_identifier) || T.getIdentifierInfo()) return OA_IDENT;
  if (T.is(tok::numeric_constant)) return OA_NUMBER;
  if (T.isLiteral()) return OA_LITERAL;
  return OA_PUNCT;
}

// Token descriptors for Rust; owns the spellings while they are lent.
struct TokDescs {
  std::vector<std::string> spellings;
  std::vector<OaTok> descs;
  TokDescs(Preprocessor &PP, ArrayRef<Token> toks) {
    spellings.reserve(toks.size());
    for (const Token &T : toks)
      spellings.push_back(T.isAnnotation() ? std::string() : PP.getSpelling(T));
    for (size_t i = 0; i < toks.size(); ++i)
      descs.push_back({spellings[i].data(), spellings[i].size(), classify(toks[i])});
  }
};

Token annotation(tok::TokenKind Kind, SourceLocation Loc) {
  Token T;
  T.startToken();
  T.setKind(Kind);
  T.setLocation(Loc);
  return T;
}

struct ResultDeleter {
  void operator()(OaResult *r) const { ompadapt_result_free(r); }
};
using Result = std::unique_ptr<OaResult, ResultDeleter>;

// Directives with no associated statement: the statement scanner stops after them.
bool isStandaloneDirective(ArrayRef<Token> dir, Preprocessor &PP) {
  auto word = [&](size_t i) -> std::string {
    return i < dir.size() && dir[i].getIdentifierInfo() ? dir[i].getIdentifierInfo()->getName().str() : "";
  };
  std::string w = word(1);
  if (w == "target") {
    std::string w2 = word(2);
    return w2 == "enter" || w2 == "exit" || w2 == "update";
  }
  for (const char *s : {"barrier", "taskwait", "taskyield", "flush", "depobj", "scan", "cancel",
                        "cancellation", "error", "interop", "assume"})
    if (w == s) return true;
  return false;
}

// Collects the tokens of the statement that follows a directive, by lexing ahead.
class StatementCollector {
  Preprocessor &PP;

public:
  SmallVector<Token, 128> toks;
  std::optional<Token> pushedBack; // one token read past the statement (after `if`)
  bool hitEof = false;

  explicit StatementCollector(Preprocessor &PP) : PP(PP) {}

  Token next() {
    Token T;
    if (pushedBack) {
      T = *pushedBack;
      pushedBack.reset();
    } else {
      PP.Lex(T);
    }
    if (T.is(tok::eof)) hitEof = true;
    return T;
  }

  void balanced(tok::TokenKind open, tok::TokenKind close) {
    int depth = 1;
    while (depth > 0 && !hitEof) {
      Token T = next();
      if (hitEof) return;
      toks.push_back(T);
      if (T.is(open)) ++depth;
      else if (T.is(close)) --depth;
    }
  }

  void parenthesised() {
    Token T = next();
    if (hitEof) return;
    toks.push_back(T);
    if (T.is(tok::l_paren)) balanced(tok::l_paren, tok::r_paren);
  }

  void statement() {
    Token T = next();
    if (hitEof) return;
    toks.push_back(T);
    if (T.is(tok::annot_pragma_openmp)) {
      size_t start = toks.size() - 1;
      while (!hitEof) {
        Token D = next();
        if (hitEof) return;
        toks.push_back(D);
        if (D.is(tok::annot_pragma_openmp_end)) break;
      }
      if (!isStandaloneDirective(ArrayRef<Token>(toks).slice(start), PP)) statement();
      return;
    }
    if (T.isAnnotation()) return statement(); // e.g. #pragma clang loop
    switch (T.getKind()) {
    case tok::l_brace:
      return balanced(tok::l_brace, tok::r_brace);
    case tok::kw_for:
    case tok::kw_while:
    case tok::kw_switch:
      parenthesised();
      return statement();
    case tok::kw_if: {
      Token U = next();
      if (hitEof) return;
      toks.push_back(U);
      if (U.is(tok::kw_constexpr)) parenthesised();
      else if (U.is(tok::l_paren)) balanced(tok::l_paren, tok::r_paren);
      statement();
      Token E = next();
      if (hitEof) return;
      if (E.is(tok::kw_else)) {
        toks.push_back(E);
        statement();
      } else {
        pushedBack = E;
      }
      return;
    }
    case tok::kw_do:
      statement();
      parenthesised(); // `while`
      parenthesised(); // `(cond)`
      toks.push_back(next()); // `;`
      return;
    default:
      break;
    }
    int depth = 0;
    for (Token U = T; !hitEof; ) {
      if (U.isOneOf(tok::l_paren, tok::l_brace, tok::l_square)) ++depth;
      else if (U.isOneOf(tok::r_paren, tok::r_brace, tok::r_square)) --depth;
      else if (U.is(tok::semi) && depth <= 0) return;
      U = next();
      if (hitEof) return;
      toks.push_back(U);
    }
  }
};

// Which block a directive is in, tracked lexically from the token stream: Sema's idea of the
// current function lags one token behind the preprocessor (a directive right after a
// function's closing brace is lexed before Sema leaves the function). A region's `begin` and
// `end` must be in the same block, since the lowering declares the region's context there.
class BlockTracker {
  std::vector<uint64_t> Open; // ids of the enclosing `{` blocks, innermost last
  uint64_t Next = 1;

public:
  void onToken(const Token &T) {
    if (T.is(tok::l_brace)) Open.push_back(Next++);
    else if (T.is(tok::r_brace) && !Open.empty()) Open.pop_back();
  }
  // 0 at file scope.
  uint64_t current() const { return Open.empty() ? 0 : Open.back(); }
};

class OmpPragmaHandler : public PragmaHandler {
  void *Session;
  BlockTracker &Blocks;

public:
  OmpPragmaHandler(void *Session, BlockTracker &Blocks) : PragmaHandler("omp"), Session(Session), Blocks(Blocks) {}

  void HandlePragma(Preprocessor &PP, PragmaIntroducer Introducer, Token &FirstTok) override {
    SmallVector<Token, 32> Toks;
    Token Tok;
    PP.Lex(Tok);
    while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof)) {
      Toks.push_back(Tok);
      PP.Lex(Tok);
    }
    SourceLocation EodLoc = Tok.getLocation();
    TokDescs Descs(PP, Toks);

    SourceManager &SM = PP.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(Introducer.Loc);
    std::string Where = P.isValid() ? std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) : "?";
    Result R(ompadapt_on_pragma(Session, Descs.descs.data(), Descs.descs.size(), Where.c_str(), Blocks.current(),
                                (Toks.empty() ? Introducer.Loc : Toks[0].getLocation()).getRawEncoding()));
    if (!R) return reinjectUnchanged(PP, Introducer, Toks, EodLoc);
    report(PP, *R, Toks, EodLoc);

    switch (R->outcome) {
    case OA_NOT_OURS:
      return reinjectUnchanged(PP, Introducer, Toks, EodLoc);
    case OA_EMIT:
      return inject(PP, *R, Toks, {}, Introducer.Loc, EodLoc, std::nullopt);
    case OA_NEED_STATEMENT: {
      StatementCollector C(PP);
      C.statement();
      if (C.hitEof) {
        unsigned ID = PP.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error, "expected a statement after this adaptation directive");
        PP.Diag(Introducer.Loc, ID);
      }
      TokDescs StmtDescs(PP, C.toks);
      Result RS(ompadapt_on_statement(Session, StmtDescs.descs.data(), StmtDescs.descs.size()));
      if (!RS) return;
      return inject(PP, *RS, Toks, C.toks, Introducer.Loc, EodLoc, C.pushedBack);
    }
    }
  }

private:
  // What Clang's own OpenMP pragma handler produces.
  static void reinjectUnchanged(Preprocessor &PP, PragmaIntroducer Introducer, ArrayRef<Token> Toks,
                                SourceLocation EodLoc) {
    SmallVector<Token, 32> Out;
    Out.push_back(annotation(tok::annot_pragma_openmp, Introducer.Loc));
    Out.append(Toks.begin(), Toks.end());
    Out.push_back(annotation(tok::annot_pragma_openmp_end, EodLoc));
    enter(PP, Out, /*DisableMacroExpansion=*/false);
  }

  static void enter(Preprocessor &PP, ArrayRef<Token> Out, bool DisableMacroExpansion) {
    if (Out.empty()) return;
    auto Buf = std::make_unique<Token[]>(Out.size());
    std::copy(Out.begin(), Out.end(), Buf.get());
    PP.EnterTokenStream(std::move(Buf), Out.size(), DisableMacroExpansion, /*IsReinject=*/false);
  }

  void report(Preprocessor &PP, const OaResult &R, ArrayRef<Token> Toks, SourceLocation EodLoc) {
    DiagnosticsEngine &D = PP.getDiagnostics();
    // The driver runs one cc1 per offload target besides the host one; warnings are said once,
    // by the host compilation. Errors stop every compilation, so each reports them.
    bool Device = PP.getLangOpts().OpenMPIsTargetDevice;
    for (size_t i = 0; i < R.ndiags; ++i) {
      const OaDiag &G = R.diags[i];
      if (Device && G.severity == OA_WARNING) continue;
      DiagnosticsEngine::Level L = G.severity == OA_ERROR     ? DiagnosticsEngine::Error
                                   : G.severity == OA_WARNING ? DiagnosticsEngine::Warning
                                                              : DiagnosticsEngine::Note;
      SourceLocation Loc = G.tok < Toks.size() ? Toks[G.tok].getLocation() : EodLoc;
      SourceLocation End = (G.end > G.tok && G.end - 1 < Toks.size()) ? Toks[G.end - 1].getLocation() : Loc;
      unsigned ID = D.getCustomDiagID(L, "%0");
      auto B = PP.Diag(Loc, ID);
      B << G.message << CharSourceRange::getTokenRange(Loc, End);
      if (G.fixit)
        B << FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Loc, End), G.fixit);
    }
  }

  // Lexes generated C text into tokens located at the directive.
  static void lexText(Preprocessor &PP, StringRef Text, SourceLocation Loc, SmallVectorImpl<Token> &Out) {
    char *Mem = PP.getPreprocessorAllocator().Allocate<char>(Text.size() + 1);
    std::copy(Text.begin(), Text.end(), Mem);
    Mem[Text.size()] = 0;
    Lexer L(Loc, PP.getLangOpts(), Mem, Mem, Mem + Text.size());
    Token T;
    while (true) {
      L.LexFromRawLexer(T);
      if (T.is(tok::eof)) break;
      if (T.is(tok::raw_identifier)) PP.LookUpIdentifierInfo(T);
      T.setLocation(Loc);
      T.clearFlag(Token::StartOfLine);
      Out.push_back(T);
    }
  }

  void inject(Preprocessor &PP, const OaResult &R, ArrayRef<Token> Toks, ArrayRef<Token> Stmt,
              SourceLocation Loc, SourceLocation EodLoc, std::optional<Token> After) {
    SmallVector<Token, 256> Out;
    for (size_t i = 0; i < R.npieces; ++i) {
      const OaPiece &P = R.pieces[i];
      switch (P.kind) {
      case OA_TEXT:
        lexText(PP, StringRef(P.text, P.len), Loc, Out);
        break;
      case OA_TEXT_AT: // generated code that belongs to a clause: located at its token
        lexText(PP, StringRef(P.text, P.len), P.a < Toks.size() ? Toks[P.a].getLocation() : Loc, Out);
        break;
      case OA_USER:
        Out.append(Toks.begin() + P.a, Toks.begin() + P.b);
        break;
      case OA_PIECE_OMP_BEGIN:
        Out.push_back(annotation(tok::annot_pragma_openmp, Loc));
        break;
      case OA_PIECE_OMP_END:
        Out.push_back(annotation(tok::annot_pragma_openmp_end, EodLoc));
        break;
      case OA_STATEMENT:
        Out.append(Stmt.begin(), Stmt.end());
        break;
      }
    }
    if (After && After->isNot(tok::eof)) Out.push_back(*After);
    enter(PP, Out, /*DisableMacroExpansion=*/true);
  }
};

class OmpAdaptConsumer : public SemaConsumer {
  void *Session;
  BlockTracker Blocks;
  std::unique_ptr<OmpPragmaHandler> Handler;
  Sema *S = nullptr;

public:
  explicit OmpAdaptConsumer(bool OffloadTargets) : Session(ompadapt_session_new(OffloadTargets)) {}
  ~OmpAdaptConsumer() override { ompadapt_session_free(Session); }

  void InitializeSema(Sema &Sem) override {
    S = &Sem;
    Preprocessor &PP = Sem.getPreprocessor();
    Handler = std::make_unique<OmpPragmaHandler>(Session, Blocks);
    PP.setTokenWatcher([this](const Token &T) { Blocks.onToken(T); });
    // Removal goes by name: this releases the parser's `omp` handler (the parser keeps
    // ownership and removes "omp" — then ours — when it is destroyed).
    PP.RemovePragmaHandler(Handler.get());
    PP.AddPragmaHandler(Handler.get());
  }

  void HandleTranslationUnit(ASTContext &) override {
    if (!S) return;
    DiagnosticsEngine &D = S->getDiagnostics();
    uint64_t Cookie = 0;
    for (size_t i = 0; const char *Model = ompadapt_unclosed(Session, i, &Cookie); ++i) {
      unsigned ID = D.getCustomDiagID(DiagnosticsEngine::Error,
                                      "'begin adaptation' of '%0' has no matching 'end adaptation'");
      D.Report(SourceLocation::getFromRawEncoding(static_cast<SourceLocation::UIntTy>(Cookie)), ID) << Model;
    }
  }
};

// With -fopenmp-targets the driver compiles the host twice: first to bitcode with LLVM passes
// disabled (this plugin runs there), then that bitcode to an object (`-x ir`: no frontend, so
// no plugin action and no pass registration). The dispatch rewrite must therefore happen in
// the first job, on the module just before it is written: a before-pass instrumentation
// callback sees it. Clang calls CodeGenOpts.PassBuilderCallbacks even under
// -disable-llvm-passes.
//
// llvm::any_cast compares the address of Any::TypeId<T>::Id. A Rust cdylib hides every C++
// symbol it defines, so a copy instantiated here would never equal libLLVM's: the explicit
// instantiation declaration below (outside the anonymous namespace) makes this file use the
// one libLLVM exports.
std::function<void(llvm::PassBuilder &)> rewriteBeforeBitcodeIsWritten(const std::string &PassLibrary) {
  return [PassLibrary](llvm::PassBuilder &PB) {
    llvm::PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks();
    void *Lib = dlopen(PassLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL);
    using RunFn = bool (*)(LLVMModuleRef);
    auto Run = Lib ? reinterpret_cast<RunFn>(dlsym(Lib, "ompadapt_pass_run_module")) : nullptr;
    if (!PIC || !Run) {
      llvm::errs() << "ompadapt: warning: cannot load the pass from " << PassLibrary << " ("
                   << (Lib ? "no ompadapt_pass_run_module" : dlerror())
                   << "): CPU/offload dispatch is off in this compilation\n";
      return;
    }
    auto Done = std::make_shared<bool>(false);
    PIC->registerBeforeNonSkippedPassCallback([Done, Run](llvm::StringRef, llvm::Any IR) {
      if (*Done) return;
      if (const auto *M = llvm::any_cast<const llvm::Module *>(&IR)) {
        *Done = true;
        Run(llvm::wrap(const_cast<llvm::Module *>(*M)));
      }
    });
  };
}

class OmpAdaptAction : public PluginASTAction {
  bool RunPass = true;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    const LangOptions &LO = CI.getLangOpts();
    if (!LO.OpenMP) return std::make_unique<ASTConsumer>();
    std::string Self = thisLibraryPath();
    std::string Dir = Self.empty() ? std::string() : Self.substr(0, Self.rfind('/') + 1);
    CodeGenOptions &CG = CI.getCodeGenOpts();
    std::string PassLibrary = Dir + "libompadapt_pass.so";
    if (RunPass && !Dir.empty() &&
        std::find(CG.PassPlugins.begin(), CG.PassPlugins.end(), PassLibrary) == CG.PassPlugins.end())
      CG.PassPlugins.push_back(PassLibrary);
    bool OffloadTargets = !LO.OMPTargetTriples.empty();
    if (RunPass && !Dir.empty() && CG.DisableLLVMPasses && OffloadTargets && !LO.OpenMPIsTargetDevice)
      CG.PassBuilderCallbacks.push_back(rewriteBeforeBitcodeIsWritten(PassLibrary));
    std::string Runtime;
    if (const char *Env = getenv("OMPADAPT_RUNTIME_DEFAULT"); Env && *Env) Runtime = Env;
    else if (!Dir.empty()) Runtime = Dir + "libompadapt_rt.so";
    Preprocessor &PP = CI.getPreprocessor();
    char *Prelude = ompadapt_prelude(Runtime.c_str());
    PP.setPredefines(PP.getPredefines() + Prelude);
    ompadapt_string_free(Prelude);
    return std::make_unique<OmpAdaptConsumer>(OffloadTargets);
  }

  // -fplugin-arg-ompadapt-no-pass: lower the directives but leave the IR to `opt -passes=ompadapt`.
  bool ParseArgs(const CompilerInstance &CI, const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      if (A == "no-pass") {
        RunPass = false;
      } else {
        DiagnosticsEngine &D = CI.getDiagnostics();
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "unknown ompadapt plugin argument '%0' (known: no-pass)")) << A;
        return false;
      }
    }
    return true;
  }
  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<OmpAdaptAction> X("ompadapt", "machine-learning-driven adaptive OpenMP");

extern "C" int ompadapt_frontend_plugin_anchor(void) { return 1; }
