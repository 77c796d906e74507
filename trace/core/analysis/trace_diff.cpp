#include "trace/core/analysis/trace_diff.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/analysis/overlap.h"
#include "trace/core/analysis/window_activity.h"
#include "trace/core/step_name.h"

namespace parascope {

namespace {

uint64_t key(EventRef r) { return (static_cast<uint64_t>(r.track) << 32) | r.index; }

// GPU work the diff counts: kernels, copies and memsets (HTA's trace diff counts all three).
bool is_gpu_op(SliceKind k) { return k == SliceKind::kKernel || k == SliceKind::kMemcpy || k == SliceKind::kMemset; }

uint32_t correlation_of(const Trace& t, SliceRef r) {
  if (!r.has_detail()) return 0;
  switch (r.kind()) {
    case SliceKind::kKernel: return r.index() < t.kernels.size() ? t.kernels[r.index()].correlation : 0;
    case SliceKind::kMemcpy: return r.index() < t.memcpys.size() ? t.memcpys[r.index()].correlation : 0;
    case SliceKind::kMemset: return r.index() < t.memsets.size() ? t.memsets[r.index()].correlation : 0;
    default: return 0;
  }
}

// Per trace: which step each GPU op belongs to, and the ops launched before the profiling window.
struct StepKernels {
  struct Kernel {
    EventRef ref;
    uint32_t step;
  };
  std::vector<Kernel> kernels;
  // Ops without a launch call whose correlation id is below every launched op's of their process:
  // CUPTI numbers calls in order, so these were launched before the trace began (they ran at its
  // start, inside the first step's range, but none of the step's host work issued them).
  std::vector<EventRef> before;
};

StepKernels assign_kernels(const Trace& t, const TraceSteps& steps) {
  StepKernels out;
  std::unordered_map<uint64_t, EventRef> launch;
  for (const Flow& f : t.flows)
    if (f.kind == FlowKind::kLaunch && f.from.valid() && f.to.valid()) launch.emplace(key(f.to), f.from);
  // per process: the lowest correlation id of an op with its launch call in the file
  std::map<uint32_t, uint32_t> first_launched;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream) continue;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      if (!is_gpu_op(tr.slices.ref[i].kind()) || !launch.count(key({ti, i}))) continue;
      if (const uint32_t c = correlation_of(t, tr.slices.ref[i])) {
        auto [it, fresh] = first_launched.try_emplace(tr.key.process, c);
        if (!fresh) it->second = std::min(it->second, c);
      }
    }
  }
  // per process: (start, end, step) sorted by start
  std::map<uint32_t, std::vector<std::tuple<TimeNs, TimeNs, uint32_t>>> ranges;
  for (uint32_t s = 0; s < steps.steps.size(); ++s)
    for (const auto& [p, r] : steps.steps[s].ranges) ranges[p].emplace_back(r.start, r.end, s);
  for (auto& [p, v] : ranges) std::sort(v.begin(), v.end());
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream) continue;
    const auto it = ranges.find(tr.key.process);
    if (it == ranges.end()) continue;
    const auto& v = it->second;
    const auto first = first_launched.find(tr.key.process);
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      if (!is_gpu_op(tr.slices.ref[i].kind())) continue;
      TimeNs at = tr.slices.start[i];
      if (const auto l = launch.find(key({ti, i})); l != launch.end() && l->second.track < t.tracks.size()) {
        at = t.tracks[l->second.track].slices.start[l->second.index];
      } else if (first != first_launched.end()) {
        const uint32_t c = correlation_of(t, tr.slices.ref[i]);
        if (c != 0 && c < first->second) {
          out.before.push_back({ti, i});
          continue;
        }
      }
      // the last range starting at or before `at` that still holds it
      auto r = std::upper_bound(v.begin(), v.end(), std::make_tuple(at, INT64_MAX, UINT32_MAX));
      if (r == v.begin()) continue;
      --r;
      if (at >= std::get<1>(*r)) continue;
      out.kernels.push_back({{ti, i}, std::get<2>(*r)});
    }
  }
  return out;
}

struct StepNumbers {
  TimeNs host = 0, gpu = 0, exposed = 0;  // gpu: first op start .. last op end
};

