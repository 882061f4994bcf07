// Check-then-act on a Java map that is not thread-safe: `containsKey` (or
// `get(k) == null`) followed by `put` is two steps, and on shared state another
// thread can run between them.
#include <map>
#include <optional>
#include <string>

#include "core/builtin/rule_sets.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

constexpr int kWindow = 5;  // lines between the check and the put, within one hunk

enum class MapKind { Unknown, PlainField, PlainLocal, ThreadSafe };

// The receiver of `.method(` at index `name`, without a leading `this.`.
std::string receiverOf(std::string_view line, const Tokens& t, std::size_t name) {
  if (name < 2) return {};
  const std::size_t first = operandStart(t, name - 2);
  if (first == npos) return {};
  std::string r(sourceOf(line, t, first, name - 2));
  if (r.starts_with("this.")) r.erase(0, 5);
  return r;
}

// Index of the check on this line (`m.containsKey(` or `m.get(...) == null`), or npos.
std::size_t findCheck(const Tokens& t) {
  if (const std::size_t k = findCall(t, "containsKey"); k != npos) return k;
  for (std::size_t k = findCall(t, "get"); k != npos; k = findCall(t, "get", k + 1)) {
    const std::size_t close = matchingClose(t, k + 1);
    if (close != npos && close + 2 < t.size() && t[close + 1].is("==") && t[close + 2].is("null")) return k;
  }
  return npos;
}

bool isKeyword(const Token& t) {
  for (std::string_view k : {"return", "throw", "else", "case", "yield", "new", "assert"}) if (t.is(k)) return true;
  return false;
}

// How `name` is declared and initialised, from the lines of this file that the diff shows.
MapKind declarationOf(const ScanFile& file, std::string_view name) {
  const auto dot = name.find_last_of('.');
  const std::string_view simple = dot == std::string_view::npos ? name : name.substr(dot + 1);
  bool plain = false, field = false, local = false, threadSafe = false;
  file.forEachKnownLine([&](const Tokens& t, std::string_view) {
    for (std::size_t k = 0; k + 1 < t.size(); ++k) {
      if (!(t[k].isIdent() && t[k].text == simple && (t[k + 1].is("=") || t[k + 1].is(";")))) continue;
      bool modifiers = false;
      for (const auto& tok : t) {
        if (tok.is("ConcurrentHashMap") || tok.is("ConcurrentMap") || tok.is("ConcurrentSkipListMap")) threadSafe = true;
        if (tok.is("HashMap") || tok.is("LinkedHashMap") || tok.is("TreeMap") || tok.is("WeakHashMap") ||
            tok.is("IdentityHashMap")) plain = true;
        if (tok.is("private") || tok.is("protected") || tok.is("public") || tok.is("static")) modifiers = true;
      }
      const bool declaration = k > 0 && (t[k - 1].is(">") || (t[k - 1].isIdent() && !isKeyword(t[k - 1])));
      const bool viaThis = k >= 2 && t[k - 1].is(".") && t[k - 2].is("this");
      if ((declaration && modifiers) || viaThis) field = true;
      else if (declaration) local = true;
    }
  });
  if (threadSafe) return MapKind::ThreadSafe;
  if (!plain) return MapKind::Unknown;
  if (field) return MapKind::PlainField;
  return local ? MapKind::PlainLocal : MapKind::Unknown;
}

// Singletons and container-managed beans are shared by every request thread.
bool looksShared(const ScanFile& file) {
  bool shared = false;
  file.forEachKnownLine([&](const Tokens&, std::string_view s) {
    for (std::string_view marker : {"@Service", "@Component", "@Singleton", "@RestController", "@Controller",
                                    "@Repository", "getInstance(", " INSTANCE"}) {
      if (s.find(marker) != std::string_view::npos) shared = true;
    }
  });
  return shared;
}

bool synchronizedNearby(const ScanHunk& hunk, std::size_t at) {
  for (std::size_t k = at >= 10 ? at - 10 : 0; k <= at; ++k) {
    for (const auto& tok : hunk.lines[k].tokens) if (tok.is("synchronized")) return true;
  }
  return false;
}

}  // namespace

void checkCheckThenAct(const ScanFile& file, Findings& out) {
  if (file.lang != Language::Java) return;
  // Both lookups scan the whole file: do each at most once per map / per file.
  std::map<std::string, MapKind> kinds;
  std::optional<bool> shared;
  for (const auto& hunk : file.hunks) {
    for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
      const ScanLine& check = hunk.lines[i];
      const std::string_view text = check.text();
      if (text.find(".containsKey(") == std::string_view::npos && text.find(".get(") == std::string_view::npos) continue;
      const std::size_t at = findCheck(check.tokens);
      if (at == npos) continue;
      const std::string map = receiverOf(text, check.tokens, at);
      if (map.empty()) continue;
      for (std::size_t j = i; j < hunk.lines.size() && j <= i + kWindow; ++j) {
        const ScanLine& act = hunk.lines[j];
        if (act.text().find(".put(") == std::string_view::npos) continue;
        bool same = false;
        for (std::size_t p = findCall(act.tokens, "put", j == i ? at : 0); p != npos; p = findCall(act.tokens, "put", p + 1)) {
          if (receiverOf(act.text(), act.tokens, p) == map) { same = true; break; }
        }
        if (!same) continue;
        if (!check.added() && !act.added()) break;
        if (synchronizedNearby(hunk, i)) break;
        // Only a map known to be a plain HashMap field is reported: its
        // declaration is often outside the diff, and guessing would flag
        // ConcurrentHashMaps and method-local maps.
        auto kind = kinds.find(map);
        if (kind == kinds.end()) kind = kinds.emplace(map, declarationOf(file, map)).first;
        if (kind->second != MapKind::PlainField) break;
        if (!shared) shared = looksShared(file);
        std::string explanation = "'" + map + "' is a field holding a map that is not thread-safe (a HashMap, "
                                  "LinkedHashMap or TreeMap), checked and then written in two separate steps";
        explanation += *shared ? ", and this class is a singleton/shared service used by every request thread. "
                              : "; when the object is shared between threads (a singleton or service) this races. ";
        explanation +=
            "Two threads can both pass the check and both put, losing one value or doing the work twice, and "
            "concurrent writes to such a map can corrupt it (lost entries, endless loops in get).";
        out.push_back(makeFinding(
            file, check.number(), act.number(),
            {Severity::Major, Category::Concurrency, RuleId::CheckThenAct,
             "Check-then-act on a non-concurrent map: " + map + " is checked then put without synchronization",
             explanation,
             "Make the map a ConcurrentHashMap and do the check and the write in one atomic call: "
             "map.computeIfAbsent(key, k -> load(k)) (or putIfAbsent); otherwise guard both calls with one lock."}));
        break;
      }
    }
  }
}

}  // namespace revline::builtin
