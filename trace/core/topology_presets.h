// The machine presets (resources/topologies/*.json) and how a name becomes a Topology. The one
// place that reads $PARASCOPE_RESOURCES (else the build's source tree): the CLI's --topology,
// --machine and --base, the GUI's machine lists and the reports list and load presets through
// here, so every tool offers the same machines. Needs no simulator: `links` and `roofline` list
// topologies with the trace library alone.
#pragma once

#include <string>
#include <vector>

#include "trace/core/topology.h"

namespace parascope {

// $PARASCOPE_RESOURCES when set, else the source tree's resources folder.
std::string resources_dir();
// resources_dir() + "/topologies".
std::string topology_preset_dir();

// The preset names of `dir` (file names without .json), sorted.
std::vector<std::string> preset_names(const std::string& dir = topology_preset_dir());

// `name_or_path`: a file, or the name of a preset `<dir>/<name>.json`. InputError when the file is
// bad (with the JSON path); std::invalid_argument listing the presets when the name is unknown.
Topology find_topology(const std::string& name_or_path, const std::string& dir = topology_preset_dir());

struct Preset {
  std::string name;  // file name without .json
  Topology topology;
};

// Every preset of `dir` that loads, by name; a file that does not load is left out and its error
// ("NAME: what") goes to `errors` (may be null), for the caller to show.
std::vector<Preset> load_presets(const std::string& dir = topology_preset_dir(), std::vector<std::string>* errors = nullptr);

}  // namespace parascope
