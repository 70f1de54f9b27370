//===- DirectiveLookahead.cpp - Declarations further down a file ----------===//
#include "DirectiveLookahead.h"

#include "TokenBridge.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <optional>
#include <vector>

using namespace clang;

namespace ompadapt {

namespace {

/// Raw tokens of a file, with one token of lookahead, line by line.
class RawLines {
public:
  RawLines(Preprocessor &PP, FileID FID)
      : Raw(FID, PP.getSourceManager().getBufferOrFake(FID),
            PP.getSourceManager(), PP.getLangOpts()) {
    advance();
  }

  bool atEnd() const { return Peek.is(tok::eof); }
  const Token &peek() const { return Peek; }
  void advance() { Raw.LexFromRawLexer(Peek); }

  /// The tokens up to the end of the current line (the next token at the
  /// start of a line, or the end of the file).
  SmallVector<Token, 32> restOfLine() {
    SmallVector<Token, 32> Line;
    while (!atEnd() && !Peek.isAtStartOfLine()) {
      Line.push_back(Peek);
      advance();
    }
    return Line;
  }

  /// If `# pragma omp` starts here, consumes it and returns the rest of the
  /// line.
  std::optional<SmallVector<Token, 32>> pragmaOmp() {
    if (!Peek.is(tok::hash) || !Peek.isAtStartOfLine())
      return std::nullopt;
    Hash = Peek.getLocation();
    advance();
    SmallVector<Token, 32> Line = restOfLine();
    if (Line.size() < 2 || wordOf(Line[0]) != "pragma" ||
        wordOf(Line[1]) != "omp")
      return SmallVector<Token, 32>();
    Line.erase(Line.begin(), Line.begin() + 2);
    return Line;
  }

  SourceLocation Hash;

private:
  Lexer Raw;
  Token Peek;
};

} // namespace

void findDeclareAdaptationLines(
    Preprocessor &PP, FileID FID,
    llvm::function_ref<void(ArrayRef<Token>, ArrayRef<Token>, SourceLocation)>
        Found) {
  // Every `#pragma omp` line, in order; then each declare with its successor.
  struct OmpLine {
    SmallVector<Token, 32> Toks;
    SourceLocation Hash;
    bool Adjacent; // directly after the previous `#pragma omp` line
  };
  std::vector<OmpLine> Omp;
  RawLines Lines(PP, FID);
  bool Adjacent = false;
  while (!Lines.atEnd()) {
    if (std::optional<SmallVector<Token, 32>> Line = Lines.pragmaOmp()) {
      Omp.push_back({std::move(*Line), Lines.Hash, Adjacent});
      Adjacent = true;
      continue;
    }
    Adjacent = false;
    Lines.advance();
  }
  auto Is = [](ArrayRef<Token> T, size_t I, StringRef W) {
    return I < T.size() && wordOf(T[I]) == W;
  };
  for (size_t I = 0; I < Omp.size(); ++I) {
    if (!Is(Omp[I].Toks, 0, "declare") || !Is(Omp[I].Toks, 1, "adaptation"))
      continue;
    ArrayRef<Token> Meta;
    if (I + 1 < Omp.size() && Omp[I + 1].Adjacent &&
        Is(Omp[I + 1].Toks, 0, "metadirective"))
      Meta = Omp[I + 1].Toks;
    Found(Omp[I].Toks, Meta, Omp[I].Hash);
  }
}

} // namespace ompadapt
