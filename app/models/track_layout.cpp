#include "models/track_layout.h"

#include <algorithm>

#include "trace/core/clock_alignment.h"

namespace parascope::models {

uint64_t process_key(uint32_t process) { return (uint64_t{1} << 40) | process; }
uint64_t device_key(int32_t device) { return (uint64_t{2} << 40) | static_cast<uint32_t>(device); }

namespace {

int kind_order(TrackKind k) {
  switch (k) {
    case TrackKind::kGpuStream: return 0;
    case TrackKind::kGpuAnnotation: return 0;  // placed right after its stream
    case TrackKind::kCollective: return 1;
    case TrackKind::kSmLane: return 2;
    case TrackKind::kCopyEngine: return 3;
    case TrackKind::kLink: return 4;
    case TrackKind::kCounter: return 5;
    case TrackKind::kNvtx: return 6;
    case TrackKind::kCpuThread: return 7;
    case TrackKind::kAsync: return 8;
    case TrackKind::kCount: break;
  }
  return 9;
}

// Default order, then the user's positions where given (a user position wins over the default).
void sort_siblings(const Trace& trace, const LayoutOptions& o, std::vector<int32_t>& tracks) {
  std::stable_sort(tracks.begin(), tracks.end(), [&](int32_t a, int32_t b) {
    const Track& ta = trace.tracks[static_cast<size_t>(a)];
    const Track& tb = trace.tracks[static_cast<size_t>(b)];
    if (kind_order(ta.key.kind) != kind_order(tb.key.kind)) return kind_order(ta.key.kind) < kind_order(tb.key.kind);
    // Chrome's rule: a track's sort key is its sort index (M events) when it has one, else its id
    // (string-named tracks have ids past every thread id, so they come last)
    const int64_t ka = ta.sort_index != 0 ? ta.sort_index : ta.key.id;
    const int64_t kb = tb.sort_index != 0 ? tb.sort_index : tb.key.id;
    if (ka != kb) return ka < kb;
    return ta.key.id < tb.key.id;
  });
  if (o.track_order.empty()) return;
  std::vector<std::pair<int, int32_t>> keyed;
  for (size_t i = 0; i < tracks.size(); ++i) {
    const auto it = o.track_order.find(tracks[i]);
    keyed.emplace_back(it != o.track_order.end() ? it->second : static_cast<int>(i), tracks[i]);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < tracks.size(); ++i) tracks[i] = keyed[i].second;
}

}  // namespace

TrackLayout::TrackLayout(const Trace& trace, const LayoutOptions& o) {
  row_of_track_.assign(trace.tracks.size(), -1);
  group_of_track_.assign(trace.tracks.size(), -1);
  // processes by rank (unknown ranks last, by pid), then the user's order
  process_order_.resize(trace.processes.size());
  for (uint32_t i = 0; i < process_order_.size(); ++i) process_order_[i] = i;
  std::stable_sort(process_order_.begin(), process_order_.end(), [&](uint32_t a, uint32_t b) {
    const auto ra = trace.processes[a].rank, rb = trace.processes[b].rank;
    if ((ra < 0) != (rb < 0)) return ra >= 0;
    if (ra != rb) return ra < rb;
    if (trace.processes[a].sort_index != trace.processes[b].sort_index)
      return trace.processes[a].sort_index < trace.processes[b].sort_index;
    return trace.processes[a].pid < trace.processes[b].pid;
  });
  if (!o.process_order.empty()) {
    std::vector<std::pair<int, uint32_t>> keyed;
    for (size_t i = 0; i < process_order_.size(); ++i) {
      const auto it = o.process_order.find(process_order_[i]);
      keyed.emplace_back(it != o.process_order.end() ? it->second : static_cast<int>(i), process_order_[i]);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keyed.size(); ++i) process_order_[i] = keyed[i].second;
  }
  // children of each track (annotation tracks under their stream), SM lanes and plain tracks per device
  std::vector<std::vector<int32_t>> children(trace.tracks.size());
  std::vector<std::vector<int32_t>> device_tracks(trace.devices.size()), sm_tracks(trace.devices.size());
  std::vector<std::vector<int32_t>> host_tracks(trace.processes.size());
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    const Track& tr = trace.tracks[t];
    const auto ti = static_cast<int32_t>(t);
    if (tr.parent >= 0 && static_cast<size_t>(tr.parent) < trace.tracks.size()) {
      children[static_cast<size_t>(tr.parent)].push_back(ti);
    } else if (tr.key.device >= 0 && static_cast<size_t>(tr.key.device) < trace.devices.size()) {
      if (tr.key.kind == TrackKind::kSmLane) sm_tracks[static_cast<size_t>(tr.key.device)].push_back(ti);
      else device_tracks[static_cast<size_t>(tr.key.device)].push_back(ti);
    } else if (tr.key.process < trace.processes.size()) {
      host_tracks[tr.key.process].push_back(ti);
    }
  }
  auto group = [&](std::vector<int32_t>& tracks) {
    sort_siblings(trace, o, tracks);
    for (int32_t t : tracks) group_of_track_[static_cast<size_t>(t)] = static_cast<int>(groups_.size());
    groups_.push_back(tracks);
  };
  for (auto& c : children) group(c);
  for (auto& d : device_tracks) group(d);
  for (auto& s : sm_tracks) {
    std::stable_sort(s.begin(), s.end(), [&](int32_t a, int32_t b) {
      return trace.tracks[static_cast<size_t>(a)].key.id < trace.tracks[static_cast<size_t>(b)].key.id;
    });
    for (int32_t t : s) group_of_track_[static_cast<size_t>(t)] = static_cast<int>(groups_.size());
    groups_.push_back(s);
  }
  for (auto& h : host_tracks) group(h);

