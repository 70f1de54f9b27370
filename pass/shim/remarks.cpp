// The pass's optimisation remarks, emitted the way LLVM's own passes emit them (through
// OptimizationRemarkEmitter, pass name "ompadapt"), so that clang's -Rpass=ompadapt,
// -Rpass-missed=ompadapt, -Rpass-analysis=ompadapt, -fsave-optimization-record and opt's
// -pass-remarks* options show or record them. What to say and where is decided in Rust
// (src/remarks.rs); the C API has no remarks, hence this function.
#include "llvm-c/Types.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"

namespace {
// Must outlive every remark: DiagnosticInfo keeps the pointer.
const char PassName[] = "ompadapt";

// Values of RemarkKind in src/remarks.rs.
enum Kind { Passed = 0, Missed = 1, Analysis = 2 };

template <class Remark>
void emitAs(llvm::OptimizationRemarkEmitter &ORE, const char *Id, const llvm::DiagnosticLocation &Loc,
            const llvm::BasicBlock *Region, const char *Message) {
  ORE.emit([&] { return Remark(PassName, Id, Loc, Region) << Message; });
}
} // namespace

// Emits one remark about `Fn` at `Location` (a DILocation; null or not one: the function's own
// location, if it has debug information). `Id` is the remark's name (its stable identifier),
// `Message` its text. Nothing is built unless some remark consumer is active.
extern "C" void ompadapt_emit_remark(LLVMValueRef Fn, LLVMMetadataRef Location, int RemarkKind, const char *Id,
                                     const char *Message) {
  auto *F = llvm::dyn_cast_or_null<llvm::Function>(llvm::unwrap(Fn));
  if (!F || F->isDeclaration())
    return;
  llvm::LLVMContext &Ctx = F->getContext();
  if (!Ctx.getLLVMRemarkStreamer() && !Ctx.getDiagHandlerPtr()->isAnyRemarkEnabled())
    return;
  const auto *DL = llvm::dyn_cast_or_null<llvm::DILocation>(Location ? llvm::unwrap(Location) : nullptr);
  llvm::DiagnosticLocation Loc =
      DL ? llvm::DiagnosticLocation(llvm::DebugLoc(DL)) : llvm::DiagnosticLocation(F->getSubprogram());
  llvm::OptimizationRemarkEmitter ORE(F);
  const llvm::BasicBlock *Region = &F->getEntryBlock();
  switch (RemarkKind) {
  case Passed:
    emitAs<llvm::OptimizationRemark>(ORE, Id, Loc, Region, Message);
    break;
  case Missed:
    emitAs<llvm::OptimizationRemarkMissed>(ORE, Id, Loc, Region, Message);
    break;
  default:
    emitAs<llvm::OptimizationRemarkAnalysis>(ORE, Id, Loc, Region, Message);
    break;
  }
}
