// What the C API does not say about a debug location: the source function its scope is in
// (through lexical blocks; for an inlined instruction, the function it was inlined from) and
// that function's linkage name. Pass-only mode names regions `function@file:line` by it.
#include "llvm-c/Types.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instruction.h"

#include <cstring>

// The name of the source function of `I`'s debug location, in `Buf` (NUL-terminated, cut to
// `Size`); its column in `*Column`. Returns false without a location or a subprogram.
extern "C" bool ompadapt_location_function(LLVMValueRef I, char *Buf, unsigned Size, unsigned *Column) {
  auto *Inst = llvm::dyn_cast_or_null<llvm::Instruction>(llvm::unwrap(I));
  if (!Inst || Size == 0)
    return false;
  const llvm::DILocation *Loc = Inst->getDebugLoc().get();
  if (!Loc)
    return false;
  *Column = Loc->getColumn();
  llvm::DISubprogram *SP = Loc->getScope() ? Loc->getScope()->getSubprogram() : nullptr;
  if (!SP)
    return false;
  llvm::StringRef Name = SP->getName();
  size_t N = Name.size() < Size - 1 ? Name.size() : Size - 1;
  std::memcpy(Buf, Name.data(), N);
  Buf[N] = 0;
  return N > 0;
}
