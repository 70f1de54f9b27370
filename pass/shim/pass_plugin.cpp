// Registers the ompadapt pass (written in Rust, pass/) with LLVM's new pass manager:
// `-passes=ompadapt` in opt, and at the start of every clang optimisation pipeline (also -O0)
// when libompadapt_pass.so is loaded as a pass plugin, which the frontend plugin arranges.
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

#include <cstdio>
#include <string>

// Rust (src/plugin_entry.rs): runs the pass (with the `auto=` list of the pass parameter, or
// null), returns whether the module changed; checks a pass parameter (null: fine, else the
// message, freed by ompadapt_pass_free).
extern "C" bool ompadapt_pass_run_module_with(LLVMModuleRef M, const char *Auto);
extern "C" char *ompadapt_pass_check_parameter(const char *Params, char **Auto);
extern "C" void ompadapt_pass_free(char *S);

namespace {
struct OmpAdaptPass : llvm::PassInfoMixin<OmpAdaptPass> {
  // `ompadapt<auto=...>`: the kinds of pass-only mode; empty: none given.
  std::string Auto;
  bool HasAuto = false;
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return ompadapt_pass_run_module_with(llvm::wrap(&M), HasAuto ? Auto.c_str() : nullptr)
               ? llvm::PreservedAnalyses::none()
               : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

extern "C" void ompadapt_register_pass_callbacks(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::ModulePassManager &MPM, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        OmpAdaptPass P;
        if (Name.consume_front("ompadapt<") && Name.consume_back(">")) {
          char *Auto = nullptr;
          if (char *Error = ompadapt_pass_check_parameter(std::string(Name).c_str(), &Auto)) {
            std::fprintf(stderr, "ompadapt: error: %s\n", Error);
            ompadapt_pass_free(Error);
            return false;
          }
          if (Auto) {
            P.Auto = Auto;
            P.HasAuto = true;
            ompadapt_pass_free(Auto);
          }
        } else if (Name != "ompadapt") {
          return false;
        }
        MPM.addPass(std::move(P));
        return true;
      });
  PB.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) { MPM.addPass(OmpAdaptPass()); });
}
