// Registers the ompadapt pass (written in Rust, pass/) with LLVM's new pass manager:
// `-passes=ompadapt` in opt, and at the start of every clang optimisation pipeline (also -O0)
// when libompadapt_pass.so is loaded as a pass plugin, which the frontend plugin arranges.
#include "llvm-c/Types.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

// Rust (src/plugin_entry.rs): runs the pass, returns whether the module changed.
extern "C" bool ompadapt_pass_run_module(LLVMModuleRef M);

namespace {
struct OmpAdaptPass : llvm::PassInfoMixin<OmpAdaptPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return ompadapt_pass_run_module(llvm::wrap(&M)) ? llvm::PreservedAnalyses::none()
                                                    : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

extern "C" void ompadapt_register_pass_callbacks(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::ModulePassManager &MPM, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (Name != "ompadapt") return false;
        MPM.addPass(OmpAdaptPass());
        return true;
      });
  PB.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) { MPM.addPass(OmpAdaptPass()); });
}
