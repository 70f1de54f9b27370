//===- OmpAdaptPlugin.cpp - The Clang plugin libompadapt.so ---------------===//
//
// The plugin action: in OpenMP compilations it installs ompadapt's `#pragma
// omp` handler (OmpPragmaHandler), injects the runtime interface and the
// lowering support into every translation unit, reports regions left open,
// and registers the ompadapt pass (PassLoader).
//
//===----------------------------------------------------------------------===//
#include "BlockTracker.h"
#include "OmpPragmaHandler.h"
#include "PassLoader.h"
#include "ffi.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"

#include <cstdlib>
#include <memory>
#include <string>

using namespace clang;

namespace ompadapt {
namespace {

class OmpAdaptConsumer : public SemaConsumer {
public:
  OmpAdaptConsumer(bool OffloadTargets, bool CPlusPlus)
      : Session(ompadapt_session_new(OffloadTargets, CPlusPlus)) {}
  ~OmpAdaptConsumer() override { ompadapt_session_free(Session); }

  void InitializeSema(Sema &S) override {
    this->S = &S;
    Preprocessor &PP = S.getPreprocessor();
    Handler = std::make_unique<OmpPragmaHandler>(Session, Blocks);
    PP.setTokenWatcher([this](const Token &T) { Blocks.onToken(T); });
    // Removal goes by name: this releases the parser's `omp` handler (the
    // parser keeps ownership and removes "omp" — then ours — when it is
    // destroyed).
    PP.RemovePragmaHandler(Handler.get());
    PP.AddPragmaHandler(Handler.get());
  }

  void HandleTranslationUnit(ASTContext &) override {
    if (!S)
      return;
    DiagnosticsEngine &D = S->getDiagnostics();
    unsigned ID = D.getCustomDiagID(
        DiagnosticsEngine::Error,
        "'begin adaptation' of '%0' has no matching 'end adaptation'");
    uint64_t Cookie = 0;
    for (size_t I = 0;
         const char *Model = ompadapt_unclosed(Session, I, &Cookie); ++I)
      D.Report(SourceLocation::getFromRawEncoding(
                   static_cast<SourceLocation::UIntTy>(Cookie)),
               ID)
          << Model;
  }

private:
  void *Session;
  BlockTracker Blocks;
  std::unique_ptr<OmpPragmaHandler> Handler;
  Sema *S = nullptr;
};

class OmpAdaptAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    const LangOptions &LO = CI.getLangOpts();
    if (!LO.OpenMP)
      return std::make_unique<ASTConsumer>();
    std::string Dir = pluginDirectory();
    if (RunPass && !Dir.empty())
      registerPass(CI, Dir + "libompadapt_pass.so");
    std::string Runtime;
    if (const char *Env = std::getenv("OMPADAPT_RUNTIME_DEFAULT"); Env && *Env)
      Runtime = Env;
    else if (!Dir.empty())
      Runtime = Dir + "libompadapt_rt.so";
    Preprocessor &PP = CI.getPreprocessor();
    char *Prelude = ompadapt_prelude(Runtime.c_str());
    PP.setPredefines(PP.getPredefines() + Prelude);
    ompadapt_string_free(Prelude);
    return std::make_unique<OmpAdaptConsumer>(!LO.OMPTargetTriples.empty(),
                                              LO.CPlusPlus);
  }

  // -fplugin-arg-ompadapt-no-pass: lower the directives but leave the IR to
  // `opt -passes=ompadapt`.
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      if (A == "no-pass") {
        RunPass = false;
        continue;
      }
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(
          DiagnosticsEngine::Error,
          "unknown ompadapt plugin argument '%0' (known: no-pass)"))
          << A;
      return false;
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  bool RunPass = true;
};

} // namespace
} // namespace ompadapt

static FrontendPluginRegistry::Add<ompadapt::OmpAdaptAction>
    X("ompadapt", "machine-learning-driven adaptive OpenMP");

extern "C" int ompadapt_frontend_plugin_anchor(void) { return 1; }
