#include "sim/minimize.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace parascope::sim {

namespace {

MinimizeResult nelder_mead(const std::function<double(const std::vector<double>&)>& f, const std::vector<double>& x0,
                           double step, int max_evaluations, double tolerance, int& evaluations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> pts(n + 1, x0);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += step;
  std::vector<double> vals(n + 1);
  auto eval = [&](const std::vector<double>& x) {
    ++evaluations;
    const double v = f(x);
    return std::isfinite(v) ? v : 1e300;
  };
  for (size_t i = 0; i <= n; ++i) vals[i] = eval(pts[i]);
  std::vector<size_t> order(n + 1);
  std::vector<double> c(n), xr(n), xe(n), xc(n);
  while (evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vals[a] < vals[b]; });
    const size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (std::fabs(vals[worst] - vals[best]) <= tolerance * (1 + std::fabs(vals[best]))) break;
    std::fill(c.begin(), c.end(), 0.0);
    for (size_t i = 0; i <= n; ++i)
      if (i != worst)
        for (size_t j = 0; j < n; ++j) c[j] += pts[i][j] / static_cast<double>(n);
    for (size_t j = 0; j < n; ++j) xr[j] = c[j] + (c[j] - pts[worst][j]);
    const double fr = eval(xr);
    if (fr < vals[best]) {
      for (size_t j = 0; j < n; ++j) xe[j] = c[j] + 2 * (c[j] - pts[worst][j]);
      const double fe = eval(xe);
      if (fe < fr) {
        pts[worst] = xe;
        vals[worst] = fe;
      } else {
        pts[worst] = xr;
        vals[worst] = fr;
      }
    } else if (fr < vals[second]) {
      pts[worst] = xr;
      vals[worst] = fr;
    } else {
      for (size_t j = 0; j < n; ++j) xc[j] = c[j] + 0.5 * (pts[worst][j] - c[j]);
      const double fc = eval(xc);
      if (fc < vals[worst]) {
        pts[worst] = xc;
        vals[worst] = fc;
      } else {
        for (size_t i = 0; i <= n; ++i) {
          if (i == best) continue;
          for (size_t j = 0; j < n; ++j) pts[i][j] = pts[best][j] + 0.5 * (pts[i][j] - pts[best][j]);
          vals[i] = eval(pts[i]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(vals.begin(), vals.end()) - vals.begin());
  return {pts[best], vals[best], evaluations};
}

}  // namespace

MinimizeResult minimize(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0, double step,
                        int max_evaluations, double tolerance) {
  int evaluations = 0;
  MinimizeResult best = nelder_mead(f, x0, step, max_evaluations, tolerance, evaluations);
  // Restart from the best point with a smaller simplex until a restart stops improving: Nelder-Mead
  // can stall on a collapsed simplex.
  for (int restart = 0; restart < 8 && evaluations < max_evaluations; ++restart) {
    MinimizeResult again = nelder_mead(f, best.x, step / (2.0 + restart), max_evaluations, tolerance, evaluations);
    const bool better = again.value < best.value - tolerance * (1 + std::fabs(best.value));
    if (again.value < best.value) best = std::move(again);
    if (!better) break;
  }
  best.evaluations = evaluations;
  return best;
}

}  // namespace parascope::sim
