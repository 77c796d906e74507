// A grid of what-if variants (`--sweep k=v1,v2 ...`, one axis per knob) run in parallel on a
// shared graph and communication cache, each variant an independent run_whatif, results sorted by
// predicted step time. The CLI and the benchmark run sweeps through here. Results do not depend
// on the number of threads: each variant is deterministic and the cache only saves work.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/whatif/what_if.h"

namespace parascope::whatif {

// One variant: (knob, value) in the order of the specs.
using KnobPoint = std::vector<std::pair<std::string, sim::KnobValue>>;

// Every combination of the specs' values, the first spec varying slowest. Throws sim::KnobError for
// unknown knobs or bad values.
std::vector<KnobPoint> sweep_grid(const std::vector<std::string>& specs);

// A point's value as the registry writes it ("1MiB", "side").
std::string value_text(const std::string& knob, const sim::KnobValue& value);

struct SweepRow {
  KnobPoint point;
  double step_ns = 0, gpu_step_ns = 0;
  TimeNs exposed_ns = 0;
  std::vector<std::string> changes;
  std::string error;  // the variant failed (e.g. a knob value the machine cannot run): no numbers
};

// `base.knobs` apply to every variant (the point's win). `jobs` threads (>= 1). `progress`
// (may be empty) is called under a lock after each variant. Rows: failures last, others by step_ns.
// When base.cancel is set, variants not yet started are skipped and those running stop: their rows
// carry the error "cancelled"; progress is not called for skipped ones.
std::vector<SweepRow> run_sweep(const WhatIfInput& base, const std::vector<KnobPoint>& grid, size_t jobs,
                                const std::function<void(size_t done, size_t total)>& progress = {});

}  // namespace parascope::whatif
