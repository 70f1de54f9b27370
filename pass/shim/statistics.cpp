// The pass's statistics in the form of LLVM's `-stats` report (`opt -stats`,
// `clang -mllvm -stats`), printed at exit. What to count is decided in Rust
// (src/statistics.rs). LLVM's own counters (STATISTIC, llvm::TrackingStatistic) cannot carry
// them: the distributions' LLVM is built without LLVM_ENABLE_STATS, where `-stats` only says
// "Statistics are disabled" and prints no counter. The option itself is there, and
// llvm::AreStatisticsEnabled() says whether it was given, so this file keeps the counters and
// prints them the way LLVM would.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "llvm/ADT/Statistic.h"

namespace {
struct Statistics {
  std::mutex Lock;
  // name -> (description, value), printed in name order as LLVM sorts by pass then name.
  std::map<std::string, std::pair<std::string, uint64_t>> Counters;

  // At exit (after the compiler's own shutdown): the report, when -stats was given.
  ~Statistics() {
    if (Counters.empty() || !llvm::AreStatisticsEnabled())
      return;
    size_t Width = 0;
    for (const auto &C : Counters)
      Width = std::max(Width, std::to_string(C.second.second).size());
    std::fprintf(stderr, "===%s===\n%*s\n===%s===\n\n", std::string(73, '-').c_str(), 51,
                 "... ompadapt statistics ...", std::string(73, '-').c_str());
    for (const auto &C : Counters)
      std::fprintf(stderr, "%*" PRIu64 " ompadapt - %s\n", int(Width), C.second.second, C.second.first.c_str());
    std::fprintf(stderr, "\n");
  }
};
Statistics TheStatistics;
} // namespace

// Adds `N` to the counter `Name`, described as `Description` in the report.
extern "C" void ompadapt_add_statistic(const char *Name, const char *Description, uint64_t N) {
  std::lock_guard<std::mutex> Guard(TheStatistics.Lock);
  auto &Counter = TheStatistics.Counters[Name];
  Counter.first = Description;
  Counter.second += N;
}
