// The user's own secret that names revline's state kept in repositories' git
// directories (the per-hunk and whole-review caches, dismissals). Whoever hands
// a repository over can write under its `.git`, but without this key can name
// no entry revline would read as a cached review (a hunk "reviewed" with no
// findings, a finding forged with a fix) nor a dismissal that hides a finding.
#pragma once
#include <filesystem>
#include <string>

namespace revline::config {

// 32 random bytes as hex, kept in `stateKeyPath()` (mode 0600), made on first
// use; read once per process. When it can be neither read nor made (no home,
// a read-only one), a random key of this process: its state is then of no use
// to a later run (the caches miss), never trusted from elsewhere.
const std::string& stateKey();

// False when the key is this process's alone (it could be neither read nor
// kept): what is named with it is of no use to a later run.
bool stateKeyKept();

// `<user config dir>/state-key`: beside config.json ($XDG_CONFIG_HOME/revline/).
std::filesystem::path stateKeyPath();

}  // namespace revline::config
