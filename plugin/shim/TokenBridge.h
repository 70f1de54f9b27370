//===- TokenBridge.h - Clang tokens to and from the Rust side ---*- C++ -*-===//
//
// Token classification for the Rust parser (plugin/syntax), and the making of
// Clang tokens from the text the lowering generates. Generated text is lexed
// from a buffer of the plugin's own (Clang's scratch buffer), never at the
// directive's location: that location may be inside a macro expansion or a
// _Pragma string, where no lexer can be started.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_TOKENBRIDGE_H
#define OMPADAPT_SHIM_TOKENBRIDGE_H

#include "ffi.h"

#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace ompadapt {

/// The token descriptors of a token range, as the Rust side reads them. Owns
/// the spellings while they are lent.
class TokenDescs {
public:
  TokenDescs(clang::Preprocessor &PP, llvm::ArrayRef<clang::Token> Toks);
  const OaTok *data() const { return Descs.data(); }
  size_t size() const { return Descs.size(); }

private:
  std::vector<std::string> Spellings;
  std::vector<std::string> Written;
  std::vector<OaTok> Descs;
};

/// The name of an identifier or keyword token; empty for anything else
/// (annotation tokens included).
llvm::StringRef wordOf(const clang::Token &T);

/// An annotation token (annot_pragma_openmp, annot_pragma_openmp_end).
clang::Token makeAnnotation(clang::tok::TokenKind Kind,
                            clang::SourceLocation Loc);

/// Lexes generated C text into tokens that all carry location `Loc` (any
/// location: a file, a macro expansion, a _Pragma string); without `Loc`, each
/// keeps its own location in the scratch buffer.
void appendGeneratedText(clang::Preprocessor &PP, llvm::StringRef Text,
                         std::optional<clang::SourceLocation> Loc,
                         llvm::SmallVectorImpl<clang::Token> &Out);

/// Turns tokens lexed in raw mode (raw_identifier) into ones the parser takes.
void cookRawTokens(clang::Preprocessor &PP,
                   llvm::MutableArrayRef<clang::Token> Toks);

} // namespace ompadapt

#endif // OMPADAPT_SHIM_TOKENBRIDGE_H
