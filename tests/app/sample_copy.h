// A private copy of the bundled sample for GUI tests: the window writes bookmarks, notes and the
// track tree's state beside the trace it opened, and tests must never write into the source tree.
// The copy (and anything written beside it) is removed when the object goes out of scope.
#pragma once

#include <QString>
#include <filesystem>
#include <string>

#include "test_paths.h"

namespace parascope::test {

class SampleCopy {
 public:
  // Copies resources/samples/allreduce_matmul_2xh200 into a fresh temporary directory.
  explicit SampleCopy(const std::string& name) : root_(temp_dir(name)), dir_(root_ / "allreduce_matmul_2xh200") {
    std::filesystem::create_directories(dir_);
    for (const char* f : {"rank0.json", "rank1.json"})
      std::filesystem::copy_file(sample_path(std::string("allreduce_matmul_2xh200/") + f), dir_ / f);
  }
  ~SampleCopy() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  SampleCopy(const SampleCopy&) = delete;
  SampleCopy& operator=(const SampleCopy&) = delete;
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path root_, dir_;
};

inline QString qpath(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

}  // namespace parascope::test
