// Where tests find their data: the project's own fixtures and samples, and the optional shared/
// folder beside the project (real Nsight exports etc.), which users' clones do not have.
#pragma once

#include <filesystem>
#include <string>
#include <unistd.h>

namespace parascope::test {

inline std::string source_path(const std::string& rel) { return std::string(PARASCOPE_SOURCE_DIR) + "/" + rel; }
inline std::string sample_path(const std::string& rel) { return source_path("resources/samples/" + rel); }
inline std::string data_path(const std::string& rel) { return source_path("tests/data/" + rel); }
inline std::string shared_path(const std::string& rel) { return std::string(PARASCOPE_SHARED_DIR) + "/" + rel; }
inline bool shared_available() { return std::filesystem::exists(shared_path("data")); }
inline std::string binary_path(const std::string& rel) { return std::string(PARASCOPE_BINARY_DIR) + "/" + rel; }

// A fresh temporary directory per call, removed by the caller (or left for inspection on failure).
inline std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("parascope-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace parascope::test
