// Fuzzes the config loader: any JSON value applied with config::applyJson
// either yields a Config or throws config::ConfigError (never another
// exception), and a Config it yields can be used to select paths.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config/config.h"

using namespace revline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;
  config::Config c;
  try {
    c = config::applyJson(config::Config{}, value, "fuzz");
  } catch (const config::ConfigError&) {
    return 0;
  }
  // Applied twice (the LSP applies editor settings on top of the file).
  try {
    c = config::applyJson(c, value, "fuzz again");
  } catch (const config::ConfigError&) {
    __builtin_trap();  // what was accepted once is accepted again
  }
  for (const char* path : {"src/main.cpp", "a", ".revline.json", "dir/sub/file.test.js", "", "ü/ä.txt"})
    (void)config::pathSelected(c, path);
  return 0;
}
