// Consistency with git over a scripted history: ~300 commits of random (but
// seeded, so deterministic) adds, edits, deletes, renames, mode changes, type
// changes, binary files, odd names and missing final newlines. For every commit
// the parse of `git show` must agree with the tree the script wrote, and
// numstat() with `git apply --numstat` on the same patch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/diff/render.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/diff/diff_checks.h"

namespace revline::diff {
namespace {

using revline::testing::runShell;
using revline::testing::shellQuote;
using revline::testing::TempDir;
using revline::testing::TempRepo;
using testing::expectSidesMatch;

struct Entry {
  std::string mode;  // "100644", "100755" or "120000"
  std::string content;
  bool binary = false;
};
using Tree = std::map<std::string, Entry>;

// Generates the history; mt19937 is specified exactly by the standard, and only
// `rng() % n` is used (distributions differ between standard libraries).
class History {
 public:
  explicit History(uint32_t seed) : rng_(seed) {}

  // One commit's worth of random changes applied to `tree`.
  void step(Tree& tree) {
    const int ops = 1 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const int what = tree.size() < 4 ? 0 : pick(100);
      if (what < 22) addText(tree);
      else if (what < 55) edit(tree);
      else if (what < 63) remove(tree);
      else if (what < 75) rename(tree);
      else if (what < 83) chmod(tree);
      else if (what < 93) binary(tree);
      else if (what < 97) symlink(tree);
      else typeChange(tree);
    }
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  std::string freshName(bool text) {
    static const char* dirs[] = {"", "src/", "docs with space/", "\xc3\xbcn\xc3\xaf/", "deep/er/"};
    static const char* textNames[] = {"f{}.txt", "my file {}.c", "tab\t{}", "q\"{}\".h", "\xc3\xa9{}.md", "back\\{}"};
    std::string base = text ? textNames[pick(6)] : "blob{}.bin";
    base.replace(base.find("{}"), 2, std::to_string(++counter_));
    return dirs[pick(5)] + base;
  }

  std::string textContent() {
    static const char* vocab[] = {"int x = 1;",  "return y;",         "-- not a header", "+++ b/fake",
                                  "--- a/fake",  "@@ -1 +1 @@",       "diff --git a/x b/x", "\\ No newline",
                                  "",            "  indented line",   "tab\there",       "\xc3\xbcn\xc3\xaf",
                                  "}",           "    call(a, b, c);", "// comment",      " leading space"};
    const bool crlf = pick(8) == 0;
    std::string s;
    const int n = pick(30);
    for (int i = 0; i < n; ++i) s += std::string(vocab[pick(16)]) + (crlf ? "\r\n" : "\n");
    if (!s.empty() && pick(5) == 0) s.pop_back();  // no newline at end (or a lone '\r' left)
    return s;
  }

  std::string binaryContent() {
    std::string s(static_cast<size_t>(8 + pick(600)), '\0');
    for (char& c : s) c = static_cast<char>(pick(4) == 0 ? 0 : pick(256));
    s[0] = '\0';
    return s;
  }

  template <typename Pred>
  std::string anyPath(const Tree& tree, Pred ok) {
    std::vector<std::string> all;
    for (const auto& [p, e] : tree) {
      if (ok(e)) all.push_back(p);
    }
    return all.empty() ? std::string() : all[static_cast<size_t>(pick(static_cast<int>(all.size())))];
  }
  static bool isText(const Entry& e) { return !e.binary && e.mode != "120000"; }

  void addText(Tree& t) { t[freshName(true)] = {pick(4) == 0 ? "100755" : "100644", textContent(), false}; }

