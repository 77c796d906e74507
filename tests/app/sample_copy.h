// A private copy of the bundled sample for GUI tests: the window writes bookmarks, notes and the
// track tree's state beside the trace it opened, and tests must never write into the source tree.
#pragma once

#include <QString>
#include <filesystem>
#include <string>

#include "test_paths.h"

namespace parascope::test {

// Copies resources/samples/allreduce_matmul_2xh200 to a fresh temporary directory and returns it.
inline std::filesystem::path sample_copy(const std::string& name) {
  const auto dir = temp_dir(name) / "allreduce_matmul_2xh200";
  std::filesystem::create_directories(dir);
  for (const char* f : {"rank0.json", "rank1.json"})
    std::filesystem::copy_file(sample_path(std::string("allreduce_matmul_2xh200/") + f), dir / f);
  return dir;
}

inline QString qpath(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

}  // namespace parascope::test
