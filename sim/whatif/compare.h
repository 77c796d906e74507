// One what-if comparison, the one the CLI's `whatif` (without --sweep), the reports and the GUI's
// What-if dock show: the measured trace's dependency graph replayed unchanged on the machine
// choose_machine picks for its GPUs (trace/core/machine_choice.h), the same graph with the knobs
// applied (the prediction), their difference, and the tables (whatif_tables.h) in one schema. The
// three call this, so one trace gets one machine, one reason and the same numbers in each.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/knobs.h"
#include "sim/whatif/what_if.h"
#include "trace/core/data_table.h"
#include "trace/core/machine_choice.h"

namespace parascope::whatif {

struct CompareSettings {
  sim::KnobSettings knobs;               // the what-if; none set: only the replay runs
  std::string machine;                   // preset name or topology file; "" or "auto": choose_machine
  const std::vector<Preset>* presets = nullptr;  // the machines to choose from (may be null: none)
  std::shared_ptr<const DepGraph> graph; // the trace's graph when already built; else built with step_regex
  std::string step_regex;
  bool want_trace = false;               // the predicted Trace (of the replay when no knob is set)
  size_t top = 10;                       // rows of the per-kernel difference
  std::shared_ptr<CommCache> cache;      // shared across comparisons of one trace (made when null)
  const std::atomic<bool>* cancel = nullptr;            // run_whatif's: throws Cancelled
  std::function<void(const std::string&)> progress;     // "what-if: replay" (may be empty)
};

struct WhatIfTables {
  DataTable comparison;  // step, GPU step, exposed communication, per rank: measured, predicted, replay
  DataTable steps;       // per step and rank
  DataTable links;       // per link: predicted and replayed bytes and utilization
  DataTable by_kernel;   // per kernel name: replay against prediction, largest change first
};

struct Comparison {
  MachineChoice machine;
  std::shared_ptr<const DepGraph> graph;
  WhatIfOutput replay;
  std::optional<WhatIfOutput> prediction;  // empty when no knob is set
  WhatIfDiff diff;                         // prediction - replay (zero without a prediction)
  WhatIfTables tables;
  std::string label;                       // "channels=4 comm_stream=side"; "" for the replay
  const WhatIfOutput& shown() const { return prediction ? *prediction : replay; }
};

// The machine a what-if of `graph` runs on: choose_machine for a simulation on its GPUs.
// std::invalid_argument when there is none (an unknown name, no preset with enough GPUs).
MachineChoice whatif_machine(const Trace& trace, const DepGraph& graph, const std::vector<Preset>* presets,
                             const std::string& name);

// Throws what run_whatif and whatif_machine throw.
Comparison compare(const Trace& trace, const CompareSettings& settings);

// One line for a status bar, every figure per step as the step time: "channels=4 on h200x2: step
// 5.034 ms (measured 3.879 ms, +29.8 %), exposed communication 1.771 ms (measured 611.0 us), per step".
std::string comparison_headline(const Comparison& c);

// What the knobs changed, for the reports' "Changes" line: the transforms' lines (the schedule, the
// machine); else, when the prediction differs from the replay, that the knobs re-timed the
// operations on the same schedule; else that they changed nothing. The replay alone: "none (replay)".
std::string comparison_changes(const Comparison& c);

}  // namespace parascope::whatif
