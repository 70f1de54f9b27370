//===- DirectiveLookahead.h - Declarations further down a file --*- C++ -*-===//
//
// Associated regions may come before their primary region (Liao et al.,
// Figure 7: `target enter data` before the loop), yet they evaluate the primary's
// features. The primary's `declare adaptation` line is found by lexing the
// rest of the file raw (no preprocessing: macros stay as written and are
// expanded where the tokens are used).
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_DIRECTIVELOOKAHEAD_H
#define OMPADAPT_SHIM_DIRECTIVELOOKAHEAD_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace ompadapt {

/// Calls `Found` for every `#pragma omp declare adaptation` line of file
/// `FID` with the line's tokens after `omp`, the tokens after `omp` of the
/// `#pragma omp metadirective` line that follows it (empty if none), and the
/// location of the line's `#`. Tokens are raw (raw_identifier).
void findDeclareAdaptationLines(
    clang::Preprocessor &PP, clang::FileID FID,
    llvm::function_ref<void(llvm::ArrayRef<clang::Token> Declare,
                            llvm::ArrayRef<clang::Token> Meta,
                            clang::SourceLocation Hash)>
        Found);

} // namespace ompadapt

#endif // OMPADAPT_SHIM_DIRECTIVELOOKAHEAD_H
