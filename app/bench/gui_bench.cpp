// parascope-gui-bench: how the timeline holds up at tens of millions of events. Generates a trace
// shaped like an 8-GPU run with SM lanes (synthetic_trace.h), builds the timeline index, paints
// the timeline widget offscreen at 1920 × 1080 and replays a scripted sweep of zooms and pans from
// the whole trace down to 1 µs, timing every frame. The same sweep runs with level of detail off
// (the first version's painter, walking every visible slice) as the baseline, under a time cap,
// and once more with every rank folded (each a row of its GPU's activity strip). Prints a table and
// writes JSON.
//
//   parascope-gui-bench [--events N] [--size WxH] [--baseline-seconds S] [--json FILE] [--no-sweep]
//                       [--screenshot FILE]   (the main window on the generated trace, a fused GEMM selected)
//                       [--first-frame FILE]  (the timeline's first frame: the whole trace)
//                       [--write-pstrace FILE] (write the generated trace as .pstrace and stop)
//                       [--open INPUT...]     (measure a trace file instead: load_trace, then as above)
// trace/io first: pstrace_writer.h has a member named emit(), which Qt's `emit` macro would eat
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/pstrace_writer.h"
#include <QApplication>
#include <QElapsedTimer>
#include <QScrollBar>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/synthetic_trace.h"
#include "gui/find_bar.h"
#include "gui/main_window.h"
#include "gui/overlap_view.h"
#include "gui/timeline_view.h"


using namespace parascope;

namespace {

struct Mem {
  double rss_mb = 0, peak_mb = 0;
};
Mem memory() {
  Mem m;
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss_mb = std::stod(line.substr(6)) / 1024.0;
    if (line.rfind("VmHWM:", 0) == 0) m.peak_mb = std::stod(line.substr(6)) / 1024.0;
  }
  return m;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "?";
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Frame {
  render::PaintStats stats;
  double ms = 0;      // wall clock
  double cpu_ms = 0;  // this thread's CPU time (what the paint costs when the machine is shared)
  TimeNs view_ns = 0;
  size_t visited = 0, sampled = 0, bars = 0, labels = 0;
};

struct SweepResult {
  std::vector<Frame> frames;
  bool capped = false;
  double percentile(double p, bool cpu = false) const {
    if (frames.empty()) return 0;
    std::vector<double> v;
    for (const auto& f : frames) v.push_back(cpu ? f.cpu_ms : f.ms);
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1);
    return v[i];
  }
  double max_ms() const { return percentile(100); }
  double mean(double render::PaintStats::*field) const {
    double sum = 0;
    for (const auto& f : frames) sum += f.stats.*field;
    return frames.empty() ? 0 : sum / static_cast<double>(frames.size());
  }
  size_t max_visited() const {
    size_t m = 0;
    for (const auto& f : frames) m = std::max(m, f.visited);
    return m;
  }
};

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = 0;
  f >> l;
  return l;
}

Frame paint(gui::TimelineView& view) {
  QElapsedTimer t;
  const double cpu0 = thread_cpu_ms();
  t.start();
  view.viewport()->repaint();
  Frame f;
  f.ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
  f.cpu_ms = thread_cpu_ms() - cpu0;
  f.view_ns = view.mapping().duration();
  const auto s = view.last_paint_stats();
  f.stats = s;
  f.visited = s.slices_visited;
  f.sampled = s.cells_sampled;
  f.bars = s.bars_drawn;
  f.labels = s.labels_drawn;
  return f;
}

