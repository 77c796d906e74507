#include "trace/io/export/perfetto_writer.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <set>
#include <unordered_map>

#include "trace/io/common/atomic_file.h"
#include "trace/io/export/proto_encoder.h"

namespace parascope {

namespace {

// Field numbers, from google/perfetto protos/perfetto/trace (trace.proto, trace_packet.proto,
// track_event/track_event.proto, track_descriptor.proto, process_descriptor.proto,
// thread_descriptor.proto, counter_descriptor.proto, debug_annotation.proto).
namespace pf {
constexpr uint32_t kTracePacket = 1;             // Trace.packet
constexpr uint32_t kTimestamp = 8;               // TracePacket.timestamp
constexpr uint32_t kSequenceId = 10;             // TracePacket.trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;             // TracePacket.track_event
constexpr uint32_t kSequenceFlags = 13;          // TracePacket.sequence_flags
constexpr uint32_t kTrackDescriptor = 60;        // TracePacket.track_descriptor
constexpr uint64_t kSeqIncrementalStateCleared = 1;

constexpr uint32_t kTdUuid = 1, kTdName = 2, kTdProcess = 3, kTdThread = 4, kTdParentUuid = 5, kTdCounter = 8,
                   kTdChildOrdering = 11, kTdSiblingOrderRank = 12, kTdDescription = 14, kTdSiblingMerge = 15;
constexpr uint64_t kChildOrderingExplicit = 3;
constexpr uint64_t kSiblingMergeNone = 2;
constexpr uint32_t kPdPid = 1, kPdProcessName = 6;
constexpr uint32_t kThPid = 1, kThTid = 2, kThThreadName = 5;
constexpr uint32_t kCdUnit = 3, kCdUnitName = 6;
constexpr uint64_t kUnitUnspecified = 0;

constexpr uint32_t kTeDebugAnnotations = 4, kTeType = 9, kTeTrackUuid = 11, kTeCategories = 22, kTeName = 23,
                   kTeDoubleCounterValue = 44, kTeFlowIds = 47, kTeTerminatingFlowIds = 48;
constexpr uint64_t kTypeSliceBegin = 1, kTypeSliceEnd = 2, kTypeInstant = 3, kTypeCounter = 4;

constexpr uint32_t kDaBoolValue = 2, kDaUintValue = 3, kDaIntValue = 4, kDaDoubleValue = 5, kDaStringValue = 6,
                   kDaLegacyJsonValue = 9, kDaName = 10;
}  // namespace pf

constexpr uint32_t kSequence = 1;
constexpr uint64_t kProgressEvery = 1 << 16;
constexpr uint64_t uuid_of(uint64_t space, uint64_t i) { return (space << 48) | (i + 1); }
enum UuidSpace : uint64_t { kProcessSpace = 1, kTrackSpace = 2, kDeviceSpace = 3, kSmGroupSpace = 4 };

// Per-track cursor producing BEGIN/END/INSTANT/COUNTER events in time order with proper nesting.
struct Cursor {
  uint32_t track = 0;
  uint32_t next = 0;       // next slice to begin
  uint32_t next_counter = 0;
  std::vector<TimeNs> open;  // ends of open slices, innermost last (non-increasing)
};

class Writer {
 public:
  Writer(const Trace& t, const PerfettoWriteOptions& o, PerfettoWriteResult& r) : t_(t), o_(o), r_(r) {}

  void write(const std::string& path) {
    AtomicFile file(path);
    file_ = &file;
    shift_ = 0;
    const auto [lo, hi] = t_.time_span();
    (void)hi;
    if (lo < 0) {
      shift_ = -lo;
      r_.warnings.push_back("the trace starts at a negative time; every timestamp was shifted by " +
                            std::to_string(shift_) + " ns (Perfetto timestamps are unsigned)");
    }
    index_flows();
    descriptors();
    events();
    flush();
    file.commit();
    file_ = nullptr;
    r_.files.push_back(path);
    if (r_.clamped_children)
      r_.warnings.push_back(std::to_string(r_.clamped_children) +
                            " slices reached past their parent's end and were cut at it (Perfetto needs strict nesting)");
  }

 private:
  void emit_packet(const ProtoEncoder& packet) {
    out_.tag(pf::kTracePacket, ProtoEncoder::kLengthDelimited);
    out_.raw_varint(packet.size());
    // append the packet bytes
    buf_ += out_.data();
    buf_ += packet.data();
    out_.clear();
    if (buf_.size() > (1u << 20)) flush();
  }
  void flush() {
    file_->write(buf_);
    buf_.clear();
  }

