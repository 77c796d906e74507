#include "models/timeline_index.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <thread>

#include "trace/core/counter_unit.h"

namespace parascope::models {

namespace {
constexpr size_t kFanout = 8;
}

CounterLod::CounterLod(const CounterColumns& c) {
  const auto& v = c.value;
  if (v.empty()) return;
  max_ = *std::max_element(v.begin(), v.end());
  const std::vector<double>* below = &v;
  while (below->size() > kFanout) {
    std::vector<double> up((below->size() + kFanout - 1) / kFanout);
    for (size_t i = 0; i < below->size(); ++i) up[i / kFanout] = i % kFanout ? std::max(up[i / kFanout], (*below)[i]) : (*below)[i];
    levels_.push_back(std::move(up));
    below = &levels_.back();
  }
}

double CounterLod::max_in(const CounterColumns& c, size_t first, size_t last) const {
  last = std::min(last, c.size());
  double m = 0;
  bool any = false;
  auto take = [&](double x) {
    m = any ? std::max(m, x) : x;
    any = true;
  };
  size_t i = first;
  while (i < last) {
    // the largest aligned block starting at i that fits in [i, last)
    size_t block = 1;
    int level = -1;
    while (level + 1 < static_cast<int>(levels_.size()) && i % (block * kFanout) == 0 && i + block * kFanout <= last) {
      block *= kFanout;
      ++level;
    }
    take(level < 0 ? c.value[i] : levels_[static_cast<size_t>(level)][i / block]);
    i += block;
  }
  return any ? m : 0.0;
}

size_t CounterLod::memory_bytes() const {
  size_t b = 0;
  for (const auto& l : levels_) b += l.capacity() * sizeof(double);
  return b;
}

FlowIndex::FlowIndex(const Trace& trace) {
  entries_.reserve(trace.flows.size());
  auto valid = [&](EventRef r) {
    return r.valid() && r.track < trace.tracks.size() && r.index < trace.tracks[r.track].slices.size();
  };
  for (uint32_t f = 0; f < trace.flows.size(); ++f) {
    const Flow& fl = trace.flows[f];
    if (!valid(fl.from) || !valid(fl.to)) continue;
    const auto& a = trace.tracks[fl.from.track].slices;
    const auto& b = trace.tracks[fl.to.track].slices;
    const TimeNs x = a.start[fl.from.index] + a.dur[fl.from.index];
    const TimeNs y = b.start[fl.to.index];
    entries_.push_back({std::min(x, y), std::max(x, y), f});
  }
  std::sort(entries_.begin(), entries_.end(), [](const Entry& p, const Entry& q) { return p.t0 < q.t0; });
  ends_.build(entries_.size(), [&](size_t i) { return entries_[i].t1; });
}

std::pair<size_t, size_t> FlowIndex::candidates(TimeNs lo, TimeNs hi) const {
  const size_t first = std::min(ends_.first_ending_at_or_after(lo), entries_.size());
  const auto last = std::upper_bound(entries_.begin() + static_cast<std::ptrdiff_t>(first), entries_.end(), hi,
                                     [](TimeNs t, const Entry& e) { return t < e.t0; });
  return {first, static_cast<size_t>(last - entries_.begin())};
}

TimelineIndex::TimelineIndex(const Trace& trace, const std::atomic<bool>* cancel, int threads)
    : trace_(trace), classify_(trace) {
  const auto t_begin = std::chrono::steady_clock::now();
  const size_t nt = trace.tracks.size();
  lods_.resize(nt);
  counters_.resize(nt);

  // SM lanes: one grid per device, from all its lanes together
  sm_lanes_.resize(trace.devices.size());
  sm_grids_.resize(trace.devices.size());
  for (uint32_t t = 0; t < nt; ++t) {
    const TrackKey& k = trace.tracks[t].key;
    if (k.kind == TrackKind::kSmLane && k.device >= 0 && static_cast<size_t>(k.device) < trace.devices.size())
      sm_lanes_[static_cast<size_t>(k.device)].push_back(t);
  }
  for (size_t d = 0; d < sm_lanes_.size(); ++d) {
    auto& lanes = sm_lanes_[d];
    std::sort(lanes.begin(), lanes.end(), [&](uint32_t a, uint32_t b) { return trace.tracks[a].key.id < trace.tracks[b].key.id; });
    TimeNs lo = INT64_MAX, hi = INT64_MIN;
    size_t n = 0;
    for (uint32_t t : lanes) {
      const auto& s = trace.tracks[t].slices;
      if (s.empty()) continue;
      lo = std::min(lo, s.start.front());
      for (size_t i = 0; i < s.size(); ++i) hi = std::max(hi, s.start[i] + s.dur[i]);
      n += s.size();
    }
    if (n) sm_grids_[d] = LodGrid::for_span(lo, hi, std::max<size_t>(1, n / lanes.size()), kHeatSlicesPerBucket);
  }

  // tracks, biggest first, over the cores; each worker has its own classifier (its name cache is not shared)
  std::vector<uint32_t> order(nt);
  for (uint32_t t = 0; t < nt; ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return trace.tracks[a].slices.size() + trace.tracks[a].counter.size() >
           trace.tracks[b].slices.size() + trace.tracks[b].counter.size();
  });
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  auto work = [&] {
    const SliceClassifier classify(trace);
    for (size_t k; (k = next.fetch_add(1)) < nt;) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        stopped = true;
        return;
      }
      const uint32_t t = order[k];
      const Track& tr = trace.tracks[t];
      if (!tr.slices.empty()) {
        const bool sm = tr.key.kind == TrackKind::kSmLane && tr.key.device >= 0 &&
                        static_cast<size_t>(tr.key.device) < sm_grids_.size();
        lods_[t] = TrackLod(trace, t, classify, sm ? &sm_grids_[static_cast<size_t>(tr.key.device)] : nullptr);
      }
      if (tr.counter.size()) counters_[t] = CounterLod(tr.counter);
    }
  };
  const int n_threads = threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int i = 1; i < n_threads; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (stopped) throw IndexBuildCancelled();

  // SM groups of 2, 4, 8... lanes for heat strips shorter than the SM count, merged pairwise
  sm_groups_.resize(sm_lanes_.size());
  for (size_t d = 0; d < sm_lanes_.size(); ++d) {
    const auto& lanes = sm_lanes_[d];
    const LodGrid& grid = sm_grids_[d];
    if (lanes.size() < 2 || grid.levels == 0) continue;
    std::vector<const CoveragePyramid*> below;
    std::vector<float> weight;
    for (uint32_t t : lanes) {
      below.push_back(&lods_[t].combined());
      weight.push_back(1.0f);
    }
    while (below.size() > 1) {
      if (cancel && cancel->load(std::memory_order_relaxed)) throw IndexBuildCancelled();
      std::vector<CoveragePyramid> level;
      std::vector<float> w;
      for (size_t g = 0; g < below.size(); g += 2) {
        if (g + 1 < below.size()) {
          level.push_back(CoveragePyramid::merge(*below[g], weight[g], *below[g + 1], weight[g + 1], grid));
          w.push_back(weight[g] + weight[g + 1]);
        } else {
          level.push_back(*below[g]);
          w.push_back(weight[g]);
        }
      }
      sm_groups_[d].push_back(std::move(level));
      below.clear();
      for (const auto& p : sm_groups_[d].back()) below.push_back(&p);
      weight = std::move(w);
    }
  }

  activity_.reserve(trace.devices.size());
  for (uint32_t d = 0; d < trace.devices.size(); ++d) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw IndexBuildCancelled();
    activity_.emplace_back(trace, classify_, d);
  }
  flows_ = FlowIndex(trace);
  std::tie(start_, end_) = trace.time_span();
  build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
}

