#include "sim/whatif/compare.h"

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

}  // namespace parascope::whatif
