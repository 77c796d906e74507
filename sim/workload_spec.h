// The workload grammar of `simulate --workload PATH|SPEC`. SPEC is one or more steps separated by
// ';', each `OP[:knob=value,...]`, e.g. `allreduce:algo=ring,bytes=1GiB,gpus=8` or
// `gemm:repeat=4;allreduce:bytes=16MiB,stream=1` (aliases: algo, chunk, sms, mech). PATH is a JSON
// file {"schema_version": 1, "steps": [{"op": "allreduce", "bytes": "1GiB", "stream": 1, ...}]}
// whose members are knob names. Values go through the knob registry, so ranges and suggestions are
// the same everywhere. Bad input: KnobError for a SPEC, InputError with the JSON path for a file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives.h"

namespace parascope::sim {

inline constexpr int kWorkloadSchemaVersion = 1;

std::vector<WorkloadStep> parse_workload_spec(std::string_view spec);
std::vector<WorkloadStep> load_workload_file(const std::string& path);
// A file when `text` names an existing file or ends in .json; a SPEC otherwise.
std::vector<WorkloadStep> parse_workload(const std::string& text);

}  // namespace parascope::sim
