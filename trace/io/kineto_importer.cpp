#include "trace/io/kineto_importer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <span>
#include <unordered_map>

#include "trace/core/error.h"
#include "trace/io/byte_source.h"
#include "trace/io/chrome_json_parser.h"

namespace parascope {

namespace {

// String pids/tids (Chrome allows them) get ids in this range so they never collide with numbers.
constexpr int64_t kStringIdBase = int64_t{1} << 62;

bool is_gpu_cat(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation" ||
         cat == "cuda_sync" || cat == "Kernel" || cat == "Memcpy" || cat == "Memset";
}

CopyKind copy_kind_from_name(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return CopyKind::kHtoD;
  if (name.find("DtoH") != std::string_view::npos) return CopyKind::kDtoH;
  if (name.find("DtoD") != std::string_view::npos) return CopyKind::kDtoD;
  if (name.find("HtoH") != std::string_view::npos) return CopyKind::kHtoH;
  if (name.find("PtoP") != std::string_view::npos || name.find("Peer") != std::string_view::npos) return CopyKind::kPtoP;
  return CopyKind::kUnknown;
}

MemoryKind memory_kind_from_word(std::string_view w) {
  if (w == "Device") return MemoryKind::kDevice;
  if (w == "Pageable") return MemoryKind::kPageable;
  if (w == "Pinned") return MemoryKind::kPinned;
  if (w == "Managed") return MemoryKind::kManaged;
  if (w == "Array") return MemoryKind::kArray;
  return MemoryKind::kUnknown;
}

// "Memcpy DtoH (Device -> Pinned)" → {Device, Pinned}
std::pair<MemoryKind, MemoryKind> memory_kinds_from_name(std::string_view name) {
  const size_t open = name.find('(');
  const size_t arrow = name.find(" -> ");
  const size_t close = name.rfind(')');
  if (open == std::string_view::npos || arrow == std::string_view::npos || close == std::string_view::npos ||
      !(open < arrow && arrow < close))
    return {MemoryKind::kUnknown, MemoryKind::kUnknown};
  return {memory_kind_from_word(name.substr(open + 1, arrow - open - 1)),
          memory_kind_from_word(name.substr(arrow + 4, close - arrow - 4))};
}

SyncKind sync_kind_from_name(std::string_view n) {
  if (n.find("Wait") != std::string_view::npos) return SyncKind::kStreamWaitEvent;
  if (n.find("Event") != std::string_view::npos) return SyncKind::kEventSync;
  if (n.find("Stream") != std::string_view::npos) return SyncKind::kStreamSync;
  if (n.find("Context") != std::string_view::npos) return SyncKind::kContextSync;
  if (n.find("Device") != std::string_view::npos) return SyncKind::kDeviceSync;
  return SyncKind::kUnknown;
}

uint8_t dtype_bytes(std::string_view d) {
  if (d == "Float" || d == "float" || d == "f32" || d == "Int" || d == "int32" || d == "UInt32") return 4;
  if (d == "BFloat16" || d == "Half" || d == "bf16" || d == "f16" || d == "Short") return 2;
  if (d == "Double" || d == "Long" || d == "f64" || d == "int64" || d == "UInt64") return 8;
  if (d == "Byte" || d == "Char" || d == "Bool" || d == "Float8_e4m3fn" || d == "Float8_e5m2" || d == "uint8") return 1;
  return 0;
}

class Importer final : public ChromeJsonHandler {
 public:
  Importer(const std::string& path, TraceBuilder& b, FileImportReport& report)
      : path_(path), b_(b), report_(report) {}

