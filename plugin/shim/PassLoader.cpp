//===- PassLoader.cpp - Registering the ompadapt pass with clang ----------===//
#include "PassLoader.h"

#include "ffi.h"

#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <dlfcn.h>
#include <unistd.h>
#include <functional>
#include <memory>

using namespace clang;

// llvm::any_cast compares the address of Any::TypeId<T>::Id. A Rust cdylib
// hides every C++ symbol it defines, so a copy instantiated here would never
// equal libLLVM's: this explicit instantiation declaration makes this file use
// the one libLLVM exports.
extern template struct llvm::Any::TypeId<const llvm::Module *>;

namespace ompadapt {

std::string pluginDirectory() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&ompadapt_frontend_plugin_anchor),
              &Info) ||
      !Info.dli_fname)
    return {};
  std::string Self = Info.dli_fname;
  size_t Slash = Self.rfind('/');
  return Slash == std::string::npos ? std::string("./")
                                    : Self.substr(0, Slash + 1);
}

// With -fopenmp-targets the driver compiles the host twice: first to bitcode
// with LLVM passes disabled (this plugin runs there), then that bitcode to an
// object (`-x ir`: no frontend, so no plugin action and no pass registration).
// The dispatch rewrite must therefore happen in the first job, on the module
// just before it is written: a before-pass instrumentation callback sees it.
// Clang calls CodeGenOpts.PassBuilderCallbacks even under -disable-llvm-passes.
static std::function<void(llvm::PassBuilder &)>
rewriteBeforeBitcodeIsWritten(const std::string &PassLibrary) {
  return [PassLibrary](llvm::PassBuilder &PB) {
    llvm::PassInstrumentationCallbacks *PIC =
        PB.getPassInstrumentationCallbacks();
    void *Lib = dlopen(PassLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL);
    using RunFn = bool (*)(LLVMModuleRef);
    auto Run =
        Lib ? reinterpret_cast<RunFn>(dlsym(Lib, "ompadapt_pass_run_module"))
            : nullptr;
    if (!PIC || !Run) {
      const char *Why = Lib ? "no ompadapt_pass_run_module" : dlerror();
      llvm::errs() << "ompadapt: warning: cannot load the pass from "
                   << PassLibrary << " (" << (Why ? Why : "unknown error")
                   << "): CPU/offload dispatch is off in this compilation\n";
      return;
    }
    auto Done = std::make_shared<bool>(false);
    PIC->registerBeforeNonSkippedPassCallback(
        [Done, Run](llvm::StringRef, llvm::Any IR) {
          if (*Done)
            return;
          if (const auto *M = llvm::any_cast<const llvm::Module *>(&IR)) {
            *Done = true;
            Run(llvm::wrap(const_cast<llvm::Module *>(*M)));
          }
        });
  };
}

// What -Rpass=ompadapt -Rpass-missed=ompadapt -Rpass-analysis=ompadapt would
// ask for (added to the patterns given, if any), with the locations clang
// tracks for them when there is no debug information.
static void requestPassRemarks(CompilerInstance &CI) {
  CodeGenOptions &CG = CI.getCodeGenOpts();
  struct {
    CodeGenOptions::OptRemark &Remark;
    const char *Group;
  } Kinds[] = {{CG.OptimizationRemark, "pass"},
               {CG.OptimizationRemarkMissed, "pass-missed"},
               {CG.OptimizationRemarkAnalysis, "pass-analysis"}};
  for (auto &K : Kinds) {
    std::string Pattern = "^ompadapt$";
    if (K.Remark.hasValidPattern())
      Pattern = "(" + K.Remark.Pattern + ")|" + Pattern;
    K.Remark.Kind = CodeGenOptions::RK_WithPattern;
    K.Remark.Pattern = Pattern;
    K.Remark.Regex = std::make_shared<llvm::Regex>(Pattern);
    CI.getDiagnostics().setSeverityForGroup(diag::Flavor::Remark, K.Group,
                                            diag::Severity::Remark);
  }
  if (CG.getDebugInfo() == llvm::codegenoptions::NoDebugInfo)
    CG.setDebugInfo(llvm::codegenoptions::LocTrackingOnly);
}

static std::string passRecordFile(const std::string &File) {
  size_t Opt = File.rfind(".opt.");
  if (Opt == std::string::npos || File.find('/', Opt) != std::string::npos)
    return File + ".ompadapt";
  return File.substr(0, Opt) + ".ompadapt" + File.substr(Opt);
}

bool registerPass(CompilerInstance &CI, const std::string &PassLibrary,
                  bool Remarks) {
  CodeGenOptions &CG = CI.getCodeGenOpts();
  const LangOptions &LO = CI.getLangOpts();
  if (Remarks && !LO.OpenMPIsTargetDevice)
    requestPassRemarks(CI);
  if (std::find(CG.PassPlugins.begin(), CG.PassPlugins.end(), PassLibrary) ==
      CG.PassPlugins.end())
    CG.PassPlugins.push_back(PassLibrary);
  bool OffloadTargets = !LO.OMPTargetTriples.empty();
  if (CG.DisableLLVMPasses && OffloadTargets && !LO.OpenMPIsTargetDevice) {
    CG.PassBuilderCallbacks.push_back(
        rewriteBeforeBitcodeIsWritten(PassLibrary));
    // -fsave-optimization-record gives this job and the backend job after it
    // the same file, which the backend job (no pass runs there) rewrites: the
    // pass's remarks go to a file of their own, a.opt.yaml -> a.ompadapt.opt.yaml.
    if (!CG.OptRecordFile.empty())
      CG.OptRecordFile = passRecordFile(CG.OptRecordFile);
  }
  // Without offload targets the pass runs in the pipeline, which
  // -disable-llvm-passes turns off.
  bool PipelineRuns = !CG.DisableLLVMPasses || OffloadTargets;
  return !LO.OpenMPIsTargetDevice && PipelineRuns && !CG.PrepareForLTO &&
         !CG.PrepareForThinLTO && access(PassLibrary.c_str(), R_OK) == 0;
}

} // namespace ompadapt
