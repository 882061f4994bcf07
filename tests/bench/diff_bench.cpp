// In-process figures of the diff pipeline (Google Benchmark): parser
// throughput, the streamed numstat, the annotated view, --json, and the
// builtin reviewer, on a patch generated deterministically at start-up or
// read from --patch=FILE (tests/bench/run passes its `git log -p` patch).
//
//   revline_diff_bench [--patch=FILE | --patch-mb=N] [benchmark flags]
//
// Before timing anything it checks that streamNumstat() prints exactly what
// numstat(parse()) prints on that patch, and exits 1 if not.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "core/builtin/rules.h"
#include "core/diff/diff.h"
#include "core/diff/render.h"

namespace {

using namespace revline;

// A `git log -p`-like patch of about `mb` megabytes: commit headers, then
// file sections with several hunks of context, added and removed lines.
std::string generatePatch(double mb) {
  std::mt19937 rng(42);
  const size_t target = static_cast<size_t>(mb * 1024 * 1024);
  std::string out;
  out.reserve(target + 65536);
  const char* words[] = {"int", "value", "return", "if", "for", "count", "name", "result", "=", "+", "(", ")", "{",
                         "}", ";", "std::string", "auto", "total", "items", "size"};
  auto codeLine = [&](std::string& o) {
    const int n = 3 + static_cast<int>(rng() % 8);
    o += "    ";
    for (int i = 0; i < n; ++i) {
      o += words[rng() % 20];
      o += ' ';
    }
  };
  for (int commit = 0; out.size() < target; ++commit) {
    char head[160];
    std::snprintf(head, sizeof head, "commit %040x\nAuthor: Bench <bench@example.com>\nDate:   Mon Jan 1 00:00:00 2024\n\n    edit %d\n\n", commit, commit);
    out += head;
    const int files = 1 + static_cast<int>(rng() % 6);
    for (int f = 0; f < files; ++f) {
      const std::string path = "src/mod" + std::to_string(rng() % 50) + "/file" + std::to_string(rng() % 100) + ".cpp";
      out += "diff --git a/" + path + " b/" + path + "\nindex 1234567..89abcde 100644\n--- a/" + path + "\n+++ b/" + path + "\n";
      int at = 1 + static_cast<int>(rng() % 20);
      const int hunks = 1 + static_cast<int>(rng() % 5);
      for (int h = 0; h < hunks; ++h) {
        const int removed = static_cast<int>(rng() % 4), added = static_cast<int>(rng() % 6);
        std::string body;
        for (int i = 0; i < 3; ++i) { body += ' '; codeLine(body); body += '\n'; }
        for (int i = 0; i < removed; ++i) { body += '-'; codeLine(body); body += '\n'; }
        for (int i = 0; i < added; ++i) { body += '+'; codeLine(body); body += '\n'; }
        for (int i = 0; i < 3; ++i) { body += ' '; codeLine(body); body += '\n'; }
        out += "@@ -" + std::to_string(at) + "," + std::to_string(6 + removed) + " +" + std::to_string(at) + "," +
               std::to_string(6 + added) + " @@ void f()\n" + body;
        at += 6 + removed + 10 + static_cast<int>(rng() % 30);
      }
    }
  }
  return out;
}

std::string& patch() {
  static std::string text;
  return text;
}

revline::diff::ChunkReader readerOver(const std::string& text) {
  auto pos = std::make_shared<size_t>(0);
  return [&text, pos](char* buffer, size_t size) {
    const size_t n = std::min(size, text.size() - *pos);
    std::memcpy(buffer, text.data() + *pos, n);
    *pos += n;
    return n;
  };
}

void BM_Parse(benchmark::State& state) {
  for (auto _ : state) {
    diff::Diff d = diff::parse(patch());
    benchmark::DoNotOptimize(d.files.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(patch().size()));
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

void BM_StreamNumstat(benchmark::State& state) {
  for (auto _ : state) {
    std::string out = diff::streamNumstat(readerOver(patch()));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(patch().size()));
}
BENCHMARK(BM_StreamNumstat)->Unit(benchmark::kMillisecond);

const diff::Diff& parsed() {
  static const diff::Diff d = diff::parse(patch());
  return d;
}

void BM_Annotate(benchmark::State& state) {
  const diff::Diff& d = parsed();
  for (auto _ : state) {
    std::string out = diff::annotate(d);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(patch().size()));
}
BENCHMARK(BM_Annotate)->Unit(benchmark::kMillisecond);

void BM_ToJson(benchmark::State& state) {
  const diff::Diff& d = parsed();
  for (auto _ : state) {
    auto j = diff::toJson(d);
    benchmark::DoNotOptimize(j.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(patch().size()));
}
BENCHMARK(BM_ToJson)->Unit(benchmark::kMillisecond);

void BM_BuiltinReviewDiff(benchmark::State& state) {
  const diff::Diff& d = parsed();
  for (auto _ : state) {
    auto findings = builtin::reviewDiff(d);
    benchmark::DoNotOptimize(findings.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(patch().size()));
}
BENCHMARK(BM_BuiltinReviewDiff)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  double mb = 8;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.starts_with("--patch=")) file = a.substr(8);
    else if (a.starts_with("--patch-mb=")) mb = std::stod(a.substr(11));
    else {
      std::cerr << "unknown argument " << a << "\nusage: revline_diff_bench [--patch=FILE | --patch-mb=N] [--benchmark_...]\n";
      return 2;
    }
  }
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << file << "\n";
      return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    patch() = ss.str();
  } else {
    patch() = generatePatch(mb);
  }
  // Same parser, two sinks: they must agree before either is timed.
  const std::string whole = diff::numstat(diff::parse(patch()));
  for (size_t chunk : {size_t(1), size_t(7), size_t(4096), size_t(1) << 20}) {
    auto pos = std::make_shared<size_t>(0);
    const std::string streamed = diff::streamNumstat([&, pos](char* buffer, size_t size) {
      const size_t n = std::min({size, chunk, patch().size() - *pos});
      std::memcpy(buffer, patch().data() + *pos, n);
      *pos += n;
      return n;
    });
    if (streamed != whole) {
      std::cerr << "streamNumstat differs from numstat(parse()) with reads of " << chunk << " bytes\n";
      return 1;
    }
  }
  benchmark::AddCustomContext("patch_bytes", std::to_string(patch().size()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
