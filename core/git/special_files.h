// Files a repository can plant to make git never finish.
//
// Where git expects a file, a named pipe (FIFO) that nobody writes makes git
// wait forever, and a device (a symlink to /dev/zero) makes it read without
// end, allocating as it goes. A repository handed over as a directory (an
// archive, a shared folder, a container volume) can hold one anywhere git
// looks: its config or a file that config includes, HEAD, a ref, info/exclude,
// a .gitignore or .gitattributes in the work tree. The language server runs git
// on every save, so each save would hang for the whole git timeout.
//
// These checks run without git, because git is what would be stuck. Both find
// the repository from `from` (the directory git runs in) by walking up to its
// `.git`, and answer "" when nothing is wrong, else a message that names the
// file, what it is, and how to fix it.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace revline::git {

// "a named pipe (FIFO)", "a socket", "a character device", "a block device";
// "" for any other type.
std::string specialFileKind(std::filesystem::file_type type);

// The files git opens before anything else: the config and what it names as
// files (include.path, includeIf.*.path, core.excludesFile,
// core.attributesFile, followed through includes), HEAD and the branch it
// names, the index, commondir, packed-refs, shallow, info/exclude,
// info/attributes, info/grafts, objects/info/alternates. A dozen stat calls
// and one small read: cheap enough to precede every git call.
std::string specialFileBeforeGit(const std::filesystem::path& from);

// Also every ref, and the .gitignore and .gitattributes of each directory of
// the work tree (at most `maxEntries` entries are walked): for a git call that
// is taking long (process::Options::stallCheck), to tell whether it ever ends.
std::string specialFileGitWaitsOn(const std::filesystem::path& from, std::size_t maxEntries = 200000);

}  // namespace revline::git
