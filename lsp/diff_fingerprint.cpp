#include "lsp/diff_fingerprint.h"

#include "core/diff/render.h"
#include "core/support/hash.h"

namespace revline::lsp {

std::map<std::string, std::string> fileDiffFingerprints(const diff::Diff& change) {
  std::map<std::string, std::string> out;
  for (const auto& file : change.files) {
    // Each file on its own: its digest does not depend on the other files reviewed with it.
    const diff::Diff alone{change.source, {file}};
    out[diff::normalizePath(file.path())] = fingerprint128(diff::annotate(alone));
  }
  return out;
}

}  // namespace revline::lsp