  void descriptor_packet(const ProtoEncoder& td) {
    packet_.clear();
    packet_.uint(pf::kSequenceId, kSequence);
    if (first_packet_) {
      packet_.uint(pf::kSequenceFlags, pf::kSeqIncrementalStateCleared);
      first_packet_ = false;
    }
    packet_.message(pf::kTrackDescriptor, td);
    emit_packet(packet_);
  }

  std::string device_label(uint32_t d) const {
    const Device& dev = t_.devices[d];
    std::string s = "GPU " + std::to_string(dev.ordinal);
    if (!dev.name.empty()) s += " \xC2\xB7 " + dev.name;
    return s;
  }

  void descriptors() {
    // processes
    std::set<int64_t> used_pids;
    pid_.assign(t_.processes.size(), 0);
    for (uint32_t p = 0; p < t_.processes.size(); ++p) {
      const Process& proc = t_.processes[p];
      int64_t pid = proc.pid;
      if (pid <= 0 || pid > std::numeric_limits<int32_t>::max() || used_pids.count(pid)) pid = (int64_t{1} << 30) + p;
      used_pids.insert(pid);
      pid_[p] = pid;
      std::string name = proc.name;
      if (proc.rank >= 0 && name.rfind("rank ", 0) != 0) name = "rank " + std::to_string(proc.rank) + " \xC2\xB7 " + name;
      ProtoEncoder pd;
      pd.sint(pf::kPdPid, pid);
      pd.string(pf::kPdProcessName, name);
      ProtoEncoder td;
      td.uint(pf::kTdUuid, uuid_of(kProcessSpace, p));
      td.message(pf::kTdProcess, pd);
      if (!proc.source.empty()) td.string(pf::kTdDescription, "from " + proc.source);
      descriptor_packet(td);
      ++r_.process_tracks;
    }
    // device groups and SM groups
    std::vector<uint8_t> has_sm(t_.devices.size(), 0);
    for (const Track& tr : t_.tracks)
      if (tr.key.kind == TrackKind::kSmLane && tr.key.device >= 0 && static_cast<size_t>(tr.key.device) < has_sm.size())
        has_sm[static_cast<size_t>(tr.key.device)] = 1;
    for (uint32_t d = 0; d < t_.devices.size(); ++d) {
      ProtoEncoder td;
      td.uint(pf::kTdUuid, uuid_of(kDeviceSpace, d));
      td.uint(pf::kTdParentUuid, uuid_of(kProcessSpace, t_.devices[d].process));
      td.string(pf::kTdName, device_label(d));
      td.uint(pf::kTdChildOrdering, pf::kChildOrderingExplicit);
      td.uint(pf::kTdSiblingMerge, pf::kSiblingMergeNone);
      td.sint(pf::kTdSiblingOrderRank, d);
      descriptor_packet(td);
      ++r_.custom_tracks;
      if (has_sm[d]) {
        ProtoEncoder sm;
        sm.uint(pf::kTdUuid, uuid_of(kSmGroupSpace, d));
        sm.uint(pf::kTdParentUuid, uuid_of(kDeviceSpace, d));
        sm.string(pf::kTdName, "SMs");
        sm.uint(pf::kTdChildOrdering, pf::kChildOrderingExplicit);
        sm.uint(pf::kTdSiblingMerge, pf::kSiblingMergeNone);
        sm.sint(pf::kTdSiblingOrderRank, 1'000'000);
        descriptor_packet(sm);
        ++r_.custom_tracks;
      }
    }
    // tracks
    std::set<std::pair<int64_t, int64_t>> used_threads;
    for (uint32_t ti = 0; ti < t_.tracks.size(); ++ti) {
      const Track& tr = t_.tracks[ti];
      if (tr.slices.empty() && tr.counter.size() == 0) continue;
      ProtoEncoder td;
      td.uint(pf::kTdUuid, uuid_of(kTrackSpace, ti));
      const int32_t dev = tr.key.device;
      const bool on_device = dev >= 0 && static_cast<size_t>(dev) < t_.devices.size();
      const int64_t pid = tr.key.process < pid_.size() ? pid_[tr.key.process] : 0;
      const bool counter = tr.counter.size() > 0 && tr.slices.empty();
      std::string name(t_.str(tr.name));
      if (tr.key.kind == TrackKind::kCpuThread && !counter && tr.key.id >= 0 &&
          tr.key.id <= std::numeric_limits<int32_t>::max() && used_threads.insert({pid, tr.key.id}).second) {
        ProtoEncoder th;
        th.sint(pf::kThPid, pid);
        th.sint(pf::kThTid, tr.key.id);
        th.string(pf::kThThreadName, name);
        td.message(pf::kTdThread, th);
        descriptor_packet(td);
        ++r_.thread_tracks;
        continue;
      }
      uint64_t parent = uuid_of(kProcessSpace, tr.key.process);
      if (on_device) parent = uuid_of(kDeviceSpace, static_cast<uint64_t>(dev));
      if (tr.key.kind == TrackKind::kSmLane && on_device) parent = uuid_of(kSmGroupSpace, static_cast<uint64_t>(dev));
      if (tr.key.kind == TrackKind::kGpuAnnotation && tr.parent >= 0 && static_cast<size_t>(tr.parent) < t_.tracks.size() &&
          !t_.tracks[static_cast<size_t>(tr.parent)].slices.empty())
        parent = uuid_of(kTrackSpace, static_cast<uint64_t>(tr.parent));
      td.uint(pf::kTdParentUuid, parent);
      if (counter) {
        if (tr.counter_source != CounterSource::kMeasured && name.find("(" + std::string(to_string(tr.counter_source)) + ")") == std::string::npos)
          name += " (" + std::string(to_string(tr.counter_source)) + ")";
        ProtoEncoder cd;
        // never an empty message: decoders show those as an empty string, not as a descriptor
        if (tr.unit != kEmptyString) cd.string(pf::kCdUnitName, t_.str(tr.unit));
        else cd.uint(pf::kCdUnit, pf::kUnitUnspecified);
        td.message(pf::kTdCounter, cd);
        ++r_.counter_tracks;
      } else {
        ++r_.custom_tracks;
      }
      td.string(pf::kTdName, name);
      td.uint(pf::kTdSiblingMerge, pf::kSiblingMergeNone);
      // streams in id order, then annotation/other tracks, counters last
      int64_t rank = tr.key.kind == TrackKind::kGpuStream || tr.key.kind == TrackKind::kSmLane ? tr.key.id : 0;
      if (counter) rank = 2'000'000;
      td.sint(pf::kTdSiblingOrderRank, std::clamp<int64_t>(rank, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
      descriptor_packet(td);
    }
  }

  void index_flows() {
    for (size_t fi = 0; fi < t_.flows.size(); ++fi) {
      const Flow& f = t_.flows[fi];
      auto valid = [&](EventRef e) {
        return e.valid() && e.track < t_.tracks.size() && e.index < t_.tracks[e.track].slices.size();
      };
      if (!valid(f.from) || !valid(f.to)) continue;
      out_flows_.emplace(key_of(f.from), fi + 1);
      in_flows_.emplace(key_of(f.to), fi + 1);
      ++r_.flows;
    }
  }
  static uint64_t key_of(EventRef e) { return (static_cast<uint64_t>(e.track) << 32) | e.index; }

  void annotation(ProtoEncoder& te, std::string_view name, const ArgValue& v) {
    ProtoEncoder da;
    da.string(pf::kDaName, name);
    switch (v.type) {
      case ArgValue::Type::kInt: da.sint(pf::kDaIntValue, v.i); break;
      case ArgValue::Type::kUInt: da.uint(pf::kDaUintValue, v.u); break;
      case ArgValue::Type::kDouble: da.dbl(pf::kDaDoubleValue, v.d); break;
      case ArgValue::Type::kBool: da.boolean(pf::kDaBoolValue, v.b); break;
      case ArgValue::Type::kString: da.string(pf::kDaStringValue, t_.str(v.s)); break;
      case ArgValue::Type::kJson: da.string(pf::kDaLegacyJsonValue, t_.str(v.s)); break;
    }
    te.message(pf::kTeDebugAnnotations, da);
  }
  void ann_uint(ProtoEncoder& te, std::string_view name, uint64_t v) { annotation(te, name, ArgValue::of_uint(v)); }
  void ann_int(ProtoEncoder& te, std::string_view name, int64_t v) { annotation(te, name, ArgValue::of_int(v)); }
  void ann_str(ProtoEncoder& te, std::string_view name, std::string_view v) {
    ProtoEncoder da;
    da.string(pf::kDaName, name);
    da.string(pf::kDaStringValue, v);
    te.message(pf::kTeDebugAnnotations, da);
  }

  std::string device_ref(uint16_t d) const { return d < t_.devices.size() ? device_label(d) : "host"; }

  void typed_annotations(ProtoEncoder& te, uint32_t ti, uint32_t i) {
    const SliceRef r = t_.tracks[ti].slices.ref[i];
    if (!r.has_detail()) return;
    auto dims = [](const uint32_t d[3]) {
      return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
    };
    switch (r.kind()) {
      case SliceKind::kKernel: {
        const KernelInfo& k = t_.kernels[r.index()];
        if (k.correlation) ann_uint(te, "correlation", k.correlation);
        if (const LaunchConfig* lc = t_.launch_config(k)) {
          ann_str(te, "grid", dims(lc->grid));
          ann_str(te, "block", dims(lc->block));
          ann_uint(te, "registers per thread", lc->registers_per_thread);
          ann_uint(te, "shared memory", lc->dynamic_smem + lc->static_smem);
        }
        if (k.graph_id) ann_uint(te, "graph id", k.graph_id);
        auto it = collective_by_kernel_.find((static_cast<uint64_t>(ti) << 32) | i);
        if (it != collective_by_kernel_.end()) {
          const CollectiveInfo& c = t_.collectives[it->second];
          ann_str(te, "collective", to_string(c.op));
          ann_uint(te, "in elements", c.in_elements);
          ann_uint(te, "out elements", c.out_elements);
          if (c.dtype != kEmptyString) ann_str(te, "dtype", t_.str(c.dtype));
          if (c.group_size) ann_int(te, "group size", c.group_size);
          if (c.group != kEmptyString) ann_str(te, "process group", t_.str(c.group));
          if (c.sequence >= 0) ann_int(te, "seq", c.sequence);
        }
        break;
      }
      case SliceKind::kMemcpy: {
        const MemcpyInfo& m = t_.memcpys[r.index()];
        ann_uint(te, "bytes", m.bytes.get());
        ann_str(te, "copy kind", to_string(m.copy_kind));
        ann_str(te, "src", device_ref(m.src_device));
        ann_str(te, "dst", device_ref(m.dst_device));
        if (m.correlation) ann_uint(te, "correlation", m.correlation);
        break;
      }
      case SliceKind::kMemset: {
        const MemsetInfo& m = t_.memsets[r.index()];
        ann_uint(te, "bytes", m.bytes.get());
        if (m.correlation) ann_uint(te, "correlation", m.correlation);
        break;
      }
      case SliceKind::kSync: ann_str(te, "sync", to_string(t_.syncs[r.index()].kind)); break;
      case SliceKind::kCpuOp: {
        const CpuOpInfo& c = t_.cpu_ops[r.index()];
        if (c.external_id.get()) ann_uint(te, "External id", c.external_id.get());
        break;
      }
      case SliceKind::kRuntimeApi: {
        const ApiInfo& a = t_.api_calls[r.index()];
        if (a.correlation) ann_uint(te, "correlation", a.correlation);
        break;
      }
      case SliceKind::kSmSpan: {
        const SmSpanInfo& s = t_.sm_spans[r.index()];
        ann_str(te, "role", to_string(s.role));
        ann_uint(te, "block", s.block);
        ann_uint(te, "warp", s.warp);
        break;
      }
      default: break;
    }
  }

  void event_packet(TimeNs ts, const ProtoEncoder& te) {
    packet_.clear();
    packet_.uint(pf::kTimestamp, static_cast<uint64_t>(ts + shift_));
    packet_.uint(pf::kSequenceId, kSequence);
    packet_.message(pf::kTrackEvent, te);
    emit_packet(packet_);
    if (++done_ % kProgressEvery == 0 && o_.progress) o_.progress(done_, total_);
  }

  void begin_slice(uint32_t ti, uint32_t i, bool instant) {
    const Track& tr = t_.tracks[ti];
    te_.clear();
    te_.uint(pf::kTeType, instant ? pf::kTypeInstant : pf::kTypeSliceBegin);
    te_.uint(pf::kTeTrackUuid, uuid_of(kTrackSpace, ti));
    te_.string(pf::kTeName, t_.str(tr.slices.name[i]));
    te_.string(pf::kTeCategories, to_string(tr.slices.ref[i].kind()));
    for (const Arg& a : t_.args.get(tr.slices.args_of(i))) annotation(te_, t_.str(a.key), a.value);
    typed_annotations(te_, ti, i);
    const uint64_t k = (static_cast<uint64_t>(ti) << 32) | i;
    for (auto [it, end] = out_flows_.equal_range(k); it != end; ++it) te_.fixed64(pf::kTeFlowIds, it->second);
    for (auto [it, end] = in_flows_.equal_range(k); it != end; ++it) te_.fixed64(pf::kTeTerminatingFlowIds, it->second);
    event_packet(tr.slices.start[i], te_);
    ++(instant ? r_.instants : r_.slices);
  }

  void end_slice(uint32_t ti, TimeNs ts) {
    te_.clear();
    te_.uint(pf::kTeType, pf::kTypeSliceEnd);
    te_.uint(pf::kTeTrackUuid, uuid_of(kTrackSpace, ti));
    event_packet(ts, te_);
  }

  void counter_sample(uint32_t ti, size_t i) {
    te_.clear();
    te_.uint(pf::kTeType, pf::kTypeCounter);
    te_.uint(pf::kTeTrackUuid, uuid_of(kTrackSpace, ti));
    te_.dbl(pf::kTeDoubleCounterValue, t_.tracks[ti].counter.value[i]);
    event_packet(t_.tracks[ti].counter.time[i], te_);
    ++r_.counter_samples;
  }

  // Time of a cursor's next event; max when done.
  TimeNs next_time(const Cursor& c) const {
    const Track& tr = t_.tracks[c.track];
    TimeNs t = std::numeric_limits<TimeNs>::max();
    if (!c.open.empty()) t = c.open.back();
    if (c.next < tr.slices.size()) t = std::min(t, tr.slices.start[c.next]);
    if (c.next_counter < tr.counter.size()) t = std::min(t, tr.counter.time[c.next_counter]);
    return t;
  }

  // Emits the cursor's next event.
  void step(Cursor& c) {
    const Track& tr = t_.tracks[c.track];
    const TimeNs next_start = c.next < tr.slices.size() ? tr.slices.start[c.next] : std::numeric_limits<TimeNs>::max();
    const TimeNs next_sample =
        c.next_counter < tr.counter.size() ? tr.counter.time[c.next_counter] : std::numeric_limits<TimeNs>::max();
    // ends first at equal times: a slice ending at t closes before one starting at t opens
    if (!c.open.empty() && c.open.back() <= next_start && c.open.back() <= next_sample) {
      end_slice(c.track, c.open.back());
      c.open.pop_back();
      return;
    }
    if (next_sample < next_start) {
      counter_sample(c.track, c.next_counter++);
      return;
    }
    const uint32_t i = c.next++;
    if (tr.slices.ref[i].kind() == SliceKind::kInstant) {
      begin_slice(c.track, i, true);
      return;
    }
    TimeNs end = tr.slices.end(i);
    if (!c.open.empty() && end > c.open.back()) {
      end = c.open.back();
      ++r_.clamped_children;
    }
    begin_slice(c.track, i, false);
    c.open.push_back(end);
  }

  void events() {
    for (uint32_t ci = 0; ci < t_.collectives.size(); ++ci)
      if (t_.collectives[ci].kernel.valid()) collective_by_kernel_[key_of(t_.collectives[ci].kernel)] = ci;
    std::vector<Cursor> cursors;
    for (uint32_t ti = 0; ti < t_.tracks.size(); ++ti) {
      const Track& tr = t_.tracks[ti];
      if (tr.slices.empty() && tr.counter.size() == 0) continue;
      if (!tr.slices.empty() && tr.counter.size() > 0)
        r_.warnings.push_back("track '" + std::string(t_.str(tr.name)) + "' holds slices and counter samples; only its slices were written");
      Cursor c;
      c.track = ti;
      if (!tr.slices.empty()) c.next_counter = static_cast<uint32_t>(tr.counter.size());
      cursors.push_back(std::move(c));
      total_ += 2 * tr.slices.size() + tr.counter.size();
    }
    using Item = std::pair<TimeNs, size_t>;  // (time, cursor); ties by cursor index keep it deterministic
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (size_t i = 0; i < cursors.size(); ++i) heap.push({next_time(cursors[i]), i});
    while (!heap.empty()) {
      const auto [t, i] = heap.top();
      heap.pop();
      if (t == std::numeric_limits<TimeNs>::max()) continue;
      step(cursors[i]);
      heap.push({next_time(cursors[i]), i});
    }
    if (o_.progress) o_.progress(total_, total_);
  }

  const Trace& t_;
  const PerfettoWriteOptions& o_;
  PerfettoWriteResult& r_;
  AtomicFile* file_ = nullptr;
  TimeNs shift_ = 0;
  std::string buf_;
  ProtoEncoder out_, packet_, te_;
  bool first_packet_ = true;
  std::vector<int64_t> pid_;
  std::unordered_multimap<uint64_t, uint64_t> out_flows_, in_flows_;
  std::unordered_map<uint64_t, uint32_t> collective_by_kernel_;
  uint64_t done_ = 0, total_ = 0;
};

}  // namespace

PerfettoWriteResult write_perfetto(const Trace& trace, const std::string& path, const PerfettoWriteOptions& options) {
  PerfettoWriteResult r;
  Writer w(trace, options, r);
  w.write(path);
  return r;
}

}  // namespace parascope
