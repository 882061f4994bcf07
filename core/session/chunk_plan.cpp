#include "core/session/chunk_plan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <tuple>

namespace revline::session {

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view directoryOf(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

bool looksLikeTest(std::string_view path) {
  const std::string p = lower(path);
  return p.find("test") != std::string::npos || p.find("spec") != std::string::npos;
}

// The name a source shares with its test and header: "src/Foo.java",
// "tests/FooTest.java", "foo_test.cpp", "test_foo.py", "foo.spec.ts" -> "foo".
std::string stemOf(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  std::string s;
  for (char c : name)
    if (c != '_' && c != '-') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string stem = s;
  for (std::string_view suffix : {"tests", "test", "spec"})
    if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  if (stem.size() > 4 && stem.rfind("test", 0) == 0) stem = stem.substr(4);
  return stem.empty() ? s : stem;
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root is the group's first file
  }
};

// Something packed as a whole: a group of files, a file, or a group of a file's hunks.
struct Item {
  std::vector<ChunkPart> parts;
  std::int64_t tokens = 0;
};

std::int64_t partTokens(const std::vector<FileCost>& files, const ChunkPart& p) {
  std::int64_t t = files[p.file].headerTokens;
  for (std::size_t h = p.firstHunk; h < p.endHunk; ++h) t += files[p.file].hunkTokens[h];
  return t;
}

ChunkPart wholeFile(const std::vector<FileCost>& files, std::size_t f) { return {f, 0, files[f].hunkTokens.size()}; }

bool isWholeFile(const std::vector<FileCost>& files, const ChunkPart& p) {
  return p.firstHunk == 0 && p.endHunk == files[p.file].hunkTokens.size();
}

// An item that is a piece of a file too large for one request (splitFile).
bool isPiece(const std::vector<FileCost>& files, const Item& item) {
  return item.parts.size() == 1 && !isWholeFile(files, item.parts.front());
}

// A file over the capacity: consecutive hunks, as many as fit, per item.
void splitFile(const std::vector<FileCost>& files, std::size_t f, std::int64_t capacity, std::vector<Item>& items,
               std::vector<SkippedPart>& skipped) {
  const FileCost& file = files[f];
  Item current;
  auto flush = [&] {
    if (!current.parts.empty()) items.push_back(std::move(current));
    current = Item{};
  };
  for (std::size_t h = 0; h < file.hunkTokens.size(); ++h) {
    const std::int64_t alone = file.headerTokens + file.hunkTokens[h];
    if (alone > capacity) {
      flush();
      skipped.push_back({{f, h, h + 1}, SkippedPart::Why::TooLarge, alone});
      continue;
    }
    if (!current.parts.empty() && current.tokens + file.hunkTokens[h] <= capacity) {
      current.parts.back().endHunk = h + 1;
      current.tokens += file.hunkTokens[h];
    } else {
      flush();
      current.parts.push_back({f, h, h + 1});
      current.tokens = alone;
    }
  }
  flush();
}

// The items when related groups are kept whole up to `threshold` tokens.
std::vector<Item> itemize(const std::vector<std::vector<std::vector<std::size_t>>>& directories,
                          const std::vector<FileCost>& files, std::int64_t capacity, std::int64_t threshold,
                          std::vector<SkippedPart>& skipped) {
  std::vector<Item> items;
  auto groupItem = [&](const std::vector<std::size_t>& members) {
    Item item;
    for (std::size_t f : members) {
      item.parts.push_back(wholeFile(files, f));
      item.tokens += partTokens(files, item.parts.back());
    }
    return item;
  };
  for (const auto& directory : directories) {
    std::vector<std::size_t> all;
    for (const auto& pair : directory) all.insert(all.end(), pair.begin(), pair.end());
    if (Item whole = groupItem(all); whole.tokens <= threshold && whole.tokens <= capacity) {
      items.push_back(std::move(whole));
      continue;
    }
    for (const auto& pair : directory) {
      if (Item group = groupItem(pair); group.tokens <= threshold && group.tokens <= capacity) {
        items.push_back(std::move(group));
        continue;
      }
      for (std::size_t f : pair) {
        if (Item file = groupItem({f}); file.tokens <= capacity) items.push_back(std::move(file));
        else splitFile(files, f, capacity, items, skipped);
      }
    }
  }
  return items;
}

// First fit, by decreasing size unless the items come in the order to pack them;
// each chunk's parts in diff order, chunks by first part. With `piecesOf` (the
// files' costs), a piece of a file never goes in a request before the one
// holding the file's previous piece, so the requests hold a file's pieces from
// its top down (past the request cap, a small piece from the middle of a file
// filled the room beside the small files, and the top was left out). With
// `overflow`, at most `maxChunks` chunks: an item that fits none of them goes
// there, and so do the later pieces of its file (a piece is never sent
// without the one above it).
std::vector<Chunk> pack(std::vector<Item> items, std::int64_t capacity, bool sortBySize = true,
                        const std::vector<FileCost>* piecesOf = nullptr, std::size_t maxChunks = SIZE_MAX,
                        std::vector<ChunkPart>* overflow = nullptr) {
  if (sortBySize)
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.tokens > b.tokens; });
  std::vector<Chunk> chunks;
  std::map<std::size_t, std::size_t> lastPieceChunk;  // file -> the chunk of its last piece placed
  std::set<std::size_t> cutFiles;                     // files a piece of which went to `overflow`
  for (Item& item : items) {
    const std::size_t file = item.parts.front().file;
    const bool piece = piecesOf && isPiece(*piecesOf, item);
    auto from = chunks.begin();
    if (auto it = lastPieceChunk.find(file); piece && it != lastPieceChunk.end())
      from += static_cast<std::ptrdiff_t>(it->second);
    auto fits = std::find_if(from, chunks.end(), [&](const Chunk& c) { return c.tokens + item.tokens <= capacity; });
    if (overflow && ((piece && cutFiles.count(file)) || (fits == chunks.end() && chunks.size() >= maxChunks))) {
      if (piece) cutFiles.insert(file);
      overflow->insert(overflow->end(), item.parts.begin(), item.parts.end());
      continue;
    }
    if (fits == chunks.end()) fits = chunks.insert(chunks.end(), Chunk{});
    if (piece) lastPieceChunk[file] = static_cast<std::size_t>(fits - chunks.begin());
    fits->parts.insert(fits->parts.end(), item.parts.begin(), item.parts.end());
    fits->tokens += item.tokens;
  }
  auto key = [](const ChunkPart& p) { return std::tuple(p.file, p.firstHunk); };
  for (Chunk& c : chunks)
    std::sort(c.parts.begin(), c.parts.end(), [&](const ChunkPart& a, const ChunkPart& b) { return key(a) < key(b); });
  std::sort(chunks.begin(), chunks.end(),
            [&](const Chunk& a, const Chunk& b) { return key(a.parts.front()) < key(b.parts.front()); });
  return chunks;
}