  void on_metadata(std::string_view key, const JsonValue& v) override {
    if (key == "baseTimeNanoseconds") {
      if (auto n = v.as_int()) {
        base_time_ns_ = *n;
        has_base_time_ = true;
      }
    } else if (key == "distributedInfo" && v.is_object()) {
      if (const JsonValue* r = v.find("rank"))
        if (auto n = r->as_int()) rank_ = static_cast<int32_t>(*n);
      if (const JsonValue* w = v.find("world_size"))
        if (auto n = w->as_int()) world_size_ = static_cast<int32_t>(*n);
      kineto_ = true;
    } else if (key == "deviceProperties" && v.is_array()) {
      for (const JsonValue& d : v.items()) {
        if (!d.is_object()) continue;
        const JsonValue* id = d.find("id");
        if (!id || !id->as_int()) continue;
        DeviceProps p;
        if (const JsonValue* n = d.find("name"); n && n->is_string()) p.name = n->text();
        if (const JsonValue* n = d.find("numSms")) p.sms = static_cast<uint32_t>(n->as_int().value_or(0));
        if (const JsonValue* n = d.find("totalGlobalMem")) p.mem = n->as_uint().value_or(0);
        if (const JsonValue* n = d.find("computeMajor")) p.major = static_cast<uint32_t>(n->as_int().value_or(0));
        if (const JsonValue* n = d.find("computeMinor")) p.minor = static_cast<uint32_t>(n->as_int().value_or(0));
        device_props_[static_cast<int32_t>(*id->as_int())] = p;
      }
      kineto_ = true;
    } else if (key == "schemaVersion" || key == "trace_id" || key == "cupti_version") {
      kineto_ = true;
    }
  }

  void on_event(const RawEvent& e) override {
    ++report_.events;
    if (e.ph.size() != 1) {
      if (e.ph.empty()) bad(e, "event has no \"ph\" (phase)");
      unknown_phase(e);
      return;
    }
    switch (e.ph[0]) {
      case 'X': complete(e); break;
      case 'B': begin(e); break;
      case 'E': end(e); break;
      case 'i':
      case 'I': instant(e); break;
      case 'C': counter(e); break;
      case 'M': metadata_event(e); break;
      case 's':
      case 't':
      case 'f':
        // Kineto's ac2g flows repeat its correlation ids, which link launches to kernels exactly;
        // other flows are kept for the generic binder.
        if (e.cat != "ac2g") generic_flows_.push_back({e.ph[0], std::string(e.id.text), e.ts, pid_key(e), tid_key(e)});
        break;
      case 'b':
      case 'e':
      case 'n':
        ++async_events_;
        break;
      default: unknown_phase(e); break;
    }
  }