StepNumbers step_numbers(const Trace& t, const SliceClassifier& classify, const TraceSteps::Step& step,
                         const std::vector<EventRef>& kernels) {
  StepNumbers n;
  for (const auto& [p, r] : step.ranges) n.host = std::max(n.host, r.length());
  std::map<int32_t, Interval> span;  // per device
  for (const EventRef& k : kernels) {
    const Track& tr = t.tracks[k.track];
    auto [it, fresh] = span.try_emplace(tr.key.device, Interval{tr.slices.start[k.index], tr.slices.end(k.index)});
    if (!fresh) {
      it->second.start = std::min(it->second.start, tr.slices.start[k.index]);
      it->second.end = std::max(it->second.end, tr.slices.end(k.index));
    }
  }
  for (const auto& [device, w] : span) {
    if (device < 0 || w.length() <= 0) continue;
    n.gpu = std::max(n.gpu, w.length());
    const auto overlap = compute_overlap({device_activity_in(t, classify, static_cast<uint32_t>(device), w)});
    if (!overlap.empty()) n.exposed = std::max(n.exposed, overlap[0].totals.communication_ns - overlap[0].totals.overlap_ns);
  }
  return n;
}

// Processes owning at least one GPU stream with GPU ops, by index.
std::vector<uint32_t> gpu_processes(const Trace& t) {
  std::set<uint32_t> out;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.device < 0) continue;
    for (const SliceRef r : tr.slices.ref)
      if (is_gpu_op(r.kind())) {
        out.insert(tr.key.process);
        break;
      }
  }
  return {out.begin(), out.end()};
}

std::vector<int32_t> ordinals_of(const Trace& t, uint32_t process) {
  std::set<int32_t> out;
  for (const Device& d : t.devices)
    if (d.process == process) out.insert(d.ordinal);
  return {out.begin(), out.end()};
}

std::string rank_text(const Trace& t, uint32_t p) {
  const Process& proc = t.processes[p];
  return proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : "pid " + std::to_string(proc.pid);
}

// GPU streams with GPU ops of one process, per ordinal: sorted stream ids.
std::map<int32_t, std::vector<int64_t>> streams_of(const Trace& t, uint32_t process) {
  std::map<int32_t, std::set<int64_t>> ids;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.process != process || tr.key.device < 0) continue;
    if (std::any_of(tr.slices.ref.begin(), tr.slices.ref.end(), [](SliceRef r) { return is_gpu_op(r.kind()); }))
      ids[t.devices[static_cast<size_t>(tr.key.device)].ordinal].insert(tr.key.id);
  }
  std::map<int32_t, std::vector<int64_t>> out;
  for (auto& [o, v] : ids) out[o].assign(v.begin(), v.end());
  return out;
}

struct RankPairing {
  std::map<uint32_t, uint32_t> process_b_to_a;
  std::map<int32_t, int32_t> ordinal_b_to_a;
  std::map<std::pair<uint32_t, int64_t>, int64_t> stream_b_to_a;  // (B process, B stream) → A stream
  std::string how;
};

// "A has 2 ranks with GPU work (0, 1), B has 1 (0): rank 1 only in A; ..." when the counts of
// GPU processes differ, else empty.
std::string rank_mismatch(const Trace& a, const Trace& b) {
  const std::vector<uint32_t> ga = gpu_processes(a), gb = gpu_processes(b);
  if (ga.size() == gb.size()) return {};
  auto names = [](const Trace& t, const std::vector<uint32_t>& ps) {
    std::string s;
    for (const uint32_t p : ps) {
      const Process& proc = t.processes[p];
      s += (s.empty() ? "" : ", ") + (proc.rank >= 0 ? std::to_string(proc.rank) : "pid " + std::to_string(proc.pid));
    }
    return s;
  };
  auto only = [](const Trace& x, const std::vector<uint32_t>& px, const Trace& y, const std::vector<uint32_t>& py) {
    std::string s;
    for (const uint32_t p : px) {
      const int32_t r = x.processes[p].rank;
      if (r < 0) continue;
      if (std::none_of(py.begin(), py.end(), [&](uint32_t q) { return y.processes[q].rank == r; }))
        s += (s.empty() ? "" : ", ") + std::to_string(r);
    }
    return s;
  };
  auto count = [](size_t n) { return std::to_string(n) + (n == 1 ? " rank" : " ranks"); };
  std::string out = "A has " + count(ga.size()) + " with GPU work (" + names(a, ga) + "), B has " + std::to_string(gb.size()) + " (" +
                    names(b, gb) + ")";
  const std::string only_a = only(a, ga, b, gb), only_b = only(b, gb, a, ga);
  if (!only_a.empty()) out += "; only in A: rank " + only_a;
  if (!only_b.empty()) out += "; only in B: rank " + only_b;
  out += "; the GPU op totals sum " + std::to_string(ga.size()) + " against " + std::to_string(gb.size()) +
         " (open every rank's file, or the run's folder, on both sides)";
  return out;
}

