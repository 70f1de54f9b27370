//===- OmpPragmaHandler.cpp - ompadapt's `#pragma omp` handler ------------===//
#include "OmpPragmaHandler.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include "DirectiveLookahead.h"
#include "StatementCollector.h"
#include "TokenBridge.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"

#include <memory>
#include <string>

using namespace clang;

namespace ompadapt {

static void enter(Preprocessor &PP, ArrayRef<Token> Toks,
                  bool DisableMacroExpansion) {
  if (Toks.empty())
    return;
  auto Buf = std::make_unique<Token[]>(Toks.size());
  std::copy(Toks.begin(), Toks.end(), Buf.get());
  PP.EnterTokenStream(std::move(Buf), Toks.size(), DisableMacroExpansion,
                      /*IsReinject=*/false);
}

static std::string
presumedLine(const SourceManager &SM, SourceLocation Loc,
             const std::vector<std::pair<std::string, std::string>> &PathMap,
             const std::string &SourceRoot) {
  PresumedLoc P = SM.getPresumedLoc(Loc);
  if (P.isInvalid())
    return "?";
  llvm::SmallString<256> File(P.getFilename());
  // as CGDebugInfo::remapDIPath: the last matching map wins
  for (const auto &[From, To] : llvm::reverse(PathMap))
    if (llvm::sys::path::replace_path_prefix(File, From, To))
      break;
  // Relative to the source root where the file is under it, without the separator (as the
  // pass's names: `src/explicit.c`, not `/src/explicit.c`).
  if (!SourceRoot.empty()) {
    std::string Whole(File.str());
    llvm::StringRef Root = llvm::StringRef(SourceRoot).rtrim('/');
    llvm::StringRef F(Whole);
    if (!Root.empty() && F.size() > Root.size() + 1 && F.starts_with(Root) &&
        F[Root.size()] == '/')
      File = F.substr(Root.size() + 1);
  }
  return std::string(File) + ":" + std::to_string(P.getLine());
}

/// Marks the continuation of a directive (see `defer`).
static constexpr llvm::StringLiteral ContinueWord = "__ompadapt_continue";

OmpPragmaHandler::Directive
OmpPragmaHandler::lexDirective(Preprocessor &PP, PragmaIntroducer Introducer) {
  Directive D{Introducer, {}, {}, std::nullopt};
  Token Tok;
  PP.Lex(Tok);
  while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof)) {
    if (Tok.is(tok::annot_pragma_openmp)) {
      // As Clang's own handler: a directive inside this one (a _Pragma in a
      // macro expanded on this line) is reported and skipped.
      PP.Diag(Tok, diag::err_omp_unexpected_directive) << 0;
      for (unsigned Inner = 1; Inner != 0 && Tok.isNot(tok::eof);) {
        PP.Lex(Tok);
        if (Tok.is(tok::annot_pragma_openmp))
          ++Inner;
        else if (Tok.is(tok::annot_pragma_openmp_end))
          --Inner;
      }
      if (Tok.is(tok::eof))
        break;
      PP.Lex(Tok);
      continue;
    }
    D.Toks.push_back(Tok);
    PP.Lex(Tok);
  }
  D.End = Tok.getLocation();
  if (Tok.is(tok::eof))
    D.Eof = Tok;
  return D;
}

