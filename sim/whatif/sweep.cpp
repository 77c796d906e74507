#include "sim/whatif/sweep.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "sim/knobs.h"

namespace parascope::whatif {

std::vector<KnobPoint> sweep_grid(const std::vector<std::string>& specs) {
  std::vector<KnobPoint> grid = {{}};
  for (const std::string& spec : specs) {
    const auto [name, values] = sim::parse_sweep(sim::knob_registry(), spec);
    std::vector<KnobPoint> next;
    for (const KnobPoint& point : grid)
      for (const auto& v : values) {
        KnobPoint p = point;
        p.emplace_back(name, v);
        next.push_back(std::move(p));
      }
    grid = std::move(next);
  }
  return grid;
}

std::string value_text(const std::string& knob, const sim::KnobValue& value) { return sim::knob_registry().format(knob, value); }

std::vector<SweepRow> run_sweep(const WhatIfInput& base, const std::vector<KnobPoint>& grid, size_t jobs,
                                const std::function<void(size_t, size_t)>& progress) {
  std::vector<SweepRow> rows(grid.size());
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex mutex;
  WhatIfInput shared = base;
  if (!shared.cache) shared.cache = std::make_shared<CommCache>();
  auto worker = [&]() {
    for (;;) {
      const size_t i = next++;
      if (i >= grid.size()) return;
      SweepRow& row = rows[i];
      row.point = grid[i];
      if (base.cancel && base.cancel->load(std::memory_order_relaxed)) {
        row.error = "cancelled";
        continue;
      }
      WhatIfInput in = shared;
      for (const auto& [k, v] : grid[i]) in.knobs.set_value(k, v);
      in.want_trace = false;
      try {
        const WhatIfOutput o = run_whatif(in);
        row.step_ns = o.summary.step_ns;
        row.gpu_step_ns = o.summary.gpu_step_ns;
        row.exposed_ns = o.summary.exposed_ns;
        row.changes = o.summary.changes;
      } catch (const std::exception& e) {
        row.error = e.what();  // "cancelled" for Cancelled
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (progress) progress(done, grid.size());
    }
  };
  jobs = std::max<size_t>(1, std::min(jobs, grid.size()));
  std::vector<std::thread> threads;
  for (size_t j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  std::stable_sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    return a.step_ns < b.step_ns;
  });
  return rows;
}

}  // namespace parascope::whatif
