#include "host/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace parascope::bench {

double percentile(std::vector<double> s, double q) {
  if (s.empty()) return NAN;
  std::sort(s.begin(), s.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

Summary summarize(const std::vector<double>& samples) {
  Summary r;
  r.n = static_cast<int>(samples.size());
  if (samples.empty()) return r;
  r.median = percentile(samples, 0.5);
  r.p10 = percentile(samples, 0.1);
  r.p90 = percentile(samples, 0.9);
  const auto [mn, mx] = std::minmax_element(samples.begin(), samples.end());
  r.min = *mn;
  r.max = *mx;
  r.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return r;
}

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kAllToAll: return "all_to_all";
    case Collective::kSendRecv: return "sendrecv";
    case Collective::kCopy: return "copy";
  }
  return "?";
}

double busbw_factor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::kAllReduce: return 2.0 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll: return (n - 1) / n;
    case Collective::kSendRecv:
    case Collective::kCopy: return 1.0;
  }
  return 1.0;
}

TimingPlan plan_timing(double est_ns) {
  TimingPlan p;
  if (est_ns <= 50e3) {
    p.ops_per_graph = 100;
    p.reps = 15;
    p.warmup = 2;
  } else {
    // about 1 ms of work per graph launch, at least one op
    p.ops_per_graph = static_cast<int>(std::clamp(std::ceil(1e6 / est_ns), 1.0, 100.0));
    p.reps = est_ns >= 2e6 ? 8 : 10;
    p.warmup = est_ns >= 2e6 ? 1 : 2;
  }
  return p;
}

}  // namespace parascope::bench
