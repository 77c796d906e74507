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

// A private copy of any bundled input (a file or a directory under the source tree, e.g.
// "resources/samples/record_torch_nccl_2xh200"), removed with the object.
class InputCopy {
 public:
  InputCopy(const std::string& name, const std::string& source_rel) : root_(temp_dir(name)) {
    const std::filesystem::path from = source_path(source_rel);
    path_ = root_ / from.filename();
    std::filesystem::copy(from, path_, std::filesystem::copy_options::recursive);
  }
  ~InputCopy() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  InputCopy(const InputCopy&) = delete;
  InputCopy& operator=(const InputCopy&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path root_, path_;
};

inline QString qpath(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

}  // namespace parascope::test
