// Dismissed finding ids of one repository, in `<git dir>/revline/dismissed.json`.
// Several servers may share the file (two editors, two workspace folders of one
// repository): every change re-reads it under an exclusive lock, applies only
// its own addition or removal, and writes it back, so none loses another's
// entries; `refresh()` picks up what the others wrote. The file holds each id
// keyed with the user's secret (config/state_key.h): a dismissed.json planted
// by whoever handed the repository over hides nothing.
#pragma once
#include <filesystem>
#include <set>
#include <string>

namespace revline::lsp {

class DismissedFindings {
 public:
  explicit DismissedFindings(std::filesystem::path root);
  bool contains(const std::string& id) const { return ids_.count(keyed(id)) != 0; }
  // False when the change could not be kept in the file (a read-only repository,
  // `.git/revline` not a directory): it then holds for this session only.
  bool add(const std::string& id);
  bool remove(const std::string& id);
  const std::filesystem::path& file() const { return file_; }
  // Re-reads the file when it changed on disk since this object last saw it.
  void refresh();

 private:
  static std::string keyed(const std::string& id);  // what the file holds of `id`
  // Under the lock: reads the file, applies `change` (true: add), writes it.
  bool update(const std::string& id, bool add);
  void load();

  std::filesystem::path file_;
  std::set<std::string> ids_;  // keyed(id) of each dismissed id
  std::filesystem::file_time_type seen_{};
};

}  // namespace revline::lsp