void OmpPragmaHandler::HandlePragma(Preprocessor &PP,
                                    PragmaIntroducer Introducer, Token &) {
  Directive D = lexDirective(PP, Introducer);
  noteDeviceSelector(PP, D);
  if (D.Toks.size() == 2 && wordOf(D.Toks[0]) == ContinueWord &&
      D.Toks[1].is(tok::numeric_constant)) {
    unsigned Id = std::stoul(PP.getSpelling(D.Toks[1]));
    auto It = Deferred.find(Id);
    if (It != Deferred.end()) {
      Continuation C = std::move(It->second);
      Deferred.erase(It);
      return finish(PP, C.D, *C.R);
    }
  }

  Result R = handOver(PP, D);
  if (!R) {
    internalError(PP, Introducer.Loc, "no result for this directive");
    reinjectUnchanged(PP, D);
    if (D.Eof)
      enter(PP, *D.Eof, /*DisableMacroExpansion=*/true);
    return;
  }
  report(PP, *R, D);
  if (R->Save)
    Saved.push_back({D.Toks, D.End, /*Raw=*/false});

  switch (R->Outcome) {
  case OA_NOT_OURS:
    reinjectUnchanged(PP, D);
    if (D.Eof)
      enter(PP, *D.Eof, /*DisableMacroExpansion=*/true);
    return;
  case OA_EMIT:
    return inject(PP, *R, D, {}, D.Eof);
  case OA_NEED_STATEMENT:
  case OA_NEED_CONSTRUCT:
  case OA_NEED_NEXT_TOKEN:
    // A `#pragma` line is handled from inside the lexer of its file; reading
    // on from there could reach the end of that file, which destroys the
    // lexer while it runs. Reading on happens when the parser asks for the
    // next token instead (a _Pragma is handled from the preprocessor).
    if (Introducer.Kind == PIK_HashPragma && !D.Eof)
      return defer(PP, std::move(D), std::move(R));
    return finish(PP, D, *R);
  default:
    internalError(PP, Introducer.Loc, "unexpected reply for this directive");
    if (D.Eof)
      enter(PP, *D.Eof, /*DisableMacroExpansion=*/true);
    return;
  }
}

/// Notes a directive that lets the device compilation choose other code than
/// the host's (`declare variant`, `begin declare variant`, `metadirective` with
/// a `device` or `target_device` selector) outside system headers (clang's own
/// omp.h has `begin declare variant match(device={kind(host)})`).
void OmpPragmaHandler::noteDeviceSelector(Preprocessor &PP, const Directive &D) {
  if (DeviceSpecialised || D.Toks.empty())
    return;
  StringRef First = wordOf(D.Toks[0]);
  bool Variant = First == "metadirective" ||
                 (First == "declare" && D.Toks.size() > 1 && wordOf(D.Toks[1]) == "variant") ||
                 (First == "begin" && D.Toks.size() > 2 && wordOf(D.Toks[1]) == "declare" &&
                  wordOf(D.Toks[2]) == "variant");
  if (!Variant)
    return;
  SourceManager &SM = PP.getSourceManager();
  if (SM.isInSystemHeader(SM.getExpansionLoc(D.Introducer.Loc)))
    return;
  for (size_t I = 0; I + 1 < D.Toks.size(); ++I) {
    StringRef W = wordOf(D.Toks[I]);
    if ((W == "device" || W == "target_device") && D.Toks[I + 1].is(tok::equal)) {
      DeviceSpecialised = true;
      return;
    }
  }
}

/// Whether reading on from `L` may reach the end of its file before a token:
/// true unless a plain token (not a macro, which may expand to nothing) comes
/// before the end and before any directive that includes a file or skips
/// lines. Conservative: used only where the continuation cannot be (a program
/// that redefines `_Pragma`).
static bool mayReachEndOfFile(Preprocessor &PP, Lexer &L) {
  StringRef Buf = L.getBuffer();
  Lexer Raw(L.getFileLoc(), PP.getLangOpts(), Buf.begin(),
            L.getBufferLocation(), Buf.end());
  Token T;
  bool InDirective = false;
  while (true) {
    Raw.LexFromRawLexer(T);
    if (T.is(tok::eof))
      return true;
    if (T.isAtStartOfLine() && T.is(tok::hash)) {
      Token Name;
      Raw.LexFromRawLexer(Name);
      StringRef W = wordOf(Name);
      if (W.starts_with("if") || W.starts_with("el") || W == "endif" ||
          W.starts_with("include") || W == "import" || W == "embed")
        return true;
      InDirective = !Name.isAtStartOfLine();
      continue;
    }
    if (T.isAtStartOfLine())
      InDirective = false;
    if (InDirective)
      continue;
    if (T.is(tok::raw_identifier) &&
        PP.getMacroInfo(PP.getIdentifierInfo(T.getRawIdentifier())))
      return true;
    return false;
  }
}

