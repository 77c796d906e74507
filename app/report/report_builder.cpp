// sim headers first: sim/workload.h names a member `slots` (the library also builds with QT_NO_KEYWORDS)
#include "sim/knobs.h"
#include "sim/whatif/what_if.h"

#include "report/report_builder.h"

#include <QDateTime>
#include <QFontMetrics>
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <tuple>

#include "render/chart_view.h"
#include "models/link_chart.h"
#include "render/overlap_chart.h"
#include "models/roofline_chart.h"
#include "render/timeline_painter.h"
#include "models/topology_layout.h"
#include "render/topology_painter.h"
#include "trace/core/analysis/analysis_tables.h"
#include "trace/core/analysis/busy_idle.h"
#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/device_activity.h"
#include "trace/core/analysis/link_stats.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/trace_machine.h"

namespace parascope::report {

namespace {

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString dur(TimeNs ns) { return qstr(format_duration(ns)); }

// The timeline of [start, end) at `width`, as tall as its tracks (capped).
Figure timeline_figure(std::shared_ptr<const models::TimelineIndex> index, QString id, QString caption, TimeNs start,
                       TimeNs end, int width) {
  auto layout = std::make_shared<const models::TrackLayout>(index->trace(), models::LayoutOptions{});
  const render::TimelineStyle style;
  Figure f;
  f.id = std::move(id);
  f.caption = std::move(caption);
  f.raster = true;
  f.size = QSize(width, static_cast<int>(std::clamp(layout->total_height() + style.ruler_height + 4, 120.0, 1500.0)));
  f.paint = [index, layout, start, end, style](QPainter& p, const QRectF& r) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    const models::TimelineMapping m(start, std::max(end, start + 1), r.width() - style.label_width);
    render::TimelinePainter painter(*index);
    painter.paint(p, r.toRect(), *layout, m, 0, style);
    p.restore();
  };
  return f;
}

Figure chart_figure(QString id, QString caption, models::ChartSpec spec, QSize size) {
  Figure f;
  f.id = std::move(id);
  f.caption = std::move(caption);
  f.size = size;
  f.paint = [spec = std::move(spec)](QPainter& p, const QRectF& r) {
    p.setRenderHint(QPainter::Antialiasing);
    render::render_chart(spec, p, r);
  };
  return f;
}

QString machine_origin(const TraceMachine& m) {
  switch (m.origin) {
    case TraceMachine::Origin::kTrace: return "the trace's own topology";
    case TraceMachine::Origin::kPreset: return "preset " + qstr(m.topology.name);
    case TraceMachine::Origin::kInferred: return "inferred from the trace's devices and link counters";
  }
  return {};
}

std::string rel_pct(double value, double reference) {
  if (reference == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", (value / reference - 1.0) * 100.0);
  return buf;
}
DataCell rel_cell(double value, double reference) {
  if (reference == 0) return text_cell("-");
  return DataCell{rel_pct(value, reference), value / reference - 1.0};
}
DataCell ns_cell(double ns) {
  if (!(ns > 0)) return text_cell("-");
  return DataCell{format_duration(static_cast<TimeNs>(std::llround(ns))), ns};
}

void add_metadata(ReportDocument& doc, const Trace& t, const ReportOptions& o, const TraceMachine& machine,
                  const KernelStats& kernels) {
  Section& s = doc.add_section("metadata", "Trace and machine");
  const auto [start, end] = t.time_span();
  std::vector<Fact> f;
  QStringList inputs;
  for (const auto& i : o.inputs) inputs << qstr(i);
  f.push_back({"Inputs", inputs.join(", ")});
  f.push_back({"Format", qstr(t.source_format) + QString(" · %1 file%2").arg(t.source_files.size()).arg(t.source_files.size() == 1 ? "" : "s")});
  f.push_back({"Span", dur(end - start) + QString(" (trace clock %1 .. %2 ns)").arg(start).arg(end)});
  f.push_back({"Events", QString("%1 slices on %2 tracks · %3 kernels · %4 collectives · %5 flows")
                             .arg(t.slice_count()).arg(t.tracks.size()).arg(kernels.overall.kernels)
                             .arg(t.collectives.size()).arg(t.flows.size())});
  for (const Process& p : t.processes) {
    QString who = p.rank >= 0 ? QString("rank %1").arg(p.rank) : QString("pid %1").arg(p.pid);
    QString v = QString("pid %1").arg(p.pid) + (p.host.empty() ? "" : " on " + qstr(p.host)) +
                (p.name.empty() ? "" : " · " + qstr(p.name)) + " · clock offset " + dur(p.clock_offset_ns) +
                (p.clock_offset_reason.empty() ? "" : " (" + qstr(p.clock_offset_reason) + ")");
    f.push_back({"Process " + who, v});
  }
  for (size_t d = 0; d < t.devices.size(); ++d) {
    const Device& dev = t.devices[d];
    QStringList parts;
    parts << (dev.name.empty() ? QString("unknown GPU") : qstr(dev.name));
    if (dev.sm_count) parts << QString("%1 SMs").arg(dev.sm_count);
    if (dev.compute_major) parts << QString("sm_%1%2").arg(dev.compute_major).arg(dev.compute_minor);
    if (dev.memory_bytes) parts << qstr(format_bytes_decimal(static_cast<double>(dev.memory_bytes)));
    if (!dev.pci_bus_id.empty()) parts << "PCI " + qstr(dev.pci_bus_id);
    f.push_back({qstr(device_label(t, static_cast<uint16_t>(d))), parts.join(" · ")});
  }
  const Topology& topo = machine.topology;
  f.push_back({"Machine", QString("%1 · %2 GPUs · %3 links · %4 (%5)")
                              .arg(topo.name.empty() ? QString("unnamed") : qstr(topo.name))
                              .arg(topo.gpu_count()).arg(topo.links.size())
                              .arg(machine_origin(machine))
                              .arg(topo.calibration == Calibration::kMeasured ? "measured" : "datasheet")});
  f.push_back({"Warnings", QString::number(t.warnings.size())});
  f.push_back({"Report", QString("Parascope 0.1.0, %1").arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate))});
  s.facts(std::move(f));
  for (const std::string& n : machine.notes) s.text("Machine: " + qstr(n));
  for (size_t i = 0; i < t.warnings.size() && i < 10; ++i) s.text("Warning: " + qstr(t.warnings[i]));
  if (t.warnings.size() > 10) s.text(QString("… and %1 more warnings (parascope-cli info lists them).").arg(t.warnings.size() - 10));
}