  void finish(const ChromeJsonStats& stats) {
    // pending B without E
    size_t open = 0;
    for (auto& [k, stack] : open_begins_) open += stack.size();
    if (open) b_.warn(path_ + ": " + std::to_string(open) + " 'B' events have no matching 'E'; dropped");
    if (unknown_phases_)
      b_.warn(path_ + ": " + std::to_string(unknown_phases_) + " events with unknown phases were skipped");
    if (async_events_)
      b_.warn(path_ + ": " + std::to_string(async_events_) + " async (b/e/n) events are not imported yet");
    for (const auto& w : stats.warnings) b_.warn(path_ + ": " + w);
    if (stats.skipped_malformed)
      b_.warn(path_ + ": --lenient skipped " + std::to_string(stats.skipped_malformed) + " malformed events");

    // Clock: Kineto timestamps + baseTimeNanoseconds = wall clock.
    const TimeNs offset = has_base_time_ ? base_time_ns_ : 0;
    report_.clock_offset_ns = offset;
    report_.clock_offset_reason = has_base_time_ ? "baseTimeNanoseconds" : "none (file clock used as is)";
    report_.rank = rank_;
    report_.unknown_phases = unknown_phases_;
    report_.skipped = stats.skipped_malformed;
    report_.json_bytes = stats.json_bytes;
    Trace& tr = b_.trace();
    for (uint32_t p : processes_) {
      Process& proc = tr.processes[p];
      proc.clock_offset_ns = offset;
      proc.clock_offset_reason = report_.clock_offset_reason;
      if (p == main_process_ && rank_ >= 0) {
        proc.rank = rank_;
      }
      auto it = pid_names_.find(proc.pid);
      if (it != pid_names_.end() && proc.name.empty()) proc.name = it->second;
      if (proc.name.empty()) proc.name = proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : "pid " + std::to_string(proc.pid);
    }
    if (offset != 0) {
      for (uint32_t t : tracks_) {
        auto& s = tr.tracks[t].slices;
        for (auto& v : s.start) v += offset;
        for (auto& v : tr.tracks[t].counter.time) v += offset;
      }
    }
    for (auto& [ordinal, dev] : devices_) {
      Device& d = tr.devices[dev];
      if (auto it = device_props_.find(ordinal); it != device_props_.end()) {
        d.name = it->second.name;
        d.sm_count = it->second.sms;
        d.memory_bytes = it->second.mem;
        d.compute_major = it->second.major;
        d.compute_minor = it->second.minor;
      }
    }
    // Launch flows: runtime/driver call → GPU activity with the same correlation id.
    for (const auto& [corr, gpu] : gpu_by_correlation_) {
      auto it = api_by_correlation_.find(corr);
      if (it != api_by_correlation_.end()) b_.add_flow(it->second, gpu, FlowKind::kLaunch);
    }
    // Collective annotations' CPU ops: the cpu_op that shares the kernel's External id.
    for (auto& [ext, coll] : collective_by_external_) {
      auto it = cpu_op_by_external_.find(ext);
      if (it != cpu_op_by_external_.end()) tr.collectives[coll].cpu_op = it->second;
    }
    if (!generic_flows_.empty()) bind_generic_flows();
  }

 private:
  struct DeviceProps {
    std::string name;
    uint32_t sms = 0;
    uint64_t mem = 0;
    uint32_t major = 0, minor = 0;
  };
  struct PendingFlow {
    char ph;
    std::string id;
    TimeNs ts;
    int64_t pid, tid;
  };

  [[noreturn]] void bad(const RawEvent& e, const std::string& problem) const {
    InputLocation where;
    where.file = path_;
    where.byte_offset = e.byte_offset;
    where.event_index = e.index;
    throw InputError(where, problem);
  }

  void unknown_phase(const RawEvent&) { ++unknown_phases_; }

  int64_t key_of(const JsonToken& t, const char* what, const RawEvent& e) {
    int64_t v = 0;
    if (!t.present() || t.type == JsonToken::Type::kNull) return 0;
    if (t.to_int(v)) return v;
    if (t.type == JsonToken::Type::kString) return kStringIdBase + b_.intern(t.text);
    bad(e, std::string("\"") + what + "\" must be a number or a string");
  }
  int64_t pid_key(const RawEvent& e) { return key_of(e.pid, "pid", e); }
  int64_t tid_key(const RawEvent& e) { return key_of(e.tid, "tid", e); }

  uint32_t process_for_pid(int64_t pid) {
    if (pid >= kStringIdBase && kineto_) return main_process();  // Kineto's "Spans"/"Traces"
    auto it = process_by_pid_.find(pid);
    if (it != process_by_pid_.end()) return it->second;
    if (pid < kStringIdBase && main_process_ != ~0u && !main_bound_) {
      // GPU events came first and created the file's process: this is its pid
      main_bound_ = true;
      b_.trace().processes[main_process_].pid = pid;
      process_by_pid_[pid] = main_process_;
      return main_process_;
    }
    Process p;
    p.pid = pid >= kStringIdBase ? 0 : pid;
    if (pid >= kStringIdBase) p.name = std::string(b_.strings().view(static_cast<StringId>(pid - kStringIdBase)));
    p.source = path_;
    const uint32_t idx = b_.add_process(std::move(p));
    process_by_pid_[pid] = idx;
    processes_.push_back(idx);
    if (main_process_ == ~0u && pid < kStringIdBase) {
      main_process_ = idx;
      main_bound_ = true;
    }
    return idx;
  }