RankPairing pair_ranks(const Trace& a, const Trace& b, const std::vector<std::pair<int32_t, int32_t>>& rank_map) {
  RankPairing out;
  auto pair = [&](uint32_t pa, uint32_t pb) {
    out.process_b_to_a[pb] = pa;
    const std::vector<int32_t> oa = ordinals_of(a, pa), ob = ordinals_of(b, pb);
    if (oa.size() == ob.size())
      for (size_t i = 0; i < oa.size(); ++i)
        if (oa[i] != ob[i]) out.ordinal_b_to_a[ob[i]] = oa[i];
    if (!out.how.empty()) out.how += ", ";
    out.how += "A's " + rank_text(a, pa) + " with B's " + rank_text(b, pb);
    // streams: the same id pairs; the ones left over pair in id order when as many are left on
    // both sides (stream handles are numbered per process, in creation order)
    const auto sa = streams_of(a, pa), sb = streams_of(b, pb);
    for (const auto& [ord_b, ids_b] : sb) {
      const auto o = out.ordinal_b_to_a.find(ord_b);
      const auto ia = sa.find(o != out.ordinal_b_to_a.end() ? o->second : ord_b);
      if (ia == sa.end()) continue;
      std::vector<int64_t> left_a, left_b;
      std::set_difference(ia->second.begin(), ia->second.end(), ids_b.begin(), ids_b.end(), std::back_inserter(left_a));
      std::set_difference(ids_b.begin(), ids_b.end(), ia->second.begin(), ia->second.end(), std::back_inserter(left_b));
      if (left_a.empty() || left_a.size() != left_b.size()) continue;
      std::string ta, tb;
      for (size_t i = 0; i < left_b.size(); ++i) {
        out.stream_b_to_a[{pb, left_b[i]}] = left_a[i];
        ta += (i ? "," : "") + std::to_string(left_a[i]);
        tb += (i ? "," : "") + std::to_string(left_b[i]);
      }
      out.how += " (streams " + ta + " with " + tb + " by order)";
    }
  };
  if (!rank_map.empty()) {
    auto find = [](const Trace& t, int32_t rank, const char* side) {
      std::string have;
      for (uint32_t p = 0; p < t.processes.size(); ++p) {
        if (t.processes[p].rank == rank) return p;
        if (t.processes[p].rank >= 0) have += (have.empty() ? "" : ", ") + std::to_string(t.processes[p].rank);
      }
      throw DiffError(std::string(side) + " has no rank " + std::to_string(rank) + " (its ranks: " + (have.empty() ? "none" : have) + ")");
    };
    for (const auto& [ra, rb] : rank_map) pair(find(a, ra, "A"), find(b, rb, "B"));
    out.how = "by --rank-map: " + out.how;
    return out;
  }
  // one GPU process on each side that differ in rank or GPU: pair them by position
  const std::vector<uint32_t> ga = gpu_processes(a), gb = gpu_processes(b);
  if (ga.size() != 1 || gb.size() != 1) return out;
  const Process &x = a.processes[ga[0]], &y = b.processes[gb[0]];
  if (x.rank == y.rank && ordinals_of(a, ga[0]) == ordinals_of(b, gb[0])) return out;
  pair(ga[0], gb[0]);
  out.how = "by position (one rank on each side): " + out.how;
  return out;
}

}  // namespace