// Three passes (cursor at 20 %, 50 %, 80 % of the width; view scrolled to the top, the middle and
// the bottom of the track tree): zoom in 1.25× per frame from the whole trace to 1 µs with a pan of
// 1/8 of the width after every zoom, then zoom back out 1.5× per frame.
SweepResult sweep(gui::TimelineView& view, double cap_seconds) {
  SweepResult r;
  const auto start = std::chrono::steady_clock::now();
  const double w = view.mapping().width();
  const double anchors[3] = {0.2, 0.5, 0.8};
  const double scrolls[3] = {0.0, 0.5, 1.0};
  auto over = [&] {
    if (cap_seconds > 0 && seconds_since(start) > cap_seconds) {
      r.capped = true;
      return true;
    }
    return false;
  };
  for (int pass = 0; pass < 3; ++pass) {
    view.fit_all();
    auto* vs = view.verticalScrollBar();
    vs->setValue(static_cast<int>(scrolls[pass] * vs->maximum()));
    r.frames.push_back(paint(view));
    int k = 0;
    while (view.mapping().duration() > 1'000) {
      if (over()) return r;
      view.zoom_by(1.25, anchors[pass] * w);
      r.frames.push_back(paint(view));
      const double pan = (k++ % 2 ? -1 : 1) * w / 8;
      view.set_view(view.mapping().time_at(-pan), view.mapping().time_at(w - pan));
      r.frames.push_back(paint(view));
    }
    while (view.mapping().duration() < view.index()->end() - view.index()->start()) {
      if (over()) return r;
      view.zoom_by(1 / 1.5, anchors[2 - pass] * w);
      r.frames.push_back(paint(view));
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  int64_t events = 10'000'000;
  int width = 1920, height = 1080;
  double baseline_seconds = 120;
  std::string json = "gui_bench.json";
  bool run_sweep = true;
  std::string screenshot, first_png, write_path;
  std::vector<std::string> open_paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--events") events = std::stoll(next());
    else if (a == "--size") {
      const std::string s = next();
      width = std::stoi(s.substr(0, s.find('x')));
      height = std::stoi(s.substr(s.find('x') + 1));
    } else if (a == "--baseline-seconds") baseline_seconds = std::stod(next());
    else if (a == "--json") json = next();
    else if (a == "--no-sweep") run_sweep = false;
    else if (a == "--screenshot") screenshot = next();
    else if (a == "--first-frame") first_png = next();
    else if (a == "--write-pstrace") write_path = next();
    else if (a == "--open") {
      while (i + 1 < argc && argv[i + 1][0] != '-') open_paths.push_back(argv[++i]);
    }
    else {
      std::fprintf(stderr, "usage: parascope-gui-bench [--events N] [--size WxH] [--baseline-seconds S] [--json FILE] [--no-sweep] [--screenshot FILE]\n");
      return 2;
    }
  }
  QApplication app(argc, argv);
  const Mem m0 = memory();
  const double load_before = load_average();

  // the model: generated in memory, or read from files (e.g. the native .pstrace)
  auto t = std::chrono::steady_clock::now();
  bench::SyntheticOptions o;
  o.target_events = events;
  bench::SyntheticStats st;
  std::shared_ptr<const Trace> trace;
  if (open_paths.empty()) {
    trace = std::make_shared<const Trace>(bench::make_synthetic_trace(o, &st));
  } else {
    trace = std::make_shared<const Trace>(load_trace(open_paths));
    for (const Track& tr : trace->tracks) {
      st.slices += static_cast<int64_t>(tr.slices.size());
      st.counter_samples += static_cast<int64_t>(tr.counter.size());
    }
    st.kernels = static_cast<int64_t>(trace->kernels.size());
    st.sm_spans = static_cast<int64_t>(trace->sm_spans.size());
    st.flows = static_cast<int64_t>(trace->flows.size());
    o.ranks = static_cast<int>(trace->processes.size());
  }
  const double gen_s = seconds_since(t);
  if (!write_path.empty()) {
    t = std::chrono::steady_clock::now();
    write_pstrace(*trace, write_path);
    std::printf("wrote %s: %lld events in %.1f s (generated in %.1f s)\n", write_path.c_str(), static_cast<long long>(st.events()),
                seconds_since(t), gen_s);
    return 0;
  }
  const Mem m1 = memory();
  const double model_mb = static_cast<double>(trace->memory_bytes()) / 1048576.0;

  // import → first paint: the index (built on the loader thread in the GUI) and the first frame
  t = std::chrono::steady_clock::now();
  auto index = std::make_shared<const models::TimelineIndex>(*trace);
  const double index_s = seconds_since(t);
  gui::TimelineView view;
  view.set_show_flows(true);  // the worst case the numbers were taken with (View → Show All Flows; off by default)
  view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  view.resize(width + 40, height);
  view.show();
  QApplication::processEvents();
  view.resize(view.size() + QSize(width, height) - view.viewport()->size());  // the timeline itself is WxH
  QApplication::processEvents();
  t = std::chrono::steady_clock::now();
  view.set_trace(trace, index);
  const Frame first = paint(view);
  if (!first_png.empty()) view.viewport()->grab().save(QString::fromStdString(first_png));
  const double first_paint_s = index_s + seconds_since(t);
  const Mem m2 = memory();
  const double index_mb = static_cast<double>(index->memory_bytes()) / 1048576.0;

  // 1. the default tree (SM lanes folded into heat strips); 2. every SM lane expanded (one row per
  // SM, 4 role sub-rows each); 3. the baseline: the first version's painter, which had no heat
  // strips (every SM lane a row) and walked every visible slice; 4. every rank folded into its
  // activity strip (the default tree otherwise)
  SweepResult lod, lod_sm, base, folded;
  if (run_sweep) {
    lod = sweep(view, 0);
    for (size_t d = 0; d < trace->devices.size(); ++d) view.layout_options().expanded_sm.insert(static_cast<int32_t>(d));
    view.apply_layout_options(view.layout_options());
    lod_sm = sweep(view, 0);
    view.set_use_lod(false);
    base = sweep(view, baseline_seconds);
    view.set_use_lod(true);
    view.layout_options().expanded_sm.clear();
    for (uint32_t p = 0; p < trace->processes.size(); ++p) view.layout_options().collapsed.insert(models::process_key(p));
    view.apply_layout_options(view.layout_options());
    folded = sweep(view, 0);
  }
  const Mem m3 = memory();
  const double gui_mb = m3.rss_mb - m1.rss_mb;

  // the whole window: what the loader thread adds (kernel statistics, the summary) and the window's own work
  // (summary line, layout, docks) before its first paint, on top of the index built above
  double window_first_paint_s = 0;
  Mem m4;
  {
    t = std::chrono::steady_clock::now();
    const gui::LoadedTrace lt = gui::complete_load(trace, index);
    gui::MainWindow w;
    w.set_interactive(false);
    w.resize(width, height);
    w.show();
    w.show_loaded(lt, {"synthetic"});
    w.timeline()->viewport()->repaint();
    window_first_paint_s = index_s + seconds_since(t);
    m4 = memory();
  }
  const double model_rss_mb = m1.rss_mb - m0.rss_mb;

  std::printf("parascope-gui-bench: %lld events (%lld slices, %lld counter samples, %lld SM spans, %lld kernels, %lld flows), %d steps, %d ranks\n",
              static_cast<long long>(st.events()), static_cast<long long>(st.slices), static_cast<long long>(st.counter_samples),
              static_cast<long long>(st.sm_spans), static_cast<long long>(st.kernels), static_cast<long long>(st.flows), st.steps, o.ranks);
  std::printf("machine: %s, %u hardware threads, load average %.2f before / %.2f after; viewport %dx%d (offscreen)\n",
              cpu_model().c_str(), std::thread::hardware_concurrency(), load_before, load_average(), view.viewport()->width(),
              view.viewport()->height());
  std::printf("\n%-44s %14s %14s %14s %14s %10s\n", "metric", "LOD", "LOD, SM rows", "baseline", "ranks folded", "target");
  std::printf("%-44s %14.2f %14s %14s %14s %10s\n", open_paths.empty() ? "generate the trace (s)" : "load_trace (s)", gen_s, "", "", "", "");
  std::printf("%-44s %14.2f %14s %14s %14s %10s\n", "build the timeline index (s)", index_s, "", "", "", "");
  std::printf("%-44s %14.2f %14s %14s %14s %10s\n", "first paint after import (s)", first_paint_s, "", "", "", "<= 3");
  std::printf("%-44s %14.2f %14s %14s %14s %10s\n", "  of which the first frame (ms)", first.ms, "", "", "", "");
  std::printf("%-44s %14.2f %14s %14s %14s %10s\n", "first paint of the main window (s)", window_first_paint_s, "", "", "", "<= 3");
  if (run_sweep) {
    std::printf("%-44s %14zu %14zu %14zu%s%14zu %10s\n", "frames in the sweep", lod.frames.size(), lod_sm.frames.size(),
                base.frames.size(), base.capped ? "*" : " ", folded.frames.size(), "");
    auto row = [&](const char* name, auto get, const char* target) {
      std::printf("%-44s %14.2f %14.2f %14.2f %14.2f %10s\n", name, get(lod), get(lod_sm), get(base), get(folded), target);
    };
    row("frame time p50 (ms)", [](const SweepResult& r) { return r.percentile(50); }, "");
    row("frame time p99 (ms)", [](const SweepResult& r) { return r.percentile(99); }, "<= 16");
    row("frame time max (ms)", [](const SweepResult& r) { return r.max_ms(); }, "");
    row("frame CPU time p50 (ms)", [](const SweepResult& r) { return r.percentile(50, true); }, "");
    row("frame CPU time p99 (ms)", [](const SweepResult& r) { return r.percentile(99, true); }, "");
    row("frame CPU time max (ms)", [](const SweepResult& r) { return r.percentile(100, true); }, "");
    row("most slices walked in one frame", [](const SweepResult& r) { return static_cast<double>(r.max_visited()); }, "");
    using PS = render::PaintStats;
    row("  mean ms: layer (bars, strips, counters)", [](const SweepResult& r) { return r.mean(&PS::layer_ms); }, "");
    row("  mean ms:   of which SM heat strips", [](const SweepResult& r) { return r.mean(&PS::heat_ms); }, "");
    row("  mean ms:   of which folded rows' activity", [](const SweepResult& r) { return r.mean(&PS::activity_ms); }, "");
    row("  mean ms: blit", [](const SweepResult& r) { return r.mean(&PS::blit_ms); }, "");
    row("  mean ms: text, flows, ruler", [](const SweepResult& r) { return r.mean(&PS::overlay_ms); }, "");
    row("  mean ms:   of which slice names", [](const SweepResult& r) { return r.mean(&PS::labels_ms); }, "");
    row("  mean ms:   of which flows", [](const SweepResult& r) { return r.mean(&PS::flows_ms); }, "");
  }
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "model: Trace::memory_bytes (MiB)", model_mb, "", "", "", "");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "model: RSS growth while generating (MiB)", model_rss_mb, "", "", "", "");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "timeline index (MiB)", index_mb, "", "", "", "");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "GUI RSS on top of the model: timeline (MiB)", gui_mb, "", "", "", "");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "  as % of the model's memory_bytes", 100.0 * gui_mb / model_mb, "", "", "", "<= 20");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "GUI RSS, main window open (MiB)", m4.rss_mb - m1.rss_mb, "", "", "", "");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "  as % of the model's memory_bytes", 100.0 * (m4.rss_mb - m1.rss_mb) / model_mb, "", "", "", "<= 20");
  std::printf("%-44s %14.1f %14s %14s %14s %10s\n", "peak RSS (MiB)", memory().peak_mb, "", "", "", "");
  if (base.capped) std::printf("* baseline sweep stopped after %.0f s\n", baseline_seconds);

  FILE* jf = std::fopen(json.c_str(), "w");
  if (jf) {
    std::fprintf(jf, "{\n  \"schema_version\": 1,\n  \"events\": %lld,\n  \"slices\": %lld,\n  \"counter_samples\": %lld,\n",
                 static_cast<long long>(st.events()), static_cast<long long>(st.slices), static_cast<long long>(st.counter_samples));
    std::fprintf(jf, "  \"viewport\": [%d, %d],\n  \"generate_s\": %.3f,\n  \"index_s\": %.3f,\n  \"first_paint_s\": %.3f,\n  \"window_first_paint_s\": %.3f,\n",
                 view.viewport()->width(), view.viewport()->height(), gen_s, index_s, first_paint_s, window_first_paint_s);
    auto dump = [&](const char* name, const SweepResult& r) {
      std::fprintf(jf, "  \"%s\": {\"frames\": %zu, \"capped\": %s, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"cpu_p99_ms\": %.3f, \"cpu_max_ms\": %.3f, \"max_slices_walked\": %zu,\n    \"frame_ms\": [",
                   name, r.frames.size(), r.capped ? "true" : "false", r.percentile(50), r.percentile(99), r.max_ms(),
                   r.percentile(99, true), r.percentile(100, true), r.max_visited());
      for (size_t i = 0; i < r.frames.size(); ++i) std::fprintf(jf, "%s%.3f", i ? ", " : "", r.frames[i].ms);
      std::fprintf(jf, "],\n    \"frame_cpu_ms\": [");
      for (size_t i = 0; i < r.frames.size(); ++i) std::fprintf(jf, "%s%.3f", i ? ", " : "", r.frames[i].cpu_ms);
      std::fprintf(jf, "],\n    \"frame_parts_ms\": [");
      for (size_t i = 0; i < r.frames.size(); ++i) {
        const auto& ps = r.frames[i].stats;
        std::fprintf(jf, "%s[%.2f, %.2f, %.2f, %.2f, %zu]", i ? ", " : "", ps.layer_ms, ps.heat_ms, ps.blit_ms, ps.overlay_ms,
                     ps.slices_visited);
      }
      std::fprintf(jf, "],\n    \"view_ns\": [");
      for (size_t i = 0; i < r.frames.size(); ++i) std::fprintf(jf, "%s%lld", i ? ", " : "", static_cast<long long>(r.frames[i].view_ns));
      std::fprintf(jf, "]},\n");
    };
    if (run_sweep) {
      dump("lod", lod);
      dump("lod_sm_rows", lod_sm);
      dump("baseline", base);
      dump("lod_ranks_folded", folded);
    }
    std::fprintf(jf, "  \"model_mib\": %.1f,\n  \"model_rss_mib\": %.1f,\n  \"index_mib\": %.1f,\n  \"gui_rss_mib\": %.1f,\n  \"gui_window_rss_mib\": %.1f,\n  \"peak_rss_mib\": %.1f\n}\n",
                 model_mb, model_rss_mb, index_mb, gui_mb, m4.rss_mb - m1.rss_mb, memory().peak_mb);
    std::fclose(jf);
    std::printf("wrote %s\n", json.c_str());
  }
  (void)m2;
  if (!screenshot.empty()) {
    gui::MainWindow w;
    w.set_interactive(false);
    w.resize(1500, 850);
    w.show();
    const gui::LoadedTrace lt = gui::complete_load(trace, index);
    w.show_loaded(lt, {"synthetic"});
    w.find_bar()->set_pattern("ps_fused_gemm", MatchMode::kSubstring);
    EventRef k = w.find_bar()->find_next();
    while (k.valid() && trace->tracks[k.track].key.process != 0) k = w.find_bar()->find_next();  // rank 0's first
    w.overlap()->wait();
    if (k.valid()) {
      const TimeNs s0 = trace->tracks[k.track].slices.start[k.index];
      w.timeline()->set_view(s0 - 1'500'000, s0 + 3'000'000);
      w.timeline()->verticalScrollBar()->setValue(0);
    }
    for (int i = 0; i < 20; ++i) QApplication::processEvents();
    if (!w.grab().save(QString::fromStdString(screenshot))) {
      std::fprintf(stderr, "cannot write %s\n", screenshot.c_str());
      return 1;
    }
    std::printf("wrote %s\n", screenshot.c_str());
  }
  return 0;
}