void OmpPragmaHandler::defer(Preprocessor &PP, Directive D, Result R) {
  // The continuation is a _Pragma; a program that redefines `_Pragma` gets the
  // work done here, stopping short of the end of the file.
  const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo("_Pragma"));
  if (!MI || !MI->isBuiltinMacro())
    return finish(PP, D, *R, /*InLexer=*/true);
  unsigned Id = NextContinuation++;
  SourceLocation Loc = D.Introducer.Loc;
  Deferred.emplace(Id, Continuation{std::move(D), std::move(R)});
  std::string Marker =
      "_Pragma(\"omp " + ContinueWord.str() + " " + std::to_string(Id) + "\")";
  SmallVector<Token, 4> Toks;
  appendGeneratedText(PP, Marker, std::nullopt, Toks);
  for (Token &T : Toks)
    if (T.is(tok::identifier))
      T.setLocation(Loc);
  enter(PP, Toks, /*DisableMacroExpansion=*/false);
}

void OmpPragmaHandler::finish(Preprocessor &PP, const Directive &D,
                              const OaResult &R, bool InLexer) {
  // The lexer running this handler; reading must stop before it reaches the
  // end of its file (that destroys it while it runs).
  // (Lexer is the only PreprocessorLexer in clang 19.)
  Lexer *Running =
      InLexer ? static_cast<Lexer *>(PP.getCurrentLexer()) : nullptr;
  auto EndsHere = [&PP, Running]() {
    return Running && PP.getCurrentLexer() == Running &&
           mayReachEndOfFile(PP, *Running);
  };
  if (R.Outcome == OA_NEED_NEXT_TOKEN) {
    // The directive that follows is handled (recursively) while this token is
    // lexed; then the Rust side knows whether it took the `declare`.
    uint32_t Index = static_cast<uint32_t>(Saved.size() - 1);
    Token Next;
    bool Ends = !D.Eof && EndsHere();
    if (D.Eof)
      Next = *D.Eof;
    else if (!Ends)
      PP.Lex(Next);
    if (Result RN{ompadapt_after_next_token(Session, Index)})
      report(PP, *RN, D);
    if (!Ends)
      enter(PP, Next, /*DisableMacroExpansion=*/true);
    return;
  }
  StatementCollector C(PP);
  if (Running)
    C.EndsHere = EndsHere;
  if (D.Eof) {
    C.Missing = true;
    C.GiveBack = D.Eof;
  } else {
    const StatementCollector *Outer = Collecting;
    Collecting = &C;
    C.collect();
    Collecting = Outer;
  }
  bool Construct = R.Outcome == OA_NEED_CONSTRUCT;
  if (Construct) {
    // The construct as written: the directive as Clang's handler would have
    // emitted it, then its statement.
    SmallVector<Token, 128> Full;
    Full.push_back(makeAnnotation(tok::annot_pragma_openmp, D.Introducer.Loc));
    Full.append(D.Toks.begin(), D.Toks.end());
    Full.push_back(makeAnnotation(tok::annot_pragma_openmp_end, D.End));
    Full.append(C.Toks.begin(), C.Toks.end());
    C.Toks = std::move(Full);
  }
  // Without its statement, a construct of zero-source-change mode is left to
  // Clang, which reports it.
  if (C.Missing && !Construct) {
    DiagnosticsEngine &DE = PP.getDiagnostics();
    PP.Diag(D.Introducer.Loc,
            DE.getCustomDiagID(
                DiagnosticsEngine::Error,
                "expected a statement after this adaptation directive"));
  }
  TokenDescs S(PP, C.Toks);
  Result RS(ompadapt_on_statement(Session, S.data(), S.size()));
  // Diagnostics and pieces of this reply may refer to the statement's tokens.
  this->Statement = C.Toks;
  if (!RS) {
    internalError(PP, D.Introducer.Loc, "no result for its statement");
    this->Statement = {};
    SmallVector<Token, 128> Plain(C.Toks.begin(), C.Toks.end());
    if (C.GiveBack && !C.EndedHere)
      Plain.push_back(*C.GiveBack);
    return enter(PP, Plain, /*DisableMacroExpansion=*/true);
  }
  report(PP, *RS, D);
  if (C.EndedHere)
    C.GiveBack.reset(); // the end the file's lexer is still to reach
  inject(PP, *RS, D, C.Toks, C.GiveBack);
  this->Statement = {};
}

