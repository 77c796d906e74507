#include "render/track_layout.h"

#include <algorithm>

namespace parascope::render {

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
}  // namespace

TrackLayout::TrackLayout(const Trace& trace, const LayoutOptions& o) {
  row_of_track_.assign(trace.tracks.size(), -1);
  // processes by rank (unknown ranks last, by pid)
  std::vector<uint32_t> procs(trace.processes.size());
  for (uint32_t i = 0; i < procs.size(); ++i) procs[i] = i;
  std::stable_sort(procs.begin(), procs.end(), [&](uint32_t a, uint32_t b) {
    const auto ra = trace.processes[a].rank, rb = trace.processes[b].rank;
    if ((ra < 0) != (rb < 0)) return ra >= 0;
    if (ra != rb) return ra < rb;
    if (trace.processes[a].sort_index != trace.processes[b].sort_index)
      return trace.processes[a].sort_index < trace.processes[b].sort_index;
    return trace.processes[a].pid < trace.processes[b].pid;
  });
  double y = 0;
  auto add_track = [&](int32_t t, int indent) {
    if (o.hidden_tracks.count(t)) return;
    const Track& tr = trace.tracks[static_cast<size_t>(t)];
    TimelineRow r;
    r.kind = TimelineRow::Kind::kTrack;
    r.track = t;
    r.process = tr.key.process;
    r.device = tr.key.device;
    r.label = std::string(trace.str(tr.name));
    r.indent = indent;
    r.sub_rows = tr.key.kind == TrackKind::kSmLane ? kSmRoleCount : std::min<int>(tr.max_depth + 1, o.max_sub_rows);
    if (tr.counter.size() && tr.slices.empty()) r.sub_rows = 2;  // counters get a double-height area
    r.y = y;
    r.height = r.sub_rows * o.row_height;
    y += r.height;
    row_of_track_[static_cast<size_t>(t)] = static_cast<int>(rows_.size());
    rows_.push_back(std::move(r));
  };
  for (uint32_t p : procs) {
    const Process& proc = trace.processes[p];
    TimelineRow h;
    h.kind = TimelineRow::Kind::kProcess;
    h.process = p;
    h.label = (proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : proc.name) +
              (proc.pid ? "  pid " + std::to_string(proc.pid) : "") + (proc.host.empty() ? "" : "  " + proc.host);
    h.collapsed = o.collapsed.count(process_key(p)) != 0;
    h.y = y;
    h.height = o.header_height;
    y += h.height;
    rows_.push_back(h);
    if (h.collapsed) continue;
    // devices of this process
    for (uint32_t d = 0; d < trace.devices.size(); ++d) {
      if (trace.devices[d].process != p) continue;
      const Device& dev = trace.devices[d];
      TimelineRow dh;
      dh.kind = TimelineRow::Kind::kDevice;
      dh.process = p;
      dh.device = static_cast<int32_t>(d);
      dh.label = "GPU " + std::to_string(dev.ordinal) + (dev.name.empty() ? "" : "  " + dev.name);
      dh.indent = 1;
      dh.collapsed = o.collapsed.count(device_key(static_cast<int32_t>(d))) != 0;
      dh.y = y;
      dh.height = o.header_height;
      y += dh.height;
      rows_.push_back(dh);
      if (dh.collapsed) continue;
      std::vector<int32_t> tracks;
      for (uint32_t t = 0; t < trace.tracks.size(); ++t)
        if (trace.tracks[t].key.device == static_cast<int32_t>(d) && trace.tracks[t].key.kind != TrackKind::kGpuAnnotation)
          tracks.push_back(static_cast<int32_t>(t));
      std::stable_sort(tracks.begin(), tracks.end(), [&](int32_t a, int32_t b) {
        const Track& ta = trace.tracks[static_cast<size_t>(a)];
        const Track& tb = trace.tracks[static_cast<size_t>(b)];
        if (kind_order(ta.key.kind) != kind_order(tb.key.kind)) return kind_order(ta.key.kind) < kind_order(tb.key.kind);
        return ta.key.id < tb.key.id;
      });
      for (int32_t t : tracks) {
        add_track(t, 2);
        for (uint32_t c = 0; c < trace.tracks.size(); ++c)
          if (trace.tracks[c].parent == t) add_track(static_cast<int32_t>(c), 3);
      }
    }
    if (!o.show_cpu) continue;
    std::vector<int32_t> host_tracks;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t)
      if (trace.tracks[t].key.process == p && trace.tracks[t].key.device < 0 && trace.tracks[t].parent < 0)
        host_tracks.push_back(static_cast<int32_t>(t));
    std::stable_sort(host_tracks.begin(), host_tracks.end(), [&](int32_t a, int32_t b) {
      const Track& ta = trace.tracks[static_cast<size_t>(a)];
      const Track& tb = trace.tracks[static_cast<size_t>(b)];
      if (kind_order(ta.key.kind) != kind_order(tb.key.kind)) return kind_order(ta.key.kind) < kind_order(tb.key.kind);
      if (ta.sort_index != tb.sort_index) return ta.sort_index < tb.sort_index;
      return ta.key.id < tb.key.id;
    });
    for (int32_t t : host_tracks) add_track(t, 1);
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

}  // namespace parascope::render
