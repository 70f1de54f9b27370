//===- StatementCollector.h - The statement after a directive ---*- C++ -*-===//
//
// Collects the tokens of the statement that follows an adaptation directive,
// by lexing ahead, so that the lowering can place copies of it. Where the
// statement ends is decided token by token on the Rust side
// (plugin/syntax/src/statement.rs); a token that is not part of it (a `}`
// where the statement should start, the token after `if (...) S` that is not
// `else`, the end of the file) is given back.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_STATEMENTCOLLECTOR_H
#define OMPADAPT_SHIM_STATEMENTCOLLECTOR_H

#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <optional>

namespace ompadapt {

class StatementCollector {
public:
  explicit StatementCollector(clang::Preprocessor &PP) : PP(PP) {}

  /// Lexes one statement into Toks.
  void collect();

  /// The statement's tokens.
  llvm::SmallVector<clang::Token, 128> Toks;
  /// A token read past the statement, to be put back after it (possibly eof).
  std::optional<clang::Token> GiveBack;
  /// No statement where one should start (`}` or the end of the file).
  bool Missing = false;
  /// When set and true before a token is read, the file ends there: reading on
  /// would reach its end (see OmpPragmaHandler::finish). The end is then
  /// reported as eof but not given back: the file's lexer still has to reach
  /// it.
  std::function<bool()> EndsHere;
  bool EndedHere = false;
  /// A token has been read: a directive handled from now on is not the
  /// statement's first token.
  bool Started = false;

private:
  clang::Token next();

  clang::Preprocessor &PP;
};

} // namespace ompadapt

#endif // OMPADAPT_SHIM_STATEMENTCOLLECTOR_H
