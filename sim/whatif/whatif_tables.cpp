#include "sim/whatif/whatif_tables.h"

#include <cmath>
#include <cstdio>
#include <optional>

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

DataTable whatif_comparison_table(const WhatIfSummary& s, const std::string& label, const WhatIfSummary* replay) {
  DataTable t;
  t.id = "whatif_comparison";
  t.title = label.empty() ? "Replay against the measurement" : "Prediction (" + label + ") against the measurement";
  t.note = "per step: mean over steps of the slowest (most exposed) rank; step = its step range, GPU step = first to last "
           "GPU operation of the step, exposed = communication not under compute; whole trace: summed over the trace, "
           "warm-up and set-up included (max over ranks); topology " + s.topology;
  t.column("quantity").column("measured", "ns", true).column("predicted", "ns", true).column("diff", "ns", true)
      .column("diff %", "fraction", true).column("replay", "ns", true).column("vs replay", "fraction", true);
  auto row = [&](std::string name, double m, double p, std::optional<double> r) {
    t.add_row({text_cell(std::move(name)), ns_cell(m), ns_cell(p), diff_cell(m, p), ratio_cell(m, p),
               r ? ns_cell(*r) : text_cell(""), r ? ratio_cell(*r, p) : text_cell("")});
  };
  auto in_replay = [&](auto pick) -> std::optional<double> {
    if (!replay) return std::nullopt;
    return pick(*replay);
  };
  auto comm_of = [](const std::vector<RankCommunication>& v, int32_t rank) -> const RankCommunication* {
    for (const RankCommunication& x : v)
      if (x.rank == rank) return &x;
    return nullptr;
  };
  row("step time (per step)", s.measured_step_ns, s.step_ns, in_replay([](const WhatIfSummary& r) { return r.step_ns; }));
  row("GPU step time (per step)", s.measured_gpu_step_ns, s.gpu_step_ns,
      in_replay([](const WhatIfSummary& r) { return r.gpu_step_ns; }));
  row("exposed communication (per step)", s.measured_step_exposed_ns, s.step_exposed_ns,
      in_replay([](const WhatIfSummary& r) { return r.step_exposed_ns; }));
  row("exposed communication (whole trace)", static_cast<double>(s.measured_exposed_ns), static_cast<double>(s.exposed_ns),
      in_replay([](const WhatIfSummary& r) { return static_cast<double>(r.exposed_ns); }));
  for (const RankCommunication& p : s.communication) {
    const RankCommunication* m = comm_of(s.measured_communication, p.rank);
    const RankCommunication* r = replay ? comm_of(replay->communication, p.rank) : nullptr;
    const std::string who = "rank " + std::to_string(p.rank);
    row(who + " communication (whole trace)", m ? static_cast<double>(m->communication_ns) : 0, static_cast<double>(p.communication_ns),
        in_replay([&](const WhatIfSummary&) { return r ? static_cast<double>(r->communication_ns) : 0.0; }));
    row(who + " exposed communication (whole trace)", m ? static_cast<double>(m->exposed_ns) : 0, static_cast<double>(p.exposed_ns),
        in_replay([&](const WhatIfSummary&) { return r ? static_cast<double>(r->exposed_ns) : 0.0; }));
  }
  return t;
}

DataTable whatif_steps_table(const WhatIfSummary& prediction, const WhatIfSummary& replay) {
  DataTable t;
  t.id = "whatif_steps";
  t.title = "Per step and rank";
  t.note = "host range of each step: measured, replayed, predicted (the predicted run's step of the same name)";
  t.column("step").column("rank", "", true).column("measured", "ns", true).column("replay", "ns", true)
      .column("predicted", "ns", true).column("predicted vs measured", "fraction", true);
  for (const StepTimes& st : replay.steps) {
    const StepTimes* pt = nullptr;
    for (const StepTimes& x : prediction.steps)
      if (x.step == st.step && x.process == st.process) pt = &x;
    t.add_row({text_cell(st.step), int_cell(st.rank), duration_cell(st.measured_ns), duration_cell(st.replay_ns),
               pt ? duration_cell(pt->replay_ns) : text_cell(""),
               pt ? ratio_cell(static_cast<double>(st.measured_ns), static_cast<double>(pt->replay_ns)) : text_cell("")});
  }
  return t;
}

