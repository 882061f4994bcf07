#include "lsp/protocol.h"

#include <cctype>

namespace revline::lsp {

std::string uriFromPath(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string pathFromUri(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) throw DecodeError("uri", "not a file:// URI: '" + uri + "'");
  std::string rest = uri.substr(scheme.size());
  // file://host/path: only the empty host and localhost are local.
  const std::size_t slash = rest.find('/');
  if (slash == std::string::npos) throw DecodeError("uri", "file URI without a path: '" + uri + "'");
  const std::string host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") throw DecodeError("uri", "not a local file URI: '" + uri + "'");
  rest = rest.substr(slash);
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

}  // namespace revline::lsp
