// `parascope-cli whatif INPUT... [--topology T] [--set k=v ...] [--sweep k=v1,v2 ...] [-o OUT]`:
// rebuilds the traced run's dependency graph, replays it on the interconnect model and reports per
// rank and step the replay against the measurement (no --set), or applies the knobs' transforms and
// predicts (with --set), or runs a grid of variants in parallel (--sweep, repeatable), sorted by
// predicted step time. -o writes the predicted trace (format from the extension), or with --sweep a
// folder with summary.csv. --json prints everything with schema_version.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>
#include <tuple>

#include "cli/cli_args.h"
#include "cli/knob_options.h"
#include "cli/load_inputs.h"
#include "cli/machine_option.h"
#include "cli/progress.h"
#include "cli/table_output.h"
#include "cli/text_table.h"
#include "cli/verbs.h"
#include "sim/knobs.h"
#include "sim/whatif/compare.h"
#include "sim/whatif/sweep.h"
#include "sim/whatif/what_if.h"
#include "sim/whatif/whatif_tables.h"
#include "trace/core/data_table.h"
#include "trace/core/json.h"
#include "trace/io/export/trace_writer.h"

namespace parascope::cli {

namespace {

using whatif::WhatIfOutput;
using whatif::WhatIfSummary;

const std::vector<OptionSpec> kOptions = {
    {"--topology", true, false, "preset name (resources/topologies) or topology JSON; default: inferred from the trace's GPUs", "-t"},
    {"--set", true, true, "knob=value (repeatable): the what-if; `whatif --help` lists them", ""},
    {"--sweep", true, true, "knob=v1,v2,... (repeatable: a grid), run in parallel", ""},
    {"--step", true, false, "regex over NVTX/annotation range names that mark steps (when there is no ProfilerStep#N)", ""},
    {"--output", true, false, "predicted trace (.json, .json.gz, .pftrace, .sqlite, .csv), or a folder with --sweep", "-o"},
    {"--jobs", true, false, "parallel variants for --sweep (default: all cores)", "-j"},
    {"--top", true, false, "rows per table in text output (default 8)", ""},
    {"--csv", true, false, "write whatif_comparison.csv and whatif_links.csv (whatif_sweep.csv with --sweep) into this folder", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

std::string ms(double ns) { return format_duration(static_cast<TimeNs>(std::llround(ns))); }
std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v * 100.0);
  return buf;
}
std::string pct_plain(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v * 100.0);
  return buf;
}
double rel(double value, double reference) { return reference != 0 ? value / reference - 1.0 : 0.0; }

std::string time_or_dash(TimeNs v) { return v > 0 ? format_duration(v) : "-"; }

std::string label(const whatif::DepGraph& g, size_t process) {
  const auto& p = g.processes[process];
  return p.rank >= 0 ? "rank " + std::to_string(p.rank) : p.name;
}

void print_graph(const whatif::DepGraph& g) {
  size_t host = 0, gpu = 0, threads = 0, streams = 0;
  for (const auto& n : g.nodes) (n.kind == whatif::NodeType::kHostCall ? host : gpu) += !n.removed;
  for (const auto& l : g.lanes) (l.kind == whatif::LaneKind::kThread ? threads : streams)++;
  const auto& d = g.diagnostics;
  auto e = [&](whatif::EdgeKind k) { return d.edges_by_kind[static_cast<int>(k)]; };
  std::printf("graph    %zu nodes (%zu host calls on %zu threads, %zu GPU ops on %zu streams), %zu ranks\n", host + gpu, host,
              threads, gpu, streams, g.processes.size());
  std::printf("edges    launch %" PRIu64 ", graph launch %" PRIu64 ", event wait %" PRIu64 ", host sync %" PRIu64
              ", collective %" PRIu64 ", send/recv %" PRIu64 ", dispatch %" PRIu64 "; %" PRIu64 " inferred, %" PRIu64
              " inferred ones refuted by the times\n",
              e(whatif::EdgeKind::kLaunch), e(whatif::EdgeKind::kGraphLaunch), e(whatif::EdgeKind::kEventWait),
              e(whatif::EdgeKind::kHostSync), e(whatif::EdgeKind::kCollective), e(whatif::EdgeKind::kSendRecv),
              e(whatif::EdgeKind::kDispatch), d.inferred_edges, d.contradicted_edges);
  std::printf("groups   %" PRIu64 " (%" PRIu64 " complete: %" PRIu64 " by sequence, %" PRIu64 " by order, %" PRIu64
              " by kernel name), %zu unmatched members, %" PRIu64 " without size (measured kept)\n",
              d.groups, d.complete_groups, d.matched_by_sequence, d.matched_by_order, d.matched_by_name, d.unmatched.size(),
              d.unsized_comm);
  std::string offsets;
  for (size_t p = 1; p < d.process_offset_ns.size(); ++p)
    if (d.process_offset_ns[p]) offsets += " " + label(g, p) + " " + (d.process_offset_ns[p] > 0 ? "+" : "-") +
                                          format_duration(std::llabs(d.process_offset_ns[p]));
  std::printf("clocks   collective ends differ from %s by%s; %" PRIu64 " causality violations%s; %" PRIu64
              " GPU ops before their launch call\n",
              g.processes.empty() ? "-" : label(g, 0).c_str(), offsets.empty() ? " nothing" : offsets.c_str(),
              d.causality_violations, d.causality_violations ? (" (max " + format_duration(d.max_violation_ns) + ")").c_str() : "",
              d.kernels_before_launch);
  std::printf("waits    %" PRIu64 " GPU ops started later than their known dependencies allow (%s in all); cycles %zu\n",
              d.unexplained_waits, format_duration(d.unexplained_wait_ns).c_str(), d.cycles.size());
  for (const auto& c : d.cycles) std::printf("  cycle of %zu ops broken: %s\n", c.nodes.size(), c.broken_by.c_str());
}

// `baseline` and `d`: the unchanged replay and the prediction's difference to it (null for the replay).
void print_summary(const WhatIfOutput& o, const WhatIfOutput* baseline, const whatif::WhatIfDiff* d, size_t top) {
  const bool replay_only = baseline == nullptr;
  const WhatIfSummary& s = o.summary;
  std::printf("topology %s (%s); communication beside compute slowed by %.2f: %s\n", s.topology.c_str(), s.calibration.c_str(),
              1.0 + s.comm_slowdown, s.comm_slowdown_source.c_str());
  if (!s.held.empty()) {
    // one row per (collective, kept, held by): the ranks and steps of a schedule repeat them
    std::map<std::tuple<std::string, std::string, std::string>, size_t> rows;
    for (const auto& h : s.held) ++rows[{h.name, h.kept, h.held_by}];
    TextTable t({{"collective", TextTable::Align::kLeft, 48}, {"members"}, {"kept (comm_deps)", TextTable::Align::kLeft, 60},
                 {"held back in the replay by", TextTable::Align::kLeft, 60}});
    for (const auto& [key, n] : rows) t.add({std::get<0>(key), std::to_string(n), std::get<1>(key), std::get<2>(key)});
    std::printf("side-stream collectives: what holds each back\n%s", t.render().c_str());
  }
  TextTable steps({{"step", TextTable::Align::kLeft}, {"rank", TextTable::Align::kLeft}, {"measured"}, {replay_only ? "replay" : "predicted"}, {"error"},
                   {"GPU measured"}, {replay_only ? "GPU replay" : "GPU predicted"}, {"error"}});
  for (const auto& st : s.steps)
    steps.add({st.step, label(o.graph, static_cast<size_t>(st.process)), format_duration(st.measured_ns), format_duration(st.replay_ns),
               pct(rel(static_cast<double>(st.replay_ns), static_cast<double>(st.measured_ns))), time_or_dash(st.measured_gpu_ns),
               time_or_dash(st.replay_gpu_ns), pct(rel(static_cast<double>(st.replay_gpu_ns), static_cast<double>(st.measured_gpu_ns)))});
  std::printf("steps (host range; GPU = first..last GPU op of the step)\n%s", steps.render().c_str());
  std::printf("step time (mean over steps of the slowest rank): measured %s, %s %s (%s); GPU: measured %s, %s %s (%s)\n",
              ms(s.measured_step_ns).c_str(), replay_only ? "replay" : "predicted", ms(s.step_ns).c_str(),
              pct(rel(s.step_ns, s.measured_step_ns)).c_str(), ms(s.measured_gpu_step_ns).c_str(),
              replay_only ? "replay" : "predicted", ms(s.gpu_step_ns).c_str(), pct(rel(s.gpu_step_ns, s.measured_gpu_step_ns)).c_str());
  if (!s.steps.empty())
    std::printf("exposed communication per step (mean over steps of the most exposed rank): measured %s, %s %s\n",
                ms(s.measured_step_exposed_ns).c_str(), replay_only ? "replay" : "predicted", ms(s.step_exposed_ns).c_str());
  if (baseline && d) {
    std::printf("vs the unchanged replay: step %s -> %s (%s), GPU step %s -> %s (%s), per step; exposed communication %s -> %s, whole trace\n",
                ms(baseline->summary.step_ns).c_str(), ms(s.step_ns).c_str(), pct(rel(s.step_ns, baseline->summary.step_ns)).c_str(),
                ms(baseline->summary.gpu_step_ns).c_str(), ms(s.gpu_step_ns).c_str(),
                pct(rel(s.gpu_step_ns, baseline->summary.gpu_step_ns)).c_str(), time_or_dash(baseline->summary.exposed_ns).c_str(),
                time_or_dash(s.exposed_ns).c_str());
    TextTable t({{"kernel", TextTable::Align::kLeft, 60}, {"kind", TextTable::Align::kLeft}, {"replay"}, {"predicted"}, {"change"}});
    for (const auto& v : d->by_name)
      t.add({v.name, v.kind, time_or_dash(v.measured_ns), time_or_dash(v.replay_ns), pct(rel(static_cast<double>(v.replay_ns), static_cast<double>(v.measured_ns)))});
    if (!t.empty()) std::printf("largest changes by kernel name (summed over the trace)\n%s", t.render().c_str());
  }
  if (!s.communication.empty()) {
    TextTable t({{"rank"}, {"comm measured"}, {"exposed measured"}, {replay_only ? "comm replay" : "comm predicted"},
                 {replay_only ? "exposed replay" : "exposed predicted"}});
    for (const auto& c : s.communication) {
      TimeNs mc = 0, me = 0;
      for (const auto& m : s.measured_communication)
        if (m.rank == c.rank) {
          mc = m.communication_ns;
          me = m.exposed_ns;
        }
      t.add({std::to_string(c.rank), time_or_dash(mc), time_or_dash(me), time_or_dash(c.communication_ns), time_or_dash(c.exposed_ns)});
    }
    std::printf("communication per rank over the whole trace (exposed = not under compute)\n%s", t.render().c_str());
  }
  if (!s.links.empty()) {
    TextTable t({{"link", TextTable::Align::kLeft}, {"capacity"}, {"bytes"}, {"mean util"}, {"peak util"}});
    for (size_t i = 0; i < s.links.size() && i < top; ++i) {
      const auto& l = s.links[i];
      t.add({l.name, format_rate(l.capacity_bytes_per_s), format_bytes_decimal(l.bytes), pct_plain(l.mean_utilization),
             pct_plain(l.peak_utilization)});
    }
    std::printf("links (busiest first; utilization over the replayed span %s)\n%s", format_duration(s.span_ns).c_str(), t.render().c_str());
  }
  const auto& cp = s.critical;
  const double span = static_cast<double>(cp.end - cp.start);
  std::string ranks;
  for (int32_t p : cp.processes) ranks += (ranks.empty() ? "" : ", ") + label(o.graph, static_cast<size_t>(p));
  std::printf("critical path %s across %s: compute %s, communication %s, host %s, copies %s, waits %s\n",
              format_duration(cp.end - cp.start).c_str(), ranks.c_str(),
              (format_duration(cp.compute_ns) + " (" + pct_plain(span > 0 ? cp.compute_ns / span : 0) + ")").c_str(),
              (format_duration(cp.communication_ns) + " (" + pct_plain(span > 0 ? cp.communication_ns / span : 0) + ")").c_str(),
              format_duration(cp.host_ns).c_str(), format_duration(cp.memory_ns).c_str(), format_duration(cp.wait_ns).c_str());
  TextTable ct({{"on the path", TextTable::Align::kLeft, 60}, {"kind", TextTable::Align::kLeft}, {"rank"}, {"lane", TextTable::Align::kLeft},
                {"count"}, {"time"}});
  for (size_t i = 0; i < s.critical_items.size() && i < top; ++i) {
    const auto& c = s.critical_items[i];
    ct.add({c.name, c.kind, std::to_string(c.rank), c.lane, std::to_string(c.count), format_duration(c.ns)});
  }
  if (!ct.empty()) std::printf("%s", ct.render().c_str());
  if (replay_only) {
    TextTable dt({{"largest divergences (by kernel name)", TextTable::Align::kLeft, 60}, {"kind", TextTable::Align::kLeft}, {"count"},
                  {"measured"}, {"replay"}, {"difference"}});
    for (size_t i = 0; i < s.divergences.size() && i < top; ++i) {
      const auto& v = s.divergences[i];
      dt.add({v.name, v.kind, std::to_string(v.count), format_duration(v.measured_ns), format_duration(v.replay_ns),
              (v.replay_ns >= v.measured_ns ? "+" : "-") + format_duration(std::llabs(v.replay_ns - v.measured_ns))});
    }
    if (!dt.empty()) std::printf("%s", dt.render().c_str());
  }
  for (const auto& w : s.warnings) std::printf("warning: %s\n", w.c_str());
}

JsonValue graph_json(const whatif::DepGraph& g) {
  const auto& d = g.diagnostics;
  JsonValue edges = JsonValue::object();
  for (int k = 0; k < static_cast<int>(whatif::EdgeKind::kCount); ++k)
    edges.set(std::string(whatif::to_string(static_cast<whatif::EdgeKind>(k))), JsonValue::number(static_cast<int64_t>(d.edges_by_kind[k])));
  size_t host = 0, gpu = 0;
  for (const auto& n : g.nodes) (n.kind == whatif::NodeType::kHostCall ? host : gpu) += !n.removed;
  JsonValue unmatched = JsonValue::array();
  for (const auto& u : d.unmatched)
    unmatched.push(JsonValue::object({{"op", JsonValue::string(g.names[g.nodes[u.node].name])},
                                      {"process", JsonValue::number(static_cast<int64_t>(g.nodes[u.node].process))},
                                      {"start_ns", JsonValue::number(g.nodes[u.node].start)},
                                      {"reason", JsonValue::string(u.reason)}}));
  JsonValue cycles = JsonValue::array();
  for (const auto& c : d.cycles)
    cycles.push(JsonValue::object({{"ops", JsonValue::number(static_cast<int64_t>(c.nodes.size()))}, {"broken_by", JsonValue::string(c.broken_by)}}));
  JsonValue offsets = JsonValue::array();
  for (TimeNs o : d.process_offset_ns) offsets.push(JsonValue::number(o));
  JsonValue warnings = JsonValue::array();
  for (const auto& w : d.warnings) warnings.push(JsonValue::string(w));
  return JsonValue::object({{"host_calls", JsonValue::number(static_cast<int64_t>(host))},
                            {"gpu_ops", JsonValue::number(static_cast<int64_t>(gpu))},
                            {"lanes", JsonValue::number(static_cast<int64_t>(g.lanes.size()))},
                            {"ranks", JsonValue::number(static_cast<int64_t>(g.processes.size()))},
                            {"edges", std::move(edges)},
                            {"inferred_edges", JsonValue::number(static_cast<int64_t>(d.inferred_edges))},
                            {"refuted_inferred_edges", JsonValue::number(static_cast<int64_t>(d.contradicted_edges))},
                            {"groups", JsonValue::number(static_cast<int64_t>(d.groups))},
                            {"complete_groups", JsonValue::number(static_cast<int64_t>(d.complete_groups))},
                            {"matched_by_sequence", JsonValue::number(static_cast<int64_t>(d.matched_by_sequence))},
                            {"matched_by_order", JsonValue::number(static_cast<int64_t>(d.matched_by_order))},
                            {"matched_by_kernel_name", JsonValue::number(static_cast<int64_t>(d.matched_by_name))},
                            {"unmatched", std::move(unmatched)},
                            {"unsized_communication", JsonValue::number(static_cast<int64_t>(d.unsized_comm))},
                            {"cycles", std::move(cycles)},
                            {"process_clock_offsets_ns", std::move(offsets)},
                            {"causality_violations", JsonValue::number(static_cast<int64_t>(d.causality_violations))},
                            {"max_causality_violation_ns", JsonValue::number(d.max_violation_ns)},
                            {"gpu_ops_before_launch", JsonValue::number(static_cast<int64_t>(d.kernels_before_launch))},
                            {"unexplained_waits", JsonValue::number(static_cast<int64_t>(d.unexplained_waits))},
                            {"unexplained_wait_ns", JsonValue::number(d.unexplained_wait_ns)},
                            {"warnings", std::move(warnings)}});
}

JsonValue summary_json(const WhatIfOutput& o) {
  const WhatIfSummary& s = o.summary;
  JsonValue changes = JsonValue::array();
  for (const auto& c : s.changes) changes.push(JsonValue::string(c));
  JsonValue held = JsonValue::array();
  for (const auto& h : s.held)
    held.push(JsonValue::object({{"name", JsonValue::string(h.name)},
                                 {"rank", JsonValue::number(static_cast<int64_t>(h.rank))},
                                 {"step", JsonValue::string(h.step)},
                                 {"kept", JsonValue::string(h.kept)},
                                 {"held_by", JsonValue::string(h.held_by)}}));
  JsonValue steps = JsonValue::array();
  for (const auto& st : s.steps)
    steps.push(JsonValue::object({{"step", JsonValue::string(st.step)},
                                  {"rank", JsonValue::number(static_cast<int64_t>(st.rank))},
                                  {"measured_ns", JsonValue::number(st.measured_ns)},
                                  {"replay_ns", JsonValue::number(st.replay_ns)},
                                  {"measured_gpu_ns", JsonValue::number(st.measured_gpu_ns)},
                                  {"replay_gpu_ns", JsonValue::number(st.replay_gpu_ns)},
                                  {"exposed_ns", JsonValue::number(st.exposed_ns)}}));
  auto comm = [](const std::vector<whatif::RankCommunication>& v) {
    JsonValue a = JsonValue::array();
    for (const auto& c : v)
      a.push(JsonValue::object({{"rank", JsonValue::number(static_cast<int64_t>(c.rank))},
                                {"communication_ns", JsonValue::number(c.communication_ns)},
                                {"exposed_ns", JsonValue::number(c.exposed_ns)}}));
    return a;
  };
  JsonValue links = JsonValue::array();
  for (const auto& l : s.links)
    links.push(JsonValue::object({{"name", JsonValue::string(l.name)},
                                  {"capacity_GBps", JsonValue::number(l.capacity_bytes_per_s / 1e9)},
                                  {"bytes", JsonValue::number(l.bytes)},
                                  {"mean_utilization", JsonValue::number(l.mean_utilization)},
                                  {"peak_utilization", JsonValue::number(l.peak_utilization)}}));
  JsonValue path = JsonValue::array();
  for (const auto& c : s.critical_items)
    path.push(JsonValue::object({{"name", JsonValue::string(c.name)},
                                 {"kind", JsonValue::string(c.kind)},
                                 {"rank", JsonValue::number(static_cast<int64_t>(c.rank))},
                                 {"lane", JsonValue::string(c.lane)},
                                 {"count", JsonValue::number(c.count)},
                                 {"ns", JsonValue::number(c.ns)}}));
  JsonValue div = JsonValue::array();
  for (const auto& d : s.divergences)
    div.push(JsonValue::object({{"name", JsonValue::string(d.name)},
                                {"kind", JsonValue::string(d.kind)},
                                {"count", JsonValue::number(d.count)},
                                {"measured_ns", JsonValue::number(d.measured_ns)},
                                {"replay_ns", JsonValue::number(d.replay_ns)}}));
  JsonValue warnings = JsonValue::array();
  for (const auto& w : s.warnings) warnings.push(JsonValue::string(w));
  const auto& cp = s.critical;
  return JsonValue::object({{"topology", JsonValue::string(s.topology)},
                            {"calibration", JsonValue::string(s.calibration)},
                            {"comm_slowdown", JsonValue::number(s.comm_slowdown)},
                            {"comm_slowdown_source", JsonValue::string(s.comm_slowdown_source)},
                            {"comm_slowdown_fitted", JsonValue::boolean(s.comm_slowdown_fitted)},
                            {"changes", std::move(changes)},
                            {"held_collectives", std::move(held)},
                            {"step_ns", JsonValue::number(s.step_ns)},
                            {"measured_step_ns", JsonValue::number(s.measured_step_ns)},
                            {"gpu_step_ns", JsonValue::number(s.gpu_step_ns)},
                            {"measured_gpu_step_ns", JsonValue::number(s.measured_gpu_step_ns)},
                            {"span_ns", JsonValue::number(s.span_ns)},
                            {"exposed_ns", JsonValue::number(s.exposed_ns)},
                            {"measured_exposed_ns", JsonValue::number(s.measured_exposed_ns)},
                            {"step_exposed_ns", JsonValue::number(s.step_exposed_ns)},
                            {"measured_step_exposed_ns", JsonValue::number(s.measured_step_exposed_ns)},
                            {"steps", std::move(steps)},
                            {"communication", comm(s.communication)},
                            {"measured_communication", comm(s.measured_communication)},
                            {"links", std::move(links)},
                            {"critical_path", JsonValue::object({{"span_ns", JsonValue::number(cp.end - cp.start)},
                                                                 {"compute_ns", JsonValue::number(cp.compute_ns)},
                                                                 {"communication_ns", JsonValue::number(cp.communication_ns)},
                                                                 {"host_ns", JsonValue::number(cp.host_ns)},
                                                                 {"memory_ns", JsonValue::number(cp.memory_ns)},
                                                                 {"wait_ns", JsonValue::number(cp.wait_ns)},
                                                                 {"items", std::move(path)}})},
                            {"divergences", std::move(div)},
                            {"simulations", JsonValue::number(static_cast<int64_t>(s.simulations))},
                            {"warnings", std::move(warnings)}});
}

JsonValue diff_json(const whatif::WhatIfDiff& d) {
  JsonValue names = JsonValue::array();
  for (const auto& v : d.by_name)
    names.push(JsonValue::object({{"name", JsonValue::string(v.name)},
                                  {"replay_ns", JsonValue::number(v.measured_ns)},
                                  {"predicted_ns", JsonValue::number(v.replay_ns)}}));
  return JsonValue::object({{"step_ns", JsonValue::number(d.step_ns)},
                            {"gpu_step_ns", JsonValue::number(d.gpu_step_ns)},
                            {"exposed_ns", JsonValue::number(d.exposed_ns)},
                            {"by_name", std::move(names)}});
}

JsonValue knobs_json(const sim::KnobSettings& knobs) {
  JsonValue set = JsonValue::object();
  for (const auto& [k, v] : knobs.values()) set.set(k, JsonValue::string(sim::knob_registry().format(k, v)));
  return set;
}

void print_help() {
  std::printf("usage: parascope-cli whatif INPUT... [--topology T] [--set k=v ...] [--sweep k=v1,v2 ...] [-o OUT]\n%s\n"
              "Without --set: replays the trace on the interconnect model and compares per rank and step.\n"
              "With --set/--sweep: applies the knobs below and predicts; collectives' channels, chunk_bytes, mechanism,\n"
              "algorithm, protocol apply to those comm_select picks.\npresets:",
              options_help(kOptions).c_str());
  for (const Preset& p : cli_presets()) std::printf(" %s", p.name.c_str());
  std::printf("\n\nknobs (--set / --sweep):\n");
  for (const sim::KnobSpec& k : sim::knob_registry().all())
    std::printf("  %-22s %-28s default %-10s %s\n", k.name.c_str(), sim::range_text(k).c_str(),
                sim::knob_registry().format(k, k.default_value).c_str(), k.help.c_str());
}

// The machine a what-if of `graph` runs on (--topology, else choose_machine's); a usage error when none.
MachineChoice machine_of(const Args& args, const Trace& trace, const whatif::DepGraph& graph) {
  try {
    return whatif::whatif_machine(trace, graph, &cli_presets(), args.value("--topology").value_or(""));
  } catch (const MachineError& e) {
    throw UsageError(e.what());
  }
}

// Without --sweep: the comparison (compare.h), its files, then JSON or text.
int compare_and_print(const Args& args, const Trace& trace, std::shared_ptr<const whatif::DepGraph> graph,
                      const sim::KnobSettings& knobs, size_t top) {
  const auto out_path = args.value("--output");
  whatif::CompareSettings cs;
  cs.knobs = knobs;
  cs.machine = args.value("--topology").value_or("");
  cs.presets = &cli_presets();
  cs.graph = std::move(graph);
  cs.want_trace = out_path.has_value();
  cs.top = top;
  const whatif::Comparison c = [&] {
    try {
      return whatif::compare(trace, cs);
    } catch (const MachineError& e) {
      throw UsageError(e.what());
    }
  }();
  const WhatIfOutput& shown = c.shown();
  if (out_path && shown.trace) write_trace(*shown.trace, *out_path);
  if (const auto dir = args.value("--csv")) {
    std::filesystem::create_directories(*dir);
    for (const DataTable* t : {&c.tables.comparison, &c.tables.steps, &c.tables.links, &c.tables.by_kernel})
      write_csv(*t, (std::filesystem::path(*dir) / (t->id + ".csv")).string());
  }
  if (args.flag("--json")) {
    JsonValue inputs = JsonValue::array();
    for (const auto& i : args.inputs()) inputs.push(JsonValue::string(i));
    JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(static_cast<int64_t>(whatif::kWhatIfSchemaVersion))},
                                       {"inputs", std::move(inputs)},
                                       {"topology_source", JsonValue::string(c.machine.reason)},
                                       {"graph", graph_json(*c.graph)},
                                       {"replay", summary_json(c.replay)}});
    if (c.prediction) {
      doc.set("set", knobs_json(knobs));
      doc.set("prediction", summary_json(*c.prediction));
      doc.set("diff", diff_json(c.diff));
    }
    if (out_path) doc.set("output", JsonValue::string(*out_path));
    std::printf("%s\n", to_json(doc, 2).c_str());
    return 0;
  }
  std::printf("whatif   %zu input(s), topology from %s\n", args.inputs().size(), c.machine.reason.c_str());
  print_graph(*c.graph);
  if (c.prediction) {
    std::printf("\n-- prediction (--set %s)\n", c.label.c_str());
    std::printf("changes  %s\n", whatif::comparison_changes(c).c_str());
    print_summary(*c.prediction, &c.replay, &c.diff, top);
  } else {
    std::printf("\n-- replay of the unchanged graph\n");
    print_summary(c.replay, nullptr, nullptr, top);
  }
  if (out_path) std::printf("predicted trace written to %s\n", out_path->c_str());
  return 0;
}