// Past the request cap what is sent is chosen by rank (fileRank), so the items
// are split by their files' rank and packed most important first: a request of
// code never carries prose while other code is left out. Within a rank, whole
// files go first (largest first) and pieces of a file too large for one request
// after them, from the file's top down: packed by size, each small file filled
// the room beside a different piece, and the cap kept one of them with a piece
// from the middle of a generated file. Less important items still fill the room
// left in earlier requests (first fit). At most `maxChunks` requests are made:
// what fits none of them (the least important) goes to `overCap`. Cut after
// packing, the requests kept were those with the most whole files, and a
// request of small files beside a piece went while the tail of a big new file
// was sent without its top.
std::vector<Chunk> packByRank(const std::vector<Item>& items, const std::vector<FileCost>& files,
                              std::int64_t capacity, std::size_t maxChunks, std::vector<ChunkPart>& overCap) {
  struct Ranked {
    int rank;
    bool piece;  // of a file too large for one request
    Item item;
  };
  std::vector<Ranked> ranked;
  for (const Item& item : items) {
    std::map<int, Item> byRank;
    for (const ChunkPart& p : item.parts) {
      Item& r = byRank[files[p.file].rank];
      r.parts.push_back(p);
      r.tokens += partTokens(files, p);
    }
    for (auto& [rank, r] : byRank) {
      const bool piece = isPiece(files, r);
      ranked.push_back({rank, piece, std::move(r)});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    auto key = [](const Ranked& r) {
      const ChunkPart& first = r.item.parts.front();
      return std::tuple(r.rank, r.piece, r.piece ? 0 : -r.item.tokens, r.piece ? first.file : 0,
                        r.piece ? first.firstHunk : 0);
    };
    return key(a) < key(b);
  });
  std::vector<Item> ordered;
  for (Ranked& r : ranked) ordered.push_back(std::move(r.item));
  return pack(std::move(ordered), capacity, /*sortBySize=*/false, &files, maxChunks, &overCap);
}

}  // namespace

