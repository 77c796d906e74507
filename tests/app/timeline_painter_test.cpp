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
