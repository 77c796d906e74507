#include <catch2/catch.hpp>

#include <QImage>
#include <QPainter>

#include "app/qt_app.h"
#include "render/timeline_painter.h"
#include "trace/core/trace_builder.h"

using namespace parascope;
using namespace parascope::models;
using namespace parascope::render;

namespace {

// One stream: 50 000 compute kernels of 10 ns every 20 ns over [0, 1 ms), then 50 000 NCCL
// kernels the same way over [1 ms, 2 ms); and 4 SM lanes, SM s busy computing over [0, (s+1) us).
Trace dense_trace() {
  TraceBuilder b;
  Process p;
  p.rank = 0;
  const uint32_t proc = b.add_process(p);
  Device d;
  d.process = proc;
  d.ordinal = 0;
  const uint32_t dev = b.add_device(d);
  const uint32_t stream = b.track({TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), 7}, "stream 7");
  const StringId gemm = b.intern("gemm"), nccl = b.intern("ncclDevKernel_AllReduce");
  for (int i = 0; i < 100'000; ++i) b.add_slice(stream, i * 20, 10, i < 50'000 ? gemm : nccl, b.add_kernel(KernelInfo{}));
  for (int s = 0; s < 4; ++s) {
    const uint32_t t = b.track({TrackKind::kSmLane, proc, static_cast<int32_t>(dev), s}, "SM " + std::to_string(s));
    SmSpanInfo span;
    span.role = SmRole::kCompute;
    b.add_slice(t, 0, 1'000 * (s + 1), b.intern("tile"), b.add_sm_span(span));
  }
  return b.finish();
}

struct Render {
  QImage img;
  PaintStats stats;
};

Render draw(const TimelineIndex& index, const TrackLayout& layout, TimeNs t0, TimeNs t1, bool lod = true) {
  TimelineStyle style;
  style.label_width = 200;
  style.use_lod = lod;
  style.show_flows = false;
  Render r{QImage(1200, 200, QImage::Format_ARGB32_Premultiplied), {}};
  r.img.fill(Qt::white);
  QPainter p(&r.img);
  const TimelineMapping m(t0, t1, 1000);
  r.stats = TimelinePainter(index).paint(p, QRect(0, 0, 1200, 200), layout, m, 0, style);
  return r;
}

bool bluish(QRgb c) { return qBlue(c) > qRed(c) + 40; }
bool orangish(QRgb c) { return qRed(c) > qBlue(c) + 40; }

}  // namespace

