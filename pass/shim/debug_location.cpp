// What the C API does not say about a debug location: the source function its scope is in
// (through lexical blocks; for an inlined instruction, the function it was inlined from), and
// the file as the compile line spelled it. Pass-only mode names regions `function@file:line` by
// them, as the frontend does.
#include "llvm-c/Types.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

#include <cstring>

namespace {
void copy(llvm::StringRef S, char *Buf, unsigned Size) {
  size_t N = S.size() < Size - 1 ? S.size() : Size - 1;
  std::memcpy(Buf, S.data(), N);
  Buf[N] = 0;
}
} // namespace

// `F`'s directory and name joined where the directory is not the compilation directory of
// `SP`'s unit (see below).
static std::string writtenFile(const llvm::DIFile *F, const llvm::DISubprogram *SP) {
  if (!F)
    return "";
  llvm::StringRef Dir = F->getDirectory(), FileName = F->getFilename();
  llvm::StringRef CompDir = SP && SP->getUnit() ? SP->getUnit()->getDirectory() : llvm::StringRef();
  if (!FileName.starts_with("/") && !Dir.empty() && Dir != CompDir)
    return (Dir + "/" + FileName).str();
  return FileName.str();
}

// The name of the source function of `I`'s debug location in `Name` (its linkage name where it
// has one), the file in `File` (both
// NUL-terminated, cut to `Size`), its column in `*Column`. Returns false without a location or a
// subprogram.
//
// The file: clang splits an absolute path given on the compile line at the longest prefix it
// shares with the compilation directory (`/tmp/s/a/b.c` compiled in `/tmp/s/x` is directory
// `/tmp/s`, file `a/b.c`); a relative one is kept as written, with the compilation directory.
// Joining the two where the directory is not the compilation directory gives back what was
// written, which is what the frontend's names use.
extern "C" bool ompadapt_location_function(LLVMValueRef I, char *Name, char *File, unsigned Size, unsigned *Column) {
  auto *Inst = llvm::dyn_cast_or_null<llvm::Instruction>(llvm::unwrap(I));
  if (!Inst || Size == 0)
    return false;
  const llvm::DILocation *Loc = Inst->getDebugLoc().get();
  if (!Loc)
    return false;
  *Column = Loc->getColumn();
  llvm::DISubprogram *SP = Loc->getScope() ? Loc->getScope()->getSubprogram() : nullptr;
  if (!SP || SP->getName().empty())
    return false;
  // C++: the linkage name (qualified, with template arguments); Fortran: the name (its linkage
  // name is the ABI's, `slots_`)
  bool Fortran = false;
  if (SP->getUnit()) {
    unsigned Lang = SP->getUnit()->getSourceLanguage();
    Fortran = Lang == llvm::dwarf::DW_LANG_Fortran77 || Lang == llvm::dwarf::DW_LANG_Fortran90 ||
              Lang == llvm::dwarf::DW_LANG_Fortran95 || Lang == llvm::dwarf::DW_LANG_Fortran03 ||
              Lang == llvm::dwarf::DW_LANG_Fortran08 || Lang == llvm::dwarf::DW_LANG_Fortran18;
  }
  llvm::StringRef Linkage = SP->getLinkageName();
  // Location tracking alone (what the frontend turns on for zero-source-change mode without
  // -g) gives subprograms no linkage name: the function's own symbol is the same, where the
  // location is the function's own (not inlined from another).
  const llvm::Function *F = Inst->getFunction();
  if (Linkage.empty() && F && F->getSubprogram() == SP && F->getName() != SP->getName())
    Linkage = F->getName();
  copy(Linkage.empty() || Fortran ? SP->getName() : Linkage, Name, Size);
  copy(writtenFile(Loc->getFile(), SP), File, Size);
  return true;
}

// The file of the debug scope `S` (a subprogram, a lexical block, a location's scope) as the
// compile line spelled it (see above), in `File`, NUL-terminated, cut to `Size`. Returns false
// without a file.
extern "C" bool ompadapt_scope_file(LLVMMetadataRef S, char *File, unsigned Size) {
  auto *Scope = llvm::dyn_cast_or_null<llvm::DIScope>(llvm::unwrap(S));
  if (!Scope || !Scope->getFile() || Size == 0)
    return false;
  llvm::DILocalScope *Local = llvm::dyn_cast<llvm::DILocalScope>(Scope);
  copy(writtenFile(Scope->getFile(), Local ? Local->getSubprogram() : nullptr), File, Size);
  return true;
}
