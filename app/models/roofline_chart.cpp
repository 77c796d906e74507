#include "models/roofline_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/link_chart.h"

namespace parascope::models {

namespace {

// printf-style number text ("%.4g", "%.1f").
std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The characters HTML tooltips must not hold literally (those QString::toHtmlEscaped replaces).
std::string html_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

ChartSpec roofline_chart_spec(const Trace& trace, const Roofline& r, std::vector<int>* point_of_series) {
  ChartSpec spec;
  const RooflineCeilings& c = r.ceilings;
  spec.x.title = "arithmetic intensity (FLOP/byte)";
  spec.y.title = "performance (TFLOP/s)";
  spec.x.log = spec.y.log = true;
  const int64_t unplaced = r.kernels - r.kernels_with_flops;
  spec.title = c.gpu.empty() ? "Roofline" : "Roofline — " + c.gpu;
  if (unplaced > 0)
    spec.title += " · " + std::to_string(unplaced) + " of " + std::to_string(r.kernels) + " kernels have no FLOP count (table)";
  if (point_of_series) point_of_series->clear();
  double xmin = 0.1, xmax = 1e4, ymin = 1e12, ymax = std::max(c.bf16_flops, 1e13) * 2;
  TimeNs total = 0;
  for (const RooflinePoint& p : r.points) total += p.flops_ns;
  for (const RooflinePoint& p : r.points) {
    if (p.with_flops == 0) continue;
    const RooflinePlacement& pl = p.placement;
    for (double x : {pl.hbm_intensity, pl.link_intensity})
      if (x > 0) xmin = std::min(xmin, x / 3), xmax = std::max(xmax, x * 3);
    if (pl.achieved_flops_per_s > 0) ymin = std::min(ymin, pl.achieved_flops_per_s / 3);
  }
  xmin = std::pow(10, std::floor(std::log10(xmin)));
  xmax = std::pow(10, std::ceil(std::log10(xmax)));
  ymin = std::pow(10, std::floor(std::log10(ymin)));
  spec.x.min = xmin;
  spec.x.max = xmax;
  spec.y.min = ymin;
  spec.y.max = ymax;
  auto roof = [&](double bw, const std::string& name, SeriesStyle style, ChartColor color) {
    if (bw <= 0) return;
    ChartSeries s;
    s.name = name;
    s.kind = SeriesKind::kLine;
    s.style = style;
    s.color = color;
    const double peak = c.bf16_flops > 0 ? c.bf16_flops : ymax;
    const double ridge = peak / bw;
    const double x0 = std::max(xmin, ymin / bw);
    s.points.emplace_back(x0, bw * x0);
    if (ridge > x0 && ridge < xmax) s.points.emplace_back(ridge, peak);
    s.points.emplace_back(xmax, std::min(peak, bw * xmax));
    spec.series.push_back(std::move(s));
    if (point_of_series) point_of_series->push_back(-1);
  };
  roof(c.hbm_bytes_per_s, "HBM roof " + format_rate(c.hbm_bytes_per_s) + " · peak " + format_flops(c.bf16_flops), SeriesStyle::kSolid,
       ChartColor{0x30, 0x30, 0x30});
  roof(c.link_bytes_per_s, "link roof " + format_rate(c.link_bytes_per_s), SeriesStyle::kDashed, ChartColor{0x80, 0x40, 0xa0});
  for (size_t i = 0; i < r.points.size(); ++i) {
    const RooflinePoint& p = r.points[i];
    if (p.with_flops == 0 || p.placement.achieved_flops_per_s <= 0) continue;
    const RooflinePlacement& pl = p.placement;
    const double share = total > 0 ? static_cast<double>(p.flops_ns) / static_cast<double>(total) : 0;
    const std::string name(trace.str(p.name));
    const std::string label = "<b>" + html_escaped(name) + "</b><br>" + std::to_string(p.count) + " × · " + format_duration(p.total_ns) +
                              " · " + format_flops(pl.achieved_flops_per_s) + "<br>" + number("%.1f", pl.efficiency * 100) + " % of " +
                              format_flops(pl.attainable_flops_per_s) + " attainable (" + std::string(to_string(pl.bound)) +
                              "-bound)<br>FLOPs from " + std::string(to_string(p.flop_source));
    auto point = [&](double x, SeriesStyle style, const std::string& what) {
      ChartSeries s;
      s.name = name + " (" + what + ")";
      s.kind = SeriesKind::kScatter;
      s.style = style;
      s.color = series_color(i);
      s.marker_size = 7 + 14 * std::sqrt(share);
      s.in_legend = false;
      s.points.emplace_back(x, pl.achieved_flops_per_s);
      s.labels.push_back(label + "<br>" + what + ": " + number(x >= 1 ? "%.1f" : "%.3g", x) + " FLOP/byte");
      spec.series.push_back(std::move(s));
      if (point_of_series) point_of_series->push_back(static_cast<int>(i));
    };
    if (pl.hbm_intensity > 0) point(pl.hbm_intensity, SeriesStyle::kSolid, "per HBM byte");
    if (pl.link_intensity > 0) point(pl.link_intensity, SeriesStyle::kHollow, "per link byte");
    if (pl.hbm_intensity <= 0 && pl.link_intensity <= 0) point(xmin * 1.5, SeriesStyle::kHollow, "bytes unknown");
  }
  // placed in FLOP/s above, shown in TFLOP/s
  spec.y.min /= kRooflineYUnit;
  spec.y.max /= kRooflineYUnit;
  for (ChartSeries& s : spec.series)
    for (ChartPoint& pt : s.points) pt.y /= kRooflineYUnit;
  return spec;
}

}  // namespace parascope::models