OmpPragmaHandler::Result OmpPragmaHandler::handOver(Preprocessor &PP,
                                                    const Directive &D) {
  SourceManager &SM = PP.getSourceManager();
  std::string Where = presumedLine(SM, D.Introducer.Loc, PathMap, SourceRoot);
  FileID FID = SM.getFileID(SM.getExpansionLoc(D.Introducer.Loc));
  SourceLocation At =
      D.Toks.empty() ? D.Introducer.Loc : D.Toks[0].getLocation();
  std::string Function = CurrentFunction ? CurrentFunction() : std::string();
  OaContext Ctx{Where.c_str(),
                Blocks.current(),
                At.getRawEncoding(),
                static_cast<uint64_t>(FID.getHashValue()),
                Blocks.open().data(),
                Blocks.open().size(),
                Function.c_str(),
                Collecting && !Collecting->Started,
                InTemplate && InTemplate()};
  TokenDescs Descs(PP, D.Toks);
  Result R(ompadapt_on_pragma(Session, Descs.data(), Descs.size(), &Ctx));
  if (R && R->Outcome == OA_NEED_LOOKAHEAD) {
    lookAhead(PP, D);
    R.reset(ompadapt_on_pragma(Session, Descs.data(), Descs.size(), &Ctx));
    if (R && R->Outcome == OA_NEED_LOOKAHEAD)
      R.reset();
  }
  return R;
}

void OmpPragmaHandler::lookAhead(Preprocessor &PP, const Directive &D) {
  SourceManager &SM = PP.getSourceManager();
  FileID FID = SM.getFileID(SM.getExpansionLoc(D.Introducer.Loc));
  if (FID.isValid() && ScannedFiles.insert(FID.getHashValue()).second) {
    findDeclareAdaptationLines(
        PP, FID,
        [&](ArrayRef<Token> Declare, ArrayRef<Token> Meta, SourceLocation At) {
          SavedTokens S{SmallVector<Token, 32>(Declare.begin(), Declare.end()),
                        Declare.empty() ? At : Declare.back().getLocation(),
                        /*Raw=*/true};
          cookRawTokens(PP, S.Toks);
          SmallVector<Token, 32> M(Meta.begin(), Meta.end());
          cookRawTokens(PP, M);
          TokenDescs DD(PP, S.Toks), MD(PP, M);
          std::string Where = presumedLine(SM, At, PathMap, SourceRoot);
          ompadapt_on_lookahead(Session, DD.data(), DD.size(), MD.data(),
                                MD.size(), Where.c_str());
          Saved.push_back(std::move(S));
        });
  }
  ompadapt_lookahead_done(Session, static_cast<uint64_t>(FID.getHashValue()));
}

SourceLocation OmpPragmaHandler::tokenLoc(const Directive &D, uint32_t List,
                                          uint32_t I) const {
  SourceLocation L;
  if (List == OA_HERE)
    L = I < D.Toks.size() ? D.Toks[I].getLocation() : D.End;
  else if (List == OA_STATEMENT_LIST)
    L = I < Statement.size() ? Statement[I].getLocation() : D.End;
  else if (List < Saved.size())
    L = I < Saved[List].Toks.size() ? Saved[List].Toks[I].getLocation()
                                    : Saved[List].End;
  return L.isValid() ? L : D.Introducer.Loc;
}

