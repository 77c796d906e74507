#include "trace/io/json/chrome_json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "trace/core/json_escape.h"
#include "trace/core/summary.h"
#include "trace/io/common/atomic_file.h"
#include "trace/io/json/counter_key.h"

namespace parascope {

namespace {

// The Kineto importer puts string pids/tids in this id range (kineto_importer.cpp); tracks keyed
// there get their name back as a string tid.
constexpr int64_t kStringIdBase = int64_t{1} << 62;
constexpr uint64_t kProgressEvery = 1 << 16;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string_view kind_category(SliceKind k) {
  switch (k) {
    case SliceKind::kKernel: return "kernel";
    case SliceKind::kMemcpy: return "gpu_memcpy";
    case SliceKind::kMemset: return "gpu_memset";
    case SliceKind::kSync: return "cuda_sync";
    case SliceKind::kGpuAnnotation: return "gpu_user_annotation";
    case SliceKind::kCpuOp: return "cpu_op";
    case SliceKind::kRuntimeApi: return "cuda_runtime";
    case SliceKind::kOverhead: return "overhead";
    case SliceKind::kNvtxRange: return "nvtx";
    case SliceKind::kSmSpan: return "sm_span";
    case SliceKind::kGeneric:
    case SliceKind::kInstant:
    case SliceKind::kCount: break;
  }
  return {};
}

// Writes the events of one output file.
class FileWriter {
 public:
  FileWriter(const Trace& t, const std::vector<uint32_t>& processes, bool merged, int32_t world_size,
             const ChromeJsonWriteOptions& options, uint64_t& done, uint64_t total, ChromeJsonWriteResult& result)
      : t_(t), merged_(merged), options_(options), done_(done), total_(total), result_(result) {
    in_file_.assign(t.processes.size(), 0);
    for (uint32_t p : processes) in_file_[p] = 1;
    processes_ = processes;
    world_size_ = world_size;
    // pids: the process's own, made unique within the file
    std::set<int64_t> used;
    pid_.assign(t.processes.size(), 0);
    for (uint32_t p : processes) {
      int64_t pid = t.processes[p].pid;
      if (used.count(pid)) pid = 1'000'000'000 + p;
      used.insert(pid);
      pid_[p] = pid;
    }
    // device ids: the CUDA ordinal where it is unique in this file (as Kineto writes it), else the
    // trace-wide device index; merged files always use the trace-wide index
    device_id_.assign(t.devices.size(), -1);
    std::map<int32_t, int> ordinal_count;
    for (uint32_t d = 0; d < t.devices.size(); ++d)
      if (in_file_[t.devices[d].process]) ++ordinal_count[t.devices[d].ordinal];
    for (uint32_t d = 0; d < t.devices.size(); ++d) {
      if (!in_file_[t.devices[d].process]) continue;
      const int32_t ord = t.devices[d].ordinal;
      device_id_[d] = (!merged && ord >= 0 && ordinal_count[ord] == 1) ? ord : static_cast<int32_t>(d);
      devices_.push_back(d);
    }
  }

  void write(const std::string& path) {
    AtomicFile file(path, AtomicFile::Options{ends_with(path, ".gz"), 6});
    file_ = &file;
    choose_base();
    header();
    first_event_ = true;
    metadata();
    for (uint32_t ti = 0; ti < t_.tracks.size(); ++ti)
      if (in_file_[t_.tracks[ti].key.process]) track(ti);
    flows();
    out_ += "\n]}\n";
    flush();
    file.commit();
    file_ = nullptr;
    result_.files.push_back(path);
  }

 private:
  void flush() {
    file_->write(out_);
    out_.clear();
  }
  void maybe_flush() {
    if (out_.size() > (1u << 20)) flush();
  }
  void tick() {
    if (++done_ % kProgressEvery == 0 && options_.progress) options_.progress(done_, total_);
  }

  void choose_base() {
    base_ = 0;
    bool first = true;
    for (uint32_t p : processes_) {
      const TimeNs off = t_.processes[p].clock_offset_ns;
      base_ = first ? off : std::min(base_, off);
      first = false;
    }
    TimeNs lo = std::numeric_limits<TimeNs>::max();
    for (const Track& tr : t_.tracks) {
      if (!in_file_[tr.key.process]) continue;
      if (!tr.slices.empty()) lo = std::min(lo, tr.slices.start.front());
      if (tr.counter.size()) lo = std::min(lo, tr.counter.time.front());
    }
    // the reader refuses negative timestamps: never put an event before the base
    if (lo != std::numeric_limits<TimeNs>::max() && lo < base_) base_ = lo;
  }

