#include "core/support/keyed_hash.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <stdexcept>

namespace revline {

std::string keyedFingerprint(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), mac, &length) ||
      length < 16)
    throw std::runtime_error("HMAC-SHA-256 failed");  // only when libcrypto itself is broken
  std::string hex(32, '0');
  for (int i = 0; i < 16; ++i) std::snprintf(&hex[2 * i], 3, "%02x", mac[i]);
  return hex;
}

std::string sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) || length != 32)
    throw std::runtime_error("SHA-256 failed");  // only when libcrypto itself is broken
  std::string hex(64, '0');
  for (unsigned i = 0; i < 32; ++i) std::snprintf(&hex[2 * i], 3, "%02x", digest[i]);
  return hex;
}

}  // namespace revline