  double y = 0;
  auto empty = [&](int32_t t) {
    const Track& tr = trace.tracks[static_cast<size_t>(t)];
    return o.hide_empty && tr.slices.empty() && tr.counter.size() == 0;
  };
  auto add_track = [&](int32_t t, int indent) {
    if (o.hidden_tracks.count(t) || empty(t)) return;
    const Track& tr = trace.tracks[static_cast<size_t>(t)];
    TimelineRow r;
    r.kind = TimelineRow::Kind::kTrack;
    r.track = t;
    r.process = tr.key.process;
    r.device = tr.key.device;
    r.label = std::string(trace.str(tr.name));
    r.indent = indent;
    r.sub_rows = std::min(track_sub_rows(tr), std::max(1, o.max_sub_rows));
    double sub_h = o.row_height;
    if (tr.key.kind == TrackKind::kSmLane) {
      r.sub_rows = kSmRoleCount;
      sub_h = o.sm_sub_row_height;
    }
    if (tr.counter.size() && tr.slices.empty()) r.sub_rows = 2;  // counters get a double-height area
    r.y = y;
    r.height = r.sub_rows * sub_h;
    y += r.height;
    row_of_track_[static_cast<size_t>(t)] = static_cast<int>(rows_.size());
    rows_.push_back(std::move(r));
    for (int32_t c : children[static_cast<size_t>(t)]) {
      if (o.hidden_tracks.count(c) || empty(c)) continue;
      const Track& ct = trace.tracks[static_cast<size_t>(c)];
      TimelineRow cr;
      cr.kind = TimelineRow::Kind::kTrack;
      cr.track = c;
      cr.process = ct.key.process;
      cr.device = ct.key.device;
      cr.label = std::string(trace.str(ct.name));
      cr.indent = indent + 1;
      cr.sub_rows = std::min(track_sub_rows(ct), std::max(1, o.max_sub_rows));
      cr.y = y;
      cr.height = cr.sub_rows * o.row_height;
      y += cr.height;
      row_of_track_[static_cast<size_t>(c)] = static_cast<int>(rows_.size());
      rows_.push_back(std::move(cr));
    }
  };
  auto header = [&](TimelineRow h) {
    h.y = y;
    y += h.height;
    rows_.push_back(std::move(h));
  };
  const std::vector<ClockAlignment> clocks = clock_alignments(trace);
  for (uint32_t p : process_order_) {
    const Process& proc = trace.processes[p];
    TimelineRow h;
    h.kind = TimelineRow::Kind::kProcess;
    h.process = p;
    h.label = (proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : proc.name) +
              (proc.pid ? "  pid " + std::to_string(proc.pid) : "") + (proc.host.empty() ? "" : "  " + proc.host) +
              (clocks[p].label.empty() ? "" : "  ·  " + clocks[p].label);
    h.details = clocks[p].text;
    h.collapsed = o.collapsed.count(process_key(p)) != 0;
    h.height = o.header_height;
    header(h);
    if (h.collapsed) continue;
    for (uint32_t d = 0; d < trace.devices.size(); ++d) {
      if (trace.devices[d].process != p) continue;
      const Device& dev = trace.devices[d];
      const auto di = static_cast<int32_t>(d);
      TimelineRow dh;
      dh.kind = TimelineRow::Kind::kDevice;
      dh.process = p;
      dh.device = di;
      dh.label = "GPU " + std::to_string(dev.ordinal) + (dev.name.empty() ? "" : "  " + dev.name);
      dh.indent = 1;
      dh.collapsed = o.collapsed.count(device_key(di)) != 0;
      dh.height = o.header_height;
      header(dh);
      if (dh.collapsed) continue;
      const auto& plain = groups_[static_cast<size_t>(trace.tracks.size() + d)];
      const auto& sms = sm_tracks[d];
      // streams and collectives first, then the SM lanes, then copy engines, links, counters
      size_t i = 0;
      for (; i < plain.size() && kind_order(trace.tracks[static_cast<size_t>(plain[i])].key.kind) < kind_order(TrackKind::kSmLane); ++i)
        add_track(plain[i], 2);
      if (!sms.empty()) {
        TimelineRow g;
        g.kind = TimelineRow::Kind::kSmGroup;
        g.process = p;
        g.device = di;
        g.label = "SM lanes (" + std::to_string(sms.size()) + ")";
        g.indent = 2;
        g.collapsed = o.expanded_sm.count(di) == 0;
        g.height = o.heat_strip_height;
        header(g);
        if (!g.collapsed)
          for (int32_t t : sms) add_track(t, 3);
      }
      for (; i < plain.size(); ++i) add_track(plain[i], 2);
    }
    if (!o.show_cpu) continue;
    for (int32_t t : groups_[static_cast<size_t>(trace.tracks.size() + 2 * trace.devices.size() + p)]) add_track(t, 1);
  }
  total_height_ = y;
}

