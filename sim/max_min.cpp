#include "sim/max_min.h"

#include <algorithm>
#include <stdexcept>

namespace parascope::sim {

namespace {
// Two levels closer than this (relative) are the same level: a resource whose fair share is within
// it of the minimum saturates in the same round. Keeps symmetric problems from freezing one class
// per round because of rounding in the last bit.
constexpr double kLevelTolerance = 1e-12;
}  // namespace

uint32_t MaxMinProblem::add_class(uint32_t count, double bound, std::span<const uint32_t> resources,
                                  std::span<const double> weights) {
  if (!weights.empty() && weights.size() != resources.size())
    throw std::logic_error("max-min class: one weight per resource");
  MaxMinClass c;
  c.count = count;
  c.bound = bound;
  c.first_use = static_cast<uint32_t>(uses.size());
  c.use_count = static_cast<uint32_t>(resources.size());
  for (size_t i = 0; i < resources.size(); ++i) uses.push_back({resources[i], weights.empty() ? 1.0 : weights[i]});
  classes.push_back(c);
  return static_cast<uint32_t>(classes.size() - 1);
}

void MaxMinSolver::solve(const MaxMinProblem& p, std::vector<double>& rates) {
  const size_t nr = p.capacity.size();
  rates.assign(p.classes.size(), 0.0);
  remaining_.assign(p.capacity.begin(), p.capacity.end());
  load_.assign(nr, 0.0);
  saturated_.assign(nr, 0);
  unfrozen_.clear();
  rounds_ = 0;
  for (uint32_t v = 0; v < p.classes.size(); ++v) {
    const MaxMinClass& c = p.classes[v];
    if (c.count == 0) continue;
    if (c.use_count == 0) {
      rates[v] = c.bound;  // nothing shared: only its own cap (kUnbounded when none)
      continue;
    }
    unfrozen_.push_back(v);
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u)
      load_[p.uses[u].resource] += c.count * p.uses[u].weight;
  }
  while (!unfrozen_.empty()) {
    ++rounds_;
    // The level at which the next constraint binds: a resource's fair share or a class's bound.
    double level = kUnbounded;
    for (size_t r = 0; r < nr; ++r)
      if (load_[r] > 0) level = std::min(level, remaining_[r] / load_[r]);
    for (uint32_t v : unfrozen_) level = std::min(level, p.classes[v].bound);
    const double cut = level * (1 + kLevelTolerance);
    for (size_t r = 0; r < nr; ++r) saturated_[r] = load_[r] > 0 && remaining_[r] / load_[r] <= cut;
    // Freeze every class held by a saturated resource or by its own bound, at the level.
    size_t keep = 0;
    for (uint32_t v : unfrozen_) {
      const MaxMinClass& c = p.classes[v];
      bool freeze = c.bound <= cut;
      for (uint32_t u = c.first_use; !freeze && u < c.first_use + c.use_count; ++u) freeze = saturated_[p.uses[u].resource];
      if (!freeze) {
        unfrozen_[keep++] = v;
        continue;
      }
      rates[v] = std::min(level, c.bound);
      for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u) {
        const MaxMinUse& use = p.uses[u];
        const double w = c.count * use.weight;
        remaining_[use.resource] = std::max(0.0, remaining_[use.resource] - w * rates[v]);
        load_[use.resource] -= w;
        if (load_[use.resource] < 1e-9) load_[use.resource] = 0;  // every user frozen
      }
    }
    unfrozen_.resize(keep);
  }
}

}  // namespace parascope::sim