  void header() {
    out_ += "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [";
    for (size_t i = 0; i < devices_.size(); ++i) {
      const Device& d = t_.devices[devices_[i]];
      out_ += i ? ",\n    {" : "\n    {";
      out_ += "\"id\": ";
      append_int(out_, device_id_[devices_[i]]);
      out_ += ", \"name\": ";
      append_json_quoted(out_, d.name);
      out_ += ", \"totalGlobalMem\": ";
      append_uint(out_, d.memory_bytes);
      out_ += ", \"computeMajor\": ";
      append_uint(out_, d.compute_major);
      out_ += ", \"computeMinor\": ";
      append_uint(out_, d.compute_minor);
      out_ += ", \"numSms\": ";
      append_uint(out_, d.sm_count);
      out_ += "}";
    }
    out_ += devices_.empty() ? "],\n" : "\n  ],\n";
    int32_t rank = -1;
    for (uint32_t p : processes_)
      if (rank < 0) rank = t_.processes[p].rank;
    if (!merged_ && rank >= 0) {
      out_ += "  \"distributedInfo\": {\"rank\": ";
      append_int(out_, rank);
      out_ += ", \"world_size\": ";
      append_int(out_, std::max(world_size_, rank + 1));
      out_ += "},\n";
    }
    if (base_ != 0) {
      out_ += "  \"baseTimeNanoseconds\": ";
      append_int(out_, base_);
      out_ += ",\n";
    }
    out_ += "  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [";
  }

  void begin_event() {
    out_ += first_event_ ? "\n  {" : ",\n  {";
    first_event_ = false;
  }

  void metadata_event(std::string_view name, int64_t pid, const int64_t* tid, std::string_view key,
                      std::string_view value) {
    begin_event();
    out_ += "\"name\": ";
    append_json_quoted(out_, name);
    out_ += ", \"ph\": \"M\", \"pid\": ";
    append_int(out_, pid);
    out_ += ", \"tid\": ";
    append_int(out_, tid ? *tid : 0);
    out_ += ", \"args\": {";
    append_json_quoted(out_, key);
    out_ += ": ";
    append_json_quoted(out_, value);
    out_ += "}}";
  }

  std::string gpu_label(uint32_t d) const {
    std::string s;
    const Process& p = t_.processes[t_.devices[d].process];
    if (merged_ && p.rank >= 0) s = "rank " + std::to_string(p.rank) + " ";
    return s + "GPU " + std::to_string(merged_ ? t_.devices[d].ordinal : device_id_[d]);
  }

  void metadata() {
    for (uint32_t p : processes_) {
      const Process& proc = t_.processes[p];
      std::string name = proc.name;
      if (merged_ && proc.rank >= 0) name = "rank " + std::to_string(proc.rank) + " " + name;
      metadata_event("process_name", pid_[p], nullptr, "name", name);
    }
    for (uint32_t d : devices_) {
      const int64_t pid = device_id_[d];
      metadata_event("process_name", pid, nullptr, "name", gpu_label(d));
      metadata_event("process_labels", pid, nullptr, "labels", gpu_label(d));
      begin_event();
      out_ += "\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": ";
      append_int(out_, pid);
      out_ += ", \"tid\": 0, \"args\": {\"sort_index\": ";
      append_int(out_, 5000000 + pid);
      out_ += "}}";
    }
    for (const Track& tr : t_.tracks) {
      if (!in_file_[tr.key.process]) continue;
      if (tr.key.kind == TrackKind::kGpuStream && tr.key.device >= 0) {
        const int64_t tid = tr.key.id;
        metadata_event("thread_name", device_id_[static_cast<size_t>(tr.key.device)], &tid, "name",
                       "stream " + std::to_string(tr.key.id));
      } else if (tr.key.kind == TrackKind::kCpuThread && tr.key.id < kStringIdBase && tr.key.id >= 0) {
        const int64_t tid = tr.key.id;
        metadata_event("thread_name", pid_[tr.key.process], &tid, "name", t_.str(tr.name));
      }
    }
  }