TraceSteps find_steps(const Trace& trace, const std::string& pattern) {
  TraceSteps out;
  std::optional<std::regex> re;
  if (!pattern.empty()) re.emplace(pattern);  // a bad pattern is an error even when ProfilerStep#N wins
  std::map<std::string, std::map<uint32_t, Interval>> found;
  auto scan = [&](auto&& match) {
    for (const Track& tr : trace.tracks) {
      if (tr.key.kind != TrackKind::kCpuThread && tr.key.kind != TrackKind::kNvtx && tr.key.kind != TrackKind::kAsync) continue;
      for (size_t i = 0; i < tr.slices.size(); ++i) {
        const std::string_view name = trace.str(tr.slices.name[i]);
        if (tr.slices.dur[i] <= 0 || !match(name)) continue;
        auto [it, fresh] = found[std::string(name)].try_emplace(tr.key.process, Interval{tr.slices.start[i], tr.slices.end(i)});
        if (!fresh) {
          it->second.start = std::min(it->second.start, tr.slices.start[i]);
          it->second.end = std::max(it->second.end, tr.slices.end(i));
        }
      }
    }
  };
  scan(is_profiler_step_name);
  out.source = "ProfilerStep#N";
  if (found.empty() && !pattern.empty()) {
    scan([&](std::string_view n) { return std::regex_search(n.begin(), n.end(), *re); });
    out.source = "pattern '" + pattern + "'";
  }
  if (found.empty()) {
    out.source = "whole trace";
    auto& whole = found["trace"];
    for (const Track& tr : trace.tracks) {
      if (tr.slices.empty()) continue;
      TimeNs end = 0;
      for (size_t i = 0; i < tr.slices.size(); ++i) end = std::max(end, tr.slices.end(i));
      auto [it, fresh] = whole.try_emplace(tr.key.process, Interval{tr.slices.start.front(), end});
      if (!fresh) {
        it->second.start = std::min(it->second.start, tr.slices.start.front());
        it->second.end = std::max(it->second.end, end);
      }
    }
    if (whole.empty()) found.clear();
  }
  for (auto& [name, per_process] : found) {
    TraceSteps::Step s;
    s.name = name;
    s.span = per_process.begin()->second;
    for (auto& [p, r] : per_process) {
      s.ranges.emplace_back(p, r);
      s.span.start = std::min(s.span.start, r.start);
      s.span.end = std::max(s.span.end, r.end);
    }
    out.steps.push_back(std::move(s));
  }
  std::sort(out.steps.begin(), out.steps.end(), [](const auto& x, const auto& y) {
    return x.span.start != y.span.start ? x.span.start < y.span.start : x.name < y.name;
  });
  return out;
}