  uint32_t main_process() {
    if (main_process_ != ~0u) return main_process_;
    Process p;
    p.source = path_;
    main_process_ = b_.add_process(std::move(p));
    processes_.push_back(main_process_);
    return main_process_;
  }

  uint32_t device(int32_t ordinal) {
    auto it = devices_.find(ordinal);
    if (it != devices_.end()) return it->second;
    Device d;
    d.process = main_process();
    d.ordinal = ordinal;
    const uint32_t idx = b_.add_device(std::move(d));
    devices_[ordinal] = idx;
    return idx;
  }

  uint32_t track(const TrackKey& key, const std::string& name) {
    const size_t before = b_.trace().tracks.size();
    const uint32_t t = b_.track(key, name);
    if (b_.trace().tracks.size() != before) tracks_.push_back(t);
    return t;
  }

  uint32_t cpu_track(const RawEvent& e) {
    const int64_t pid = pid_key(e);
    const int64_t tid = tid_key(e);
    const uint32_t proc = process_for_pid(pid);
    // string pids folded into the main process keep their own tracks
    const int64_t id = (pid >= kStringIdBase && kineto_) ? kStringIdBase + b_.intern(std::string(e.pid.text) + " / " + std::string(e.tid.text)) : tid;
    std::string name;
    if (id >= kStringIdBase) name = std::string(b_.strings().view(static_cast<StringId>(id - kStringIdBase)));
    else name = "thread " + std::to_string(tid);
    return track(TrackKey{TrackKind::kCpuThread, proc, -1, id}, name);
  }

  // GPU event: device from args.device (Kineto) or pid; stream from args.stream or tid.
  uint32_t gpu_track(const RawEvent& e, bool annotation) {
    int64_t dev = -1, stream = -1;
    if (const RawArg* a = e.arg("device")) a->value.to_int(dev);
    if (dev < 0) dev = pid_key(e);
    if (const RawArg* a = e.arg("stream")) a->value.to_int(stream);
    if (stream < 0) stream = tid_key(e);
    if (dev < 0 || dev > 65535) bad(e, "GPU event with device " + std::to_string(dev) + " out of range");
    const uint32_t d = device(static_cast<int32_t>(dev));
    const uint32_t proc = b_.trace().devices[d].process;
    const uint32_t st = track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(d), stream},
                              "stream " + std::to_string(stream));
    if (!annotation) return st;
    const uint32_t at = track(TrackKey{TrackKind::kGpuAnnotation, proc, static_cast<int32_t>(d), stream},
                              "stream " + std::to_string(stream) + " annotations");
    b_.set_track_parent(at, static_cast<int32_t>(st));
    return at;
  }

  void collect_args(const RawEvent& e, std::span<const std::string_view> skip) {
    args_.clear();
    for (const RawArg& a : e.args) {
      bool skipped = false;
      for (auto s : skip) skipped |= a.key == s;
      if (skipped) continue;
      Arg arg;
      arg.key = b_.intern(a.key);
      switch (a.value.type) {
        case JsonToken::Type::kNumber: {
          int64_t i;
          double d;
          if (a.value.to_int(i) && a.value.text.find_first_of(".eE") == std::string_view::npos) arg.value = ArgValue::of_int(i);
          else if (a.value.to_double(d)) arg.value = ArgValue::of_double(d);
          else arg.value = ArgValue::of_string(b_.intern(a.value.text));
          break;
        }
        case JsonToken::Type::kBool: arg.value = ArgValue::of_bool(a.value.text == "true"); break;
        case JsonToken::Type::kString: arg.value = ArgValue::of_string(b_.intern(a.value.text)); break;
        case JsonToken::Type::kObject:
        case JsonToken::Type::kArray: arg.value = ArgValue::of_json(b_.intern(a.value.text)); break;
        case JsonToken::Type::kNull:
        case JsonToken::Type::kAbsent: arg.value = ArgValue::of_json(b_.intern("null")); break;
      }
      args_.push_back(arg);
    }
  }

