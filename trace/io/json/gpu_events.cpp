#include "trace/io/json/importer.h"

namespace parascope::kineto {

void Importer::gpu_complete(const RawEvent& e, Thread& th, Cat cat) {
  if (cat == Cat::kCudaProfilerRange) {
    profiler_range(e, th);
    return;
  }
  const bool annotation = cat == Cat::kGpuUserAnnotation;
  const uint32_t t = gpu_track(th, e, f_, annotation);
  const uint32_t corr = static_cast<uint32_t>(f_.u64(kCorrelation));
  SliceRef ref;
  uint64_t structured = kGpuPlace;
  bool collective = false;
  switch (cat) {
    case Cat::kKernel: {
      LaunchConfig lc;
      dims(f_.has(kGrid) ? f_.v[kGrid] : nullptr, lc.grid);
      dims(f_.has(kBlock) ? f_.v[kBlock] : nullptr, lc.block);
      lc.registers_per_thread = static_cast<uint32_t>(f_.u64(kRegisters));
      lc.dynamic_smem = static_cast<uint32_t>(f_.u64(kSharedMemory));
      KernelInfo k;
      k.launch_config = b_.add_launch_config(lc);
      k.correlation = corr;
      k.graph_id = static_cast<uint32_t>(f_.u64(kGraphId));
      k.graph_node_id = U64Split(f_.u64(kGraphNodeId));
      ref = b_.add_kernel(k);
      collective = !f_.str(kCollectiveName).empty();
      structured = kKernelRoles | (collective ? kCollectiveRoles : 0);
      break;
    }
    case Cat::kMemcpy: {
      MemcpyInfo m;
      m.bytes = U64Split(f_.u64(kBytes));
      m.correlation = corr;
      m.copy_kind = copy_kind_from_name(e.name);
      auto [src, dst] = memory_kinds_from_name(e.name);
      m.src_memory = src;
      m.dst_memory = dst;
      const int64_t from = f_.i64(kFromDevice, f_.i64(kSrcDevice, -1));
      const int64_t to = f_.i64(kToDevice, f_.i64(kDstDevice, -1));
      const uint16_t self = static_cast<uint16_t>(b_.trace().tracks[t].key.device);
      if (src == MemoryKind::kDevice || m.copy_kind == CopyKind::kDtoH || m.copy_kind == CopyKind::kDtoD)
        m.src_device = self;
      if (dst == MemoryKind::kDevice || m.copy_kind == CopyKind::kHtoD || m.copy_kind == CopyKind::kDtoD)
        m.dst_device = self;
      if (from >= 0 && from < 65535) m.src_device = static_cast<uint16_t>(device(static_cast<int32_t>(from)));
      if (to >= 0 && to < 65535) m.dst_device = static_cast<uint16_t>(device(static_cast<int32_t>(to)));
      if (from >= 0 && to >= 0 && from != to) m.copy_kind = CopyKind::kPtoP;
      ref = b_.add_memcpy(m);
      structured = kMemcpyRoles;
      break;
    }
    case Cat::kMemset: {
      MemsetInfo m;
      m.bytes = U64Split(f_.u64(kBytes));
      m.correlation = corr;
      m.memory = memory_kind_from_word(e.name.substr(std::min<size_t>(e.name.size(), 8), e.name.find(')') - std::min<size_t>(e.name.size(), 8)));
      ref = b_.add_memset(m);
      structured = kMemsetRoles;
      break;
    }
    case Cat::kSync: {
      SyncInfo s;
      s.correlation = corr;
      s.kind = sync_kind_from_name(f_.has(kSyncKind) ? f_.str(kSyncKind) : e.name);
      s.stream = f_.i64(kWaitOnStream, -1);
      const int64_t ev = f_.i64(kWaitOnEventId, -1);
      s.event_id = ev >= 0 && ev < kNone32 ? static_cast<uint32_t>(ev) : kNone32;
      ref = b_.add_sync(s);
      structured = kSyncRoles;
      break;
    }
    case Cat::kGpuUserAnnotation:
      ref = SliceRef(SliceKind::kGpuAnnotation, SliceRef::kNoDetail);
      structured = bit(kDevice) | bit(kStream);
      break;
    default:  // cuda_event and other GPU-side markers
      structured = bit(kDevice) | bit(kStream);
      break;
  }
  const StringId name = intern(e.name);
  const EventRef r = add_slice(t, e.ts, e.dur, name, ref, collect_args(e, structured));
  maybe_v2_flow(e, r, e.ts);
  if ((structured & bit(kExternalId)) && (corr || f_.has(kExternalId)))
    gpu_events_.push_back(GpuRecord{corr, r, f_.u64(kExternalId)});
  if (collective) {
    CollectiveInfo c;
    c.op = collective_op_from_name(f_.str(kCollectiveName));
    c.in_elements = f_.u64(kInNelems);
    c.out_elements = f_.u64(kOutNelems);
    c.group_size = static_cast<int32_t>(f_.i64(kGroupSize, 0));
    c.dtype = b_.intern(f_.str(kDtype));
    c.dtype_bytes = dtype_bytes(f_.str(kDtype));
    c.group = b_.intern(f_.str(kPgName));
    c.group_ranks = b_.intern(f_.str(kPgRanks));
    c.sequence = f_.i64(kSeq, -1);
    c.rank = rank_;
    const int64_t src = f_.i64(kSrcRank, -1), dst = f_.i64(kDstRank, -1);
    if (dst >= 0 && dst != rank_) c.peer = static_cast<int32_t>(dst);
    else if (src >= 0 && src != rank_) c.peer = static_cast<int32_t>(src);
    c.kernel = r;
    const uint32_t ci = b_.add_collective(c);
    if (const uint64_t ext = f_.u64(kExternalId)) collectives_.emplace_back(ext, ci);
  }
}

// GPU event: device from args.device (inDevice for peer copies) or pid; stream from args.stream or tid.
uint32_t Importer::gpu_track(Thread& th, const RawEvent& e, const Fields& f, bool annotation) {
  int64_t dev = f.i64(kDevice, -1);
  if (dev < 0) dev = f.i64(kInDevice, -1);
  if (dev < 0) dev = th.key.pid;
  int64_t stream = f.i64(kStream, -1);
  if (stream < 0) stream = th.key.tid;
  for (const GpuTrackCache& c : gpu_tracks_)
    if (c.device == dev && c.stream == stream && c.annotation == annotation) {
      feed(th, c.track);
      return c.track;
    }
  if (dev < 0 || dev > 65535) bad(e, "GPU event with device " + std::to_string(dev) + " (expected 0..65535)");
  const uint32_t d = device(static_cast<int32_t>(dev));
  const uint32_t proc = b_.trace().devices[d].process;
  const std::string sname = "stream " + std::to_string(stream);
  uint32_t t = track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(d), stream}, sname);
  if (annotation) {
    const uint32_t at = track(TrackKey{TrackKind::kGpuAnnotation, proc, static_cast<int32_t>(d), stream}, sname + " annotations");
    b_.set_track_parent(at, static_cast<int32_t>(t));
    t = at;
  }
  gpu_tracks_.push_back(GpuTrackCache{dev, stream, annotation, t});
  feed(th, t);
  return t;
}