DataTable whatif_links_table(const WhatIfSummary& s, const WhatIfSummary* replay) {
  DataTable t;
  t.id = "whatif_links";
  t.title = "Predicted link utilization";
  t.note = "bytes the interconnect model moved per link direction over the replayed span (mean utilization = bytes / "
           "(capacity x span); peak: the busiest moment); measured link counters, where the trace has them, are in the "
           "Links view (`parascope-cli links`)";
  t.column("link").column("capacity", "bytes/s", true).column("bytes", "bytes", true).column("mean util", "fraction", true)
      .column("peak util", "fraction", true).column("replay bytes", "bytes", true).column("replay mean util", "fraction", true)
      .column("replay peak util", "fraction", true);
  for (const LinkUse& l : s.links) {
    const LinkUse* r = nullptr;
    if (replay)
      for (const LinkUse& x : replay->links)
        if (x.name == l.name) r = &x;
    t.add_row({text_cell(l.name), rate_cell(l.capacity_bytes_per_s), bytes_cell(l.bytes), percent_cell(l.mean_utilization),
               percent_cell(l.peak_utilization), r ? bytes_cell(r->bytes) : text_cell(""),
               r ? percent_cell(r->mean_utilization) : text_cell(""), r ? percent_cell(r->peak_utilization) : text_cell("")});
  }
  return t;
}

DataTable whatif_by_kernel_table(const WhatIfDiff& diff) {
  DataTable t;
  t.id = "whatif_by_kernel";
  t.title = "What changed, by kernel";
  t.note = "summed time per kernel name in the replay and in the prediction, largest change first";
  t.column("kernel").column("kind").column("count", "", true).column("replay", "ns", true).column("predicted", "ns", true)
      .column("change", "ns", true);
  for (const Divergence& x : diff.by_name)
    t.add_row({text_cell(x.name), text_cell(x.kind), int_cell(x.count), duration_cell(x.measured_ns), duration_cell(x.replay_ns),
               diff_cell(static_cast<double>(x.measured_ns), static_cast<double>(x.replay_ns))});
  return t;
}

DataTable sweep_table(const std::vector<SweepRow>& rows, double reference_step_ns) {
  DataTable t;
  t.id = "whatif_sweep";
  t.title = "What-if sweep";
  t.note = "one row per variant, fastest first; failed variants last; step and GPU step per step (mean over steps), "
           "exposed communication over the whole trace";
  if (!rows.empty())
    for (const auto& [k, v] : rows.front().point) t.column(k);
  t.column("step", "ns", true).column("GPU step", "ns", true).column("exposed (whole trace)", "ns", true);
  if (reference_step_ns > 0) t.column("vs replay", "fraction", true);
  t.column("note");
  for (const SweepRow& r : rows) {
    std::vector<DataCell> cells;
    for (const auto& [k, v] : r.point) cells.push_back(text_cell(value_text(k, v)));
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

DataTable sweep_summary_table(const std::vector<SweepRow>& rows, double reference_step_ns) {
  DataTable t;
  t.id = "summary";
  t.title = "What-if sweep";
  t.note = "one row per variant, fastest first; failed variants last";
  if (!rows.empty())
    for (const auto& [k, v] : rows.front().point) t.column(k);
  t.column("step_ns", "", true).column("gpu_step_ns", "", true).column("exposed_ns", "", true).column("vs_replay", "", true)
      .column("error");
  for (const SweepRow& r : rows) {
    std::vector<DataCell> cells;
    for (const auto& [k, v] : r.point) cells.push_back(text_cell(value_text(k, v)));
    const double vs = r.error.empty() && reference_step_ns != 0 ? r.step_ns / reference_step_ns - 1.0 : 0.0;
    cells.push_back(int_cell(std::llround(r.step_ns)));
    cells.push_back(int_cell(std::llround(r.gpu_step_ns)));
    cells.push_back(int_cell(r.exposed_ns));
    cells.push_back(number_cell(vs, 4));
    cells.push_back(text_cell(r.error));
    t.add_row(std::move(cells));
  }
  return t;
}

}  // namespace parascope::whatif
