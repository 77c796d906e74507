#include "sim/whatif/whatif_tables.h"

#include <cmath>
#include <cstdio>

namespace parascope::whatif {

namespace {

DataCell ns_cell(double ns) { return duration_cell(static_cast<TimeNs>(std::llround(ns))); }

DataCell diff_cell(double a, double b) {
  const TimeNs d = std::llround(b) - std::llround(a);  // of the shown (rounded) values
  return {(d > 0 ? "+" : d < 0 ? "-" : "") + format_duration(std::llabs(d)), static_cast<double>(d)};
}

DataCell ratio_cell(double a, double b) {
  if (!(a > 0)) return text_cell("");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", (b - a) / a * 100);
  return {buf, (b - a) / a};
}

}  // namespace

DataTable whatif_comparison_table(const WhatIfSummary& s, const std::string& label) {
  DataTable t;
  t.id = "whatif_comparison";
  t.title = label.empty() ? "Replay against the measurement" : "Prediction (" + label + ") against the measurement";
  t.note = "step = mean over steps of the slowest rank's step range; GPU step = first to last GPU operation of the step; "
           "exposed = communication not under compute over the whole trace (max over ranks); topology " + s.topology;
  t.column("quantity").column("measured", "ns", true).column("predicted", "ns", true).column("diff", "ns", true)
      .column("diff %", "fraction", true);
  auto row = [&](std::string name, double m, double p) {
    t.add_row({text_cell(std::move(name)), ns_cell(m), ns_cell(p), diff_cell(m, p), ratio_cell(m, p)});
  };
  row("step time", s.measured_step_ns, s.step_ns);
  row("GPU step time", s.measured_gpu_step_ns, s.gpu_step_ns);
  row("exposed communication", static_cast<double>(s.measured_exposed_ns), static_cast<double>(s.exposed_ns));
  for (const RankCommunication& p : s.communication) {
    const RankCommunication* m = nullptr;
    for (const RankCommunication& x : s.measured_communication)
      if (x.rank == p.rank) m = &x;
    const std::string who = "rank " + std::to_string(p.rank);
    row(who + " communication", m ? static_cast<double>(m->communication_ns) : 0, static_cast<double>(p.communication_ns));
    row(who + " exposed communication", m ? static_cast<double>(m->exposed_ns) : 0, static_cast<double>(p.exposed_ns));
  }
  return t;
}

DataTable whatif_links_table(const WhatIfSummary& s) {
  DataTable t;
  t.id = "whatif_links";
  t.title = "Predicted link utilization";
  t.note = "bytes the interconnect model moved per link direction over the replayed span; measured link counters, where "
           "the trace has them, are in the Links view (`parascope-cli links`)";
  t.column("link").column("capacity", "bytes/s", true).column("bytes", "bytes", true).column("mean util", "fraction", true)
      .column("peak util", "fraction", true);
  for (const LinkUse& l : s.links)
    t.add_row({text_cell(l.name), rate_cell(l.capacity_bytes_per_s), bytes_cell(l.bytes), percent_cell(l.mean_utilization),
               percent_cell(l.peak_utilization)});
  return t;
}

DataTable sweep_table(const std::vector<SweepRow>& rows, double reference_step_ns) {
  DataTable t;
  t.id = "whatif_sweep";
  t.title = "What-if sweep";
  t.note = "one row per variant, fastest first; failed variants last";
  if (!rows.empty())
    for (const auto& [k, v] : rows.front().point) t.column(k);
  t.column("step", "ns", true).column("GPU step", "ns", true).column("exposed", "ns", true);
  if (reference_step_ns > 0) t.column("vs replay", "fraction", true);
  t.column("note");
  for (const SweepRow& r : rows) {
    std::vector<DataCell> cells;
    for (const auto& [k, v] : r.point) cells.push_back(text_cell(v));
    std::string note;
    if (r.error.empty()) {
      cells.push_back(ns_cell(r.step_ns));
      cells.push_back(ns_cell(r.gpu_step_ns));
      cells.push_back(duration_cell(r.exposed_ns));
      if (reference_step_ns > 0) cells.push_back(ratio_cell(reference_step_ns, r.step_ns));
      for (const auto& c : r.changes) note += (note.empty() ? "" : "; ") + c;
    } else {
      for (int i = 0; i < (reference_step_ns > 0 ? 4 : 3); ++i) cells.push_back(text_cell(""));
      note = "error: " + r.error;
    }
    cells.push_back(text_cell(note));
    t.add_row(std::move(cells));
  }
  return t;
}

}  // namespace parascope::whatif
