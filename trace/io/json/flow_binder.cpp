#include "trace/io/json/flow_binder.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace parascope {

namespace {

struct Bound {
  EventRef ref;
  TimeNs start = 0;
  TimeNs dur = 0;
  bool valid() const { return ref.valid(); }
};

// Deeper = started later; on equal starts the shorter one is inside the longer one.
bool deeper(const Bound& a, const Bound& b) {
  if (!b.valid()) return a.valid();
  if (!a.valid()) return false;
  return a.start != b.start ? a.start > b.start : a.dur < b.dur;
}
// Earlier = starts first; on equal starts the longer (outer) one begins first.
bool earlier(const Bound& a, const Bound& b) {
  if (!b.valid()) return a.valid();
  if (!a.valid()) return false;
  return a.start != b.start ? a.start < b.start : a.dur > b.dur;
}

struct V1KeyHash {
  size_t operator()(const FlowBinder::V1Key& k) const noexcept {
    uint64_t h = k.id * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<uint64_t>(k.cat) << 32 | k.name) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(k.id_is_string) + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

}  // namespace

void FlowBinder::add_v1(char ph, const V1Key& key, bool bind_enclosing, TimeNs ts, uint32_t thread, FlowKind kind) {
  v1_.push_back(V1Event{ts, key, thread, order_++, ph, bind_enclosing || ph != 'f', kind});
}

void FlowBinder::add_v2(uint64_t bind_id, bool flow_in, bool flow_out, EventRef slice, TimeNs slice_start) {
  v2_.push_back(V2Event{slice_start, bind_id, slice, order_++, flow_in, flow_out});
}

void FlowBinder::set_thread_tracks(uint32_t thread, std::vector<uint32_t> tracks) {
  if (thread_tracks_.size() <= thread) thread_tracks_.resize(thread + 1);
  thread_tracks_[thread] = std::move(tracks);
}

void FlowBinder::set_first_row(uint32_t track, uint32_t first_row) { first_rows_.emplace_back(track, first_row); }

FlowBindStats FlowBinder::bind(TraceBuilder& builder, TimeNs ts_offset) {
  FlowBindStats stats;
  if (ts_offset != 0) {
    for (V1Event& e : v1_) e.ts += ts_offset;
    for (V2Event& e : v2_) e.ts += ts_offset;
  }
  const Trace& tr = builder.trace();
  std::vector<uint32_t> first_row(tr.tracks.size(), 0);
  for (auto [t, r] : first_rows_)
    if (t < first_row.size()) first_row[t] = r;

  // 1. Resolve every v1 event to a slice, one thread at a time.
  std::vector<Bound> bound(v1_.size());
  std::vector<uint32_t> by_thread(v1_.size());
  std::iota(by_thread.begin(), by_thread.end(), 0u);
  std::sort(by_thread.begin(), by_thread.end(), [&](uint32_t a, uint32_t b) {
    if (v1_[a].thread != v1_[b].thread) return v1_[a].thread < v1_[b].thread;
    return v1_[a].ts != v1_[b].ts ? v1_[a].ts < v1_[b].ts : a < b;
  });
  std::vector<uint32_t> rows;
  std::vector<uint32_t> stack;
  for (size_t lo = 0; lo < by_thread.size();) {
    const uint32_t thread = v1_[by_thread[lo]].thread;
    size_t hi = lo;
    while (hi < by_thread.size() && v1_[by_thread[hi]].thread == thread) ++hi;
    const std::vector<uint32_t> none;
    const auto& tracks = thread < thread_tracks_.size() ? thread_tracks_[thread] : none;
    for (uint32_t t : tracks) {
      const SliceColumns& s = tr.tracks[t].slices;
      rows.resize(s.size() - std::min<size_t>(s.size(), first_row[t]));
      std::iota(rows.begin(), rows.end(), first_row[t]);
      auto before = [&](uint32_t a, uint32_t b) {
        if (s.start[a] != s.start[b]) return s.start[a] < s.start[b];
        return s.dur[a] != s.dur[b] ? s.dur[a] > s.dur[b] : a < b;
      };
      if (!std::is_sorted(rows.begin(), rows.end(), before)) std::sort(rows.begin(), rows.end(), before);
      // Sweep the events (sorted by ts) against the rows (sorted by start) with a stack of open
      // slices: its top is the latest-started slice that has not ended before ts.
      stack.clear();
      size_t next = 0;
      for (size_t k = lo; k < hi; ++k) {
        const V1Event& ev = v1_[by_thread[k]];
        Bound cand;
        if (ev.enclosing) {
          while (next < rows.size() && s.start[rows[next]] <= ev.ts) stack.push_back(rows[next++]);
          while (!stack.empty() && s.start[stack.back()] + s.dur[stack.back()] < ev.ts) stack.pop_back();
          if (!stack.empty()) cand = {EventRef{t, stack.back()}, s.start[stack.back()], s.dur[stack.back()]};
        } else {
          auto it = std::lower_bound(rows.begin(), rows.end(), ev.ts,
                                     [&](uint32_t r, TimeNs ts) { return s.start[r] < ts; });
          if (it != rows.end()) cand = {EventRef{t, *it}, s.start[*it], s.dur[*it]};
        }
        Bound& best = bound[by_thread[k]];
        if (ev.enclosing ? deeper(cand, best) : earlier(cand, best)) best = cand;
      }
    }
    lo = hi;
  }

  // 2. Replay in (time, file order), as a streaming importer would see them.
  struct Step {
    TimeNs ts;
    uint32_t order;
    bool v2;
    uint32_t index;
  };
  std::vector<Step> steps;
  steps.reserve(v1_.size() + v2_.size());
  for (uint32_t i = 0; i < v1_.size(); ++i) {
    if (!bound[i].valid()) {
      ++stats.unbound;
      continue;
    }
    steps.push_back(Step{v1_[i].ts, v1_[i].order, false, i});
  }
  for (uint32_t i = 0; i < v2_.size(); ++i) steps.push_back(Step{v2_[i].ts, v2_[i].order, true, i});
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.ts != b.ts ? a.ts < b.ts : a.order < b.order; });

  struct Source {
    EventRef ref;
    TimeNs start;
  };
  std::unordered_map<V1Key, Source, V1KeyHash> open_v1;
  std::unordered_map<uint64_t, Source> open_v2;
  auto link = [&](const Source& a, const Source& b, FlowKind kind) {
    if (a.start <= b.start) builder.add_flow(a.ref, b.ref, kind);
    else builder.add_flow(b.ref, a.ref, kind);
    ++stats.flows;
  };
  for (const Step& st : steps) {
    if (!st.v2) {
      const V1Event& ev = v1_[st.index];
      const Source here{bound[st.index].ref, bound[st.index].start};
      if (ev.ph == 's') {
        if (!open_v1.try_emplace(ev.key, here).second) ++stats.duplicate_starts;
        continue;
      }
      auto it = open_v1.find(ev.key);
      if (it == open_v1.end()) {
        ++stats.without_start;
        continue;
      }
      link(it->second, here, ev.kind);
      if (ev.ph == 't') it->second = here;
    } else {
      const V2Event& ev = v2_[st.index];
      const Source here{ev.slice, ev.ts};
      if (ev.out && !ev.in) {
        if (!open_v2.try_emplace(ev.id, here).second) ++stats.duplicate_starts;
        continue;
      }
      auto it = open_v2.find(ev.id);
      if (it == open_v2.end()) {
        ++stats.without_start;
        continue;
      }
      link(it->second, here, FlowKind::kGeneric);
      if (ev.out) it->second = here;
    }
  }
  return stats;
}

}  // namespace parascope