// --sweep: every grid point (plus --set) in parallel; the unchanged replay first, as the reference.
int sweep_and_print(const Args& args, const Trace& trace, const whatif::DepGraph& graph, const sim::KnobSettings& knobs,
                    const std::vector<whatif::KnobPoint>& grid) {
  const auto out_path = args.value("--output");
  const bool json = args.flag("--json");
  const Topology topo = machine_of(args, trace, graph).topology;
  whatif::WhatIfInput base;
  base.measured = &trace;
  base.graph = &graph;
  base.topology = topo;
  base.cache = std::make_shared<whatif::CommCache>();
  const WhatIfOutput reference = whatif::run_whatif(base);
  const size_t jobs = std::min(static_cast<size_t>(args.integer("--jobs", std::max(1u, std::thread::hardware_concurrency()))), grid.size());
  base.knobs = knobs;
  Progress progress(args.flag("--quiet") || json);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<whatif::SweepRow> rows = whatif::run_sweep(base, grid, jobs, [&](size_t d, size_t total) {
    progress.update("whatif sweep " + std::to_string(d) + "/" + std::to_string(total), d, total);
  });
  progress.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double ref = reference.summary.step_ns;
  if (out_path) {
    std::filesystem::create_directories(*out_path);
    write_csv(whatif::sweep_summary_table(rows, ref), (std::filesystem::path(*out_path) / "summary.csv").string(), "\n");
  }
  if (const auto dir = args.value("--csv")) {
    std::filesystem::create_directories(*dir);
    write_csv(whatif::sweep_table(rows, ref), (std::filesystem::path(*dir) / "whatif_sweep.csv").string());
  }
  if (json) {
    JsonValue runs = JsonValue::array();
    for (const whatif::SweepRow& r : rows) {
      JsonValue point = JsonValue::object();
      for (const auto& [k, v] : r.point) point.set(k, JsonValue::string(whatif::value_text(k, v)));
      JsonValue changes = JsonValue::array();
      for (const auto& c : r.changes) changes.push(JsonValue::string(c));
      runs.push(JsonValue::object({{"knobs", std::move(point)},
                                   {"step_ns", JsonValue::number(r.step_ns)},
                                   {"gpu_step_ns", JsonValue::number(r.gpu_step_ns)},
                                   {"exposed_ns", JsonValue::number(r.exposed_ns)},
                                   {"changes", std::move(changes)},
                                   {"error", JsonValue::string(r.error)}}));
    }
    std::printf("%s\n", to_json(JsonValue::object({{"schema_version", JsonValue::number(static_cast<int64_t>(whatif::kWhatIfSchemaVersion))},
                                                   {"topology", JsonValue::string(topo.name)},
                                                   {"graph", graph_json(graph)},
                                                   {"replay", summary_json(reference)},
                                                   {"variants", JsonValue::number(static_cast<int64_t>(rows.size()))},
                                                   {"wall_seconds", JsonValue::number(wall)},
                                                   {"runs", std::move(runs)}}),
                                2)
                            .c_str());
    return 0;
  }
  std::printf("whatif sweep: %zu variants on %s, %zu jobs, %.2f s; replay of the unchanged graph: step %s (measured %s)\n",
              rows.size(), topo.name.c_str(), jobs, wall, ms(ref).c_str(), ms(reference.summary.measured_step_ns).c_str());
  std::vector<TextTable::Column> cols;
  for (const auto& [k, v] : grid.front()) cols.push_back({k, TextTable::Align::kLeft});
  for (const char* c : {"step", "GPU step", "exposed comm", "vs replay"}) cols.push_back({c});
  cols.push_back({"note", TextTable::Align::kLeft, 70});
  TextTable t(cols);
  for (const whatif::SweepRow& r : rows) {
    std::vector<std::string> cells;
    for (const auto& [k, v] : r.point) cells.push_back(whatif::value_text(k, v));
    if (r.error.empty()) {
      cells.push_back(ms(r.step_ns));
      cells.push_back(ms(r.gpu_step_ns));
      cells.push_back(time_or_dash(r.exposed_ns));
      cells.push_back(pct(rel(r.step_ns, ref)));
      std::string note;
      for (const auto& c : r.changes) note += (note.empty() ? "" : "; ") + c;
      cells.push_back(note);
    } else {
      for (int i = 0; i < 4; ++i) cells.push_back("-");
      cells.push_back("error: " + r.error);
    }
    t.add(std::move(cells));
  }
  std::printf("%s", t.render().c_str());
  if (out_path) std::printf("summary.csv written to %s\n", out_path->c_str());
  return 0;
}

}  // namespace

int run_whatif(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    print_help();
    return 0;
  }
  if (args.inputs().empty()) throw UsageError("no input given");
  const sim::KnobSettings knobs = knob_options(args, "--set");
  const auto grid = whatif::sweep_grid(args.values("--sweep"));
  const auto top = static_cast<size_t>(args.integer("--top", 8));
  const Trace trace = load_inputs(args);
  whatif::GraphOptions go;
  go.step_regex = args.value("--step").value_or("");
  auto graph = std::make_shared<const whatif::DepGraph>(whatif::build_dep_graph(trace, go));
  if (args.values("--sweep").empty()) return compare_and_print(args, trace, std::move(graph), knobs, top);
  return sweep_and_print(args, trace, *graph, knobs, grid);
}

}  // namespace parascope::cli
