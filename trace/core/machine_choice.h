// Which machine a trace is shown and simulated on, decided here once for the CLI (whatif, diff,
// links, roofline, report), the report builder and the GUI, so one trace gets one machine and one
// reason everywhere. In order: the machine asked for (a preset name or topology file; 'trace': the
// trace's own); else the trace's own topology (for a simulation only with enough GPUs); else, to
// show a trace with link counters, the machine inferred from what it measured; else the preset
// with the traced GPU model (Device::name, exactly) and enough GPUs, measured before datasheet,
// then fewest GPUs; else, for a simulation, the first preset with enough GPUs in that order, and
// otherwise the machine inferred from the trace (trace_machine.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/core/topology_presets.h"
#include "trace/core/trace_machine.h"

namespace parascope {

struct MachineRequest {
  std::string name;       // preset name or topology file; "trace": the trace's own; "" or "auto": choose
  int32_t gpus = 0;       // GPUs the machine needs (a what-if graph's); 0: the trace's physical GPUs
  bool simulate = false;  // it runs a simulation: GPU specs needed, so a preset rather than an inferred machine
};

struct MachineChoice {
  enum class Source : uint8_t { kGiven, kTrace, kPreset, kOtherPreset, kInferred };
  Source source = Source::kInferred;
  Topology topology;   // the machine (kTrace: the trace's own; kInferred: empty, trace_machine infers it)
  std::string preset;  // the preset's name when the machine is one of `presets`
  std::string reason;  // one line: why this machine ("preset matching NVIDIA H200")
};

// No machine for the request (the CLI: a usage error, exit 2).
struct MachineError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Throws MachineError when `name` is neither a preset nor a file, when 'trace' is asked of a trace
// without a topology (to simulate: without enough GPUs), or when a simulation finds no preset with
// enough GPUs; InputError when a named topology file is bad.
MachineChoice choose_machine(const Trace& trace, const std::vector<Preset>& presets, const MachineRequest& request = {});

// The chosen machine with the trace's devices placed on it (trace_machine()).
TraceMachine trace_machine(const Trace& trace, const MachineChoice& choice);

}  // namespace parascope
