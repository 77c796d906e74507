#include "trace/core/analysis/collective_matcher.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "trace/core/analysis/collective_bandwidth.h"

namespace parascope {

namespace {

struct Timed {
  uint32_t collective;
  int32_t rank;
  int32_t device;
  TimeNs start, end;
};

bool locate(const Trace& t, EventRef r, TimeNs& start, TimeNs& end, int32_t& device, uint32_t& process) {
  if (!r.valid() || r.track >= t.tracks.size() || r.index >= t.tracks[r.track].slices.size()) return false;
  const Track& tr = t.tracks[r.track];
  start = tr.slices.start[r.index];
  end = tr.slices.end(r.index);
  device = tr.key.device;
  process = tr.key.process;
  return true;
}

}  // namespace

CollectiveMatch match_collectives(const Trace& trace) {
  CollectiveMatch out;
  // key: group, group ranks, then (sequence) or (op, ordinal); sequence keys use op = -1
  using Key = std::tuple<StringId, StringId, int64_t, int, int64_t>;
  std::map<Key, std::vector<Timed>> buckets;
  // order of appearance per (group, ranks, op, rank)
  std::map<std::tuple<StringId, StringId, int, int32_t>, std::vector<Timed>> ordered;

  for (uint32_t ci = 0; ci < trace.collectives.size(); ++ci) {
    const CollectiveInfo& c = trace.collectives[ci];
    Timed tm{ci, c.rank, -1, 0, 0};
    uint32_t process = 0;
    int32_t device = -1;
    if (locate(trace, c.kernel, tm.start, tm.end, device, process)) {
      tm.device = device;
    } else if (!locate(trace, c.cpu_op, tm.start, tm.end, device, process)) {
      out.untimed.push_back(ci);
      continue;
    }
    if (tm.rank < 0 && process < trace.processes.size()) tm.rank = trace.processes[process].rank;
    if (tm.rank < 0) tm.rank = static_cast<int32_t>(process);
    if (c.sequence >= 0) buckets[{c.group, c.group_ranks, c.sequence, -1, -1}].push_back(tm);
    else ordered[{c.group, c.group_ranks, static_cast<int>(c.op), tm.rank}].push_back(tm);
  }
  for (auto& [key, list] : ordered) {
    std::stable_sort(list.begin(), list.end(), [](const Timed& a, const Timed& b) { return a.start < b.start; });
    const auto& [group, ranks, op, rank] = key;
    for (size_t k = 0; k < list.size(); ++k)
      buckets[{group, ranks, -1, op, static_cast<int64_t>(k)}].push_back(list[k]);
  }

  for (auto& [key, members] : buckets) {
    const auto& [group, ranks_text, sequence, op_key, ordinal] = key;
    MatchedCollective m;
    m.group = group;
    m.group_ranks = ranks_text;
    m.sequence = sequence;
    m.ordinal = ordinal;
    const CollectiveInfo& first = trace.collectives[members.front().collective];
    m.op = first.op;
    m.group_size = collective_group_size(trace, first);
    m.bytes = collective_bytes(first);
    std::sort(members.begin(), members.end(), [](const Timed& a, const Timed& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.start < b.start;
    });
    m.first_start = m.last_start = members.front().start;
    m.first_end = m.last_end = members.front().end;
    for (size_t i = 0; i < members.size(); ++i) {
      const Timed& t = members[i];
      const CollectiveInfo& c = trace.collectives[t.collective];
      m.members.push_back({t.collective, t.rank, t.device, t.start, t.end});
      if (i > 0 && members[i - 1].rank == t.rank &&
          (m.duplicate_ranks.empty() || m.duplicate_ranks.back() != t.rank))
        m.duplicate_ranks.push_back(t.rank);
      if (c.op != m.op || collective_bytes(c) != m.bytes) m.consistent = false;
      m.first_start = std::min(m.first_start, t.start);
      m.last_start = std::max(m.last_start, t.start);
      m.first_end = std::min(m.first_end, t.end);
      m.last_end = std::max(m.last_end, t.end);
      m.max_duration_ns = std::max(m.max_duration_ns, t.end - t.start);
    }
    std::vector<int32_t> expected = parse_group_ranks(trace.str(ranks_text));
    if (expected.empty())
      for (int32_t r = 0; r < m.group_size; ++r) expected.push_back(r);
    for (int32_t r : expected) {
      const bool present = std::any_of(members.begin(), members.end(), [&](const Timed& t) { return t.rank == r; });
      if (!present) m.missing_ranks.push_back(r);
    }
    if (m.bytes > 0 && m.max_duration_ns > 0) {
      m.algbw_bytes_per_s = static_cast<double>(m.bytes) / (static_cast<double>(m.max_duration_ns) * 1e-9);
      m.busbw_bytes_per_s = m.algbw_bytes_per_s * bus_bandwidth_factor(m.op, m.group_size);
    }
    if (m.bytes > 0 && m.concurrent_ns() > 0) {
      m.algbw_concurrent_bytes_per_s = static_cast<double>(m.bytes) / (static_cast<double>(m.concurrent_ns()) * 1e-9);
      m.busbw_concurrent_bytes_per_s = m.algbw_concurrent_bytes_per_s * bus_bandwidth_factor(m.op, m.group_size);
    }
    if (m.complete()) {
      ++out.complete;
      ++(sequence >= 0 ? out.by_sequence : out.by_order);
    } else {
      ++out.incomplete;
      for (const CollectiveMember& mm : m.members) out.unmatched.push_back(mm.collective);
    }
    out.collectives.push_back(std::move(m));
  }
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const MatchedCollective& a, const MatchedCollective& b) { return a.first_start < b.first_start; });
  std::sort(out.unmatched.begin(), out.unmatched.end());
  return out;
}

}  // namespace parascope