void OmpPragmaHandler::report(Preprocessor &PP, const OaResult &R,
                              const Directive &D) {
  DiagnosticsEngine &DE = PP.getDiagnostics();
  SourceManager &SM = PP.getSourceManager();
  // The driver runs one cc1 per offload target besides the host one; warnings
  // are said once, by the host compilation. Errors stop every compilation, so
  // each reports them.
  bool Device = PP.getLangOpts().OpenMPIsTargetDevice;
  bool Skipping = false;
  for (size_t I = 0; I < R.NumDiags; ++I) {
    const OaDiag &G = R.Diags[I];
    // A note belongs to the diagnostic before it: said only with it.
    if (G.Severity != OA_NOTE)
      Skipping = (Device && (G.Severity == OA_WARNING ||
                             G.Severity == OA_REMARK)) ||
                 (G.Severity == OA_REMARK && !Remarks);
    if (Skipping)
      continue;
    DiagnosticsEngine::Level L =
        G.Severity == OA_ERROR     ? DiagnosticsEngine::Error
        : G.Severity == OA_WARNING ? DiagnosticsEngine::Warning
        : G.Severity == OA_REMARK  ? DiagnosticsEngine::Remark
                                   : DiagnosticsEngine::Note;
    SourceLocation Loc = tokenLoc(D, G.List, G.Tok);
    SourceLocation End = G.End > G.Tok ? tokenLoc(D, G.List, G.End - 1) : Loc;
    auto B = PP.Diag(Loc, DE.getCustomDiagID(L, "%0"));
    B << G.Message;
    // Ranges and fix-its only within one file: a range into or across macro
    // expansions is shown by its location alone.
    if (Loc.isFileID() && End.isFileID() &&
        SM.getFileID(Loc) == SM.getFileID(End) &&
        !SM.isBeforeInTranslationUnit(End, Loc)) {
      CharSourceRange Range = CharSourceRange::getTokenRange(Loc, End);
      B << Range;
      if (G.Fixit)
        B << FixItHint::CreateReplacement(Range, G.Fixit);
    }
  }
}

void OmpPragmaHandler::internalError(Preprocessor &PP, SourceLocation Loc,
                                     StringRef What) {
  DiagnosticsEngine &DE = PP.getDiagnostics();
  PP.Diag(Loc, DE.getCustomDiagID(DiagnosticsEngine::Error,
                                  "internal error in the ompadapt plugin: %0"))
      << What;
}

// What Clang's own OpenMP pragma handler produces.
void OmpPragmaHandler::reinjectUnchanged(Preprocessor &PP, const Directive &D) {
  SmallVector<Token, 34> Out;
  Out.push_back(makeAnnotation(tok::annot_pragma_openmp, D.Introducer.Loc));
  Out.append(D.Toks.begin(), D.Toks.end());
  Out.push_back(makeAnnotation(tok::annot_pragma_openmp_end, D.End));
  enter(PP, Out, /*DisableMacroExpansion=*/false);
}

/// The tokens a lowering produces, in consecutive runs by whether macros still
/// need expanding (raw tokens found by looking ahead do); entered last run first.
struct TokenRuns {
  struct Run {
    SmallVector<Token, 64> Toks;
    bool Expand;
  };
  SmallVector<Run, 4> Runs;

  SmallVectorImpl<Token> &out(bool Expand) {
    if (Runs.empty() || Runs.back().Expand != Expand)
      Runs.push_back({{}, Expand});
    return Runs.back().Toks;
  }
  void append(ArrayRef<Token> Toks, uint32_t A, uint32_t B, bool Expand) {
    B = std::min<uint32_t>(B, Toks.size());
    if (A < B)
      out(Expand).append(Toks.begin() + A, Toks.begin() + B);
  }
  /// Where the next token will go: (runs, tokens of the last run).
  std::pair<size_t, size_t> mark() const {
    return {Runs.size(), Runs.empty() ? 0 : Runs.back().Toks.size()};
  }
  /// Flags the first token added since `Mark` as starting a line; whether
  /// there was one.
  bool startLineAt(std::pair<size_t, size_t> Mark) {
    if (Runs.empty())
      return false;
    Run &First = Runs.size() > Mark.first ? Runs[Mark.first] : Runs.back();
    size_t At = Runs.size() > Mark.first ? 0 : Mark.second;
    if (At >= First.Toks.size())
      return false;
    First.Toks[At].setFlag(Token::StartOfLine);
    return true;
  }
};

