#include "trace/core/trace_builder.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <cstring>
#include <limits>
#include <numeric>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace parascope {

namespace {

template <class T>
void permute(std::vector<T>& v, const std::vector<uint32_t>& order) {
  if (v.empty()) return;
  std::vector<T> out;
  out.reserve(v.size());
  for (uint32_t i : order) out.push_back(v[i]);
  v.swap(out);
}

}  // namespace

void TraceBuilder::detail_table_full(SliceKind kind) {
  throw std::length_error(std::string("too many ") + std::string(to_string(kind)) + " records for one trace (limit 268 M)");
}

size_t TraceBuilder::KeyHash::operator()(const TrackKey& k) const noexcept {
  uint64_t h = static_cast<uint64_t>(k.kind) * 0x9e3779b97f4a7c15ull;
  h ^= (static_cast<uint64_t>(k.process) << 1) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.device)) << 3) + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(k.id) * 0xff51afd7ed558ccdull + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

TraceBuilder::TraceBuilder() : trace_(std::make_unique<Trace>()) {}

uint32_t TraceBuilder::add_process(Process p) {
  trace_->processes.push_back(std::move(p));
  return static_cast<uint32_t>(trace_->processes.size() - 1);
}

uint32_t TraceBuilder::add_device(Device d) {
  trace_->devices.push_back(std::move(d));
  return static_cast<uint32_t>(trace_->devices.size() - 1);
}

uint32_t TraceBuilder::track(const TrackKey& key, std::string_view name) {
  auto [it, inserted] = track_index_.try_emplace(key, static_cast<uint32_t>(trace_->tracks.size()));
  if (inserted) {
    Track t;
    t.key = key;
    t.name = intern(name);
    trace_->tracks.push_back(std::move(t));
  }
  return it->second;
}

void TraceBuilder::set_track_name(uint32_t track, std::string_view name) {
  trace_->tracks[track].name = intern(name);
}

uint32_t TraceBuilder::add_link(const Link& link) {
  auto& links = trace_->links;
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i] == link) return static_cast<uint32_t>(i);
  links.push_back(link);
  return static_cast<uint32_t>(links.size() - 1);
}

uint32_t TraceBuilder::add_launch_config(const LaunchConfig& c) {
  uint64_t h = 0;
  const auto* words = reinterpret_cast<const uint32_t*>(&c);
  for (size_t i = 0; i < sizeof(LaunchConfig) / 4; ++i) h = h * 1000003ull + words[i];
  auto& bucket = config_index_[h];
  for (uint32_t idx : bucket)
    if (trace_->launch_configs[idx] == c) return idx;
  trace_->launch_configs.push_back(c);
  const auto idx = static_cast<uint32_t>(trace_->launch_configs.size() - 1);
  bucket.push_back(idx);
  return idx;
}


EventRef TraceBuilder::add_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref,
                                 std::span<const Arg> args) {
  return add_slice_with_arg_set(track, start, dur, name, ref, args.empty() ? kNone32 : trace_->args.add(args));
}

EventRef TraceBuilder::add_slice_with_arg_set(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref,
                                              uint32_t arg_set) {
  Track& t = trace_->tracks.at(track);
  SliceColumns& s = t.slices;
  if (dur < 0) {
    ++negative_durations_;
    dur = 0;
  }
  if (s.size() >= std::numeric_limits<uint32_t>::max() - 1)
    throw std::length_error("too many slices on one track (limit 4 G)");
  const auto index = static_cast<uint32_t>(s.size());
  s.start.push_back(start);
  s.dur.push_back(dur);
  s.name.push_back(name);
  s.ref.push_back(ref);
  if (arg_set != kNone32 || !s.args.empty()) {
    if (s.args.empty()) s.args.assign(index, kNone32);
    s.args.push_back(arg_set);
  }
  return EventRef{track, index};
}

void TraceBuilder::reserve_slices(uint32_t track, size_t n, bool with_args) {
  SliceColumns& s = trace_->tracks.at(track).slices;
  const size_t want = s.size() + n;
  s.start.reserve(want);
  s.dur.reserve(want);
  s.name.reserve(want);
  s.ref.reserve(want);
  if (with_args) s.args.reserve(want);
}

