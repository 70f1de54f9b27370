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
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/CodeGenOptions.h"
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

/// The function whose body is being read, by its name as written (C++:
/// qualified); lambdas, captured regions and blocks belong to the function
/// around them. Empty outside a function.
static std::string currentFunction(Sema &S) {
  for (DeclContext *DC = S.CurContext; DC; DC = DC->getParent()) {
    if (auto *MD = dyn_cast<CXXMethodDecl>(DC); MD && MD->getParent()->isLambda())
      continue;
    if (auto *FD = dyn_cast<FunctionDecl>(DC))
      return FD->getQualifiedNameAsString();
    if (auto *RD = dyn_cast<CXXRecordDecl>(DC)) {
      if (RD->isLambda())
        continue;
      // The body of a member function defined in its class is read (and kept
      // for later) while the class is: that function is the class's last
      // declaration so far.
      Decl *Last = nullptr;
      for (Decl *D : RD->decls())
        Last = D;
      if (auto *TD = dyn_cast_or_null<FunctionTemplateDecl>(Last))
        Last = TD->getTemplatedDecl();
      if (auto *ND = dyn_cast_or_null<NamedDecl>(Last))
        return ND->getQualifiedNameAsString();
      return RD->getQualifiedNameAsString();
    }
  }
  return {};
}

/// What -fplugin-arg-ompadapt-* said.
struct PluginArgs {
  bool RunPass = true;
  bool Remarks = false;
  /// -fplugin-arg-ompadapt-auto=<kinds>, as ompadapt_auto_parse read it (once,
  /// for every translation unit); null: off.
  std::shared_ptr<void> Auto;
  /// -fplugin-arg-ompadapt-source-root=<dir>: region names' files relative to it.
  std::string SourceRoot;
  /// The compile line's path prefix maps (-ffile-prefix-map, -fdebug-prefix-map).
  std::vector<std::pair<std::string, std::string>> PathMap;
  /// The debug locations are there for the pass's region names alone, and nothing asked for
  /// remarks: functions without OpenMP constructs need none (see dropLocationsWithoutRegions).
  bool LocationsForRegionsOnly = false;
};

/// Whether a function body has an OpenMP construct, or a call or reference to ompadapt's
/// support (an explicit adaptive construct the handler rewrote): where the pass may name a
/// region, or point at one, from a debug location.
class FindsRegion : public RecursiveASTVisitor<FindsRegion> {
public:
  bool Found = false;
  bool VisitOMPExecutableDirective(OMPExecutableDirective *) {
    Found = true;
    return false;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const IdentifierInfo *I = E->getDecl()->getIdentifier();
    Found = I && I->getName().starts_with("__ompadapt");
    return !Found;
  }
};

/// Zero-source-change mode without -g turns location tracking on for the pass's region names
/// (which it drops once it has named them); clang's code generator attaching a location to
/// every expression of every function cost some 5 M instructions on a PolyBench kernel. A
/// function with no OpenMP construct holds no region to name, so it is generated as `nodebug`
/// (implicitly: nothing changes in the source's AST as written). Only where the locations go
/// nowhere else: with remarks asked for, the pass's findings point into called functions too.
static void dropLocationsWithoutRegions(DeclGroupRef DG, ASTContext &Ctx) {
  for (Decl *D : DG) {
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->hasAttr<NoDebugAttr>())
      continue;
    FindsRegion Finder;
    Finder.TraverseStmt(FD->getBody());
    if (!Finder.Found)
      FD->addAttr(NoDebugAttr::CreateImplicit(Ctx));
  }
}

/// After a device-selector `declare variant` or `metadirective`, the device may
/// run other code than the host for the same call: every function defined from
/// there on (outside system headers) carries an annotation the pass reads, and a
/// kernel that reaches one keeps no `cpu` variant (docs/soundness.md).
static void markDeviceSpecialised(DeclGroupRef DG, ASTContext &Ctx) {
  SourceManager &SM = Ctx.getSourceManager();
  for (Decl *D : DG) {
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() ||
        SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
      continue;
    FD->addAttr(AnnotateAttr::CreateImplicit(
        Ctx, ompadapt_device_specialised_annotation(), nullptr, 0));
  }
}

class OmpAdaptConsumer : public SemaConsumer {
public:
  OmpAdaptConsumer(bool OffloadTargets, bool CPlusPlus, bool Device,
                   const PluginArgs &Args)
      : Session(ompadapt_session_new(OffloadTargets, CPlusPlus)), Args(Args) {
    if (Device)
      ompadapt_session_set_device(Session);
    if (Args.Auto)
      ompadapt_session_set_auto(Session, Args.Auto.get());
  }
  ~OmpAdaptConsumer() override { ompadapt_session_free(Session); }

