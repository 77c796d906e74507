// build_report: which data a Parascope report shows — machine and trace metadata, timeline images
// of the whole trace and of chosen ranges, overlap charts and the overlap / exposed-communication
// tables, link utilization (chart, per-link table, the machine with its links coloured by load),
// the communication-aware roofline, kernel and collective statistics, and, with knob overrides,
// the what-if comparison (sim/whatif: measured vs replay vs predicted step time, exposed
// communication, per-link utilization, per-kernel changes, the predicted timeline). The trace's
// warnings are in the metadata section, its notes (how it was made) in a last section of their own
// when it has any. Every number
// comes from the analyses the CLI and the GUI use; this only picks and arranges them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_document.h"
#include "sim/knobs.h"
#include "trace/core/analysis/intervals.h"
#include "trace/core/topology_presets.h"
#include "trace/core/trace.h"

namespace parascope::report {

struct ReportOptions {
  std::vector<std::string> inputs;        // as the user named them (metadata)
  std::vector<Interval> ranges;           // extra timeline ranges, on the trace clock
  // The machine behind the trace (links, topology, roofline, what-if): a preset name or topology
  // file, 'trace' (its own, or inferred from it), or "" / "auto": choose_machine's (machine_choice.h).
  std::string machine;
  std::vector<Preset> presets;            // resources/topologies (the choice, datasheet roofline peaks)
  sim::KnobSettings whatif;               // the what-if's knobs; none: no what-if section
  std::string step_regex;                 // what-if steps when the trace has no ProfilerStep#N
  int figure_width = 1200;                // logical pixels
  size_t top = 15;                        // rows the PDF shows of long tables (HTML and CSV: all)
  std::function<void(const std::string&)> progress;  // "what-if: replay"...
};

// Throws sim::KnobError for bad knob values, MachineError (machine_choice.h) for an unknown machine or
// none with enough GPUs for the what-if, and std::invalid_argument when the what-if cannot run (a
// scale_gpus the trace does not divide); never for odd traces (sections say what they lack).
ReportDocument build_report(std::shared_ptr<const Trace> trace, const ReportOptions& options);

}  // namespace parascope::report
