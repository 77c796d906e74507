#include "models/link_chart.h"

#include <algorithm>

namespace parascope::models {

ChartColor series_color(size_t i) {
  static constexpr uint32_t kPalette[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, 0x8c564b,
                                  0xe377c2, 0x17becf, 0xbcbd22, 0x7f7f7f};
  return ChartColor::rgb(kPalette[i % (sizeof kPalette / sizeof kPalette[0])]);
}

SeriesStyle style_of(CounterSource s) {
  switch (s) {
    case CounterSource::kMeasured: return SeriesStyle::kSolid;
    case CounterSource::kEstimated: return SeriesStyle::kDashed;
    case CounterSource::kSimulated: return SeriesStyle::kHatched;
  }
  return SeriesStyle::kSolid;
}

ChartSpec link_chart_spec(const std::vector<LinkCounter>& counters, const LinkChartOptions& o) {
  ChartSpec spec;
  spec.title = o.title;
  spec.x.title = "time (ms)";
  spec.y.title = "GB/s";
  spec.empty_text = "no link counters in this window";
  const Interval w = o.window;
  if (w.end <= w.start) return spec;
  spec.x.min = static_cast<double>(w.start - o.origin) * 1e-6;
  spec.x.max = static_cast<double>(w.end - o.origin) * 1e-6;
  const size_t n = std::max<size_t>(o.buckets, 1);
  const TimeNs len = w.end - w.start;
  auto x_at = [&](size_t b) {
    const TimeNs t = w.start + static_cast<TimeNs>(static_cast<long double>(len) * static_cast<long double>(b) / static_cast<long double>(n));
    return static_cast<double>(t - o.origin) * 1e-6;
  };
  for (size_t i = 0; i < counters.size(); ++i) {
    if (!o.shown.empty() && std::find(o.shown.begin(), o.shown.end(), i) == o.shown.end()) continue;
    const LinkCounter& c = counters[i];
    const std::vector<MinMax> env = decimate_min_max(c.time, c.bytes_per_s, w, n);
    ChartSeries s;
    s.name = c.name;
    s.kind = SeriesKind::kBand;
    s.style = style_of(c.source);
    s.color = series_color(i);
    s.points.reserve(env.size() * 2);
    s.lower.reserve(env.size() * 2);
    for (size_t b = 0; b < env.size(); ++b) {
      if (!env[b].covered) continue;
      // both ends of the bucket, so a value held over many buckets draws flat (a step, not a ramp)
      for (const double x : {x_at(b), x_at(b + 1)}) {
        s.points.emplace_back(x, env[b].max * 1e-9);
        s.lower.emplace_back(x, env[b].min * 1e-9);
      }
    }
    if (!s.points.empty()) spec.series.push_back(std::move(s));
  }
  spec.legend = spec.series.size() <= 4;  // more: the table beside the chart carries the colours
  return spec;
}

}  // namespace parascope::models