ChunkPlan planChunks(const std::vector<std::string>& paths, const std::vector<FileCost>& files,
                     std::int64_t capacity, int maxRequests) {
  ChunkPlan plan;
  const std::size_t n = files.size();
  for (std::size_t f = 0; f < n; ++f) plan.diffTokens += partTokens(files, wholeFile(files, f));
  if (capacity > 0) plan.minimumRequests = (plan.diffTokens + capacity - 1) / capacity;

  // Related files: the same stem in one directory (Foo.h, Foo.cpp), and a test
  // with the first source of its stem anywhere.
  UnionFind pairs(n);
  std::map<std::pair<std::string, std::string>, std::size_t> byDirectoryStem;
  std::map<std::string, std::size_t> sourceByStem;
  for (std::size_t f = 0; f < n; ++f) {
    const std::string stem = stemOf(paths[f]);
    auto [it, fresh] = byDirectoryStem.try_emplace({std::string(directoryOf(paths[f])), stem}, f);
    if (!fresh) pairs.join(it->second, f);
    if (!looksLikeTest(paths[f])) sourceByStem.try_emplace(stem, f);
  }
  for (std::size_t f = 0; f < n; ++f)
    if (looksLikeTest(paths[f]))
      if (auto s = sourceByStem.find(stemOf(paths[f])); s != sourceByStem.end()) pairs.join(s->second, f);
  // Pair groups, then directories (of each group's first file), in diff order.
  std::map<std::size_t, std::vector<std::size_t>> pairGroups;
  for (std::size_t f = 0; f < n; ++f) pairGroups[pairs.find(f)].push_back(f);
  std::map<std::string_view, std::size_t> directoryIndex;
  std::vector<std::vector<std::vector<std::size_t>>> directories;
  for (auto& [first, members] : pairGroups) {
    auto [it, fresh] = directoryIndex.try_emplace(directoryOf(paths[first]), directories.size());
    if (fresh) directories.emplace_back();
    directories[it->second].push_back(std::move(members));
  }

  // Related groups whole where they fit, unless that costs requests: then
  // groups up to half a request, then files alone.
  std::vector<SkippedPart> tooLarge;
  std::vector<Chunk> best;
  std::int64_t bestThreshold = 0;
  for (std::int64_t threshold : {std::int64_t{0}, capacity / 2, capacity}) {
    std::vector<SkippedPart> skipped;
    std::vector<Chunk> chunks = pack(itemize(directories, files, capacity, threshold, skipped), capacity);
    if (threshold == 0 || chunks.size() <= best.size()) {
      best = std::move(chunks);
      tooLarge = std::move(skipped);
      bestThreshold = threshold;
    }
  }
  std::vector<ChunkPart> overCap;
  if (const auto cap = static_cast<std::size_t>(std::max(1, maxRequests)); best.size() > cap) {
    std::vector<SkippedPart> unused;  // the same parts as tooLarge
    best = packByRank(itemize(directories, files, capacity, bestThreshold, unused), files, capacity, cap, overCap);
  }
  // The fewest requests any plan needs for what can be sent: a line larger than a request never is.
  std::int64_t sendable = plan.diffTokens;
  for (const SkippedPart& s : tooLarge) sendable -= s.tokens;
  if (capacity > 0) plan.minimumRequests = (std::max<std::int64_t>(0, sendable) + capacity - 1) / capacity;
  plan.skipped = std::move(tooLarge);
  for (const ChunkPart& p : overCap) plan.skipped.push_back({p, SkippedPart::Why::RequestCap, partTokens(files, p)});
  plan.chunks = std::move(best);
  capRequests(plan, files, maxRequests);
  return plan;
}

