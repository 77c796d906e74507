#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/saturating.h"

#include <algorithm>
#include <map>

namespace parascope {

double bus_bandwidth_factor(CollectiveOp op, int32_t n) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return n >= 1 ? 2.0 * (n - 1) / n : 0.0;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
      return n >= 1 ? static_cast<double>(n - 1) / n : 0.0;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSend:
    case CollectiveOp::kRecv:
    case CollectiveOp::kSendRecv:
      return 1.0;
    case CollectiveOp::kUnknown:
    case CollectiveOp::kBarrier:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      break;
  }
  return 0.0;
}

uint64_t collective_bytes(const CollectiveInfo& c) {
  return std::max(c.in_elements, c.out_elements) * c.dtype_bytes;
}

std::vector<int32_t> parse_group_ranks(std::string_view text) {
  std::vector<int32_t> out;
  int64_t v = 0;
  bool in = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      v = v * 10 + (ch - '0');
      if (v > 1'000'000'000) return {};
      in = true;
    } else {
      if (in) out.push_back(static_cast<int32_t>(v));
      v = 0;
      in = false;
      if (!(ch == '[' || ch == ']' || ch == ',' || ch == ' ')) return {};
    }
  }
  if (in) out.push_back(static_cast<int32_t>(v));
  return out;
}

int32_t collective_group_size(const Trace& trace, const CollectiveInfo& c) {
  if (c.group_size > 0) return c.group_size;
  return static_cast<int32_t>(parse_group_ranks(trace.str(c.group_ranks)).size());
}

uint64_t collective_wire_bytes(const Trace& trace, const CollectiveInfo& c) {
  if (c.op == CollectiveOp::kRecv) return 0;
  const double f = bus_bandwidth_factor(c.op, collective_group_size(trace, c));
  return static_cast<uint64_t>(static_cast<double>(collective_bytes(c)) * f + 0.5);
}

std::vector<CollectiveBandwidth> collective_bandwidth(const Trace& trace) {
  std::vector<CollectiveBandwidth> out;
  for (uint32_t ci = 0; ci < trace.collectives.size(); ++ci) {
    const CollectiveInfo& c = trace.collectives[ci];
    if (!c.kernel.valid() || c.kernel.track >= trace.tracks.size()) continue;
    const Track& t = trace.tracks[c.kernel.track];
    if (c.kernel.index >= t.slices.size()) continue;
    CollectiveBandwidth r;
    r.collective = ci;
    r.device = t.key.device;
    r.start = t.slices.start[c.kernel.index];
    r.dur = t.slices.dur[c.kernel.index];
    r.bytes = collective_bytes(c);
    if (r.bytes > 0 && r.dur > 0) {
      r.algbw_bytes_per_s = static_cast<double>(r.bytes) / (static_cast<double>(r.dur) * 1e-9);
      r.busbw_bytes_per_s = r.algbw_bytes_per_s * bus_bandwidth_factor(c.op, collective_group_size(trace, c));
    }
    out.push_back(r);
  }
  return out;
}

std::vector<CollectiveOpSummary> summarize_collective_bandwidth(const Trace& trace,
                                                                const std::vector<CollectiveBandwidth>& rows) {
  struct Acc {
    CollectiveOpSummary s;
    double bus_bytes = 0;  // sum of S × factor, for the time-weighted busbw
  };
  std::map<std::pair<int32_t, int>, Acc> acc;
  for (const CollectiveBandwidth& r : rows) {
    const CollectiveInfo& c = trace.collectives[r.collective];
    const int32_t devices[2] = {r.device, -1};
    for (int k = r.device >= 0 ? 0 : 1; k < 2; ++k) {
      const int32_t dev = devices[k];
      Acc& a = acc[{dev, static_cast<int>(c.op)}];
      a.s.device = dev;
      a.s.op = c.op;
      ++a.s.count;
      if (r.bytes == 0 || r.dur == 0) {
        ++a.s.unsized;
        continue;
      }
      a.s.bytes += r.bytes;
      a.s.time_ns = add_saturating(a.s.time_ns, r.dur);
      a.bus_bytes += static_cast<double>(r.bytes) * bus_bandwidth_factor(c.op, collective_group_size(trace, c));
      a.s.best_busbw_bytes_per_s = std::max(a.s.best_busbw_bytes_per_s, r.busbw_bytes_per_s);
    }
  }
  std::vector<CollectiveOpSummary> out;
  for (auto& [key, a] : acc) {
    if (a.s.time_ns > 0) {
      const double secs = static_cast<double>(a.s.time_ns) * 1e-9;
      a.s.algbw_bytes_per_s = static_cast<double>(a.s.bytes) / secs;
      a.s.busbw_bytes_per_s = a.bus_bytes / secs;
    }
    out.push_back(a.s);
  }
  // device −1 (all) sorts first in the map; put it last so per-device rows read first
  std::stable_partition(out.begin(), out.end(), [](const CollectiveOpSummary& s) { return s.device >= 0; });
  return out;
}

}  // namespace parascope
