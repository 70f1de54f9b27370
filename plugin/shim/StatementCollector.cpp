//===- StatementCollector.cpp - The statement after a directive -----------===//
#include "StatementCollector.h"

#include "TokenBridge.h"
#include "ffi.h"

#include <memory>

using namespace clang;

namespace ompadapt {

Token StatementCollector::next() {
  Token T;
  if (EndedHere || (EndsHere && EndsHere())) {
    EndedHere = true;
    T.startToken();
    T.setKind(tok::eof);
  } else {
    PP.Lex(T);
  }
  Started = true;
  return T;
}

void StatementCollector::collect() {
  struct Free {
    void operator()(void *S) const { ompadapt_statement_free(S); }
  };
  std::unique_ptr<void, Free> Scanner(ompadapt_statement_new());
  while (true) {
    Token T = next();
    if (T.is(tok::eof)) {
      Missing = ompadapt_statement_is_empty(Scanner.get());
      GiveBack = T;
      return;
    }
    TokenDescs D(PP, T);
    switch (ompadapt_statement_feed(Scanner.get(), D.data())) {
    case OA_TAKE:
      Toks.push_back(T);
      break;
    case OA_TAKE_AND_STOP:
      Toks.push_back(T);
      return;
    default:
      Missing = ompadapt_statement_is_empty(Scanner.get());
      GiveBack = T;
      return;
    }
  }
}

} // namespace ompadapt