void capRequests(ChunkPlan& plan, const std::vector<FileCost>& files, int maxRequests) {
  const auto cap = static_cast<std::size_t>(std::max(1, maxRequests));
  std::vector<Chunk>& chunks = plan.chunks;
  if (chunks.size() > cap) {
    // The requests that matter most are sent: those of the most important rank
    // (code, then configuration, ...); of those, the ones holding whole files,
    // the most of that rank first, before pieces of a file too large for one
    // request, which go from its top down (a rerun, with what was reviewed kept
    // per hunk, continues where this one stopped); then in diff order.
    auto weightOf = [&](const Chunk& c) {
      std::array<std::int64_t, 5> tokensByRank{}, wholeByRank{};
      for (const ChunkPart& p : c.parts) {
        const int rank = std::clamp(files[p.file].rank, 0, 4);
        tokensByRank[rank] += partTokens(files, p);
        if (isWholeFile(files, p)) wholeByRank[rank] += partTokens(files, p);
      }
      const int lowest = static_cast<int>(std::find_if(tokensByRank.begin(), tokensByRank.end(),
                                                       [](std::int64_t t) { return t > 0; }) - tokensByRank.begin());
      const std::int64_t whole = lowest < 5 ? wholeByRank[static_cast<std::size_t>(lowest)] : 0;
      const ChunkPart& front = c.parts.front();
      // Ascending: rank, whole files' tokens (more first), a pieces-only request's place, all tokens by rank.
      return std::tuple(lowest, -whole, whole == 0 ? front.file : 0, whole == 0 ? front.firstHunk : 0,
                        std::array<std::int64_t, 5>{-tokensByRank[0], -tokensByRank[1], -tokensByRank[2],
                                                    -tokensByRank[3], -tokensByRank[4]});
    };
    std::stable_sort(chunks.begin(), chunks.end(),
                     [&](const Chunk& a, const Chunk& b) { return weightOf(a) < weightOf(b); });
    // By weight, but a request holding a piece of a file is kept only once the
    // request holding the piece above it is: the tail of a big new file was sent
    // without its top, which rode in a request of less weight.
    std::vector<std::set<std::size_t>> waitsFor(chunks.size());  // chunk -> chunks holding a piece just above one of its own
    std::vector<std::vector<std::size_t>> waitedBy(chunks.size());
    std::map<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>> piecesByFile;  // file -> (firstHunk, chunk)
    for (std::size_t c = 0; c < chunks.size(); ++c)
      for (const ChunkPart& p : chunks[c].parts)
        if (!isWholeFile(files, p)) piecesByFile[p.file].emplace_back(p.firstHunk, c);
    for (auto& [file, pieces] : piecesByFile) {
      std::sort(pieces.begin(), pieces.end());
      for (std::size_t i = 1; i < pieces.size(); ++i)
        if (pieces[i].second != pieces[i - 1].second && waitsFor[pieces[i].second].insert(pieces[i - 1].second).second)
          waitedBy[pieces[i - 1].second].push_back(pieces[i].second);
    }
    std::vector<bool> kept(chunks.size(), false);
    std::set<std::size_t> ready;  // by weight: the lowest index first
    for (std::size_t c = 0; c < chunks.size(); ++c)
      if (waitsFor[c].empty()) ready.insert(c);
    for (std::size_t n = 0; n < cap; ++n) {
      std::size_t next = 0;
      if (!ready.empty()) {
        next = *ready.begin();
      } else {  // pieces crossed between requests (none waits for nothing): by weight
        while (kept[next]) ++next;
      }
      ready.erase(next);
      kept[next] = true;
      for (std::size_t d : waitedBy[next])
        if (waitsFor[d].erase(next) && waitsFor[d].empty() && !kept[d]) ready.insert(d);
    }
    std::vector<Chunk> sent;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      if (kept[c]) {
        sent.push_back(std::move(chunks[c]));
        continue;
      }
      for (const ChunkPart& p : chunks[c].parts)
        plan.skipped.push_back({p, SkippedPart::Why::RequestCap, partTokens(files, p)});
    }
    chunks = std::move(sent);
  }
  auto key = [](const Chunk& c) { return std::tuple(c.parts.front().file, c.parts.front().firstHunk); };
  std::sort(chunks.begin(), chunks.end(), [&](const Chunk& a, const Chunk& b) { return key(a) < key(b); });
  sortInDiffOrder(plan.skipped);
}

void sortInDiffOrder(std::vector<SkippedPart>& skipped) {
  std::sort(skipped.begin(), skipped.end(), [](const SkippedPart& a, const SkippedPart& b) {
    return std::tuple(a.part.file, a.part.firstHunk) < std::tuple(b.part.file, b.part.firstHunk);
  });
}