  static uint64_t uint_arg(const RawEvent& e, std::string_view key, uint64_t dflt = 0) {
    uint64_t v;
    if (const RawArg* a = e.arg(key); a && a->value.to_uint(v)) return v;
    return dflt;
  }
  static int64_t int_arg(const RawEvent& e, std::string_view key, int64_t dflt = -1) {
    int64_t v;
    if (const RawArg* a = e.arg(key); a && a->value.to_int(v)) return v;
    return dflt;
  }
  static std::string_view str_arg(const RawEvent& e, std::string_view key) {
    if (const RawArg* a = e.arg(key); a && a->value.type == JsonToken::Type::kString) return a->value.text;
    return {};
  }
  static void dims(const RawEvent& e, std::string_view key, uint32_t out[3]) {
    const RawArg* a = e.arg(key);
    if (!a || a->value.type != JsonToken::Type::kArray) return;
    std::string_view t = a->value.text;  // "[24, 1, 1]"
    int k = 0;
    uint64_t v = 0;
    bool in = false;
    for (char c : t) {
      if (c >= '0' && c <= '9') {
        v = v * 10 + static_cast<uint64_t>(c - '0');
        in = true;
      } else if (in) {
        if (k < 3) out[k++] = static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
        v = 0;
        in = false;
      }
    }
  }

  void check_time(const RawEvent& e) {
    if (!e.has_ts) bad(e, "event has no \"ts\"");
  }

  void complete(const RawEvent& e) {
    check_time(e);
    if (!e.has_dur) bad(e, "'X' event has no \"dur\"");
    if (e.dur < 0) bad(e, "negative \"dur\" (" + std::to_string(e.dur) + " ns)");
    const StringId name = b_.intern(e.name);
    const std::string_view cat = e.cat;
    if (is_gpu_cat(cat)) {
      gpu_complete(e, name);
      return;
    }
    const uint32_t t = cpu_track(e);
    static constexpr std::string_view kCpuOpSkip[] = {"External id", "flops", "Sequence number"};
    static constexpr std::string_view kApiSkip[] = {"correlation", "cbid"};
    SliceRef ref;
    std::span<const std::string_view> skip;
    if (cat == "cpu_op" || cat == "user_annotation" || cat == "python_function" || cat == "gpu_user_annotation") {
      CpuOpInfo op;
      op.external_id = U64Split(uint_arg(e, "External id"));
      op.flops = U64Split(uint_arg(e, "flops"));
      const int64_t seq = int_arg(e, "Sequence number");
      op.sequence = seq >= 0 ? static_cast<uint32_t>(seq) : kNone32;
      ref = b_.add_cpu_op(op);
      skip = kCpuOpSkip;
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      ApiInfo api;
      api.correlation = static_cast<uint32_t>(uint_arg(e, "correlation"));
      api.cbid = static_cast<uint32_t>(uint_arg(e, "cbid"));
      ref = b_.add_api_call(api);
      skip = kApiSkip;
    } else if (cat == "overhead" || cat == "Overhead") {
      ref = SliceRef(SliceKind::kOverhead, SliceRef::kNoDetail);
    }
    collect_args(e, skip);
    const EventRef r = b_.add_slice(t, e.ts, e.dur, name, ref, args_);
    if (ref.kind() == SliceKind::kRuntimeApi) {
      const uint32_t corr = b_.trace().api_calls[ref.index()].correlation;
      if (corr) api_by_correlation_[corr] = r;
    } else if (ref.kind() == SliceKind::kCpuOp && cat == "cpu_op") {
      const uint64_t ext = b_.trace().cpu_ops[ref.index()].external_id.get();
      if (ext && e.name == "record_param_comms") cpu_op_by_external_.try_emplace(ext, r);
      else if (ext) cpu_op_by_external_.try_emplace(ext, r);
    }
  }

