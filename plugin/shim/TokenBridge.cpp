//===- TokenBridge.cpp - Clang tokens to and from the Rust side -----------===//
#include "TokenBridge.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace ompadapt {

static OaTokKind classify(const Token &T) {
  if (T.is(tok::annot_pragma_openmp))
    return OA_OMP_BEGIN;
  if (T.is(tok::annot_pragma_openmp_end))
    return OA_OMP_END;
  if (T.isAnnotation())
    return OA_OTHER_ANNOT;
  if (T.is(tok::raw_identifier) || T.getIdentifierInfo())
    return OA_IDENT;
  if (T.is(tok::numeric_constant))
    return OA_NUMBER;
  if (T.isLiteral())
    return OA_LITERAL;
  return OA_PUNCT;
}

StringRef wordOf(const Token &T) {
  if (T.isAnnotation())
    return {};
  if (T.is(tok::raw_identifier))
    return T.getRawIdentifier();
  if (const IdentifierInfo *II = T.getIdentifierInfo())
    return II->getName();
  return {};
}

TokenDescs::TokenDescs(Preprocessor &PP, ArrayRef<Token> Toks) {
  SourceManager &SM = PP.getSourceManager();
  Spellings.reserve(Toks.size());
  Written.reserve(Toks.size());
  uint64_t PrevExpansion = 0;
  std::vector<uint64_t> Expansions;
  Expansions.reserve(Toks.size());
  for (const Token &T : Toks) {
    if (T.isAnnotation()) {
      Spellings.emplace_back();
    } else if (T.is(tok::raw_identifier)) {
      Spellings.push_back(T.getRawIdentifier().str());
    } else {
      bool Invalid = false;
      std::string S = PP.getSpelling(T, &Invalid);
      Spellings.push_back(Invalid ? std::string() : std::move(S));
    }
    // Tokens of one macro expansion share its expansion location; the first of
    // them carries the expansion as written, so features read as in the
    // source (`N`, not `100`).
    SourceLocation Loc = T.getLocation();
    uint64_t Expansion = 0;
    std::string Text;
    if (Loc.isValid() && Loc.isMacroID()) {
      Expansion = SM.getExpansionLoc(Loc).getRawEncoding() | (1ull << 40);
      if (Expansion != PrevExpansion) {
        CharSourceRange R = SM.getExpansionRange(Loc);
        bool Invalid = false;
        StringRef S = Lexer::getSourceText(R, SM, PP.getLangOpts(), &Invalid);
        if (!Invalid)
          Text = S.str();
      }
    }
    PrevExpansion = Expansion;
    Expansions.push_back(Expansion);
    Written.push_back(std::move(Text));
  }
  Descs.reserve(Toks.size());
  for (size_t I = 0; I < Toks.size(); ++I) {
    bool HasWritten = !Written[I].empty();
    Descs.push_back({Spellings[I].data(), Spellings[I].size(),
                     classify(Toks[I]),
                     Toks[I].hasLeadingSpace() ? OA_LEADING_SPACE : 0u,
                     Expansions[I], HasWritten ? Written[I].data() : nullptr,
                     HasWritten ? Written[I].size() : 0});
  }
}

Token makeAnnotation(tok::TokenKind Kind, SourceLocation Loc) {
  Token T;
  T.startToken();
  T.setKind(Kind);
  T.setLocation(Loc);
  return T;
}

void cookRawTokens(Preprocessor &PP, MutableArrayRef<Token> Toks) {
  for (Token &T : Toks)
    if (T.is(tok::raw_identifier))
      PP.LookUpIdentifierInfo(T);
}

void appendGeneratedText(Preprocessor &PP, StringRef Text,
                         std::optional<SourceLocation> Loc,
                         SmallVectorImpl<Token> &Out) {
  if (Text.empty())
    return;
  // The scratch buffer keeps the text (and the literal data of its tokens) for
  // the whole compilation, NUL-terminated as the lexer requires.
  Token Chunk;
  Chunk.startToken();
  PP.CreateString(Text, Chunk);
  SourceManager &SM = PP.getSourceManager();
  SourceLocation Start = Chunk.getLocation();
  const char *Data = SM.getCharacterData(Start);
  Lexer Raw(Start, PP.getLangOpts(), Data, Data, Data + Text.size());
  Token T;
  while (true) {
    Raw.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    if (T.is(tok::raw_identifier))
      PP.LookUpIdentifierInfo(T);
    if (Loc)
      T.setLocation(*Loc);
    T.clearFlag(Token::StartOfLine);
    Out.push_back(T);
  }
}

} // namespace ompadapt