  // "pid": X, "tid": Y for a track's events.
  void place(const Track& tr) {
    const int32_t dev = tr.key.device;
    const std::string_view name = t_.str(tr.name);
    out_ += "\"pid\": ";
    if ((tr.key.kind == TrackKind::kGpuStream || tr.key.kind == TrackKind::kGpuAnnotation) && dev >= 0) {
      append_int(out_, device_id_[static_cast<size_t>(dev)]);
      out_ += ", \"tid\": ";
      append_int(out_, tr.key.id);
      return;
    }
    if (dev >= 0 && tr.key.kind != TrackKind::kCpuThread) {
      // SM lanes, copy engines, device NVTX: a pseudo-process per device and kind
      std::string pid = gpu_label(static_cast<uint32_t>(dev));
      pid += tr.key.kind == TrackKind::kSmLane ? " SMs" : " " + std::string(to_string(tr.key.kind));
      append_json_quoted(out_, pid);
      out_ += ", \"tid\": ";
      append_json_quoted(out_, name);
      return;
    }
    append_int(out_, pid_[tr.key.process]);
    out_ += ", \"tid\": ";
    if (tr.key.kind == TrackKind::kCpuThread && tr.key.id >= 0 && tr.key.id < kStringIdBase) append_int(out_, tr.key.id);
    else append_json_quoted(out_, name);
  }

  void arg_value(const ArgValue& v) {
    switch (v.type) {
      case ArgValue::Type::kInt: append_int(out_, v.i); break;
      case ArgValue::Type::kUInt: append_uint(out_, v.u); break;
      case ArgValue::Type::kDouble: out_ += json_number(v.d); break;
      case ArgValue::Type::kBool: out_ += v.b ? "true" : "false"; break;
      case ArgValue::Type::kString: append_json_quoted(out_, t_.str(v.s)); break;
      case ArgValue::Type::kJson: {
        const std::string_view raw = t_.str(v.s);
        if (raw.empty()) out_ += "null";
        else out_ += raw;
        break;
      }
    }
  }

  void key(std::string_view k) {
    out_ += first_arg_ ? "" : ", ";
    first_arg_ = false;
    append_json_quoted(out_, k);
    out_ += ": ";
  }
  void int_arg(std::string_view k, int64_t v) {
    key(k);
    append_int(out_, v);
  }
  void uint_arg(std::string_view k, uint64_t v) {
    key(k);
    append_uint(out_, v);
  }
  void str_arg(std::string_view k, std::string_view v) {
    key(k);
    append_json_quoted(out_, v);
  }
  void dims_arg(std::string_view k, const uint32_t d[3]) {
    key(k);
    out_ += "[";
    append_uint(out_, d[0]);
    out_ += ", ";
    append_uint(out_, d[1]);
    out_ += ", ";
    append_uint(out_, d[2]);
    out_ += "]";
  }

  void typed_args(const Track& tr, uint32_t ti, uint32_t i) {
    const SliceRef r = tr.slices.ref[i];
    const bool gpu = (tr.key.kind == TrackKind::kGpuStream || tr.key.kind == TrackKind::kGpuAnnotation) && tr.key.device >= 0;
    if (gpu) {
      int_arg("device", device_id_[static_cast<size_t>(tr.key.device)]);
      int_arg("stream", tr.key.id);
    }
    auto dev_id = [&](uint16_t d) { return d < device_id_.size() ? device_id_[d] : -1; };
    if (!r.has_detail()) return;
    switch (r.kind()) {
      case SliceKind::kKernel: {
        const KernelInfo& k = t_.kernels[r.index()];
        if (k.correlation) uint_arg("correlation", k.correlation);
        if (const LaunchConfig* lc = t_.launch_config(k)) {
          dims_arg("grid", lc->grid);
          dims_arg("block", lc->block);
          uint_arg("registers per thread", lc->registers_per_thread);
          uint_arg("shared memory", lc->dynamic_smem);
          if (lc->static_smem) uint_arg("static shared memory", lc->static_smem);
        }
        if (k.graph_id) uint_arg("graph id", k.graph_id);
        if (k.graph_node_id.get()) uint_arg("graph node id", k.graph_node_id.get());
        auto it = collective_by_kernel_.find(key_of(ti, i));
        if (it != collective_by_kernel_.end()) {
          const CollectiveInfo& c = t_.collectives[it->second];
          str_arg("Collective name", to_string(c.op));
          uint_arg("In msg nelems", c.in_elements);
          uint_arg("Out msg nelems", c.out_elements);
          int_arg("Group size", c.group_size);
          if (c.dtype != kEmptyString) str_arg("dtype", t_.str(c.dtype));
          if (c.group != kEmptyString) str_arg("Process Group Name", t_.str(c.group));
          if (c.group_ranks != kEmptyString) str_arg("Process Group Ranks", t_.str(c.group_ranks));
          if (c.sequence >= 0) int_arg("Seq", c.sequence);
        }
        break;
      }
      case SliceKind::kMemcpy: {
        const MemcpyInfo& m = t_.memcpys[r.index()];
        if (m.correlation) uint_arg("correlation", m.correlation);
        uint_arg("bytes", m.bytes.get());
        if (m.src_device != kNoDevice && m.dst_device != kNoDevice && m.src_device != m.dst_device &&
            dev_id(m.src_device) >= 0 && dev_id(m.dst_device) >= 0) {
          int_arg("fromDevice", dev_id(m.src_device));
          int_arg("toDevice", dev_id(m.dst_device));
        }
        break;
      }
      case SliceKind::kMemset: {
        const MemsetInfo& m = t_.memsets[r.index()];
        if (m.correlation) uint_arg("correlation", m.correlation);
        uint_arg("bytes", m.bytes.get());
        break;
      }
      case SliceKind::kSync: {
        const SyncInfo& s = t_.syncs[r.index()];
        if (s.correlation) uint_arg("correlation", s.correlation);
        if (s.stream >= 0) int_arg("wait_on_stream", s.stream);
        break;
      }
      case SliceKind::kCpuOp: {
        const CpuOpInfo& c = t_.cpu_ops[r.index()];
        if (c.external_id.get()) uint_arg("External id", c.external_id.get());
        if (c.flops.get()) uint_arg("flops", c.flops.get());
        if (c.sequence != kNone32) uint_arg("Sequence number", c.sequence);
        break;
      }
      case SliceKind::kRuntimeApi: {
        const ApiInfo& a = t_.api_calls[r.index()];
        if (a.correlation) uint_arg("correlation", a.correlation);
        if (a.cbid) uint_arg("cbid", a.cbid);
        break;
      }
      case SliceKind::kSmSpan: {
        const SmSpanInfo& s = t_.sm_spans[r.index()];
        uint_arg("block", s.block);
        uint_arg("warp", s.warp);
        str_arg("role", to_string(s.role));
        uint_arg("tag", s.tag);
        break;
      }
      default: break;
    }
  }