TraceDiff diff_traces(const Trace& a, const Trace& b, const DiffOptions& options) {
  TraceDiff d;
  const TraceSteps sa = find_steps(a, options.step_pattern), sb = find_steps(b, options.step_pattern);
  d.steps_a = sa.source;
  d.steps_b = sb.source;
  // pair steps: by name when the two sides share names, else by order
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::map<std::string, uint32_t> b_by_name;
  for (uint32_t i = 0; i < sb.steps.size(); ++i) b_by_name.emplace(sb.steps[i].name, i);
  for (uint32_t i = 0; i < sa.steps.size(); ++i)
    if (const auto it = b_by_name.find(sa.steps[i].name); it != b_by_name.end()) pairs.emplace_back(i, it->second);
  d.paired_by = "name";
  if (pairs.empty()) {
    d.paired_by = "order";
    for (uint32_t i = 0; i < std::min(sa.steps.size(), sb.steps.size()); ++i) pairs.emplace_back(i, i);
  }
  d.unpaired_a = static_cast<int64_t>(sa.steps.size() - pairs.size());
  d.unpaired_b = static_cast<int64_t>(sb.steps.size() - pairs.size());

  const SliceClassifier ca(a), cb(b);
  const StepKernels ka = assign_kernels(a, sa), kb = assign_kernels(b, sb);
  std::vector<std::vector<EventRef>> per_step_a(sa.steps.size()), per_step_b(sb.steps.size());
  for (const auto& k : ka.kernels) per_step_a[k.step].push_back(k.ref);
  for (const auto& k : kb.kernels) per_step_b[k.step].push_back(k.ref);
  std::vector<uint8_t> paired_a(sa.steps.size(), 0), paired_b(sb.steps.size(), 0);
  d.before_a = static_cast<int64_t>(ka.before.size());
  d.before_b = static_cast<int64_t>(kb.before.size());
  if (!ka.before.empty() || !kb.before.empty()) {
    // its own row: GPU span and exposed communication of that work, no host range
    const TraceSteps::Step none;
    const StepNumbers na = step_numbers(a, ca, none, ka.before), nb = step_numbers(b, cb, none, kb.before);
    auto span = [](const Trace& t, const std::vector<EventRef>& ops, const TraceSteps& st) {
      const TimeNs at = st.steps.empty() ? 0 : st.steps.front().span.start;
      if (ops.empty()) return Interval{at, at};
      Interval w{INT64_MAX, INT64_MIN};
      for (const EventRef& r : ops) {
        w.start = std::min(w.start, t.tracks[r.track].slices.start[r.index]);
        w.end = std::max(w.end, t.tracks[r.track].slices.end(r.index));
      }
      return w;
    };
    const Interval wa = span(a, ka.before, sa), wb = span(b, kb.before, sb);
    StepDiff s;
    s.before_first = true;
    s.name_a = s.name_b = "before the first step";
    s.gpu_a = na.gpu;
    s.gpu_b = nb.gpu;
    s.exposed_a = na.exposed;
    s.exposed_b = nb.exposed;
    s.start_a = wa.start;
    s.end_a = wa.end;
    s.start_b = wb.start;
    s.end_b = wb.end;
    d.steps.push_back(std::move(s));
  }
  for (const auto& [i, j] : pairs) {
    paired_a[i] = paired_b[j] = 1;
    const StepNumbers na = step_numbers(a, ca, sa.steps[i], per_step_a[i]);
    const StepNumbers nb = step_numbers(b, cb, sb.steps[j], per_step_b[j]);
    StepDiff s;
    s.name_a = sa.steps[i].name;
    s.name_b = sb.steps[j].name;
    s.host_a = na.host;
    s.host_b = nb.host;
    s.gpu_a = na.gpu;
    s.gpu_b = nb.gpu;
    s.exposed_a = na.exposed;
    s.exposed_b = nb.exposed;
    s.start_a = sa.steps[i].span.start;
    s.start_b = sb.steps[j].span.start;
    s.end_a = sa.steps[i].span.end;
    s.end_b = sb.steps[j].span.end;
    d.steps.push_back(std::move(s));
  }
  // kernels and collectives of the paired steps
  std::map<std::string, KernelDiff> by_name;
  std::map<std::tuple<int, uint64_t, int32_t>, CollectiveDiff> by_coll;
  std::map<std::tuple<int, uint64_t, int32_t>, std::pair<double, double>> bus_bytes;  // S × factor summed, a / b
  std::map<std::tuple<int64_t, int64_t, int64_t>, TrackDiff> by_track;  // (rank or -1 - process, ordinal, stream)
  // When every GPU ordinal belongs to one process in both traces (one GPU per rank, ordinals
  // distinct), streams pair by (ordinal, stream) alone: a file that lost its ranks still pairs.
  auto ordinals_unique = [](const Trace& t) {
    std::map<int32_t, uint32_t> owner;
    for (const Device& dev : t.devices)
      if (!owner.try_emplace(dev.ordinal, dev.process).second && owner[dev.ordinal] != dev.process) return false;
    return true;
  };
  const bool by_ordinal = ordinals_unique(a) && ordinals_unique(b);
  // B's processes that stand for one of A's (--rank-map, or each side's only GPU process), with
  // B's GPU ordinals carried to A's by position: such streams pair as if B were that rank of A.
  const RankPairing rp = pair_ranks(a, b, options.rank_map);
  d.ranks_paired = rp.how;
  d.rank_mismatch = rank_mismatch(a, b);
  d.ordinal_b_to_a = rp.ordinal_b_to_a;
  auto earlier = [](const Trace& t, EventRef x, EventRef y) {  // x before y (y may be invalid)
    return !y.valid() || t.tracks[x.track].slices.start[x.index] < t.tracks[y.track].slices.start[y.index];
  };
  auto add = [&](const Trace& t, const SliceClassifier& classify, const StepKernels& sk, const std::vector<uint8_t>& paired, bool is_b) {
    std::unordered_map<uint64_t, uint32_t> coll;
    for (uint32_t c = 0; c < t.collectives.size(); ++c)
      if (t.collectives[c].kernel.valid()) coll.emplace(key(t.collectives[c].kernel), c);
    for (const auto& k : sk.kernels) {
      if (!paired[k.step]) continue;
      const Track& tr = t.tracks[k.ref.track];
      const TimeNs dur = tr.slices.dur[k.ref.index];
      KernelDiff& kd = by_name[std::string(t.str(tr.slices.name[k.ref.index]))];
      if (kd.count_a + kd.count_b == 0) {
        kd.kind = tr.slices.ref[k.ref.index].kind();
        kd.category = classify.category(k.ref);
      }
      (is_b ? kd.count_b : kd.count_a) += 1;
      (is_b ? kd.total_b : kd.total_a) += dur;
      EventRef& ex = is_b ? kd.example_b : kd.example_a;
      if (earlier(t, k.ref, ex)) ex = k.ref;
      {
        const Process& proc = t.processes[tr.key.process];
        const int64_t ordinal = tr.key.device >= 0 ? t.devices[static_cast<size_t>(tr.key.device)].ordinal : -1;
        // the key in A's terms: a mapped B process is its A process, its ordinals A's
        uint32_t key_process = tr.key.process;
        int64_t key_ordinal = ordinal;
        const auto m = is_b ? rp.process_b_to_a.find(tr.key.process) : rp.process_b_to_a.end();
        if (m != rp.process_b_to_a.end()) {
          key_process = m->second;
          if (const auto o = rp.ordinal_b_to_a.find(static_cast<int32_t>(ordinal)); o != rp.ordinal_b_to_a.end()) key_ordinal = o->second;
        }
        const Process& kproc = m != rp.process_b_to_a.end() ? a.processes[key_process] : proc;
        const int64_t who = by_ordinal ? 0 : kproc.rank >= 0 ? kproc.rank : -1 - static_cast<int64_t>(key_process);
        int64_t key_stream = tr.key.id;
        if (is_b)
          if (const auto st = rp.stream_b_to_a.find({tr.key.process, tr.key.id}); st != rp.stream_b_to_a.end()) key_stream = st->second;
        TrackDiff& td = by_track[{who, key_ordinal, key_stream}];
        const std::string label = (proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : "pid " + std::to_string(proc.pid)) +
                                  " GPU " + std::to_string(ordinal) + " stream " + std::to_string(tr.key.id);
        if (td.label.empty()) td.label = label;
        else if (m != rp.process_b_to_a.end() && td.track_b < 0 && td.label != label) td.label += " ~ B " + label;
        (is_b ? td.track_b : td.track_a) = k.ref.track;
        (is_b ? td.count_b : td.count_a) += 1;
        (is_b ? td.busy_b : td.busy_a) += dur;
      }
      const auto c = coll.find(key(k.ref));
      if (c == coll.end()) continue;
      const CollectiveInfo& ci = t.collectives[c->second];
      const int32_t n = collective_group_size(t, ci);
      const uint64_t bytes = collective_bytes(ci);
      const auto ck = std::make_tuple(static_cast<int>(ci.op), bytes, n);
      CollectiveDiff& cd = by_coll[ck];
      cd.op = ci.op;
      cd.bytes = bytes;
      cd.ranks = n;
      (is_b ? cd.count_b : cd.count_a) += 1;
      (is_b ? cd.total_b : cd.total_a) += dur;
      EventRef& cex = is_b ? cd.example_b : cd.example_a;
      if (earlier(t, k.ref, cex)) cex = k.ref;
      auto& bb = bus_bytes[ck];
      (is_b ? bb.second : bb.first) += static_cast<double>(bytes) * bus_bandwidth_factor(ci.op, n);
    }
  };
  add(a, ca, ka, paired_a, false);
  add(b, cb, kb, paired_b, true);
  for (auto& [name, kd] : by_name) {
    kd.name = name;
    d.kernels.push_back(kd);
  }
  std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelDiff& x, const KernelDiff& y) {
    const TimeNs dx = std::llabs(x.delta()), dy = std::llabs(y.delta());
    return dx != dy ? dx > dy : x.name < y.name;
  });
  for (auto& [k, cd] : by_coll) {
    const auto& bb = bus_bytes[k];
    if (cd.total_a > 0) cd.busbw_a = bb.first / (static_cast<double>(cd.total_a) * 1e-9);
    if (cd.total_b > 0) cd.busbw_b = bb.second / (static_cast<double>(cd.total_b) * 1e-9);
    d.collectives.push_back(cd);
  }
  for (auto& [k, td] : by_track) d.tracks.push_back(std::move(td));
  return d;
}

