#include "core/contract/reply_text.h"

#include <array>

#include "core/contract/rules.h"
#include "core/support/text.h"

namespace revline::contract {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool startsWithNoCase(std::string_view text, std::size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k)
    if (lower(text[at + k]) != prefix[k]) return false;
  return true;
}

std::size_t findNoCase(std::string_view text, std::size_t from, std::string_view needle) {
  for (std::size_t at = from; at + needle.size() <= text.size(); ++at)
    if (startsWithNoCase(text, at, needle)) return at;
  return std::string_view::npos;
}

std::size_t skipSpace(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
  return at;
}

}  // namespace

PreparedReply prepareReply(std::string_view raw, std::size_t maxBytes) {
  PreparedReply out;
  if (raw.size() > maxBytes) {
    const std::size_t cut = utf8Boundary(raw, maxBytes);  // keep UTF-8 whole
    out.warnings.push_back("reply_too_long: the reply has " + std::to_string(raw.size()) +
                           " bytes; only the first " + std::to_string(cut) + " were read");
    raw = raw.substr(0, cut);
  }
  if (raw.substr(0, 3) == "\xEF\xBB\xBF") raw.remove_prefix(3);
  out.text = std::string(raw);
  const std::string_view text = out.text;

  if (isBlank(text)) {
    out.problem = makeProblem(ErrorKind::Empty, "", "the reply is empty; expected the review as one JSON object");
    return out;
  }
  // Leading reasoning blocks are dropped whole: drafts inside them are not answers.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kBlocks{
      {{"<think>", "</think>"}, {"<thinking>", "</thinking>"}}};
  std::size_t at = skipSpace(text, 0);
  bool dropped = true;
  while (dropped) {
    dropped = false;
    for (const auto& [open, close] : kBlocks) {
      if (!startsWithNoCase(text, at, open)) continue;
      const std::size_t end = findNoCase(text, at + open.size(), close);
      if (end == std::string_view::npos) {
        out.problem = makeProblem(ErrorKind::Truncated, "",
                                  "the reply ends inside its " + std::string(open) +
                                      " block, before any answer: it was cut off");
        return out;
      }
      at = skipSpace(text, end + close.size());
      dropped = true;
      break;
    }
  }
  // A reasoning block whose opening tag was in the prompt: the chat templates
  // of DeepSeek-R1 and Qwen3 thinking models end the prompt with "<think>\n",
  // so a server without a reasoning parser returns "thoughts\n</think>\n\nanswer".
  // What comes before a closing tag that nothing opened, on a line of its own
  // edge (it starts or ends its line), is those thoughts; not when the reply
  // starts as an answer does (an object, an array, a fence), nor a tag quoted
  // inside a value, which JSON keeps on the value's line.
  if (at == skipSpace(text, 0) && at < text.size() && text[at] != '{' && text[at] != '[' &&
      text.substr(at, 3) != "```") {
    const auto startsLine = [&](std::size_t k) {
      while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
      return k == 0 || text[k - 1] == '\n';
    };
    const auto endsLine = [&](std::size_t k) {
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r')) ++k;
      return k == text.size() || text[k] == '\n';
    };
    for (const auto& [open, close] : kBlocks) {
      std::size_t end = findNoCase(text, at, close);
      while (end != std::string_view::npos && !startsLine(end) && !endsLine(end + close.size()))
        end = findNoCase(text, end + 1, close);
      if (end == std::string_view::npos) continue;
      const std::size_t opened = findNoCase(text, at, open);
      if (opened != std::string_view::npos && opened < end) continue;
      // Thoughts come before an answer: a tag with no object or array after it
      // (a stray one at the end, one quoted in a last code block) ends nothing.
      if (text.find_first_of("{[", end + close.size()) == std::string_view::npos) continue;
      at = skipSpace(text, end + close.size());
      break;
    }
  }
  out.answerBegin = at;
  if (at >= text.size())
    out.problem = makeProblem(ErrorKind::Empty, "",
                              "the reply holds only a <think> block and no answer; expected the review as one JSON "
                              "object after it");
  return out;
}

bool readsLikeRefusal(std::string_view text) {
  std::string normal;
  normal.reserve(text.size());
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text.substr(k, 3) == "\xE2\x80\x99") {  // typographic apostrophe
      normal += '\'';
      k += 2;
    } else {
      normal += lower(text[k]);
    }
  }
  static constexpr std::array<std::string_view, 6> kPhrases{
      "i'm sorry", "i am sorry", "i can't", "i cannot", "i am unable", "i'm unable"};
  for (auto phrase : kPhrases)
    if (normal.find(phrase) != std::string::npos) return true;
  return false;
}

}  // namespace revline::contract