  void gpu_complete(const RawEvent& e, StringId name) {
    const std::string_view cat = e.cat;
    const bool annotation = cat == "gpu_user_annotation";
    const uint32_t t = gpu_track(e, annotation);
    const uint32_t corr = static_cast<uint32_t>(uint_arg(e, "correlation"));
    static constexpr std::string_view kKernelSkip[] = {
        "device", "stream", "correlation", "grid", "block", "registers per thread", "shared memory",
        "graph id", "graph node id", "Collective name", "In msg nelems", "Out msg nelems", "Group size",
        "dtype", "Process Group Name", "Process Group Ranks", "Seq", "In split size", "Out split size",
        "Process Group Description"};
    static constexpr std::string_view kMemcpySkip[] = {"device", "stream", "correlation", "bytes",
                                                       "fromDevice", "toDevice", "src device", "dst device"};
    static constexpr std::string_view kMemsetSkip[] = {"device", "stream", "correlation", "bytes"};
    static constexpr std::string_view kSyncSkip[] = {"device", "stream", "correlation", "wait_on_stream"};
    static constexpr std::string_view kAnnotationSkip[] = {"device", "stream"};
    SliceRef ref;
    std::span<const std::string_view> skip;
    if (cat == "kernel" || cat == "Kernel") {
      LaunchConfig lc;
      dims(e, "grid", lc.grid);
      dims(e, "block", lc.block);
      lc.registers_per_thread = static_cast<uint32_t>(uint_arg(e, "registers per thread"));
      lc.dynamic_smem = static_cast<uint32_t>(uint_arg(e, "shared memory"));
      KernelInfo k;
      k.launch_config = b_.add_launch_config(lc);
      k.correlation = corr;
      k.graph_id = static_cast<uint32_t>(uint_arg(e, "graph id"));
      k.graph_node_id = U64Split(uint_arg(e, "graph node id"));
      ref = b_.add_kernel(k);
      skip = kKernelSkip;
    } else if (cat == "gpu_memcpy" || cat == "Memcpy") {
      MemcpyInfo m;
      m.bytes = U64Split(uint_arg(e, "bytes"));
      m.correlation = corr;
      m.copy_kind = copy_kind_from_name(e.name);
      auto [src, dst] = memory_kinds_from_name(e.name);
      m.src_memory = src;
      m.dst_memory = dst;
      const int64_t from = int_arg(e, "fromDevice", int_arg(e, "src device"));
      const int64_t to = int_arg(e, "toDevice", int_arg(e, "dst device"));
      const uint16_t self = static_cast<uint16_t>(b_.trace().tracks[t].key.device);
      if (src == MemoryKind::kDevice || m.copy_kind == CopyKind::kDtoH || m.copy_kind == CopyKind::kDtoD)
        m.src_device = self;
      if (dst == MemoryKind::kDevice || m.copy_kind == CopyKind::kHtoD || m.copy_kind == CopyKind::kDtoD)
        m.dst_device = self;
      if (from >= 0 && from < 65536) m.src_device = static_cast<uint16_t>(device(static_cast<int32_t>(from)));
      if (to >= 0 && to < 65536) m.dst_device = static_cast<uint16_t>(device(static_cast<int32_t>(to)));
      if (from >= 0 && to >= 0 && from != to) m.copy_kind = CopyKind::kPtoP;
      ref = b_.add_memcpy(m);
      skip = kMemcpySkip;
    } else if (cat == "gpu_memset" || cat == "Memset") {
      MemsetInfo m;
      m.bytes = U64Split(uint_arg(e, "bytes"));
      m.correlation = corr;
      ref = b_.add_memset(m);
      skip = kMemsetSkip;
    } else if (cat == "cuda_sync") {
      SyncInfo s;
      s.correlation = corr;
      s.kind = sync_kind_from_name(e.name);
      s.stream = int_arg(e, "wait_on_stream", -1);
      ref = b_.add_sync(s);
      skip = kSyncSkip;
    } else {
      ref = SliceRef(SliceKind::kGpuAnnotation, SliceRef::kNoDetail);
      skip = kAnnotationSkip;
    }
    collect_args(e, skip);
    const EventRef r = b_.add_slice(t, e.ts, e.dur, name, ref, args_);
    if (corr && !annotation) gpu_by_correlation_.emplace_back(corr, r);
    if (ref.kind() == SliceKind::kKernel) {
      const std::string_view coll = str_arg(e, "Collective name");
      if (!coll.empty()) {
        CollectiveInfo c;
        c.op = collective_op_from_name(coll);
        c.in_elements = uint_arg(e, "In msg nelems");
        c.out_elements = uint_arg(e, "Out msg nelems");
        c.group_size = static_cast<int32_t>(int_arg(e, "Group size", 0));
        c.dtype = b_.intern(str_arg(e, "dtype"));
        c.dtype_bytes = dtype_bytes(str_arg(e, "dtype"));
        c.group = b_.intern(str_arg(e, "Process Group Name"));
        c.group_ranks = b_.intern(str_arg(e, "Process Group Ranks"));
        c.sequence = int_arg(e, "Seq", -1);
        c.rank = rank_;
        c.kernel = r;
        const uint32_t ci = b_.add_collective(c);
        const uint64_t ext = uint_arg(e, "External id");
        if (ext) collective_by_external_.emplace_back(ext, ci);
      }
    }
  }

