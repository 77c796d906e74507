#include "render/roofline_chart.h"

#include <algorithm>
#include <cmath>

#include "render/link_chart.h"

namespace parascope::render {

ChartSpec roofline_chart_spec(const Trace& trace, const Roofline& r, std::vector<int>* point_of_series) {
  ChartSpec spec;
  const RooflineCeilings& c = r.ceilings;
  spec.x.title = "arithmetic intensity (FLOP per byte moved)";
  spec.y.title = "FLOP/s";
  spec.x.log = spec.y.log = true;
  const int64_t unplaced = r.kernels - r.kernels_with_flops;
  spec.title = QString::fromStdString(c.gpu.empty() ? "Roofline" : "Roofline — " + c.gpu);
  if (unplaced > 0) spec.title += QString(" · %1 of %2 kernels have no FLOP count (table)").arg(unplaced).arg(r.kernels);
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
  auto roof = [&](double bw, const QString& name, SeriesStyle style, QColor color) {
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
  roof(c.hbm_bytes_per_s, QString("HBM roof %1 · peak %2").arg(QString::fromStdString(format_rate(c.hbm_bytes_per_s)),
                                                               QString::fromStdString(format_flops(c.bf16_flops))),
       SeriesStyle::kSolid, QColor(0x30, 0x30, 0x30));
  roof(c.link_bytes_per_s, QString("link roof %1").arg(QString::fromStdString(format_rate(c.link_bytes_per_s))), SeriesStyle::kDashed,
       QColor(0x80, 0x40, 0xa0));
  for (size_t i = 0; i < r.points.size(); ++i) {
    const RooflinePoint& p = r.points[i];
    if (p.with_flops == 0 || p.placement.achieved_flops_per_s <= 0) continue;
    const RooflinePlacement& pl = p.placement;
    const double share = total > 0 ? static_cast<double>(p.flops_ns) / static_cast<double>(total) : 0;
    const QString name = QString::fromStdString(std::string(trace.str(p.name)));
    QString label = QString("<b>%1</b><br>%2 × · %3 · %4<br>%5 of %6 attainable (%7-bound)<br>FLOPs from %8")
                        .arg(name.toHtmlEscaped())
                        .arg(p.count)
                        .arg(QString::fromStdString(format_duration(p.total_ns)), QString::fromStdString(format_flops(pl.achieved_flops_per_s)))
                        .arg(QString::number(pl.efficiency * 100, 'f', 1) + " %", QString::fromStdString(format_flops(pl.attainable_flops_per_s)),
                             QString::fromStdString(std::string(to_string(pl.bound))), QString::fromStdString(std::string(to_string(p.flop_source))));
    auto point = [&](double x, SeriesStyle style, const QString& what) {
      ChartSeries s;
      s.name = name + " (" + what + ")";
      s.kind = SeriesKind::kScatter;
      s.style = style;
      s.color = series_color(i);
      s.marker_size = 7 + 14 * std::sqrt(share);
      s.in_legend = false;
      s.points.emplace_back(x, pl.achieved_flops_per_s);
      s.labels << label + "<br>" + what + QString(": %1 FLOP/byte").arg(x, 0, 'g', 4);
      spec.series.push_back(std::move(s));
      if (point_of_series) point_of_series->push_back(static_cast<int>(i));
    };
    if (pl.hbm_intensity > 0) point(pl.hbm_intensity, SeriesStyle::kSolid, "per HBM byte");
    if (pl.link_intensity > 0) point(pl.link_intensity, SeriesStyle::kHollow, "per link byte");
    if (pl.hbm_intensity <= 0 && pl.link_intensity <= 0) point(xmin * 1.5, SeriesStyle::kHollow, "bytes unknown");
  }
  return spec;
}

}  // namespace parascope::render