  void InitializeSema(Sema &S) override {
    this->S = &S;
    Preprocessor &PP = S.getPreprocessor();
    Handler = std::make_unique<OmpPragmaHandler>(Session, Blocks);
    Handler->Remarks = Args.Remarks;
    Handler->PathMap = Args.PathMap;
    Handler->SourceRoot = Args.SourceRoot;
    if (Args.Auto) {
      Handler->CurrentFunction = [&S]() { return currentFunction(S); };
      Handler->InTemplate = [&S]() { return S.CurContext && S.CurContext->isDependentContext(); };
    }
    PP.setTokenWatcher([this](const Token &T) { Blocks.onToken(T); });
    // Removal goes by name: this releases the parser's `omp` handler (the
    // parser keeps ownership and removes "omp" — then ours — when it is
    // destroyed).
    PP.RemovePragmaHandler(Handler.get());
    PP.AddPragmaHandler(Handler.get());
  }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    // (this consumer runs before clang's code generator: see getActionType)
    if (Args.LocationsForRegionsOnly && S)
      dropLocationsWithoutRegions(DG, S->getASTContext());
    if (Handler && Handler->DeviceSpecialised && S)
      markDeviceSpecialised(DG, S->getASTContext());
    return true;
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
  PluginArgs Args;
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
    bool PassRuns = false;
    if (Args.RunPass && !Dir.empty())
      PassRuns = registerPass(CI, Dir + "libompadapt_pass.so", Args.Remarks);
    std::string Runtime;
    if (const char *Env = std::getenv("OMPADAPT_RUNTIME_DEFAULT"); Env && *Env)
      Runtime = Env;
    else if (!Dir.empty())
      Runtime = Dir + "libompadapt_rt.so";
    // Zero-source-change mode is the pass's wherever it applies every kind given: the frontend
    // then leaves each construct as written (host and device compilations alike, so that both
    // see the same target regions) and tells the pass in the module's mark.
    std::string HandedOver;
    if (Args.Auto)
      if (char *K = ompadapt_auto_handover(Args.Auto.get())) {
        HandedOver = K;
        ompadapt_string_free(K);
      }
    PluginArgs Consumer = Args;
    for (const auto &[From, To] : CI.getCodeGenOpts().DebugPrefixMap)
      Consumer.PathMap.emplace_back(From, To);
    bool LocationsForThePass = false;
    if (!HandedOver.empty()) {
      Consumer.Auto.reset();
      // The pass names regions `function@file:line` from debug locations: without -g, the
      // locations alone, as for -Rpass remarks (nothing goes into the object's debug sections).
      CodeGenOptions &CG = CI.getCodeGenOpts();
      LocationsForThePass = !LO.OpenMPIsTargetDevice &&
                            CG.getDebugInfo() == llvm::codegenoptions::NoDebugInfo;
      if (LocationsForThePass)
        CG.setDebugInfo(llvm::codegenoptions::LocTrackingOnly);
      Consumer.LocationsForRegionsOnly =
          LocationsForThePass && !Args.Remarks && CG.OptRecordFile.empty() &&
          !CG.OptimizationRemark.hasValidPattern() &&
          !CG.OptimizationRemarkMissed.hasValidPattern() &&
          !CG.OptimizationRemarkAnalysis.hasValidPattern();
    }
    Preprocessor &PP = CI.getPreprocessor();
    // The mark: the kinds handed over, the source root the pass's names are relative to, and
    // whether the locations are there for the pass alone (it drops them once it has named the
    // regions: the optimiser and the code generator need not carry them).
    std::string Mark = HandedOver;
    if (!HandedOver.empty() && !Args.SourceRoot.empty())
      Mark += "\nroot=" + Args.SourceRoot;
    if (LocationsForThePass)
      Mark += "\nlocations=pass";
    char *Prelude =
        ompadapt_prelude(Runtime.c_str(), CI.getTarget().getTriple().str().c_str(),
                         PassRuns, Mark.c_str());
    PP.setPredefines(PP.getPredefines() + Prelude);
    ompadapt_string_free(Prelude);
    return std::make_unique<OmpAdaptConsumer>(!LO.OMPTargetTriples.empty(),
                                              LO.CPlusPlus,
                                              LO.OpenMPIsTargetDevice, Consumer);
  }

  // -fplugin-arg-ompadapt-no-pass: lower the directives but leave the IR to
  // `opt -passes=ompadapt`.
  // -fplugin-arg-ompadapt-auto[=<kinds>]: zero-source-change mode (no kinds, or
  // `default`: the default kinds of each kind of construct).
  // -fplugin-arg-ompadapt-source-root=<dir>: region names relative to <dir>.
  // -fplugin-arg-ompadapt-remarks: say what auto mode left alone, and why
  // (also the pass's remarks).
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Given) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &A : Given) {
      if (A == "no-pass") {
        Args.RunPass = false;
        continue;
      }
      if (A == "remarks") {
        Args.Remarks = true;
        continue;
      }
      if (A.rfind("source-root=", 0) == 0 && A.size() > 12) {
        Args.SourceRoot = A.substr(12);
        continue;
      }
      if (A == "auto" || A.rfind("auto=", 0) == 0) {
        std::string Kinds = A == "auto" ? std::string("default") : A.substr(5);
        char *Why = nullptr;
        void *Auto = ompadapt_auto_parse(Kinds.c_str(), &Why);
        if (!Auto) {
          D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
              << (Why ? Why : "invalid -fplugin-arg-ompadapt-auto");
          ompadapt_string_free(Why);
          return false;
        }
        Args.Auto = std::shared_ptr<void>(Auto, ompadapt_auto_free);
        continue;
      }
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                 "unknown ompadapt plugin argument '%0' "
                                 "(known: no-pass, auto[=<kinds>], remarks, "
                                 "source-root=<dir>)"))
          << A;
      return false;
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  PluginArgs Args;
};

} // namespace
} // namespace ompadapt

static FrontendPluginRegistry::Add<ompadapt::OmpAdaptAction>
    X("ompadapt", "machine-learning-driven adaptive OpenMP");

extern "C" int ompadapt_frontend_plugin_anchor(void) { return 1; }