  static uint64_t key_of(uint32_t track, uint32_t index) { return (static_cast<uint64_t>(track) << 32) | index; }

  void track(uint32_t ti) {
    const Track& tr = t_.tracks[ti];
    if (collective_by_kernel_.empty() && !t_.collectives.empty())
      for (uint32_t ci = 0; ci < t_.collectives.size(); ++ci)
        if (t_.collectives[ci].kernel.valid())
          collective_by_kernel_[key_of(t_.collectives[ci].kernel.track, t_.collectives[ci].kernel.index)] = ci;
    const bool global_instants = t_.str(tr.name) == "global instants" && tr.key.id >= kStringIdBase;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      const SliceRef r = tr.slices.ref[i];
      begin_event();
      const bool instant = r.kind() == SliceKind::kInstant;
      out_ += instant ? (global_instants ? "\"ph\": \"i\", \"s\": \"g\", " : "\"ph\": \"i\", \"s\": \"t\", ") : "\"ph\": \"X\", ";
      const std::string_view cat = kind_category(r.kind());
      if (!cat.empty()) {
        out_ += "\"cat\": ";
        append_json_quoted(out_, cat);
        out_ += ", ";
      }
      out_ += "\"name\": ";
      append_json_quoted(out_, t_.str(tr.slices.name[i]));
      out_ += ", ";
      place(tr);
      out_ += ", \"ts\": ";
      out_ += ns_to_us_text(tr.slices.start[i] - base_);
      if (!instant) {
        out_ += ", \"dur\": ";
        out_ += ns_to_us_text(tr.slices.dur[i]);
      }
      out_ += ", \"args\": {";
      first_arg_ = true;
      for (const Arg& a : t_.args.get(tr.slices.args_of(i))) {
        key(t_.str(a.key));
        arg_value(a.value);
      }
      typed_args(tr, ti, i);
      out_ += "}}";
      tick();
      maybe_flush();
    }
    // the unit in the value's key ("value [bytes/s]"): Perfetto names the series after the key and
    // reads the number; our importer takes the unit back (counter_key.h)
    std::string value_key;
    if (tr.counter.size()) append_json_quoted(value_key, counter_value_key(t_.str(tr.unit)));
    for (size_t i = 0; i < tr.counter.size(); ++i) {
      begin_event();
      out_ += "\"ph\": \"C\", \"name\": ";
      append_json_quoted(out_, t_.str(tr.name));
      out_ += ", \"pid\": ";
      append_int(out_, pid_[tr.key.process]);
      out_ += ", \"ts\": ";
      out_ += ns_to_us_text(tr.counter.time[i] - base_);
      out_ += ", \"args\": {";
      out_ += value_key;
      out_ += ": ";
      out_ += json_number(tr.counter.value[i]);
      out_ += "}}";
      tick();
      maybe_flush();
    }
  }

