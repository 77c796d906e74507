// sim headers first: sim/workload.h names a member `slots` (the library also builds with QT_NO_KEYWORDS)
#include "sim/knobs.h"
#include "render/qstr.h"
#include "sim/whatif/compare.h"

#include "report/report_builder.h"

#include <QDateTime>
#include <QFontMetrics>
#include <algorithm>
#include <cinttypes>
#include <cmath>

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
#include "trace/core/clock_alignment.h"
#include "trace/core/machine_choice.h"

namespace parascope::report {

namespace {

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

void add_metadata(ReportDocument& doc, const Trace& t, const ReportOptions& o, const TraceMachine& machine,
                  const QString& machine_reason, const KernelStats& kernels) {
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
  const std::vector<ClockAlignment> clocks = clock_alignments(t);
  for (size_t i = 0; i < t.processes.size(); ++i) {
    const Process& p = t.processes[i];
    QString who = p.rank >= 0 ? QString("rank %1").arg(p.rank) : QString("pid %1").arg(p.pid);
    QString v = QString("pid %1").arg(p.pid) + (p.host.empty() ? "" : " on " + qstr(p.host)) +
                (p.name.empty() ? "" : " · " + qstr(p.name)) + " · " + qstr(clocks[i].text);
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
                              .arg(machine_reason)
                              .arg(topo.calibration == Calibration::kMeasured ? "measured" : "datasheet")});
  f.push_back({"Warnings", QString::number(t.warnings.size())});
  f.push_back({"Notes", t.notes.empty() ? QString("0") : QString("%1 (section Notes)").arg(t.notes.size())});
  f.push_back({"Report", QString("Parascope 0.1.0, %1").arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate))});
  s.facts(std::move(f));
  for (const std::string& n : machine.notes) s.text("Machine: " + qstr(n));
  for (size_t i = 0; i < t.warnings.size() && i < 10; ++i) s.text("Warning: " + qstr(t.warnings[i]));
  if (t.warnings.size() > 10) s.text(QString("… and %1 more warnings (parascope-cli info lists them).").arg(t.warnings.size() - 10));
}

// The trace's notes (how it was made: a collector's run summary, NVLink sampling's setup), apart
// from its warnings, which the metadata section lists.
void add_notes(ReportDocument& doc, const Trace& t) {
  if (t.notes.empty()) return;
  Section& s = doc.add_section("notes", "Notes: how the trace was made");
  for (size_t i = 0; i < t.notes.size() && i < 10; ++i) s.text(qstr(t.notes[i]));
  if (t.notes.size() > 10) s.text(QString("… and %1 more notes (parascope-cli info lists them).").arg(t.notes.size() - 10));
}

void add_whatif(ReportDocument& doc, const Trace& t, const ReportOptions& o) {
  whatif::CompareSettings cs;
  cs.knobs = o.whatif;
  cs.machine = o.machine;
  cs.presets = &o.presets;
  cs.step_regex = o.step_regex;
  cs.want_trace = true;
  cs.top = std::max<size_t>(o.top, 10);
  cs.progress = o.progress;
  whatif::Comparison c = whatif::compare(t, cs);
  const whatif::WhatIfSummary& rs = c.replay.summary;
  const whatif::WhatIfSummary& ps = c.shown().summary;

  Section& s = doc.add_section("whatif", "What-if");
  std::vector<Fact> f{{"Knobs", qstr(c.label)},
                      {"Topology", qstr(ps.topology) + " (" + qstr(ps.calibration) + "; " + qstr(c.machine.reason) + ")"},
                      {"Steps", QString::number(rs.steps.size()) + " step ranges (per step and process)"}};
  f.push_back({"Changes", qstr(whatif::comparison_changes(c))});
  f.push_back({"Result", qstr(whatif::comparison_headline(c))});
  s.facts(std::move(f));
  s.text("The replay runs the measured dependency graph on the interconnect model unchanged; its error against the "
         "measurement bounds what the prediction can be trusted for. The prediction applies the knobs to the same graph.");
  s.table(std::move(c.tables.comparison));
  s.table(std::move(c.tables.steps), o.top);
  s.table(std::move(c.tables.links), o.top);
  s.table(std::move(c.tables.by_kernel));
  if (c.prediction && c.prediction->trace) {
    auto ptrace = std::make_shared<const Trace>(std::move(*c.prediction->trace));
    auto index = std::make_shared<const models::TimelineIndex>(*ptrace);
    const auto [a, b] = ptrace->time_span();
    Figure fig = timeline_figure(index, "whatif_timeline", "Predicted timeline (" + qstr(c.label) + ")", a, b, o.figure_width);
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

  const MachineChoice choice = choose_machine(t, o.presets, {o.machine});
  const TraceMachine machine = trace_machine(t, choice);

  progress("analyses");
  const SliceClassifier classify(t);
  const std::vector<DeviceActivity> activity = device_activity(t, classify);
  const std::vector<BusyIdle> busy = busy_idle(activity);
  const std::vector<DeviceOverlap> overlap = compute_overlap(activity);
  const std::vector<DeviceExposedCommunication> exposed = exposed_communication(t, classify, activity);
  const KernelStats kernels = kernel_stats(t, classify);
  const std::vector<CollectiveBandwidth> bandwidth = collective_bandwidth(t);

  add_metadata(doc, t, o, machine, qstr(choice.reason), kernels);

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
    s.table(link_stats_table(counters, link_stats(counters, window, counter_capacities(machine, counters))), o.top);
    const auto loads = topology_link_loads(machine, counters, window);
    if (!machine.topology.nodes.empty()) {
      auto topo = std::make_shared<const Topology>(machine.topology);
      auto layout = std::make_shared<const models::TopologyLayout>(models::layout_topology(*topo));
      auto shared_loads = std::make_shared<const std::vector<TopoLinkLoad>>(loads);
      Figure f;
      f.id = "topology";
      f.caption = "The machine (" + qstr(choice.reason) + "), links coloured by mean utilization over the trace";
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
    std::vector<Topology> others;
    for (const Preset& p : o.presets) others.push_back(p.topology);
    const RooflineCeilings ceilings = ceilings_with_datasheet(machine.topology, others);
    auto roof = std::make_shared<const Roofline>(compute_roofline(t, classify, ceilings));
    s.text(QString("Ceilings of %1: %2 bf16, %3 HBM, %4 links per direction%5. %6.")
               .arg(qstr(ceilings.gpu), qstr(format_flops(ceilings.bf16_flops)), qstr(format_rate(ceilings.hbm_bytes_per_s)),
                    qstr(format_rate(ceilings.link_bytes_per_s)),
                    ceilings.peaks_from.empty() ? QString() : " (peaks from " + qstr(ceilings.peaks_from) + ")",
                    qstr(roofline_flop_coverage(*roof))));
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

  if (!o.whatif.empty()) add_whatif(doc, t, o);
  add_notes(doc, t);
  return doc;
}

}  // namespace parascope::report