void OmpPragmaHandler::appendPiece(Preprocessor &PP, const OaPiece &P,
                                   const Directive &D,
                                   ArrayRef<Token> Statement, TokenRuns &Out,
                                   bool &InDirective) {
  StringRef Text(P.Text ? P.Text : "", P.Text ? P.Len : 0);
  switch (P.Kind) {
  case OA_TEXT:
    // Inside a directive, Clang reads the words' spelling at their location:
    // generated words keep theirs (in the scratch buffer).
    appendGeneratedText(PP, Text,
                        InDirective ? std::nullopt
                                    : std::optional<SourceLocation>(
                                          D.Introducer.Loc),
                        Out.out(false));
    break;
  case OA_TEXT_AT:
    appendGeneratedText(PP, Text, tokenLoc(D, OA_HERE, P.A), Out.out(false));
    break;
  case OA_TEXT_AT_SAVED:
    appendGeneratedText(PP, Text, tokenLoc(D, P.List, P.A), Out.out(false));
    break;
  case OA_USER:
    Out.append(D.Toks, P.A, P.B, false);
    break;
  case OA_SAVED:
    if (P.List == OA_STATEMENT_LIST)
      Out.append(Statement, P.A, P.B, false);
    else if (P.List < Saved.size())
      Out.append(Saved[P.List].Toks, P.A, P.B, Saved[P.List].Raw);
    break;
  case OA_SAVED_AT:
    if (P.List < Saved.size()) {
      SourceLocation At = tokenLoc(D, P.AtList, P.AtTok);
      SmallVectorImpl<Token> &O = Out.out(Saved[P.List].Raw);
      size_t From = O.size();
      Out.append(Saved[P.List].Toks, P.A, P.B, Saved[P.List].Raw);
      for (size_t K = From; K < O.size(); ++K)
        O[K].setLocation(At);
    }
    break;
  case OA_PIECE_OMP_BEGIN:
    InDirective = true;
    Out.out(false).push_back(
        makeAnnotation(tok::annot_pragma_openmp, D.Introducer.Loc));
    break;
  case OA_PIECE_OMP_END:
    InDirective = false;
    Out.out(false).push_back(
        makeAnnotation(tok::annot_pragma_openmp_end, D.End));
    break;
  case OA_STATEMENT:
    Out.append(Statement, 0, Statement.size(), false);
    break;
  }
}

void OmpPragmaHandler::inject(Preprocessor &PP, const OaResult &R,
                              const Directive &D, ArrayRef<Token> Statement,
                              std::optional<Token> After) {
  TokenRuns Out;
  // Generated code that starts the stream or follows the statement reads as
  // starting a line (as after a #pragma line): Clang's
  // -Wmisleading-indentation must not take the code after a loop's body for
  // a statement indented like the body.
  bool StartsLine = true;
  bool InDirective = false;
  for (size_t I = 0; I < R.NumPieces; ++I) {
    const OaPiece &P = R.Pieces[I];
    auto Mark = Out.mark();
    appendPiece(PP, P, D, Statement, Out, InDirective);
    if (P.Kind == OA_STATEMENT)
      StartsLine = true;
    else if (StartsLine && Out.startLineAt(Mark))
      StartsLine = false;
  }
  if (After)
    Out.out(false).push_back(*After);
  for (auto It = Out.Runs.rbegin(); It != Out.Runs.rend(); ++It)
    enter(PP, It->Toks, /*DisableMacroExpansion=*/!It->Expand);
}

} // namespace ompadapt
