//===- PassLoader.cpp - Registering the ompadapt pass with clang ----------===//
#include "PassLoader.h"

#include "ffi.h"

#include "clang/Basic/CodeGenOptions.h"
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <dlfcn.h>
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

void registerPass(CompilerInstance &CI, const std::string &PassLibrary,
                  bool Remarks) {
  if (Remarks) {
    // The same library that clang loads as a pass plugin (dlopen returns the
    // loaded one): the setting holds for the pass that runs.
    using SetFn = void (*)(int);
    if (void *Lib = dlopen(PassLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL))
      if (auto Set = reinterpret_cast<SetFn>(
              dlsym(Lib, "ompadapt_pass_set_remarks")))
        Set(1);
  }
  CodeGenOptions &CG = CI.getCodeGenOpts();
  const LangOptions &LO = CI.getLangOpts();
  if (std::find(CG.PassPlugins.begin(), CG.PassPlugins.end(), PassLibrary) ==
      CG.PassPlugins.end())
    CG.PassPlugins.push_back(PassLibrary);
  bool OffloadTargets = !LO.OMPTargetTriples.empty();
  if (CG.DisableLLVMPasses && OffloadTargets && !LO.OpenMPIsTargetDevice)
    CG.PassBuilderCallbacks.push_back(
        rewriteBeforeBitcodeIsWritten(PassLibrary));
}

} // namespace ompadapt
