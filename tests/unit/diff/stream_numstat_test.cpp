// The streamed numstat (revline diff --numstat --stdin) is the same parser as
// parse(): same counts for any chunking, same errors.
#include <gtest/gtest.h>

#include <cstring>

#include "core/diff/render.h"
#include "tests/support/temp_repo.h"

namespace revline::diff {
namespace {

ChunkReader readerOf(const std::string& text, std::size_t chunk) {
  auto pos = std::make_shared<std::size_t>(0);
  return [&text, chunk, pos](char* buffer, std::size_t size) {
    const std::size_t n = std::min({chunk, size, text.size() - *pos});
    std::memcpy(buffer, text.data() + *pos, n);
    *pos += n;
    return n;
  };
}

TEST(StreamNumstat, AgreesWithParseForEveryChunking) {
  testing::TempRepo repo;
  repo.write("a.txt", "one\ntwo\nthree\n");
  repo.write("gone.txt", "bye\n");
  repo.write("bin.dat", std::string("\0\1\2", 3));
  repo.write("old name.txt", "same\ncontent\nhere\n");
  repo.commitAll();
  repo.write("a.txt", "one\nTWO\nthree\nfour");  // no newline at end
  repo.remove("gone.txt");
  repo.write("bin.dat", std::string("\0\1\3", 3));
  repo.git("mv 'old name.txt' 'new name.txt'");
  repo.write("added.txt", "fresh\n");
  repo.git("add -A");
  const std::string patch = repo.git("diff --cached -M --binary");
  const std::string expected = numstat(parse(patch));
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, testing::runShell("git apply --numstat", repo.root(), patch).out);
  for (std::size_t chunk : {1u, 7u, 4096u, 1u << 20}) {
    EXPECT_EQ(streamNumstat(readerOf(patch, chunk)), expected) << "chunk " << chunk;
  }
}

TEST(StreamNumstat, SameErrorAsParse) {
  const std::string bad = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n line\n";
  std::string parseError, streamError;
  try { parse(bad); } catch (const ParseError& e) { parseError = e.what(); }
  try { streamNumstat(readerOf(bad, 3)); } catch (const ParseError& e) { streamError = e.what(); }
  EXPECT_FALSE(parseError.empty());
  EXPECT_EQ(streamError, parseError);
}

}  // namespace
}  // namespace revline::diff