// Kineto's CUPTI range profiling (`cuda_profiler_range`, written on pid = the device, tid 0, in
// place of kernel records): each range is one kernel replayed to read its counters, named after
// the kernel, its metrics as args. A GPU-side range of that device on its own annotation track,
// not a kernel (replays are serialized, their times are not the run's) nor a CPU thread slice.
void Importer::profiler_range(const RawEvent& e, Thread& th) {
  int64_t dev = f_.i64(kDevice, -1);
  if (dev < 0) dev = th.key.pid;
  if (dev < 0 || dev > 65535) bad(e, "cuda_profiler_range with device " + std::to_string(dev) + " (expected 0..65535)");
  const uint32_t d = device(static_cast<int32_t>(dev));
  const std::string_view label = "CUPTI profiler ranges";
  const uint32_t t = track(TrackKey{TrackKind::kGpuAnnotation, b_.trace().devices[d].process, static_cast<int32_t>(d),
                                    kStringIdBase + b_.intern(label)},
                           label);
  feed(th, t);
  add_slice(t, e.ts, e.dur, intern(e.name), SliceRef(SliceKind::kGpuAnnotation, SliceRef::kNoDetail),
            collect_args(e, bit(kDevice) | bit(kStream)));
}

// PyTorch's [memory] instants: allocator totals after each alloc/free → per-device counters.
void Importer::memory_sample(const RawEvent& e, Thread& th) {
  if (!f_.has(kTotalAllocated) && !f_.has(kTotalReserved)) return;
  const int64_t type = f_.i64(kDeviceType, 0);  // c10::DeviceType: 0 CPU, 1 CUDA
  const int64_t ordinal = f_.i64(kDeviceId, -1);
  int32_t dev = -1;
  uint32_t proc;
  if (type == 1 && ordinal >= 0 && ordinal < 65535) {
    dev = static_cast<int32_t>(device(static_cast<int32_t>(ordinal)));
    proc = b_.trace().devices[static_cast<size_t>(dev)].process;
  } else {
    proc = process_for_pid(th.key.pid);
  }
  static constexpr std::pair<Role, const char*> kSeries[] = {{kTotalAllocated, "memory allocated"},
                                                             {kTotalReserved, "memory reserved"}};
  for (const auto& [role, label] : kSeries) {
    double v;
    if (!f_.has(role) || !f_.v[role]->to_double(v)) continue;
    const std::string name = dev < 0 ? std::string("host ") + label : std::string(label);
    const uint32_t t = track(TrackKey{TrackKind::kCounter, proc, dev, kStringIdBase + b_.intern(name)}, name);
    b_.trace().tracks[t].unit = b_.intern("bytes");
    touch_samples(t);
    b_.add_counter_sample(t, e.ts, v);
  }
}

}  // namespace parascope::kineto