  void edit(Tree& t) {
    const std::string p = anyPath(t, isText);
    if (p.empty()) return addText(t);
    std::vector<std::string> lines;
    std::string& c = t[p].content;
    bool finalNewline = c.empty() || c.back() == '\n';
    std::istringstream in(c);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    const int edits = 1 + pick(4);
    for (int i = 0; i < edits; ++i) {
      const int at = pick(static_cast<int>(lines.size()) + 1);
      const int kind = pick(3);
      if (kind == 0 || lines.empty()) lines.insert(lines.begin() + at, "added " + std::to_string(pick(1000)));
      else if (kind == 1 && at < static_cast<int>(lines.size())) lines.erase(lines.begin() + at);
      else if (at < static_cast<int>(lines.size())) lines[static_cast<size_t>(at)] = "changed " + std::to_string(pick(1000));
    }
    if (pick(6) == 0) finalNewline = !finalNewline;
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() || finalNewline ? "\n" : "");
    c = out;
  }

  void remove(Tree& t) {
    const std::string p = anyPath(t, [](const Entry&) { return true; });
    if (!p.empty()) t.erase(p);
  }

  void rename(Tree& t) {
    const std::string p = anyPath(t, isText);
    if (p.empty()) return;
    Entry e = t[p];
    t.erase(p);
    t[freshName(true)] = e;
    if (pick(2) == 0) edit(t);  // maybe this one, maybe another: both are fine
  }

  void chmod(Tree& t) {
    const std::string p = anyPath(t, isText);
    if (!p.empty()) t[p].mode = t[p].mode == "100644" ? "100755" : "100644";
  }

  void binary(Tree& t) {
    const std::string p = pick(2) == 0 ? anyPath(t, [](const Entry& e) { return e.binary; }) : std::string();
    t[p.empty() ? freshName(false) : p] = {"100644", binaryContent(), true};
  }

  void symlink(Tree& t) { t["link" + std::to_string(++counter_)] = {"120000", "target/" + std::to_string(pick(99)), false}; }

  void typeChange(Tree& t) {
    const std::string p = anyPath(t, isText);
    if (!p.empty()) t[p] = {"120000", "points/elsewhere", false};
  }

