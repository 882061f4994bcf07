// Whole-file reads and crash-safe writes of revline's own files (caches,
// dismissals, cassettes, eval cases): trusted paths. Repository content goes
// through repo_file.h instead, which bounds size and refuses special files.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace revline {

// The file's bytes; nullopt when it cannot be opened or read.
std::optional<std::string> readWholeFile(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path` (named for this process
// and call, so concurrent writers never share one), then renames it over
// `path` (creating the parent directories): a crash never leaves half a file.
// False, with `path` untouched, when any step fails.
bool writeFileAtomically(const std::filesystem::path& path, const std::string& content);

}  // namespace revline
