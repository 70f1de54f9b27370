//===- BlockTracker.h - Which block a directive is in ------------*- C++
//-*-===//
//
// Tracked lexically from the token stream: Sema's idea of the current function
// lags one token behind the preprocessor (a directive right after a function's
// closing brace is lexed before Sema leaves the function). A region's `begin`
// and `end` must be in the same block, since the lowering declares the
// region's context there.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_BLOCKTRACKER_H
#define OMPADAPT_SHIM_BLOCKTRACKER_H

#include "clang/Lex/Token.h"

#include <cstdint>
#include <vector>

namespace ompadapt {

class BlockTracker {
public:
  void onToken(const clang::Token &T) {
    if (T.is(clang::tok::l_brace))
      Open.push_back(Next++);
    else if (T.is(clang::tok::r_brace) && !Open.empty())
      Open.pop_back();
  }
  /// The innermost open block; 0 at file scope.
  uint64_t current() const { return Open.empty() ? 0 : Open.back(); }

private:
  std::vector<uint64_t> Open; // ids of the enclosing blocks, innermost last
  uint64_t Next = 1;
};

} // namespace ompadapt

#endif // OMPADAPT_SHIM_BLOCKTRACKER_H
