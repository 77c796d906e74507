// Max-min fair sharing of resource capacities among flows (progressive filling, as SimGrid's LMM).
// A class stands for `count` identical flows (same resources, same weights, same per-flow bound):
// identical flows get identical rates in the max-min allocation, so solving over classes is exact
// and costs nothing per flow. A flow uses resource r at `weight` units of r's capacity per byte/s
// (1 for a link; an SM that reads and writes each byte may cost more). Rates are per flow, bytes/s.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace parascope::sim {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

struct MaxMinUse {
  uint32_t resource = 0;  // index into MaxMinProblem::capacity
  double weight = 1.0;    // > 0
};

struct MaxMinClass {
  uint32_t count = 1;          // identical flows in the class (0: ignored, rate 0)
  double bound = kUnbounded;   // per-flow cap, bytes/s
  uint32_t first_use = 0;      // uses[first_use, first_use + use_count)
  uint32_t use_count = 0;
};

// Plain data so tests and the flow model build it directly; vectors are reused between solves.
struct MaxMinProblem {
  std::vector<double> capacity;   // per resource, > 0
  std::vector<MaxMinUse> uses;
  std::vector<MaxMinClass> classes;
  void clear() {
    capacity.clear();
    uses.clear();
    classes.clear();
  }
  uint32_t add_resource(double cap) {
    capacity.push_back(cap);
    return static_cast<uint32_t>(capacity.size() - 1);
  }
  // Adds a class using `resources` (weight 1 each unless `weights` is given).
  uint32_t add_class(uint32_t count, double bound, std::span<const uint32_t> resources,
                     std::span<const double> weights = {});
};

// Reusable solver (scratch buffers kept between calls; no allocation once warm).
class MaxMinSolver {
 public:
  // Fills `rates` (one per class, per-flow bytes/s). A class with neither resources nor a bound
  // gets kUnbounded. Deterministic: same problem, same bits.
  void solve(const MaxMinProblem& p, std::vector<double>& rates);
  // Rounds of progressive filling in the last solve (each freezes at least one class).
  uint32_t last_rounds() const { return rounds_; }

 private:
  std::vector<double> remaining_;
  std::vector<double> load_;
  std::vector<uint8_t> saturated_;
  std::vector<uint32_t> unfrozen_;
  uint32_t rounds_ = 0;
};

}  // namespace parascope::sim