  void flow_end(char ph, uint64_t id, const Flow& f, EventRef at) {
    const Track& tr = t_.tracks[at.track];
    begin_event();
    out_ += "\"ph\": \"";
    out_.push_back(ph);
    out_ += f.kind == FlowKind::kLaunch ? "\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": "
                                        : "\", \"cat\": \"flow\", \"name\": ";
    if (f.kind != FlowKind::kLaunch) {
      append_json_quoted(out_, to_string(f.kind));
      out_ += ", \"id\": ";
    }
    append_uint(out_, id);
    out_ += ", ";
    place(tr);
    out_ += ", \"ts\": ";
    out_ += ns_to_us_text(tr.slices.start[at.index] - base_);
    if (ph == 'f') out_ += ", \"bp\": \"e\"";
    out_ += "}";
  }

  void flows() {
    size_t skipped = 0;
    for (size_t fi = 0; fi < t_.flows.size(); ++fi) {
      const Flow& f = t_.flows[fi];
      auto valid = [&](EventRef r) {
        return r.valid() && r.track < t_.tracks.size() && r.index < t_.tracks[r.track].slices.size();
      };
      if (!valid(f.from) || !valid(f.to)) continue;
      const bool from_here = in_file_[t_.tracks[f.from.track].key.process];
      const bool to_here = in_file_[t_.tracks[f.to.track].key.process];
      if (!from_here && !to_here) continue;
      if (from_here != to_here) {
        if (from_here) ++skipped;  // counted once, in the file of its start
        continue;
      }
      flow_end('s', fi + 1, f, f.from);
      flow_end('f', fi + 1, f, f.to);
      maybe_flush();
    }
    if (skipped)
      result_.warnings.push_back(std::to_string(skipped) +
                                 " flows cross from one rank's file to another's and were left out (use --merged to keep them)");
  }

  const Trace& t_;
  bool merged_;
  const ChromeJsonWriteOptions& options_;
  uint64_t& done_;
  uint64_t total_;
  ChromeJsonWriteResult& result_;
  AtomicFile* file_ = nullptr;
  std::string out_;
  std::vector<uint8_t> in_file_;
  std::vector<uint32_t> processes_;
  std::vector<uint32_t> devices_;
  std::vector<int64_t> pid_;
  std::vector<int32_t> device_id_;
  int32_t world_size_ = 0;
  TimeNs base_ = 0;
  bool first_event_ = true;
  bool first_arg_ = true;
  std::unordered_map<uint64_t, uint32_t> collective_by_kernel_;
};

std::string rank_path(const std::string& path, const std::string& tag) {
  for (std::string_view ext : {".json.gz", ".json"})
    if (ends_with(path, ext)) return path.substr(0, path.size() - ext.size()) + "." + tag + std::string(ext);
  return path + "." + tag;
}

}  // namespace

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string ns_to_us_text(int64_t ns) {
  char buf[32];
  const bool neg = ns < 0;
  const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", neg ? "-" : "", static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

ChromeJsonWriteResult write_chrome_json(const Trace& trace, const std::string& path,
                                        const ChromeJsonWriteOptions& options) {
  ChromeJsonWriteResult result;
  std::vector<std::vector<uint32_t>> groups;
  if (options.merged || trace.processes.size() <= 1) {
    groups.emplace_back();
    for (uint32_t p = 0; p < trace.processes.size(); ++p) groups.back().push_back(p);
  } else {
    std::map<std::string, size_t> by_source;
    for (uint32_t p = 0; p < trace.processes.size(); ++p) {
      auto [it, inserted] = by_source.try_emplace(trace.processes[p].source, groups.size());
      if (inserted) groups.emplace_back();
      groups[it->second].push_back(p);
    }
  }
  const auto world = static_cast<int32_t>(rank_count(trace));
  uint64_t total = 0, done = 0;
  for (const Track& t : trace.tracks) total += t.slices.size() + t.counter.size();
  std::set<std::string> names;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string out = path;
    if (groups.size() > 1) {
      int32_t rank = -1;
      for (uint32_t p : groups[g])
        if (rank < 0) rank = trace.processes[p].rank;
      std::string tag = rank >= 0 ? "rank" + std::to_string(rank) : "part" + std::to_string(g);
      out = rank_path(path, tag);
      if (names.count(out)) out = rank_path(path, tag + "-" + std::to_string(g));
    }
    names.insert(out);
    FileWriter w(trace, groups[g], options.merged, world, options, done, total, result);
    w.write(out);
  }
  if (options.progress) options.progress(total, total);
  return result;
}

}  // namespace parascope