uint32_t TraceBuilder::append_slices(uint32_t track, std::span<const TimeNs> start, std::span<const TimeNs> dur,
                                     std::span<const StringId> name, std::span<const SliceRef> ref,
                                     std::span<const uint32_t> arg_sets) {
  SliceColumns& s = trace_->tracks.at(track).slices;
  const size_t n = start.size();
  if (dur.size() != n || name.size() != n || ref.size() != n || (!arg_sets.empty() && arg_sets.size() != n))
    throw std::invalid_argument("append_slices: columns of different lengths");
  const size_t first = s.size();
  if (first + n >= std::numeric_limits<uint32_t>::max() - 1)
    throw std::length_error("too many slices on one track (limit 4 G)");
  s.start.insert(s.start.end(), start.begin(), start.end());
  s.dur.insert(s.dur.end(), dur.begin(), dur.end());
  size_t negative = 0;
  for (const TimeNs v : dur) negative += v < 0;
  if (negative) {
    negative_durations_ += negative;
    for (size_t i = first; i < first + n; ++i) s.dur[i] = std::max<TimeNs>(s.dur[i], 0);
  }
  s.name.insert(s.name.end(), name.begin(), name.end());
  s.ref.insert(s.ref.end(), ref.begin(), ref.end());
  bool any_args = !s.args.empty();
  for (size_t i = 0; i < arg_sets.size() && !any_args; ++i) any_args = arg_sets[i] != kNone32;
  if (any_args) {
    if (s.args.empty()) s.args.assign(first, kNone32);
    if (arg_sets.empty()) s.args.resize(first + n, kNone32);
    else s.args.insert(s.args.end(), arg_sets.begin(), arg_sets.end());
  }
  return static_cast<uint32_t>(first);
}

void TraceBuilder::add_counter_sample(uint32_t track, TimeNs t, double value) {
  auto& c = trace_->tracks.at(track).counter;
  c.time.push_back(t);
  c.value.push_back(value);
}

void TraceBuilder::reserve_counter_samples(uint32_t track, size_t n) {
  auto& c = trace_->tracks.at(track).counter;
  c.time.reserve(c.size() + n);
  c.value.reserve(c.size() + n);
}

void TraceBuilder::append_counter_samples(uint32_t track, std::span<const TimeNs> time, std::span<const double> value) {
  if (time.size() != value.size()) throw std::invalid_argument("append_counter_samples: columns of different lengths");
  auto& c = trace_->tracks.at(track).counter;
  c.time.insert(c.time.end(), time.begin(), time.end());
  c.value.insert(c.value.end(), value.begin(), value.end());
}

void TraceBuilder::add_flow(EventRef from, EventRef to, FlowKind kind) {
  Flow f;
  f.from = from;
  f.to = to;
  f.kind = kind;
  trace_->flows.push_back(f);
}

uint32_t TraceBuilder::add_collective(const CollectiveInfo& c) {
  trace_->collectives.push_back(c);
  return static_cast<uint32_t>(trace_->collectives.size() - 1);
}

void TraceBuilder::warn(std::string message) { trace_->warnings.push_back(std::move(message)); }
void TraceBuilder::note(std::string message) { trace_->notes.push_back(std::move(message)); }