std::string gpu_model(const Topology& t) {
  const int32_t n0 = t.gpu_node(0);
  return n0 >= 0 && t.nodes[static_cast<size_t>(n0)].gpu ? t.nodes[static_cast<size_t>(n0)].gpu->model : "";
}

// The what-if's machine, chosen as `parascope-cli whatif` chooses it: the one given, else the
// trace's own topology when it has the GPUs, else the preset with enough GPUs that has the traced
// GPU model, measured before datasheet, fewest GPUs.
void whatif_topology(const Trace& t, const ReportOptions& o, int32_t gpus, Topology& out, QString& origin) {
  if (o.machine) {
    out = *o.machine;
    origin = "the machine given";
    return;
  }
  if (t.topology && static_cast<int32_t>(t.topology->gpu_count()) >= gpus) {
    out = *t.topology;
    origin = "the trace's own topology";
    return;
  }
  std::string model;
  for (const Device& d : t.devices)
    if (!d.name.empty()) model = d.name;
  auto token = [](const std::string& s) {  // "NVIDIA H200" -> "H200"
    const size_t sp = s.rfind(' ');
    return sp == std::string::npos ? s : s.substr(sp + 1);
  };
  auto score = [&](const Topology& x) {
    const std::string m = gpu_model(x);
    const bool same = !model.empty() && !m.empty() && model.find(token(m)) != std::string::npos;
    return std::make_tuple(same ? 0 : 1, x.calibration == Calibration::kMeasured ? 0 : 1, x.gpu_count());
  };
  const Topology* best = nullptr;
  for (const Topology& p : o.presets)
    if (static_cast<int32_t>(p.gpu_count()) >= gpus && !p.nodes.empty() && (!best || score(p) < score(*best))) best = &p;
  if (!best)
    throw std::invalid_argument("the what-if needs a machine with " + std::to_string(gpus) +
                                " GPUs and no preset has them; name one with --machine");
  out = *best;
  origin = std::get<0>(score(*best)) == 0 ? "the preset with " + QString::number(gpus) + " " + qstr(token(model)) + " GPUs"
                                          : "the first preset with " + QString::number(gpus) + " GPUs (none has " + qstr(model) + ")";
}