  std::mt19937 rng_;
  int counter_ = 0;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fast-import stream that turns each snapshot into a commit.
std::string fastImport(const std::vector<Tree>& snapshots) {
  std::string s;
  auto data = [&s](const std::string& bytes) { s += "data " + std::to_string(bytes.size()) + "\n" + bytes + "\n"; };
  for (size_t i = 0; i < snapshots.size(); ++i) {
    s += "commit refs/heads/main\nmark :" + std::to_string(i + 1) + "\n";
    s += "committer T <t@example.invalid> " + std::to_string(1700000000 + i) + " +0000\n";
    data("commit " + std::to_string(i + 1));
    if (i > 0) s += "from :" + std::to_string(i) + "\n";
    s += "deleteall\n";
    for (const auto& [path, e] : snapshots[i]) {
      s += "M " + e.mode + " inline " + quotePath(path) + "\n";
      data(e.content);
    }
  }
  return s;
}

TEST(HistoryConsistency, EveryCommitAgreesWithGit) {
  constexpr int kCommits = 300;
  History history(20240917u);
  std::vector<Tree> snapshots;
  Tree tree;
  for (int i = 0; i < kCommits; ++i) {
    history.step(tree);
    snapshots.push_back(tree);
  }
  TempRepo repo;
  const std::string env = "GIT_CONFIG_NOSYSTEM=1 HOME=" + shellQuote(repo.root().string()) + " ";
  const auto imported = runShell(env + "git fast-import --quiet", repo.root(), fastImport(snapshots));
  ASSERT_EQ(imported.exitCode, 0) << imported.err;

  // One shell for all commits: a process per git call is the expensive part.
  TempDir out;
  const std::string script =
      "i=0; for c in $(git rev-list --reverse main); do i=$((i+1)); "
      "if [ $((i % 2)) = 0 ]; then b=--binary; else b=; fi; "
      "git show --format= -M $b $c > " + shellQuote(out.path().string()) + "/$i.diff || exit 1; "
      "git apply --numstat < " + shellQuote(out.path().string()) + "/$i.diff > " +
      shellQuote(out.path().string()) + "/$i.num 2>/dev/null; echo $? > " + shellQuote(out.path().string()) +
      "/$i.rc; done";
  const auto ran = runShell(env + "sh -c " + shellQuote(script), repo.root());
  ASSERT_EQ(ran.exitCode, 0) << ran.err;

  int compared = 0, sections = 0, renames = 0, binaries = 0, modes = 0, noNewline = 0;
  for (int i = 0; i < kCommits; ++i) {
    SCOPED_TRACE("commit " + std::to_string(i + 1));
    const std::string text = slurp(out.path() / (std::to_string(i + 1) + ".diff"));
    const Tree before = i == 0 ? Tree{} : snapshots[static_cast<size_t>(i - 1)];
    const Tree& after = snapshots[static_cast<size_t>(i)];
    Diff d;
    try {
      d = parse(text);
    } catch (const ParseError& e) {
      FAIL() << e.what() << "\n" << text;
    }
    std::set<std::string> newSides, oldSides;
    for (const FileDiff& f : d.files) {
      ++sections;
      if (f.newPath) newSides.insert(*f.newPath);
      if (f.oldPath) oldSides.insert(*f.oldPath);
      if (f.oldPath) {
        ASSERT_TRUE(before.count(*f.oldPath)) << "old side not in the parent: " << *f.oldPath;
      }
      if (f.newPath) {
        ASSERT_TRUE(after.count(*f.newPath)) << "new side not in the commit: " << *f.newPath;
      }
      const Entry* oldE = f.oldPath ? &before.at(*f.oldPath) : nullptr;
      const Entry* newE = f.newPath ? &after.at(*f.newPath) : nullptr;
      const bool isBinary = (oldE && oldE->binary) || (newE && newE->binary);
      EXPECT_EQ(f.binary, isBinary) << f.path();
      if (isBinary) {
        ++binaries;
        EXPECT_EQ(f.status, FileStatus::Binary);
        continue;
      }
      FileStatus expected = FileStatus::Modified;
      if (!f.oldPath) {
        expected = FileStatus::Added;
      } else if (!f.newPath) {
        expected = FileStatus::Deleted;
      } else if (*f.oldPath != *f.newPath) {
        expected = FileStatus::Renamed;
        ++renames;
      } else if (oldE->content == newE->content) {
        expected = FileStatus::Mode;
        ++modes;
      }
      EXPECT_EQ(f.status, expected) << f.path();
      if (newE && oldE && oldE->mode != newE->mode) {
        EXPECT_EQ(f.oldMode, oldE->mode);
        EXPECT_EQ(f.newMode, newE->mode);
      }
      expectSidesMatch(f, oldE ? &oldE->content : nullptr, newE ? &newE->content : nullptr);
      for (const Hunk& h : f.hunks) {
        for (const Line& l : h.lines) noNewline += l.noNewlineAtEnd;
      }
    }
    // Completeness: every change the script made shows up in some section.
    for (const auto& [p, e] : after) {
      const auto old = before.find(p);
      const bool changed = old == before.end() || old->second.content != e.content || old->second.mode != e.mode;
      if (changed) {
        EXPECT_TRUE(newSides.count(p)) << "missing section for " << p;
      }
    }
    for (const auto& [p, e] : before) {
      if (!after.count(p)) {
        EXPECT_TRUE(oldSides.count(p)) << "missing deletion of " << p;
      }
    }
    if (slurp(out.path() / (std::to_string(i + 1) + ".rc")) == "0\n") {
      EXPECT_EQ(numstat(d), slurp(out.path() / (std::to_string(i + 1) + ".num")));
      ++compared;
    }
  }
  // The script must actually have exercised what it claims to.
  EXPECT_GT(compared, kCommits * 9 / 10);
  EXPECT_GT(renames, 10);
  EXPECT_GT(binaries, 10);
  EXPECT_GT(modes, 5);
  EXPECT_GT(noNewline, 10);
  EXPECT_GT(sections, kCommits);
}

}  // namespace
}  // namespace revline::diff
