// A keyed fingerprint (HMAC-SHA-256, OpenSSL's libcrypto) for names that must
// not be computable without a secret: revline's state kept in a repository's
// git directory, which whoever hands the repository over can write.
#pragma once
#include <string>
#include <string_view>

namespace revline {

// 32 lowercase hex digits: the first 128 bits of HMAC-SHA-256(key, data).
std::string keyedFingerprint(std::string_view key, std::string_view data);

// 64 lowercase hex digits: SHA-256(data), as a Git LFS pointer's oid names its content.
std::string sha256Hex(std::string_view data);

}  // namespace revline
