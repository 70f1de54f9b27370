//===- StatementCollector.cpp - The statement after a directive -----------===//
#include "StatementCollector.h"

#include "TokenBridge.h"
#include "ffi.h"

using namespace clang;

namespace ompadapt {

Token StatementCollector::next() {
  Token T;
  if (GiveBack) {
    T = *GiveBack;
    GiveBack.reset();
  } else if (EndedHere || (EndsHere && EndsHere())) {
    EndedHere = true;
    T.startToken();
    T.setKind(tok::eof);
  } else {
    PP.Lex(T);
  }
  if (T.is(tok::eof))
    AtEof = true;
  return T;
}

void StatementCollector::giveBack(const Token &T) { GiveBack = T; }

bool StatementCollector::balanced(tok::TokenKind Open, tok::TokenKind Close) {
  for (unsigned Depth = 1; Depth > 0;) {
    Token T = next();
    if (T.is(tok::eof)) {
      giveBack(T);
      return false;
    }
    Toks.push_back(T);
    if (T.is(Open))
      ++Depth;
    else if (T.is(Close))
      --Depth;
  }
  return true;
}

bool StatementCollector::parenthesised() {
  Token T = next();
  if (T.isNot(tok::l_paren)) {
    giveBack(T);
    return T.isNot(tok::eof);
  }
  Toks.push_back(T);
  return balanced(tok::l_paren, tok::r_paren);
}

bool StatementCollector::directive() {
  while (true) {
    Token T = next();
    if (T.is(tok::eof)) {
      giveBack(T);
      return false;
    }
    Toks.push_back(T);
    if (T.is(tok::annot_pragma_openmp_end))
      return true;
  }
}

bool StatementCollector::simple() {
  int Depth = 0;
  for (size_t I = Toks.size() - 1;;) {
    const Token &U = Toks[I];
    if (U.isOneOf(tok::l_paren, tok::l_brace, tok::l_square))
      ++Depth;
    else if (U.isOneOf(tok::r_paren, tok::r_brace, tok::r_square))
      --Depth;
    else if (U.is(tok::semi) && Depth <= 0)
      return true;
    Token T = next();
    if (T.is(tok::eof)) {
      giveBack(T);
      return false;
    }
    // A closing bracket that closes something outside: the statement lacks
    // its `;` (Clang says so); the bracket is not ours.
    if (Depth == 0 && T.isOneOf(tok::r_brace, tok::r_paren, tok::r_square)) {
      giveBack(T);
      return true;
    }
    Toks.push_back(T);
    I = Toks.size() - 1;
  }
}

void StatementCollector::collect() {
  // What remains to be read once the current statement is complete.
  enum class Then { IfElse, DoWhile };
  SmallVector<Then, 8> Stack;
  bool First = true;
  while (true) {
    Token T = next();
    if (T.isOneOf(tok::eof, tok::r_brace)) {
      Missing |= First;
      giveBack(T);
      return;
    }
    First = false;
    Toks.push_back(T);
    bool Complete = false;
    bool Ok = true;
    if (T.is(tok::annot_pragma_openmp)) {
      size_t Start = Toks.size() - 1;
      Ok = directive();
      if (Ok) {
        TokenDescs D(PP, ArrayRef<Token>(Toks).slice(Start + 1));
        // The directive's tokens without the end annotation.
        Complete = !ompadapt_directive_has_statement(
            D.data(), D.size() > 0 ? D.size() - 1 : 0);
      }
    } else if (T.isAnnotation()) {
      // Another pragma (`#pragma unroll`, ...): a prefix of the statement.
    } else {
      switch (T.getKind()) {
      case tok::l_brace:
        Ok = balanced(tok::l_brace, tok::r_brace);
        Complete = true;
        break;
      case tok::semi:
        Complete = true;
        break;
      case tok::kw_if: {
        Token U = next();
        if (U.isOneOf(tok::kw_constexpr, tok::exclaim, tok::kw_consteval)) {
          Toks.push_back(U);
          if (U.is(tok::exclaim)) {
            U = next();
            if (U.is(tok::kw_consteval))
              Toks.push_back(U);
            else
              giveBack(U);
          }
        } else {
          giveBack(U);
        }
        Ok = parenthesised();
        Stack.push_back(Then::IfElse);
        break;
      }
      case tok::kw_for:
      case tok::kw_while:
      case tok::kw_switch:
        Ok = parenthesised();
        break;
      case tok::kw_do:
        Stack.push_back(Then::DoWhile);
        break;
      case tok::kw_try: {
        Token B = next();
        if (B.is(tok::l_brace)) {
          Toks.push_back(B);
          Ok = balanced(tok::l_brace, tok::r_brace);
        } else {
          giveBack(B);
        }
        while (Ok) {
          Token C = next();
          if (C.isNot(tok::kw_catch)) {
            giveBack(C);
            break;
          }
          Toks.push_back(C);
          Ok = parenthesised();
          Token H = Ok ? next() : Token();
          if (!Ok)
            break;
          if (H.isNot(tok::l_brace)) {
            giveBack(H);
            break;
          }
          Toks.push_back(H);
          Ok = balanced(tok::l_brace, tok::r_brace);
        }
        Complete = true;
        break;
      }
      default:
        Ok = simple();
        Complete = true;
        break;
      }
    }
    if (!Ok || AtEof)
      return;
    if (!Complete)
      continue;
    // The statement is complete: finish the statements it was the body of.
    bool NeedBody = false;
    while (!Stack.empty() && !NeedBody) {
      Then What = Stack.pop_back_val();
      Token U = next();
      if (What == Then::IfElse) {
        if (U.is(tok::kw_else)) {
          Toks.push_back(U);
          NeedBody = true; // the else branch completes this `if`
        } else {
          giveBack(U);
        }
      } else {
        if (U.isNot(tok::kw_while)) {
          giveBack(U);
          continue;
        }
        Toks.push_back(U);
        if (!parenthesised())
          return;
        Token S = next();
        if (S.is(tok::semi))
          Toks.push_back(S);
        else
          giveBack(S);
      }
      if (AtEof)
        return;
    }
    if (!NeedBody)
      return;
  }
}

} // namespace ompadapt
