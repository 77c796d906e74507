#include "models/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "models/link_chart.h"

namespace parascope::models {

namespace {

// "4" → 4, "1.5" → 1.5, "64MiB" → 64 x 2^20, "ring" → NaN.
double numeric(const std::string& s, bool& plain) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return NAN;
  const std::string unit(end);
  plain = unit.empty();
  if (unit.empty()) return v;
  static const std::pair<const char*, double> kUnits[] = {{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
                                                          {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  for (const auto& [u, f] : kUnits)
    if (unit == u) return v * f;
  return NAN;
}

}  // namespace

ChartSpec sweep_chart_spec(const DataTable& sweep, double reference_step_ns) {
  ChartSpec spec;
  spec.empty_text = "Run a sweep to see the step time against a knob";
  size_t step_col = sweep.columns.size();
  for (size_t c = 0; c < sweep.columns.size(); ++c)
    if (sweep.columns[c].title == "step") {
      step_col = c;
      break;
    }
  if (step_col == 0 || step_col == sweep.columns.size()) return spec;
  const std::string& knob = sweep.columns[0].title;
  spec.title = "Predicted step time against " + knob;
  spec.x.title = knob;
  spec.y.title = "step time (ms)";
  // x values: numeric when every value is a plain number, else categories ordered by size, then text
  bool all_plain = true;
  std::vector<std::pair<double, std::string>> xs;
  for (const auto& row : sweep.rows) {
    bool plain = false;
    const double v = numeric(row[0].text, plain);
    all_plain = all_plain && plain;
    xs.emplace_back(v, row[0].text);
  }
  std::vector<std::pair<double, std::string>> order = xs;
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    const bool an = !std::isnan(a.first), bn = !std::isnan(b.first);
    if (an != bn) return an;
    if (an && a.first != b.first) return a.first < b.first;
    return a.second < b.second;
  });
  order.erase(std::unique(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second == b.second; }), order.end());
  std::map<std::string, double> x_of;
  for (size_t i = 0; i < order.size(); ++i) {
    x_of[order[i].second] = all_plain ? order[i].first : static_cast<double>(i);
    if (!all_plain) spec.x.categories.push_back(order[i].second);
  }
  if (all_plain && !order.empty() && order.front().first > 0 && order.back().first / order.front().first >= 16) spec.x.log = true;
  // one series per value of the second knob (if any)
  const bool two = step_col >= 2;
  std::map<std::string, size_t> series_of;
  std::vector<std::string> series_order;
  for (const auto& row : sweep.rows) {
    if (!row[step_col].numeric()) continue;
    const std::string key = two ? row[1].text : "";
    auto [it, fresh] = series_of.try_emplace(key, spec.series.size());
    if (fresh) {
      ChartSeries s;
      s.name = two ? sweep.columns[1].title + "=" + key : std::string("predicted step");
      s.kind = SeriesKind::kLine;
      s.style = SeriesStyle::kHatched;  // simulated
      s.color = series_color(spec.series.size());
      spec.series.push_back(std::move(s));
    }
    ChartSeries& s = spec.series[it->second];
    s.points.emplace_back(x_of[row[0].text], row[step_col].value / 1e6);
    s.labels.push_back(row[0].text + (two ? ", " + row[1].text : "") + ": " + row[step_col].text);
  }
  for (ChartSeries& s : spec.series) {
    std::vector<size_t> idx(s.points.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.points[a].x < s.points[b].x; });
    std::vector<ChartPoint> p;
    std::vector<std::string> l;
    for (size_t i : idx) {
      p.push_back(s.points[i]);
      l.push_back(s.labels[i]);
    }
    s.points = std::move(p);
    s.labels = std::move(l);
  }
  std::sort(spec.series.begin(), spec.series.end(), [](const ChartSeries& a, const ChartSeries& b) { return a.name < b.name; });
  if (reference_step_ns > 0 && !spec.series.empty() && !x_of.empty()) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [k, v] : x_of) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    ChartSeries r;
    r.name = "replay (no change)";
    r.kind = SeriesKind::kLine;
    r.style = SeriesStyle::kDashed;
    r.color = ChartColor{0x55, 0x55, 0x55};
    r.points = {ChartPoint{lo, reference_step_ns / 1e6}, ChartPoint{hi, reference_step_ns / 1e6}};
    spec.series.push_back(std::move(r));
  }
  return spec;
}

}  // namespace parascope::models
