//===- StatementCollector.h - The statement after a directive ---*- C++ -*-===//
//
// Collects the tokens of the statement that follows an adaptation directive,
// by lexing ahead, so that the lowering can place copies of it. Iterative (no
// recursion, whatever the nesting), and it never consumes what is not part of
// the statement: a `}` or the end of the file where the statement should start
// is given back, as is a token read past the statement (after `if (...) S`).
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

private:
  clang::Token next();
  void giveBack(const clang::Token &T);
  /// Reads up to the bracket matching the one just read; false at eof.
  bool balanced(clang::tok::TokenKind Open, clang::tok::TokenKind Close);
  /// Reads `( ... )` if that comes next; false at eof.
  bool parenthesised();
  /// Reads an OpenMP directive up to its end annotation; false at eof.
  bool directive();
  /// Reads an expression statement up to its `;`; false at eof.
  bool simple();

  clang::Preprocessor &PP;
  bool AtEof = false;
};

} // namespace ompadapt

#endif // OMPADAPT_SHIM_STATEMENTCOLLECTOR_H
