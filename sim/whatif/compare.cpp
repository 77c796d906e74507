#include "sim/whatif/compare.h"

#include <cmath>
#include <cstdio>

#include "sim/whatif/whatif_tables.h"

namespace parascope::whatif {

MachineChoice whatif_machine(const Trace& trace, const DepGraph& graph, const std::vector<Preset>* presets,
                             const std::string& name) {
  static const std::vector<Preset> none;
  return choose_machine(trace, presets ? *presets : none, {name, std::max(1, graph.gpu_count()), true});
}

Comparison compare(const Trace& trace, const CompareSettings& settings) {
  auto progress = [&](const std::string& what) {
    if (settings.progress) settings.progress(what);
  };
  Comparison c;
  c.label = settings.knobs.describe();
  c.graph = settings.graph;
  if (!c.graph) {
    progress("what-if: dependency graph");
    GraphOptions go;
    go.step_regex = settings.step_regex;
    c.graph = std::make_shared<const DepGraph>(build_dep_graph(trace, go));
  }
  c.machine = whatif_machine(trace, *c.graph, settings.presets, settings.machine);

  WhatIfInput base;
  base.measured = &trace;
  base.graph = c.graph.get();
  base.topology = c.machine.topology;
  base.cache = settings.cache ? settings.cache : std::make_shared<CommCache>();
  base.cancel = settings.cancel;
  const bool predict = !settings.knobs.empty();
  {
    progress("what-if: replay");
    WhatIfInput in = base;
    in.want_trace = settings.want_trace && !predict;
    c.replay = run_whatif(in);
  }
  if (predict) {
    progress("what-if: prediction");
    WhatIfInput in = base;
    in.knobs = settings.knobs;
    in.want_trace = settings.want_trace;
    c.prediction = run_whatif(in);
    c.diff = diff_runs(c.replay, *c.prediction, settings.top);
  }
  const WhatIfSummary& shown = c.shown().summary;
  c.tables.comparison = whatif_comparison_table(shown, c.label, &c.replay.summary);
  c.tables.steps = whatif_steps_table(shown, c.replay.summary);
  c.tables.links = whatif_links_table(shown, &c.replay.summary);
  c.tables.by_kernel = whatif_by_kernel_table(c.diff);
  return c;
}

namespace {

std::string duration_text(double ns) { return format_duration(static_cast<TimeNs>(std::llround(ns))); }

}  // namespace

std::string comparison_headline(const Comparison& c) {
  const WhatIfSummary& s = c.shown().summary;
  char change[32] = "";
  if (s.measured_step_ns > 0) std::snprintf(change, sizeof change, ", %+.1f %%", (s.step_ns / s.measured_step_ns - 1) * 100);
  return (c.label.empty() ? std::string("replay") : c.label) + " on " + s.topology + ": step " + duration_text(s.step_ns) +
         " (measured " + duration_text(s.measured_step_ns) + change + "), exposed communication " +
         duration_text(s.step_exposed_ns) + " (measured " + duration_text(s.measured_step_exposed_ns) + "), per step";
}

std::string comparison_changes(const Comparison& c) {
  if (!c.prediction) return "none (replay)";
  std::string out;
  for (const std::string& ch : c.prediction->summary.changes) out += (out.empty() ? "" : "; ") + ch;
  if (!out.empty()) return out;
  const WhatIfSummary& p = c.prediction->summary;
  const WhatIfSummary& r = c.replay.summary;
  const bool same = p.step_ns == r.step_ns && p.gpu_step_ns == r.gpu_step_ns && p.exposed_ns == r.exposed_ns &&
                    p.step_exposed_ns == r.step_exposed_ns && p.span_ns == r.span_ns;
  if (same) return "none (the knobs changed nothing in this trace)";
  return "the schedule is the trace's; " + c.label + " re-timed its operations (step " + duration_text(r.step_ns) + " -> " +
         duration_text(p.step_ns) + " per step against the unchanged replay)";
}

}  // namespace parascope::whatif