namespace {

DataCell delta_cell(TimeNs a, TimeNs b) {
  const TimeNs dlt = b - a;
  std::string text = (dlt > 0 ? "+" : dlt < 0 ? "-" : "") + format_duration(std::llabs(dlt));
  return {text, static_cast<double>(dlt)};
}

DataCell ratio_cell(TimeNs a, TimeNs b) {
  if (a <= 0) return text_cell(b > 0 ? "new" : "");
  const double r = static_cast<double>(b - a) / static_cast<double>(a);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", r * 100);
  return {buf, r};
}

}  // namespace

DataTable diff_steps_table(const TraceDiff& d) {
  DataTable t;
  t.id = "diff_steps";
  t.title = "Steps, B against A";
  t.note = "A: steps by " + d.steps_a + ", B: by " + d.steps_b + ", paired by " + d.paired_by +
           "; 'before the first step': GPU ops launched before the trace began (no launch call in the file), in no step's totals" +
           "; host = the slowest rank's step range, GPU = first GPU op start to last op end, exposed = communication not under compute (worst GPU)";
  t.column("step A").column("step B").column("host A", "ns", true).column("host B", "ns", true).column("host diff", "ns", true)
      .column("host diff %", "fraction", true).column("GPU A", "ns", true).column("GPU B", "ns", true).column("GPU diff", "ns", true)
      .column("exposed A", "ns", true).column("exposed B", "ns", true).column("exposed diff", "ns", true);
  for (const StepDiff& s : d.steps)
    t.add_row({text_cell(s.name_a), text_cell(s.name_b), duration_cell(s.host_a), duration_cell(s.host_b), delta_cell(s.host_a, s.host_b),
               ratio_cell(s.host_a, s.host_b), duration_cell(s.gpu_a), duration_cell(s.gpu_b), delta_cell(s.gpu_a, s.gpu_b),
               duration_cell(s.exposed_a), duration_cell(s.exposed_b), delta_cell(s.exposed_a, s.exposed_b)});
  return t;
}

