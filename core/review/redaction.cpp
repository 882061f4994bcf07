#include "core/review/redaction.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

namespace revline::review {

std::string redactSpans(std::string_view text, const std::vector<SecretSpan>& spans) {
  std::string out;
  std::size_t at = 0;
  for (const auto& s : spans) {
    if (s.offset < at || s.offset > text.size()) continue;
    out.append(text.substr(at, s.offset - at));
    const std::string marker = "[REDACTED:" + s.kind + "]";
    const std::size_t end = std::min(text.size(), s.offset + s.length);
    // One marker per line of the span, each line break kept; a line whose only
    // part in the span is its break gets none. A line the span takes from its
    // start keeps its indentation (a key's body in YAML stays in its block).
    for (std::size_t from = s.offset; from < end;) {
      const std::size_t lineEnd = std::min(end, text.find('\n', from));
      if (from == 0 || text[from - 1] == '\n')
        while (from < lineEnd && (text[from] == ' ' || text[from] == '\t')) out += text[from++];
      if (lineEnd > from) out += marker;
      if (lineEnd < end) out += '\n';
      from = lineEnd + 1;
    }
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

namespace {

struct Replacement {
  diff::Line* line;
  std::string text;
};

// A line holding a run of 32 or more base64 characters with capitals, small
// letters and digits mixed (a key's body, an encoded blob): never a definition's
// header, and a part of a secret the finder cannot tell on its own. A long
// snake_case name (def test_should_reject_expired_tokens_after_a_day) is none.
bool encodedBlob(std::string_view text) {
  auto blobChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_';
  };
  for (std::size_t i = 0; i < text.size();) {
    std::size_t end = i;
    bool upper = false, lower = false, digit = false;
    for (; end < text.size() && blobChar(text[end]); ++end) {
      const auto c = static_cast<unsigned char>(text[end]);
      upper |= std::isupper(c) != 0;
      lower |= std::islower(c) != 0;
      digit |= std::isdigit(c) != 0;
    }
    if (end - i >= 32 && upper && lower && digit) return true;
    i = end == i ? i + 1 : end;
  }
  return false;
}

}  // namespace

diff::Diff redactDiff(const diff::Diff& diff, const SecretFinder& finder) {
  diff::Diff out = diff;
  std::vector<Replacement> replacements;
  // The text after a hunk's "@@ ... @@" is a line of the file too (git's nearest
  // line above the hunk that starts with a letter): a secret there, or a line of
  // the same secret as the hunk's (a key's body), never goes out with it.
  std::map<const diff::Hunk*, std::string> sections;
  for (diff::FileDiff& file : out.files) {
    const std::string path = file.path();
    for (diff::Hunk& hunk : file.hunks) {
      // The hunk's lines as one text, '\n'-joined, remembering where each begins.
      std::string joined;
      std::vector<std::size_t> starts;
      for (const diff::Line& line : hunk.lines) {
        starts.push_back(joined.size());
        joined += line.text;
        joined += '\n';
      }
      const std::vector<SecretSpan> spans = finder(joined, path);
      if (!hunk.section.empty()) {
        const std::vector<SecretSpan> inSection = finder(std::string(hunk.section), path);
        if (!inSection.empty()) sections[&hunk] = redactSpans(hunk.section, inSection);
        else if (!spans.empty() || encodedBlob(hunk.section)) sections[&hunk] = "";
      }
      if (spans.empty()) continue;
      for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
        const std::size_t begin = starts[i], end = begin + hunk.lines[i].text.size();
        // The parts of every span that fall on this line, relative to it.
        std::vector<SecretSpan> local;
        for (const auto& s : spans) {
          const std::size_t from = std::max(s.offset, begin), to = std::min(s.offset + s.length, end);
          if (from < to) local.push_back({from - begin, to - from, s.kind});
        }
        if (!local.empty()) replacements.push_back({&hunk.lines[i], redactSpans(hunk.lines[i].text, local)});
      }
    }
  }
  if (replacements.empty() && sections.empty()) return out;
  // Line texts are views into the Diff's source: the new texts get a source of
  // their own, without the raw diff (it still holds the secrets). Other views
  // (sections) are re-pointed into a copy of what they showed.
  std::size_t size = 0;
  for (const auto& r : replacements) size += r.text.size();
  for (const auto& [hunk, text] : sections) size += text.size();  // views into the buffer: it must never grow
  for (const auto& f : out.files) {
    for (const auto& h : f.hunks) {
      size += h.section.size();
      for (const auto& l : h.lines) size += l.text.size();
    }
  }
  auto buffer = std::make_shared<std::string>();
  buffer->reserve(size);
  auto keep = [&buffer](std::string_view v) -> std::string_view {
    const std::size_t at = buffer->size();
    buffer->append(v);
    return std::string_view(buffer->data() + at, v.size());
  };
  std::size_t next = 0;
  for (auto& f : out.files) {
    for (auto& h : f.hunks) {
      const auto redacted = sections.find(&h);
      h.section = keep(redacted != sections.end() ? std::string_view(redacted->second) : h.section);
      for (auto& l : h.lines) {
        if (next < replacements.size() && replacements[next].line == &l) {
          l.text = keep(replacements[next++].text);
        } else {
          l.text = keep(l.text);
        }
      }
    }
  }
  out.source = std::move(buffer);
  return out;
}

}  // namespace revline::review