namespace {

// One track's share of finish(): sorted order (inv: old row -> new row, left empty when the track
// was sorted already), depths and the counter order. Returns how many slices nest deeper than 255.
size_t finish_track(Track& t, std::vector<uint32_t>& inv) {
  SliceColumns& s = t.slices;
  const size_t n = s.size();
  if (s.args.size() != 0 && s.args.size() < n) s.args.resize(n, kNone32);
  // Depths: a stack of open ends; a slice nests under every open slice that ends after it
  // starts. Computed in the same pass that checks the order (the usual case: sorted already),
  // and again after sorting when it was not.
  std::vector<TimeNs> open;
  std::vector<uint8_t> depth(n, 0);
  uint8_t deepest = 0;
  size_t too_deep = 0;
  auto depths = [&](bool check) {
    open.clear();
    deepest = 0;
    too_deep = 0;
    const TimeNs* start = s.start.data();
    const TimeNs* dur = s.dur.data();
    for (size_t i = 0; i < n; ++i) {
      if (check && i > 0 && !(start[i - 1] < start[i] || (start[i - 1] == start[i] && dur[i - 1] >= dur[i]))) return false;
      while (!open.empty() && open.back() <= start[i]) open.pop_back();
      if (open.size() > 255) {
        ++too_deep;
        depth[i] = 255;
      } else {
        depth[i] = static_cast<uint8_t>(open.size());
      }
      deepest = std::max(deepest, depth[i]);
      // a child reaching past its parent's end is clamped to it, keeping the stack's ends non-increasing
      const TimeNs end = start[i] + dur[i];
      open.push_back(open.empty() ? end : std::min(open.back(), end));
    }
    return true;
  };
  if (!depths(true)) {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (s.start[a] != s.start[b]) return s.start[a] < s.start[b];
      return s.dur[a] > s.dur[b];
    });
    permute(s.start, order);
    permute(s.dur, order);
    permute(s.name, order);
    permute(s.ref, order);
    permute(s.args, order);
    inv.resize(n);
    for (uint32_t i = 0; i < n; ++i) inv[order[i]] = i;
    depths(false);
  }
  if (deepest) {
    t.max_depth = deepest;
    s.depth.swap(depth);
  } else {
    s.depth.clear();
    t.max_depth = 0;
  }
  // Counters: sort by time, keeping the last of equal timestamps last.
  auto& c = t.counter;
  if (!std::is_sorted(c.time.begin(), c.time.end())) {
    std::vector<uint32_t> order(c.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return c.time[a] < c.time[b]; });
    permute(c.time, order);
    permute(c.value, order);
  }
  return too_deep;
}

// Runs finish_track over every track; on large traces the tracks are shared among threads (largest
// first), since each track's work touches only that track. Warnings come out in track order.
std::vector<size_t> finish_tracks(std::vector<Track>& tracks, std::vector<std::vector<uint32_t>>& new_index) {
  std::vector<size_t> too_deep(tracks.size(), 0);
  size_t rows = 0;
  for (const Track& t : tracks) rows += t.slices.size() + t.counter.size();
  constexpr size_t kParallelRows = size_t{1} << 20;  // below this a thread costs more than it saves
  const size_t threads = rows < kParallelRows ? 1 : std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), 8, tracks.size()});
  if (threads <= 1) {
    for (size_t ti = 0; ti < tracks.size(); ++ti) too_deep[ti] = finish_track(tracks[ti], new_index[ti]);
    return too_deep;
  }
  std::vector<uint32_t> order(tracks.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return tracks[a].slices.size() + tracks[a].counter.size() > tracks[b].slices.size() + tracks[b].counter.size();
  });
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_m;
  auto work = [&] {
    try {
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < order.size();)
        too_deep[order[i]] = finish_track(tracks[order[i]], new_index[order[i]]);
    } catch (...) {  // std::bad_alloc: handed to the caller as if finish ran on one thread
      std::lock_guard<std::mutex> lock(failure_m);
      if (!failure) failure = std::current_exception();
      next.store(order.size());
    }
  };
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  return too_deep;
}

}  // namespace

Trace TraceBuilder::finish() {
  Trace& tr = *trace_;
  // Per track: sorted order and the inverse map old row -> new row.
  std::vector<std::vector<uint32_t>> new_index(tr.tracks.size());
  const std::vector<size_t> too_deep = finish_tracks(tr.tracks, new_index);
  for (size_t n : too_deep)
    if (n) warn("track nests deeper than 255 levels; " + std::to_string(n) + " slices drawn at level 255");
  auto remap = [&](EventRef& r) {
    if (!r.valid() || r.track >= new_index.size()) return;
    const auto& inv = new_index[r.track];
    if (!inv.empty() && r.index < inv.size()) r.index = inv[r.index];
  };
  for (Flow& f : tr.flows) {
    remap(f.from);
    remap(f.to);
  }
  for (CollectiveInfo& c : tr.collectives) {
    remap(c.kernel);
    remap(c.cpu_op);
  }
  for (SmSpanInfo& s : tr.sm_spans) remap(s.kernel);
  if (negative_durations_)
    warn(std::to_string(negative_durations_) + " slices had a negative duration and were clamped to 0");

  Trace out = std::move(tr);
  trace_ = std::make_unique<Trace>();
  track_index_.clear();
  config_index_.clear();
  negative_durations_ = 0;
  return out;
}

}  // namespace parascope
