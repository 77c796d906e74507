// Derivative-free minimisation for the calibration fits: Nelder-Mead on an unconstrained vector
// (callers fit logarithms of positive parameters), restarted from its best point until a restart
// no longer improves. Deterministic: fixed initial simplex, no randomness, same input -> same output.
#pragma once

#include <functional>
#include <vector>

namespace parascope::sim {

struct MinimizeResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
};

// Minimises f from x0; `step` is the initial simplex edge in every coordinate. Stops when the
// simplex's values agree within `tolerance` (relative) or after `max_evaluations`.
MinimizeResult minimize(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                        double step = 0.3, int max_evaluations = 20000, double tolerance = 1e-10);

}  // namespace parascope::sim