TEST_CASE("The painter draws dense tracks from pyramids and thin slices folded", "[app][painter]") {
  test::qt_app();
  const Trace t = dense_trace();
  const TimelineIndex index(t);
  const TrackLayout layout(t, LayoutOptions{});
  // rows: rank (20) + GPU (20) headers, then stream 7 at y 40..58, under a 26 px ruler
  REQUIRE(layout.rows()[2].track == 0);
  const int y = 26 + 40 + 9;

  SECTION("the whole trace: 2 us per pixel, 100 kernels each, read from the pyramid") {
    const Render r = draw(index, layout, 0, 2'000'000);
    REQUIRE(r.stats.slices_visited == 4);  // no kernel walked one by one (none is 4 buckets long); the heat strip's 4 SM spans
    REQUIRE(r.stats.cells_sampled >= 1'000);
    // half of each pixel is covered: a pale shade of the dominant category, not the solid colour
    const QRgb compute = r.img.pixel(200 + 250, y), comm = r.img.pixel(200 + 750, y);
    REQUIRE(bluish(compute));
    REQUIRE(compute != category_color(Category::kCompute).rgb());
    REQUIRE(orangish(comm));
    SECTION("the first version walked all 100 000 kernels for the same picture") {
      const Render base = draw(index, layout, 0, 2'000'000, false);
      REQUIRE(base.stats.slices_visited == 100'000 + 4);  // and the heat strip's 4 SM spans
      REQUIRE(bluish(base.img.pixel(200 + 250, y)));
    }
  }
  SECTION("zoomed to 1 ns per pixel: every kernel drawn solid, one by one") {
    const Render r = draw(index, layout, 0, 1'000);
    REQUIRE(r.stats.slices_visited == 51 + 4);  // kernels 0..50 start in [0, 1000]; the heat strip walks 4 SM spans
    REQUIRE(r.img.pixel(200 + 5, y) == category_color(Category::kCompute).rgb());
    REQUIRE(r.img.pixel(200 + 15, y) == 0xfffbfbf9);  // the gap after the first kernel
  }
  SECTION("16 ns per pixel, finer than a bucket: 10 ns kernels fold into merged bars") {
    // lane grid: 100 000 slices over 2 ms at one per bucket → 20 ns → 32 ns buckets
    REQUIRE(index.lod(0).lane(0).pyramid.grid().bucket_ns == 32);
    const Render r = draw(index, layout, 0, 16'000);
    REQUIRE(r.stats.slices_visited == 801 + 4);  // kernels 0..800, and the 4 SM spans
    REQUIRE(r.stats.bars_drawn < 20);  // the 800 kernels touch each other at this scale
    REQUIRE(r.img.pixel(200 + 500, y) == category_color(Category::kCompute).rgb());
  }
}

TEST_CASE("The SM heat strip shows which SMs are busy", "[app][painter]") {
  test::qt_app();
  const Trace t = dense_trace();
  const TimelineIndex index(t);
  const TrackLayout layout(t, LayoutOptions{});
  const auto& rows = layout.rows();
  const auto strip = std::find_if(rows.begin(), rows.end(), [](const TimelineRow& r) { return r.kind == TimelineRow::Kind::kSmGroup; });
  REQUIRE(strip != rows.end());
  REQUIRE(strip->label == "SM lanes (4)");
  REQUIRE(strip->collapsed);  // folded by default
  const Render r = draw(index, layout, 0, 4'000);  // 4 ns per pixel
  // 63 pixel rows for 4 SMs: SM s fills rows [63 s / 4, 63 (s + 1) / 4)
  const int top = 26 + static_cast<int>(strip->y);
  auto at = [&](int sm, TimeNs time) { return r.img.pixel(200 + static_cast<int>(time / 4), top + (63 * sm) / 4 + 5); };
  REQUIRE(bluish(at(0, 500)));           // every SM computes during the first microsecond
  REQUIRE(bluish(at(3, 3'500)));         // only SM 3 still does at 3.5 us
  REQUIRE(at(0, 3'500) == 0xfffbfbf9);   // SM 0 is idle there
  REQUIRE(at(2, 3'500) == 0xfffbfbf9);
  REQUIRE(bluish(at(2, 2'500)));
}

TEST_CASE("A folded rank shows its GPU's activity instead of a blank row", "[app][painter][activity]") {
  // issue 18 item 10: Perfetto and Nsight summarise a collapsed process; the folded rank was blank
  test::qt_app();
  const Trace t = dense_trace();
  const TimelineIndex index(t);
  LayoutOptions o;
  o.collapsed.insert(process_key(0));
  const TrackLayout layout(t, o);
  REQUIRE(layout.rows().size() == 1);  // the folded rank is the whole tree
  REQUIRE(layout.rows()[0].collapsed);
  // the header spans layout y [0, 20) under the 26 px ruler; bars stand on y 19 (the row line)
  // and reach up to y 2 when the GPU is busy throughout
  const int low = 26 + 17, high = 26 + 4;
  const QRgb header = 0xffdde3ea;
  SECTION("the whole trace, 2 us per pixel from the pyramid: half-height bars, compute then communication") {
    const Render r = draw(index, layout, 0, 2'000'000);
    // 10 ns kernels every 20 ns: the GPU is busy half the time, so a bar of half the 17 px band
    CHECK(r.img.pixel(200 + 250, low) == category_color(Category::kCompute).rgb());
    CHECK(r.img.pixel(200 + 250, high) == header);
    CHECK(r.img.pixel(200 + 750, low) == category_color(Category::kCommunication).rgb());
    CHECK(r.img.pixel(200 + 750, high) == header);
    CHECK(r.stats.slices_visited == 0);
  }
  SECTION("1 ns per pixel: each kernel a full bar, the gaps empty") {
    const Render r = draw(index, layout, 0, 1'000);
    CHECK(r.img.pixel(200 + 5, high) == category_color(Category::kCompute).rgb());
    CHECK(r.img.pixel(200 + 15, low) == header);
    CHECK(r.stats.slices_visited == 51);  // kernels 0..50 start in [0, 1000]
  }
  SECTION("a folded GPU row shows the same") {
    LayoutOptions d;
    d.collapsed.insert(device_key(0));
    const TrackLayout ld(t, d);
    REQUIRE(ld.rows()[1].kind == TimelineRow::Kind::kDevice);
    const Render r = draw(index, ld, 0, 1'000);
    CHECK(r.img.pixel(200 + 5, 26 + 20 + 4) == category_color(Category::kCompute).rgb());
    CHECK(r.img.pixel(200 + 5, high) == header);  // the unfolded rank above: a plain band
  }
}

namespace {

// Two ranks, each a host thread launching two kernels on stream 7 (launch flows), and the ranks'
// first kernels paired as one collective (a cross-rank flow): 4 launch flows + 1 collective flow.
Trace flow_trace() {
  TraceBuilder b;
  EventRef first_kernel[2];
  for (int rank = 0; rank < 2; ++rank) {
    Process p;
    p.rank = rank;
    p.pid = 100 + rank;
    const uint32_t proc = b.add_process(p);
    Device d;
    d.process = proc;
    d.ordinal = 0;
    const uint32_t dev = b.add_device(d);
    const uint32_t host = b.track({TrackKind::kCpuThread, proc, -1, 1}, "thread 1");
    const uint32_t stream = b.track({TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), 7}, "stream 7");
    for (int k = 0; k < 2; ++k) {
      const EventRef launch = b.add_slice(host, k * 1'000, 100, b.intern("cudaLaunchKernel"), b.add_api_call(ApiInfo{}));
      const EventRef kernel = b.add_slice(stream, 200 + k * 1'000, 500, b.intern(k ? "gemm" : "ncclDevKernel_AllReduce"),
                                          b.add_kernel(KernelInfo{}));
      b.add_flow(launch, kernel, FlowKind::kLaunch);
      if (k == 0) first_kernel[rank] = kernel;
    }
  }
  b.add_flow(first_kernel[0], first_kernel[1], FlowKind::kCollective);
  return b.finish();
}

EventRef first_on(const Trace& t, int32_t rank, TrackKind kind, std::string_view name) {
  for (uint32_t tr = 0; tr < t.tracks.size(); ++tr) {
    const Track& track = t.tracks[tr];
    if (track.key.kind != kind || t.processes[track.key.process].rank != rank) continue;
    for (uint32_t i = 0; i < track.slices.size(); ++i)
      if (t.str(track.slices.name[i]) == name) return EventRef{tr, i};
  }
  return {};
}

}  // namespace

TEST_CASE("Flows are drawn for the selected slice only, unless all are asked for", "[app][painter][flows]") {
  test::qt_app();
  const Trace t = flow_trace();
  const EventRef nccl0 = first_on(t, 0, TrackKind::kGpuStream, "ncclDevKernel_AllReduce");
  const EventRef nccl1 = first_on(t, 1, TrackKind::kGpuStream, "ncclDevKernel_AllReduce");
  REQUIRE(nccl0.valid());
  REQUIRE(nccl1.valid());
  REQUIRE(t.flows.size() == 5);
  const TimelineIndex index(t);
  const TrackLayout layout(t, LayoutOptions{});
  TimelineStyle style;
  style.label_width = 200;
  auto flows_drawn = [&](const TimelineDecorations& deco) {
    QImage img(1200, 400, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    const TimelineMapping m(0, 2'000, 1000);
    return TimelinePainter(index).paint(p, QRect(0, 0, 1200, 400), layout, m, 0, style, deco).flows_drawn;
  };
  SECTION("nothing selected: no flows (Perfetto's default, not a hairball)") {
    CHECK_FALSE(style.show_flows);  // the default
    CHECK(flows_drawn({}) == 0);
  }
  SECTION("a selected kernel: its launch and its collective pairing, nothing else") {
    TimelineDecorations deco;
    deco.selected = nccl0;
    deco.selected_flows = flows_of(t, nccl0);
    REQUIRE(deco.selected_flows.size() == 2);
    for (const uint32_t f : deco.selected_flows) CHECK((t.flows[f].from == nccl0 || t.flows[f].to == nccl0));
    CHECK(flows_drawn(deco) == 2);
  }
  SECTION("a selected launch call: the one kernel it launched") {
    const EventRef launch = first_on(t, 1, TrackKind::kCpuThread, "cudaLaunchKernel");
    TimelineDecorations deco;
    deco.selected = launch;
    deco.selected_flows = flows_of(t, launch);
    REQUIRE(deco.selected_flows.size() == 1);
    CHECK(t.flows[deco.selected_flows[0]].kind == FlowKind::kLaunch);
    CHECK(flows_drawn(deco) == 1);
  }
  SECTION("View → Show All Flows: every flow in view") {
    style.show_flows = true;
    CHECK(flows_drawn({}) == 5);
  }
  CHECK(flows_of(t, EventRef{}).empty());
}