void add_whatif(ReportDocument& doc, std::shared_ptr<const Trace> trace, const ReportOptions& o) {
  const Trace& t = *trace;
  for (const auto& [k, v] : o.whatif) sim::knob_registry().parse(k, v);  // KnobError names the knob
  auto progress = [&](const std::string& what) {
    if (o.progress) o.progress(what);
  };
  progress("what-if: dependency graph");
  whatif::GraphOptions go;
  go.step_regex = o.step_regex;
  const whatif::DepGraph graph = whatif::build_dep_graph(t, go);
  Topology topology;
  QString topology_origin;
  whatif_topology(t, o, std::max(1, graph.gpu_count()), topology, topology_origin);
  if (static_cast<int32_t>(topology.gpu_count()) < std::max(1, graph.gpu_count()))
    throw std::invalid_argument("the what-if needs a machine with " + std::to_string(graph.gpu_count()) + " GPUs; " +
                                topology.name + " has " + std::to_string(topology.gpu_count()));
  whatif::WhatIfInput base;
  base.measured = &t;
  base.graph = &graph;
  base.topology = topology;
  base.cache = std::make_shared<whatif::CommCache>();
  progress("what-if: replay");
  const whatif::WhatIfOutput replay = whatif::run_whatif(base);
  whatif::WhatIfInput in = base;
  in.overrides = o.whatif;
  in.want_trace = true;
  progress("what-if: prediction");
  whatif::WhatIfOutput predicted = whatif::run_whatif(in);
  const whatif::WhatIfSummary& rs = replay.summary;
  const whatif::WhatIfSummary& ps = predicted.summary;

  Section& s = doc.add_section("whatif", "What-if");
  QStringList knobs;
  for (const auto& [k, v] : o.whatif) knobs << qstr(k) + "=" + qstr(v);
  std::vector<Fact> f{{"Knobs", knobs.join(" ")},
                      {"Topology", qstr(ps.topology) + " (" + qstr(ps.calibration) + "; " + topology_origin + ")"},
                      {"Steps", QString::number(rs.steps.size()) + " step ranges (per step and process)"}};
  QStringList changes;
  for (const auto& c : ps.changes) changes << qstr(c);
  f.push_back({"Changes", changes.isEmpty() ? QString("none (the knobs changed nothing in this trace)") : changes.join("; ")});
  s.facts(std::move(f));
  s.text("The replay runs the measured dependency graph on the interconnect model unchanged; its error against the "
         "measurement bounds what the prediction can be trusted for. The prediction applies the knobs to the same graph.");

  DataTable cmp;
  cmp.id = "whatif_comparison";
  cmp.title = "Predicted vs measured";
  cmp.note = "step time: mean over steps of the slowest rank (host range; GPU: first to last GPU op of the step); "
             "exposed communication: the largest over ranks";
  cmp.column("metric").column("measured", "ns", true).column("replay", "ns", true).column("predicted", "ns", true)
      .column("predicted vs measured", "fraction", true).column("predicted vs replay", "fraction", true);
  auto row = [&](std::string name, double measured, double rep, double pred) {
    cmp.add_row({text_cell(std::move(name)), ns_cell(measured), ns_cell(rep), ns_cell(pred), rel_cell(pred, measured),
                 rel_cell(pred, rep)});
  };
  row("step time", rs.measured_step_ns, rs.step_ns, ps.step_ns);
  row("GPU step time", rs.measured_gpu_step_ns, rs.gpu_step_ns, ps.gpu_step_ns);
  row("exposed communication", static_cast<double>(rs.measured_exposed_ns), static_cast<double>(rs.exposed_ns),
      static_cast<double>(ps.exposed_ns));
  auto comm_of = [](const std::vector<whatif::RankCommunication>& v, int32_t rank) -> const whatif::RankCommunication* {
    for (const auto& c : v)
      if (c.rank == rank) return &c;
    return nullptr;
  };
  for (const auto& m : rs.measured_communication) {
    const auto* r = comm_of(rs.communication, m.rank);
    const auto* p = comm_of(ps.communication, m.rank);
    row("exposed communication, rank " + std::to_string(m.rank), static_cast<double>(m.exposed_ns),
        r ? static_cast<double>(r->exposed_ns) : 0, p ? static_cast<double>(p->exposed_ns) : 0);
    row("communication, rank " + std::to_string(m.rank), static_cast<double>(m.communication_ns),
        r ? static_cast<double>(r->communication_ns) : 0, p ? static_cast<double>(p->communication_ns) : 0);
  }
  s.table(std::move(cmp));

  DataTable steps;
  steps.id = "whatif_steps";
  steps.title = "Per step and rank";
  steps.note = "host range of each step: measured, replayed, predicted (the predicted run's step of the same name)";
  steps.column("step").column("rank", "", true).column("measured", "ns", true).column("replay", "ns", true)
      .column("predicted", "ns", true).column("predicted vs measured", "fraction", true);
  for (size_t i = 0; i < rs.steps.size(); ++i) {
    const whatif::StepTimes& st = rs.steps[i];
    const whatif::StepTimes* pt = nullptr;
    for (const auto& x : ps.steps)
      if (x.step == st.step && x.process == st.process) pt = &x;
    steps.add_row({text_cell(st.step), int_cell(st.rank), ns_cell(static_cast<double>(st.measured_ns)),
                   ns_cell(static_cast<double>(st.replay_ns)), ns_cell(pt ? static_cast<double>(pt->replay_ns) : 0),
                   pt ? rel_cell(static_cast<double>(pt->replay_ns), static_cast<double>(st.measured_ns)) : text_cell("-")});
  }
  s.table(std::move(steps), o.top);

  DataTable links;
  links.id = "whatif_links";
  links.title = "Link utilization, replay vs predicted";
  links.note = "mean utilization = bytes / (capacity x replayed span); peak: the busiest moment";
  links.column("link").column("capacity", "bytes/s", true).column("replay bytes", "bytes", true)
      .column("predicted bytes", "bytes", true).column("replay mean util", "fraction", true)
      .column("predicted mean util", "fraction", true).column("replay peak util", "fraction", true)
      .column("predicted peak util", "fraction", true);
  for (const whatif::LinkUse& p : ps.links) {
    const whatif::LinkUse* r = nullptr;
    for (const auto& x : rs.links)
      if (x.name == p.name) r = &x;
    links.add_row({text_cell(p.name), rate_cell(p.capacity_bytes_per_s), r ? bytes_cell(r->bytes) : text_cell("-"),
                   bytes_cell(p.bytes), r ? percent_cell(r->mean_utilization) : text_cell("-"), percent_cell(p.mean_utilization),
                   r ? percent_cell(r->peak_utilization) : text_cell("-"), percent_cell(p.peak_utilization)});
  }
  s.table(std::move(links), o.top);

  const whatif::WhatIfDiff d = whatif::diff_runs(replay, predicted, std::max<size_t>(o.top, 10));
  DataTable by;
  by.id = "whatif_by_kernel";
  by.title = "What changed, by kernel";
  by.note = "summed time per kernel name in the replay and in the prediction, largest change first";
  by.column("kernel").column("kind").column("count", "", true).column("replay", "ns", true).column("predicted", "ns", true)
      .column("change", "ns", true);
  for (const whatif::Divergence& x : d.by_name)
    by.add_row({text_cell(x.name), text_cell(x.kind), int_cell(x.count), duration_cell(x.measured_ns), duration_cell(x.replay_ns),
                DataCell{(x.replay_ns >= x.measured_ns ? "+" : "-") + format_duration(std::llabs(x.replay_ns - x.measured_ns)),
                         static_cast<double>(x.replay_ns - x.measured_ns)}});
  s.table(std::move(by));

  if (predicted.trace) {
    auto ptrace = std::make_shared<const Trace>(std::move(*predicted.trace));
    auto index = std::make_shared<const models::TimelineIndex>(*ptrace);
    const auto [a, b] = ptrace->time_span();
    Figure fig = timeline_figure(index, "whatif_timeline", "Predicted timeline (" + knobs.join(" ") + ")", a, b, o.figure_width);
    fig.paint = [inner = fig.paint, ptrace](QPainter& p, const QRectF& r) { inner(p, r); };  // keeps the trace alive
    s.figure(std::move(fig));
  }
  for (const auto& w : ps.warnings) s.text("What-if warning: " + qstr(w));
}


}  // namespace

