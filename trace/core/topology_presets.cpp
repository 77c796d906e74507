#include "trace/core/topology_presets.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "trace/core/topology_json.h"

#ifndef PARASCOPE_RESOURCE_DIR
#define PARASCOPE_RESOURCE_DIR "resources"
#endif

namespace parascope {

std::string resources_dir() {
  if (const char* env = std::getenv("PARASCOPE_RESOURCES")) return env;
  return PARASCOPE_RESOURCE_DIR;
}

std::string topology_preset_dir() { return resources_dir() + "/topologies"; }

std::vector<std::string> preset_names(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Topology find_topology(const std::string& name_or_path, const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return load_topology_file(name_or_path);
  const std::filesystem::path preset = std::filesystem::path(dir) / (name_or_path + ".json");
  if (std::filesystem::is_regular_file(preset, ec)) return load_topology_file(preset.string());
  std::string list;
  for (const auto& n : preset_names(dir)) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no topology file or preset named '" + name_or_path + "'" +
                              (list.empty() ? " (no presets found in " + dir + ")" : "; presets: " + list));
}

std::vector<Preset> load_presets(const std::string& dir, std::vector<std::string>* errors) {
  std::vector<Preset> out;
  for (const std::string& name : preset_names(dir)) {
    try {
      out.push_back({name, load_topology_file((std::filesystem::path(dir) / (name + ".json")).string())});
    } catch (const std::exception& e) {
      if (errors) errors->push_back(name + ": " + e.what());
    }
  }
  return out;
}

}  // namespace parascope