  void begin(const RawEvent& e) {
    check_time(e);
    open_begins_[{pid_key(e), tid_key(e)}].push_back(e.index);
    pending_begin_[e.index] = {std::string(e.name), e.ts, std::string(e.cat)};
    begin_events_[e.index] = cpu_track(e);
  }

  void end(const RawEvent& e) {
    check_time(e);
    auto& stack = open_begins_[{pid_key(e), tid_key(e)}];
    if (stack.empty()) {
      ++unmatched_ends_;
      if (unmatched_ends_ == 1) b_.warn(path_ + ": 'E' event #" + std::to_string(e.index) + " has no open 'B'; ignored");
      return;
    }
    const int64_t bi = stack.back();
    stack.pop_back();
    auto& pb = pending_begin_[bi];
    const uint32_t t = begin_events_[bi];
    collect_args(e, {});
    b_.add_slice(t, pb.ts, std::max<TimeNs>(0, e.ts - pb.ts), b_.intern(pb.name), SliceRef(), args_);
    pending_begin_.erase(bi);
    begin_events_.erase(bi);
  }

  void instant(const RawEvent& e) {
    check_time(e);
    // global-scope instants ("s": "g") belong to no thread: one track per process holds them
    const uint32_t t = e.scope == "g" ? track(TrackKey{TrackKind::kCpuThread, process_for_pid(pid_key(e)), -1,
                                                        kStringIdBase + b_.intern("global instants")},
                                              "global instants")
                                      : cpu_track(e);
    collect_args(e, {});
    b_.add_slice(t, e.ts, 0, b_.intern(e.name), SliceRef(SliceKind::kInstant, SliceRef::kNoDetail), args_);
  }

  void counter(const RawEvent& e) {
    check_time(e);
    const uint32_t proc = process_for_pid(pid_key(e));
    for (const RawArg& a : e.args) {
      double v;
      if (!a.value.to_double(v)) continue;
      std::string series = std::string(e.name);
      if (e.args.size() > 1 || a.key != "value") series += "." + std::string(a.key);
      const int64_t id = kStringIdBase + b_.intern(series);
      const uint32_t t = track(TrackKey{TrackKind::kCounter, proc, -1, id}, series);
      b_.add_counter_sample(t, e.ts, v);
    }
  }

