// Sample statistics and bandwidth conventions for every table the harness prints. Percentiles
// interpolate linearly between order statistics (numpy's default), so p50 of {1,2,3,4} is 2.5.
// Bus bandwidth follows nccl-tests: algbw = bytes / time, busbw = algbw × factor(op, n), with
// `bytes` the per-rank buffer (all-gather: the gathered output; reduce-scatter: the input).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace parascope::bench {

struct Summary {
  int n = 0;
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
};

double percentile(std::vector<double> samples, double q);  // q in [0, 1]; NaN when empty
Summary summarize(const std::vector<double>& samples);

enum class Collective : uint8_t { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv, kCopy };
std::string_view collective_name(Collective c);
// nccl-tests' bus-bandwidth factor: all-reduce 2(n-1)/n, all-gather / reduce-scatter /
// all-to-all (n-1)/n, send/recv and copies 1.
double busbw_factor(Collective c, int nranks);
// Bytes per nanosecond are GB/s (10^9 B/s).
inline double gbps(uint64_t bytes, double ns) { return ns > 0 ? static_cast<double>(bytes) / ns : 0.0; }

// How to time one operation: ops per CUDA graph (K), timed repetitions (each gives one per-op
// sample = elapsed / K) and warm-up launches. Small messages get K ≥ 100 (launch gaps would
// otherwise dominate); long operations K = 1 so each sample is one operation.
struct TimingPlan {
  int ops_per_graph = 1;
  int reps = 10;
  int warmup = 2;
};
TimingPlan plan_timing(double estimated_ns_per_op);

}  // namespace parascope::bench