std::string TimelineIndex::counter_info(uint32_t track) const {
  const Track& tr = trace_.tracks[track];
  return std::string(to_string(tr.counter_source)) + "  \xC2\xB7  peak " + format_counter_value(trace_, tr, counters_[track].max());
}

const std::vector<uint32_t>& TimelineIndex::sm_lanes(int32_t device) const {
  static const std::vector<uint32_t> kNone;
  if (device < 0 || static_cast<size_t>(device) >= sm_lanes_.size()) return kNone;
  return sm_lanes_[static_cast<size_t>(device)];
}

const CoveragePyramid* TimelineIndex::sm_group(int32_t device, size_t size, size_t group) const {
  if (device < 0 || static_cast<size_t>(device) >= sm_groups_.size() || size < 2) return nullptr;
  const auto& levels = sm_groups_[static_cast<size_t>(device)];
  const auto k = static_cast<size_t>(std::countr_zero(size)) - 1;
  if (k >= levels.size() || group >= levels[k].size()) return nullptr;
  return &levels[k][group];
}

const ActivitySummary& TimelineIndex::activity(int32_t device) const {
  static const ActivitySummary kNone;
  if (device < 0 || static_cast<size_t>(device) >= activity_.size()) return kNone;
  return activity_[static_cast<size_t>(device)];
}

std::vector<int32_t> TimelineIndex::active_devices(uint32_t process) const {
  std::vector<int32_t> out;
  for (uint32_t d = 0; d < trace_.devices.size(); ++d)
    if (trace_.devices[d].process == process && !activity_[d].empty()) out.push_back(static_cast<int32_t>(d));
  return out;
}

void TimelineIndex::sample_activity(int32_t device, double t0, double ns_per_px, int n, Coverage* out, size_t* walked) const {
  activity(device).sample(trace_, classify_, lods_, t0, ns_per_px, n, out, walked);
}

size_t TimelineIndex::memory_bytes() const {
  size_t b = lods_.capacity() * sizeof(TrackLod) + counters_.capacity() * sizeof(CounterLod) + flows_.memory_bytes();
  for (const auto& l : lods_) b += l.memory_bytes();
  for (const auto& c : counters_) b += c.memory_bytes();
  for (const auto& s : sm_lanes_) b += s.capacity() * sizeof(uint32_t);
  for (const auto& a : activity_) b += a.memory_bytes() + sizeof(a);
  for (const auto& d : sm_groups_)
    for (const auto& l : d)
      for (const auto& p : l) b += p.memory_bytes() + sizeof(p);
  return b;
}

}  // namespace parascope::models
