// A fresh directory for a test's files, removed with its contents when the ScratchDir goes
// (a fixture member: after each test). Named "<tag>_XXXXXX" by mkdtemp under the system's
// temp folder, so neither the tests of one process nor ctest's parallel processes share
// one, and a crashed run's leftovers never meet the next run.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace amp::test {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "amp_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (tag + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // False when the directory could not be made (its path is then empty).
  bool ok() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }
  // path() / name, as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace amp::test