DataTable diff_kernels_table(const TraceDiff& d) {
  DataTable t;
  t.id = "diff_kernels";
  t.title = "Kernels, copies and memsets, B against A";
  t.note = "GPU op time (kernels, memcpys, memsets) summed over the paired steps and all ranks, by name; largest change first";
  t.column("GPU op").column("kind").column("count A", "", true).column("count B", "", true).column("time A", "ns", true)
      .column("time B", "ns", true).column("diff", "ns", true).column("diff %", "fraction", true);
  for (const KernelDiff& k : d.kernels)
    t.add_row({text_cell(k.name), text_cell(k.kind != SliceKind::kKernel      ? std::string(to_string(k.kind))
                                            : k.category == Category::kCommunication ? "comm"
                                                                                     : std::string(to_string(k.category))),
               int_cell(k.count_a), int_cell(k.count_b), duration_cell(k.total_a), duration_cell(k.total_b), delta_cell(k.total_a, k.total_b),
               ratio_cell(k.total_a, k.total_b)});
  return t;
}

DataTable diff_collectives_table(const TraceDiff& d) {
  DataTable t;
  t.id = "diff_collectives";
  t.title = "Collectives, B against A";
  t.note = "by operation, size S and ranks; busbw = sum(S x factor) / sum(kernel time) (NCCL's definitions)";
  t.column("op").column("bytes", "bytes", true).column("ranks", "", true).column("count A", "", true).column("count B", "", true)
      .column("time A", "ns", true).column("time B", "ns", true).column("diff", "ns", true).column("busbw A", "bytes/s", true)
      .column("busbw B", "bytes/s", true);
  for (const CollectiveDiff& c : d.collectives)
    t.add_row({text_cell(std::string(to_string(c.op))), bytes_cell(static_cast<double>(c.bytes)), int_cell(c.ranks), int_cell(c.count_a),
               int_cell(c.count_b), duration_cell(c.total_a), duration_cell(c.total_b), delta_cell(c.total_a, c.total_b),
               c.busbw_a > 0 ? rate_cell(c.busbw_a) : text_cell(""), c.busbw_b > 0 ? rate_cell(c.busbw_b) : text_cell("")});
  return t;
}

DataTable diff_tracks_table(const TraceDiff& d) {
  DataTable t;
  t.id = "diff_tracks";
  t.title = "GPU streams, B against A";
  t.note = "GPU op time (kernels, memcpys, memsets) per stream inside the paired steps; streams pair by GPU ordinal and stream id (and rank where ordinals repeat across processes)";
  t.column("stream").column("ops A", "", true).column("ops B", "", true).column("busy A", "ns", true)
      .column("busy B", "ns", true).column("diff", "ns", true).column("diff %", "fraction", true);
  for (const TrackDiff& k : d.tracks)
    t.add_row({text_cell(k.label), int_cell(k.count_a), int_cell(k.count_b), duration_cell(k.busy_a), duration_cell(k.busy_b),
               delta_cell(k.busy_a, k.busy_b), ratio_cell(k.busy_a, k.busy_b)});
  return t;
}