int TrackLayout::row_at(double y) const {
  auto it = std::upper_bound(rows_.begin(), rows_.end(), y, [](double v, const TimelineRow& r) { return v < r.y; });
  if (it == rows_.begin()) return -1;
  --it;
  if (y >= it->y + it->height) return -1;
  return static_cast<int>(it - rows_.begin());
}

int TrackLayout::row_of_track(int32_t track) const {
  if (track < 0 || static_cast<size_t>(track) >= row_of_track_.size()) return -1;
  return row_of_track_[static_cast<size_t>(track)];
}

const std::vector<int32_t>& TrackLayout::siblings(int32_t track) const {
  static const std::vector<int32_t> kNone;
  if (track < 0 || static_cast<size_t>(track) >= group_of_track_.size() || group_of_track_[static_cast<size_t>(track)] < 0)
    return kNone;
  return groups_[static_cast<size_t>(group_of_track_[static_cast<size_t>(track)])];
}

bool TrackLayout::move_track(const Trace& trace, LayoutOptions& options, int32_t track, int delta) {
  const TrackLayout current(trace, options);
  std::vector<int32_t> sib = current.siblings(track);
  const auto it = std::find(sib.begin(), sib.end(), track);
  if (it == sib.end() || trace.tracks[static_cast<size_t>(track)].key.kind == TrackKind::kSmLane) return false;
  const auto i = it - sib.begin();
  const auto j = i + delta;
  if (j < 0 || j >= static_cast<std::ptrdiff_t>(sib.size())) return false;
  std::swap(sib[static_cast<size_t>(i)], sib[static_cast<size_t>(j)]);
  for (size_t k = 0; k < sib.size(); ++k) options.track_order[sib[k]] = static_cast<int>(k);
  return true;
}

bool TrackLayout::move_process(const Trace& trace, LayoutOptions& options, uint32_t process, int delta) {
  const TrackLayout current(trace, options);
  std::vector<uint32_t> order = current.process_order();
  const auto it = std::find(order.begin(), order.end(), process);
  if (it == order.end()) return false;
  const auto i = it - order.begin();
  const auto j = i + delta;
  if (j < 0 || j >= static_cast<std::ptrdiff_t>(order.size())) return false;
  std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  for (size_t k = 0; k < order.size(); ++k) options.process_order[order[k]] = static_cast<int>(k);
  return true;
}

}  // namespace parascope::models