int fileRank(const diff::FileDiff& file) {
  if (file.hunks.empty() || file.binary) return 4;
  if (file.status == diff::FileStatus::Deleted) return 3;
  const std::string& path = file.path();
  const std::string name = lower(std::string_view(path).substr(path.rfind('/') + 1));  // npos + 1: the whole path
  const std::size_t dot = name.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
  // Message catalogs (gettext's .po and .pot, XLIFF, Fluent) are translations for people: prose, not
  // code (git's po/*.po took 21% of a capped review of v2.40..v2.48 while 2,244 files went unreviewed).
  static const std::set<std::string> prose = {"md", "markdown", "rst", "txt", "adoc", "asciidoc", "org", "rtf", "tex",
                                              "po", "pot", "xlf", "xliff", "ftl"};
  static const std::set<std::string> prosePrefixes = {"license", "licence", "copying", "authors", "contributors",
                                                      "changelog", "changes", "history", "news", "notice", "readme"};
  if (name == "cmakelists.txt" || (name.rfind("requirements", 0) == 0 && ext == "txt")) return 1;  // build files
  // Signatures and certificates are data no one reviews line by line: jq's
  // release range sent 34 KB of `sig/*.asc` in a capped review that left
  // src/*.c unreviewed. Not `.pem` or `.key`: a private key committed is a
  // finding to make first.
  static const std::set<std::string> signatures = {"asc", "sig", "gpg", "pgp", "crt", "cer", "der", "p7s", "pub"};
  if (prose.count(ext) || signatures.count(ext)) return 2;
  if (dot == std::string::npos)  // LICENSE, AUTHORS, HISTORY; not readme_parser.py
    for (const auto& p : prosePrefixes)
      if (name.rfind(p, 0) == 0) return 2;
  // Style sheets rank with configuration: what they change is how a page looks.
  static const std::set<std::string> config = {"json", "yml",  "yaml", "toml", "ini",  "cfg",  "conf",         "xml",
                                               "properties",   "lock", "csv",  "svg",  "css",  "scss",         "sass",
                                               "less", "editorconfig", "gitignore", "gitattributes"};
  if (config.count(ext) || dot == 0) return 1;  // and dotfiles: ".coveragerc" and the like
  return 0;
}

std::vector<diff::Hunk> splitHunk(const diff::Hunk& hunk, std::size_t pieces) {
  pieces = std::clamp<std::size_t>(pieces, 1, hunk.lines.size());
  const std::size_t per = (hunk.lines.size() + pieces - 1) / pieces;
  std::vector<std::size_t> starts;
  for (std::size_t begin = per; begin < hunk.lines.size(); begin += per) starts.push_back(begin);
  return splitHunkBefore(hunk, starts);
}

std::vector<diff::Hunk> splitHunkBefore(const diff::Hunk& hunk, const std::vector<std::size_t>& starts) {
  std::vector<diff::Hunk> out;
  int oldNext = hunk.oldStart, newNext = hunk.newStart;
  for (std::size_t i = 0; i <= starts.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : starts[i - 1];
    const std::size_t end = i == starts.size() ? hunk.lines.size() : starts[i];
    if (begin >= end) continue;
    diff::Hunk piece;
    piece.section = hunk.section;
    piece.lines.assign(hunk.lines.begin() + static_cast<std::ptrdiff_t>(begin),
                       hunk.lines.begin() + static_cast<std::ptrdiff_t>(end));
    piece.oldStart = oldNext;
    piece.newStart = newNext;
    bool changes = false;
    for (const diff::Line& l : piece.lines) {
      piece.oldCount += l.kind != diff::LineKind::Added;
      piece.newCount += l.kind != diff::LineKind::Removed;
      changes |= l.kind != diff::LineKind::Context;
    }
    oldNext += piece.oldCount;
    newNext += piece.newCount;
    if (changes) out.push_back(std::move(piece));
  }
  return out;
}

diff::Diff chunkDiff(const diff::Diff& diff, const std::vector<ChunkPart>& parts) {
  diff::Diff out = diff.withoutFiles();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ChunkPart& p = parts[i];
    const diff::FileDiff& from = diff.files[p.file];
    if (i == 0 || parts[i - 1].file != p.file) {  // a file's parts are adjacent (diff order)
      diff::FileDiff file = from;
      file.hunks.clear();
      out.files.push_back(std::move(file));
    }
    for (std::size_t h = p.firstHunk; h < p.endHunk; ++h) out.files.back().hunks.push_back(from.hunks[h]);
  }
  return out;
}

}  // namespace revline::session