ReportDocument build_report(std::shared_ptr<const Trace> trace, const ReportOptions& o) {
  const Trace& t = *trace;
  auto progress = [&](const std::string& what) {
    if (o.progress) o.progress(what);
  };
  ReportDocument doc;
  QStringList names;
  for (const auto& i : o.inputs) names << qstr(i);
  doc.title = "Parascope report";
  doc.subtitle = names.join(", ");

  // the machine: --machine, else the trace's own topology, else the preset with its GPUs, else inferred
  std::optional<Topology> chosen = o.machine;
  if (!chosen && !t.topology && o.match_preset) {
    const int best = best_matching_topology(t, o.presets);
    if (best >= 0) chosen = o.presets[static_cast<size_t>(best)];
  }
  const TraceMachine machine = trace_machine(t, chosen ? &*chosen : nullptr);

  progress("analyses");
  const SliceClassifier classify(t);
  const std::vector<DeviceActivity> activity = device_activity(t, classify);
  const std::vector<BusyIdle> busy = busy_idle(activity);
  const std::vector<DeviceOverlap> overlap = compute_overlap(activity);
  const std::vector<DeviceExposedCommunication> exposed = exposed_communication(t, classify, activity);
  const KernelStats kernels = kernel_stats(t, classify);
  const std::vector<CollectiveBandwidth> bandwidth = collective_bandwidth(t);

  add_metadata(doc, t, o, machine, kernels);

  // timelines
  progress("timelines");
  const auto [span_start, span_end] = t.time_span();
  auto index = std::make_shared<const models::TimelineIndex>(t);
  {
    Section& s = doc.add_section("timeline", "Timeline");
    s.text("Ranks, GPUs and streams over time, coloured by category (compute, communication, memory, sync, host); "
           "the SVG keeps the labels as text.");
    Figure whole = timeline_figure(index, "timeline", "The whole trace (" + dur(span_end - span_start) + ")", span_start,
                                   span_end, o.figure_width);
    whole.paint = [inner = whole.paint, trace](QPainter& p, const QRectF& r) { inner(p, r); };
    s.figure(std::move(whole));
    for (size_t i = 0; i < o.ranges.size(); ++i) {
      const Interval w = o.ranges[i];
      Figure f = timeline_figure(index, QString("range%1").arg(i + 1),
                                 QString("Range %1: %2 .. %3 after the trace start (%4)")
                                     .arg(i + 1).arg(dur(w.start - span_start), dur(w.end - span_start), dur(w.end - w.start)),
                                 w.start, w.end, o.figure_width);
      f.paint = [inner = f.paint, trace](QPainter& p, const QRectF& r) { inner(p, r); };
      s.figure(std::move(f));
    }
  }

  // overlap and exposed communication
  {
    Section& s = doc.add_section("overlap", "Overlap and exposed communication");
    s.text("Communication is exposed when no compute kernel runs on its GPU at the same time: that time adds to the step. "
           "Hidden communication ran under compute.");
    s.table(overlap_table(t, overlap, exposed));
    s.table(busy_idle_table(t, busy));
    s.table(exposed_by_name_table(t, exposed, 0), o.top);
    std::vector<Interval> windows;
    if (o.ranges.empty()) windows.push_back({span_start, span_end});
    for (const Interval& w : o.ranges) windows.push_back(w);
    const QFont font("DejaVu Sans", 9);
    const double line = QFontMetrics(font).height() + 2;
    for (size_t wi = 0; wi < windows.size(); ++wi) {
      for (uint32_t d = 0; d < t.devices.size() && d < 8; ++d) {
        const QString where = o.ranges.empty() ? QString("whole trace") : QString("range %1").arg(wi + 1);
        auto data = std::make_shared<const render::OverlapChartData>(render::overlap_chart_data(
            t, classify, d, windows[wi], qstr(device_label(t, static_cast<uint16_t>(d))) + " · " + where));
        if (data->bars.empty() && data->sms.empty()) continue;
        Figure f;
        f.id = QString("overlap_w%1_d%2").arg(wi + 1).arg(d);
        f.caption = "Overlap on " + qstr(device_label(t, static_cast<uint16_t>(d))) + ", " + where;
        const double bars = line * (4 + 1.6 * static_cast<double>(data->bars.size()));
        f.size = QSize(o.figure_width, static_cast<int>(data->sms.empty() ? bars + line : bars + 220));
        f.paint = [data, font](QPainter& p, const QRectF& r) { render::paint_overlap_chart(p, r, *data, font); };
        s.figure(std::move(f));
      }
    }
  }

  // links and topology
  progress("links");
  {
    Section& s = doc.add_section("links", "Link utilization");
    const std::vector<LinkCounter> counters = link_counters(t, true);
    const Interval window{span_start, span_end};
    if (counters.empty()) {
      s.text("No link counters, peer copies or sized collectives in this trace: nothing to place on links.");
    } else {
      models::LinkChartOptions lo;
      lo.window = window;
      lo.origin = span_start;
      lo.buckets = static_cast<size_t>(o.figure_width / 2);
      lo.title = "Link load (bytes/s per link and direction; measured solid, estimated dashed, simulated hatched)";
      s.figure(chart_figure("link_chart", "Link utilization over the trace", models::link_chart_spec(counters, lo),
                            QSize(o.figure_width, 460)));
    }
    s.table(link_stats_table(counters, link_stats(counters, window)), o.top);
    const auto loads = topology_link_loads(machine, counters, window);
    if (!machine.topology.nodes.empty()) {
      auto topo = std::make_shared<const Topology>(machine.topology);
      auto layout = std::make_shared<const models::TopologyLayout>(models::layout_topology(*topo));
      auto shared_loads = std::make_shared<const std::vector<TopoLinkLoad>>(loads);
      Figure f;
      f.id = "topology";
      f.caption = "The machine (" + machine_origin(machine) + "), links coloured by mean utilization over the trace";
      // as tall as the layout at the painter's scale (at most 2x, fit_topology), plus title and colour scale
      const double scale = std::min(2.0, (o.figure_width - 24) / std::max(layout->width, 1.0));
      f.size = QSize(o.figure_width, static_cast<int>(std::clamp(layout->height * scale + 24 + 52 + 16, 240.0, 1000.0)));
      const QString title = qstr(topo->name) + " · " + QString::number(topo->gpu_count()) + " GPUs";
      f.paint = [topo, layout, shared_loads, title](QPainter& p, const QRectF& r) {
        p.setRenderHint(QPainter::Antialiasing);
        render::paint_topology(p, r, *topo, *layout, *shared_loads, title);
      };
      s.figure(std::move(f));
      s.table(topology_link_table(machine, loads), o.top);
    }
  }

  // roofline
  progress("roofline");
  {
    Section& s = doc.add_section("roofline", "Roofline");
    const RooflineCeilings ceilings = ceilings_with_datasheet(machine.topology, o.presets);
    auto roof = std::make_shared<const Roofline>(compute_roofline(t, classify, ceilings));
    s.text(QString("Ceilings of %1: %2 bf16, %3 HBM, %4 links per direction%5. %6 of %7 kernels have a FLOP count.")
               .arg(qstr(ceilings.gpu), qstr(format_flops(ceilings.bf16_flops)), qstr(format_rate(ceilings.hbm_bytes_per_s)),
                    qstr(format_rate(ceilings.link_bytes_per_s)),
                    ceilings.peaks_from.empty() ? QString() : " (peaks from " + qstr(ceilings.peaks_from) + ")")
               .arg(roof->kernels_with_flops).arg(roof->kernels));
    if (roof->kernels_with_flops > 0)
      s.figure(chart_figure("roofline_chart", "Kernels against the compute, HBM and link ceilings",
                            models::roofline_chart_spec(t, *roof), QSize(o.figure_width, 620)));
    s.table(roofline_table(t, *roof), o.top);
  }

  // kernels and collectives
  {
    Section& s = doc.add_section("kernels", "Kernels and collectives");
    s.table(kernel_summary_table(t, kernels));
    s.table(kernel_stats_table(t, kernels.overall, 0), o.top);
    s.table(collectives_table(t, summarize_collective_bandwidth(t, bandwidth)));
  }

  if (!o.whatif.empty()) add_whatif(doc, trace, o);
  return doc;
}

}  // namespace parascope::report
