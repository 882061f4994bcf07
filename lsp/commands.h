// The server's workspace/executeCommand names (advertised in initialize).
#pragma once

namespace revline::lsp {

constexpr const char* kReviewFile = "revline.reviewFile";
constexpr const char* kReviewWorkspace = "revline.reviewWorkspace";
constexpr const char* kClearDiagnostics = "revline.clearDiagnostics";
constexpr const char* kDismissFinding = "revline.dismissFinding";
constexpr const char* kUndismiss = "revline.undismiss";
constexpr const char* kShowDismissed = "revline.showDismissed";
constexpr const char* kCancelReviews = "revline.cancelReviews";

}  // namespace revline::lsp
