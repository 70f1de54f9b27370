// What a called function may do to memory, from LLVM's own knowledge: for a function of the C or
// C++ standard library, TargetLibraryInfo recognises it by name and prototype and BuildLibCalls
// infers the attributes LLVM's InferFunctionAttrs pass would give it (on a copy in a scratch
// module, so that the module being compiled is not changed); for any other function, the
// attributes it carries. The team-size analysis (src/team/) asks this; the C API has neither.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "llvm-c/Types.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ModRef.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BuildLibCalls.h"

// Mirrors CalleeEffects in src/team/library.rs.
struct OmpAdaptCalleeEffects {
  int library;       // a function of the C/C++ standard library (TargetLibraryInfo knows it)
  int allocates;     // returns fresh memory (allockind "alloc", or a noalias result of a library function)
  unsigned memory;   // 2 bits (NoModRef 0, Ref 1, Mod 2, ModRef 3) per location: arg, inaccessible, other
  unsigned long long writable; // bit i: parameter i is a pointer the function may write through
};

namespace {
// One TargetLibraryInfoImpl per target triple: building one fills its tables.
const llvm::TargetLibraryInfoImpl &libraryInfo(const std::string &TripleText) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<llvm::TargetLibraryInfoImpl>> ByTriple;
  std::lock_guard<std::mutex> Guard(Lock);
  auto &Slot = ByTriple[TripleText];
  if (!Slot)
    Slot = std::make_unique<llvm::TargetLibraryInfoImpl>(llvm::Triple(TripleText));
  return *Slot;
}

void describe(const llvm::Function &F, bool Library, OmpAdaptCalleeEffects *Out) {
  llvm::MemoryEffects ME = F.getMemoryEffects();
  unsigned Bits = 0;
  for (llvm::IRMemLocation Loc : {llvm::IRMemLocation::ArgMem, llvm::IRMemLocation::InaccessibleMem, llvm::IRMemLocation::Other})
    Bits |= static_cast<unsigned>(ME.getModRef(Loc)) << (2 * static_cast<unsigned>(Loc));
  Out->memory = Bits;
  Out->writable = 0;
  for (unsigned I = 0; I < F.arg_size() && I < 64; ++I)
    if (F.getArg(I)->getType()->isPointerTy() && !F.hasParamAttribute(I, llvm::Attribute::ReadOnly) &&
        !F.hasParamAttribute(I, llvm::Attribute::ReadNone) && !ME.onlyReadsMemory())
      Out->writable |= 1ULL << I;
  bool AllocKind = F.hasFnAttribute(llvm::Attribute::AllocKind) &&
                   (F.getFnAttribute(llvm::Attribute::AllocKind).getAllocKind() & llvm::AllocFnKind::Alloc) !=
                       llvm::AllocFnKind::Unknown;
  Out->allocates = AllocKind || (Library && F.returnDoesNotAlias());
}
} // namespace

extern "C" void ompadapt_callee_effects(LLVMValueRef Fn, OmpAdaptCalleeEffects *Out) {
  auto *F = llvm::cast<llvm::Function>(llvm::unwrap(Fn));
  llvm::Module *M = F->getParent();
  const std::string TripleText = M->getTargetTriple();
  llvm::TargetLibraryInfo TLI(libraryInfo(TripleText), F);
  llvm::LibFunc Which;
  Out->library = !F->isIntrinsic() && TLI.getLibFunc(*F, Which);
  if (!Out->library) {
    describe(*F, false, Out);
    return;
  }
  llvm::Module Scratch("ompadapt-library-scratch", F->getContext());
  Scratch.setTargetTriple(TripleText);
  Scratch.setDataLayout(M->getDataLayout());
  llvm::Function *Copy =
      llvm::Function::Create(F->getFunctionType(), llvm::GlobalValue::ExternalLinkage, F->getName(), &Scratch);
  Copy->copyAttributesFrom(F);
  llvm::inferNonMandatoryLibFuncAttrs(*Copy, TLI);
  describe(*Copy, true, Out);
}