namespace {

struct LinkSide {
  std::string name;
  CounterSource source = CounterSource::kEstimated;
  double capacity = 0;
  CounterStats stats;
  bool present = false;
};

int source_rank(CounterSource s) {
  switch (s) {
    case CounterSource::kMeasured: return 0;
    case CounterSource::kSimulated: return 1;
    default: return 2;
  }
}

using LinkKey = std::tuple<int32_t, int, int>;  // GPU ordinal, direction, medium

std::map<LinkKey, LinkSide> best_links(const Trace& t, Interval window) {
  const std::vector<LinkCounter> counters = link_counters(t, true);
  const std::vector<LinkStats> stats = link_stats(counters, window);
  std::map<LinkKey, LinkSide> out;
  for (size_t i = 0; i < counters.size(); ++i) {
    const LinkCounter& c = counters[i];
    if (c.link.src_device == kNoDevice || c.link.src_device >= t.devices.size()) continue;
    const LinkKey key{t.devices[c.link.src_device].ordinal, static_cast<int>(c.link.direction), static_cast<int>(c.link.medium)};
    LinkSide& side = out[key];
    if (side.present && source_rank(side.source) <= source_rank(c.source)) continue;
    side.present = true;
    side.name = "GPU " + std::to_string(t.devices[c.link.src_device].ordinal) + " " + medium_label(c.link.medium) +
                (c.link.direction == LinkDirection::kTx ? " tx" : " rx");
    side.source = c.source;
    side.capacity = stats[i].capacity_bytes_per_s;
    side.stats = stats[i].stats;
  }
  return out;
}

}  // namespace

DataTable diff_links_table(const Trace& a, const Trace& b, const TraceDiff& d) {
  DataTable t;
  t.id = "diff_links";
  t.title = "Link load, B against A";
  t.note = "per GPU link direction over the paired steps; each side's best series: measured, else simulated, else estimated "
           "from collective sizes; utilization = load / capacity";
  t.column("link").column("source A").column("source B").column("mean A", "bytes/s", true).column("mean B", "bytes/s", true)
      .column("mean util A", "fraction", true).column("mean util B", "fraction", true).column("peak A", "bytes/s", true)
      .column("peak B", "bytes/s", true).column("peak util A", "fraction", true).column("peak util B", "fraction", true);
  if (d.steps.empty()) return t;
  const Interval wa{d.steps.front().start_a, d.steps.back().end_a}, wb{d.steps.front().start_b, d.steps.back().end_b};
  const auto la = best_links(a, wa);
  std::map<LinkKey, LinkSide> lb;  // keyed by A's ordinals where ranks were paired (d.ordinal_b_to_a)
  for (auto& [k, v] : best_links(b, wb)) {
    LinkKey key = k;
    if (const auto o = d.ordinal_b_to_a.find(std::get<0>(k)); o != d.ordinal_b_to_a.end()) std::get<0>(key) = o->second;
    lb.emplace(key, std::move(v));
  }
  std::map<LinkKey, std::pair<const LinkSide*, const LinkSide*>> all;
  for (const auto& [k, v] : la) all[k].first = &v;
  for (const auto& [k, v] : lb) all[k].second = &v;
  auto rate_or_blank = [](const LinkSide* s, double v) { return s ? rate_cell(v) : text_cell(""); };
  auto util = [](const LinkSide* s, double v) { return s && s->capacity > 0 ? percent_cell(v / s->capacity) : text_cell(""); };
  for (const auto& [k, pair] : all) {
    const auto [x, y] = pair;
    t.add_row({text_cell(x ? x->name : y->name), text_cell(x ? std::string(to_string(x->source)) : ""),
               text_cell(y ? std::string(to_string(y->source)) : ""), rate_or_blank(x, x ? x->stats.mean : 0),
               rate_or_blank(y, y ? y->stats.mean : 0), util(x, x ? x->stats.mean : 0), util(y, y ? y->stats.mean : 0),
               rate_or_blank(x, x ? x->stats.peak : 0), rate_or_blank(y, y ? y->stats.peak : 0), util(x, x ? x->stats.peak : 0),
               util(y, y ? y->stats.peak : 0)});
  }
  return t;
}

}  // namespace parascope
