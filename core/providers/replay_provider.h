// The replay provider: serves recorded model turns from a cassette, in order,
// one per model call (../shared/design/cli.md "Replay cassettes"). Used by the
// tests and for reproducing a review offline.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/review/provider.h"

namespace revline::providers {

class ReplayProvider : public review::Provider {
 public:
  // Throws review::ProviderError(Kind::Config) naming the file and the bad field.
  static ReplayProvider fromFile(const std::filesystem::path& cassette);
  static ReplayProvider fromJson(const json& cassette, const std::string& origin);

  std::string name() const override { return "replay"; }
  std::string model() const override { return "cassette"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override;

  // Interactions not served yet (tests fail when any are left).
  std::size_t remaining() const { return interactions_.size() - next_; }
  // Every request received, in order (tests assert what would have gone over the wire).
  const std::vector<review::ModelRequest>& requests() const { return requests_; }

 private:
  std::string origin_;
  std::vector<review::ModelResponse> interactions_;
  std::size_t next_ = 0;
  std::vector<review::ModelRequest> requests_;
};

}  // namespace revline::providers