  void metadata_event(const RawEvent& e) {
    const int64_t pid = pid_key(e);
    const std::string_view value = str_arg(e, e.name == "process_labels" ? "labels" : "name");
    if (e.name == "process_name" && !value.empty()) pid_names_[pid < kStringIdBase ? pid : -1] = std::string(value);
    // thread names of GPU pseudo-processes ("stream 7 ") are replaced by our own stream names
  }

  void bind_generic_flows() {
    // Chrome flow binding: 's' binds to the enclosing slice on its thread, 'f' (bp "e") to the
    // enclosing slice, otherwise the next slice starting at or after it. Done after sorting would
    // be exact; here we match against slices already added (same thread, containing ts).
    std::map<std::string, EventRef> starts;
    size_t unmatched = 0;
    for (const PendingFlow& f : generic_flows_) {
      const uint32_t proc = process_for_pid(f.pid);
      const TrackKey key{TrackKind::kCpuThread, proc, -1, f.tid};
      const Trace& tr = b_.trace();
      EventRef hit;
      for (uint32_t t = 0; t < tr.tracks.size() && !hit.valid(); ++t) {
        if (!(tr.tracks[t].key == key)) continue;
        const auto& s = tr.tracks[t].slices;
        for (uint32_t i = 0; i < s.size(); ++i)
          if (s.start[i] <= f.ts && f.ts <= s.start[i] + s.dur[i]) hit = EventRef{t, i};
      }
      if (!hit.valid()) {
        ++unmatched;
        continue;
      }
      if (f.ph == 's') starts[f.id] = hit;
      else if (auto it = starts.find(f.id); it != starts.end()) b_.add_flow(it->second, hit, FlowKind::kGeneric);
    }
    if (unmatched) b_.warn(path_ + ": " + std::to_string(unmatched) + " flow events did not bind to a slice");
  }

  std::string path_;
  TraceBuilder& b_;
  FileImportReport& report_;
  bool kineto_ = false;
  bool has_base_time_ = false;
  TimeNs base_time_ns_ = 0;
  int32_t rank_ = -1;
  int32_t world_size_ = 0;
  uint32_t main_process_ = ~0u;
  bool main_bound_ = false;  // main_process_ has its real pid
  std::vector<uint32_t> processes_;
  std::vector<uint32_t> tracks_;
  std::unordered_map<int64_t, uint32_t> process_by_pid_;
  std::map<int32_t, uint32_t> devices_;
  std::map<int32_t, DeviceProps> device_props_;
  std::map<int64_t, std::string> pid_names_;
  std::vector<Arg> args_;
  std::unordered_map<uint32_t, EventRef> api_by_correlation_;
  std::vector<std::pair<uint32_t, EventRef>> gpu_by_correlation_;
  std::unordered_map<uint64_t, EventRef> cpu_op_by_external_;
  std::vector<std::pair<uint64_t, uint32_t>> collective_by_external_;
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> open_begins_;
  struct PendingBegin {
    std::string name;
    TimeNs ts;
    std::string cat;
  };
  std::unordered_map<int64_t, PendingBegin> pending_begin_;
  std::unordered_map<int64_t, uint32_t> begin_events_;
  std::vector<PendingFlow> generic_flows_;
  int64_t unknown_phases_ = 0;
  int64_t async_events_ = 0;
  int64_t unmatched_ends_ = 0;
};

}  // namespace

FileImportReport import_chrome_json(const std::string& path, TraceBuilder& builder, const ImportOptions& options) {
  FileImportReport report;
  report.file = path;
  auto src = open_byte_source(path);
  Importer importer(path, builder, report);
  ChromeJsonOptions jo;
  jo.lenient = options.lenient;
  jo.progress = options.progress;
  jo.cancel = options.cancel;
  const ChromeJsonStats stats = parse_chrome_json(*src, importer, jo);
  if (stats.events == 0 && stats.json_bytes == 0) {
    InputLocation where;
    where.file = path;
    throw InputError(where, "empty file");
  }
  importer.finish(stats);
  builder.trace().source_files.push_back(path);
  return report;
}

}  // namespace parascope
