#include "trace/io/json/importer.h"

#include <algorithm>

namespace parascope::kineto {

namespace {

// Kineto timestamps relative to baseTimeNanoseconds stay far below this; a file without a base whose
// timestamps reach it (2001-09-09 in Unix microseconds) was written on the wall clock already.
constexpr TimeNs kEpochClockNs = int64_t{1'000'000'000'000'000'000};

}  // namespace

void Importer::on_metadata(std::string_view key, const JsonValue& v) {
  if (key == "baseTimeNanoseconds") {
    if (auto n = v.as_int()) {
      base_time_ns_ = *n;
      has_base_time_ = true;
    }
  } else if (key == "distributedInfo" && v.is_object()) {
    if (const JsonValue* r = v.find("rank"))
      if (auto n = r->as_int()) rank_ = static_cast<int32_t>(*n);
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

void Importer::on_event(const RawEvent& e) {
  ++report_.events;
  if (e.ph.size() != 1) {
    if (e.ph.empty()) bad(e, "event has no \"ph\" (phase)");
    ++unknown_phases_;
    return;
  }
  switch (e.ph[0]) {
    case 'X': complete(e); break;
    case 'B': begin(e); break;
    case 'E': end(e); break;
    case 'i':
    case 'I':
    case 'R': instant(e); break;
    case 'C': counter(e); break;
    case 'M': metadata_event(e); break;
    case 's':
    case 't':
    case 'f': flow_event(e); break;
    case 'b':
    case 'e':
    case 'n': async_event(e); break;
    default: ++unknown_phases_; break;
  }
}

void Importer::finish(const ChromeJsonStats& stats) {
  size_t open = 0;
  for (const Thread& t : threads_) open += t.open.size();
  if (open) b_.warn(path_ + ": " + std::to_string(open) + " 'B' events have no matching 'E'; dropped");
  if (unmatched_ends_)
    b_.warn(path_ + ": " + std::to_string(unmatched_ends_) + " 'E' events have no open 'B'; ignored");
  size_t async_open = 0;
  for (const auto& [k, a] : async_) async_open += a.open.size();
  if (async_open) b_.warn(path_ + ": " + std::to_string(async_open) + " async 'b' events have no matching 'e'; dropped");
  if (async_unmatched_)
    b_.warn(path_ + ": " + std::to_string(async_unmatched_) + " async 'e' events have no open 'b'; ignored");
  if (async_no_id_)
    b_.warn(path_ + ": " + std::to_string(async_no_id_) + " async events have no id; skipped");
  if (unknown_phases_)
    b_.warn(path_ + ": " + std::to_string(unknown_phases_) + " events with unknown phases were skipped");
  for (const auto& w : stats.warnings) b_.warn(path_ + ": " + w);
  if (stats.skipped_malformed)
    b_.warn(path_ + ": --lenient skipped " + std::to_string(stats.skipped_malformed) + " malformed events");

  Trace& tr = b_.trace();
  // Clock: Kineto timestamps + baseTimeNanoseconds = wall clock. Without a base the file's clock
  // is used as is; say whether it already is the wall clock (older Kineto wrote epoch times).
  const TimeNs offset = has_base_time_ ? base_time_ns_ : 0;
  std::string reason = "baseTimeNanoseconds";
  if (!has_base_time_)
    reason = min_ts_ >= kEpochClockNs ? "none (timestamps are already wall-clock epoch times)"
                                      : "none (file clock used as is)";
  report_.clock_offset_ns = offset;
  report_.clock_offset_reason = reason;
  report_.rank = rank_;
  report_.unknown_phases = unknown_phases_;
  report_.skipped = stats.skipped_malformed;
  report_.json_bytes = stats.json_bytes;
  report_.async_slices = async_slices_;
  for (uint32_t p : w_.processes) {
    Process& proc = tr.processes[p];
    if (!proc.clock_offset_reason.empty() && proc.clock_offset_ns != offset)
      b_.warn(path_ + ": clock offset " + std::to_string(offset) + " ns differs from " +
              std::to_string(proc.clock_offset_ns) + " ns of " + w_.first_file + " (same worker)");
    proc.clock_offset_ns = offset;
    proc.clock_offset_reason = reason;
    if (p == w_.main_process && rank_ >= 0) proc.rank = rank_;
    auto it = pid_names_.find(proc.pid);
    if (it != pid_names_.end() && proc.name.empty()) proc.name = it->second;
    if (auto s = pid_sort_.find(proc.pid); s != pid_sort_.end()) proc.sort_index = s->second;
    if (proc.name.empty()) proc.name = proc.rank >= 0 ? "rank " + std::to_string(proc.rank) : "pid " + std::to_string(proc.pid);
  }
  warn_other_accelerators();
  // This file's rows only: tracks can be shared with earlier files of the same worker.
  if (offset != 0) {
    for (uint32_t t = 0; t < first_row_.size(); ++t) {
      if (first_row_[t] != kNoTrack) {
        auto& st = tr.tracks[t].slices.start;
        for (size_t i = first_row_[t]; i < st.size(); ++i) st[i] += offset;
      }
      if (first_sample_[t] != kNoTrack) {
        auto& ct = tr.tracks[t].counter.time;
        for (size_t i = first_sample_[t]; i < ct.size(); ++i) ct[i] += offset;
      }
    }
  }
  for (auto& [ordinal, dev] : w_.devices) {
    Device& d = tr.devices[dev];
    if (auto it = device_props_.find(ordinal); it != device_props_.end()) {
      d.name = it->second.name;
      d.sm_count = it->second.sms;
      d.memory_bytes = it->second.mem;
      d.compute_major = it->second.major;
      d.compute_minor = it->second.minor;
    }
  }
  // Thread names and sort indexes (M events) for CPU thread tracks; Kineto's GPU "threads" are
  // streams, which keep their own names.
  for (const auto& [key, idx] : thread_index_) {
    const Thread& th = threads_[idx];
    if (th.cpu_track == kNoTrack) continue;
    if (auto it = thread_names_.find(key); it != thread_names_.end()) b_.set_track_name(th.cpu_track, it->second);
    if (auto it = thread_sort_.find(key); it != thread_sort_.end()) tr.tracks[th.cpu_track].sort_index = it->second;
  }
  link_launches();
  link_collectives();
  bind_flows(offset);
}

int64_t Importer::key_of(const JsonToken& t, const char* what, const RawEvent& e) {
  int64_t v = 0;
  if (!t.present() || t.type == JsonToken::Type::kNull) return 0;
  if (t.type == JsonToken::Type::kNumber && t.to_int(v)) return v;
  if (t.type == JsonToken::Type::kString) {
    if (t.to_int(v)) return v;
    return kStringIdBase + b_.intern(t.text);
  }
  bad(e, std::string("\"") + what + "\" must be a number or a string, found " +
             (t.type == JsonToken::Type::kObject ? "an object" : t.type == JsonToken::Type::kArray ? "an array" : "a boolean"));
}

uint32_t Importer::process_for_pid(int64_t pid) {
  if (pid >= kStringIdBase && kineto_) return main_process();  // Kineto's "Spans"/"Traces"
  auto it = w_.process_by_pid.find(pid);
  if (it != w_.process_by_pid.end()) return it->second;
  if (pid < kStringIdBase && w_.main_process != kNoTrack && !w_.main_bound) {
    // GPU events came first and created the file's process: this is its pid
    w_.main_bound = true;
    b_.trace().processes[w_.main_process].pid = pid;
    w_.process_by_pid[pid] = w_.main_process;
    return w_.main_process;
  }
  Process p;
  p.pid = pid >= kStringIdBase ? 0 : pid;
  if (pid >= kStringIdBase) p.name = std::string(b_.strings().view(static_cast<StringId>(pid - kStringIdBase)));
  p.source = path_;
  const uint32_t idx = b_.add_process(std::move(p));
  w_.process_by_pid[pid] = idx;
  register_process(idx);
  if (w_.main_process == kNoTrack && pid < kStringIdBase) {
    w_.main_process = idx;
    w_.main_bound = true;
  }
  return idx;
}

uint32_t Importer::main_process() {
  if (w_.main_process != kNoTrack) return w_.main_process;
  Process p;
  p.source = path_;
  w_.main_process = b_.add_process(std::move(p));
  register_process(w_.main_process);
  return w_.main_process;
}

uint32_t Importer::device(int32_t ordinal) {
  auto it = w_.devices.find(ordinal);
  if (it != w_.devices.end()) return it->second;
  Device d;
  d.process = main_process();
  d.ordinal = ordinal;
  const uint32_t idx = b_.add_device(std::move(d));
  w_.devices[ordinal] = idx;
  return idx;
}

uint32_t Importer::cpu_track(Thread& th, const RawEvent& e) {
  if (th.cpu_track != kNoTrack) return th.cpu_track;
  const int64_t pid = th.key.pid, tid = th.key.tid;
  const uint32_t proc = process_for_pid(pid);
  int64_t id = tid;
  std::string name;
  if (pid >= kStringIdBase && kineto_) {  // string pids folded into the main process keep their own tracks
    name = std::string(e.pid.text) + " / " + std::string(e.tid.text);
    id = kStringIdBase + b_.intern(name);
  } else if (tid >= kStringIdBase) {
    name = std::string(b_.strings().view(static_cast<StringId>(tid - kStringIdBase)));
  } else {
    name = "thread " + std::to_string(tid);
  }
  th.cpu_track = track(TrackKey{TrackKind::kCpuThread, proc, -1, id}, name);
  feed(th, th.cpu_track);
  return th.cpu_track;
}

void Importer::scan(const RawEvent& e) {
  f_.present = 0;
  roles_.resize(e.args.size());
  for (size_t i = 0; i < e.args.size(); ++i) {
    const RawArg& a = e.args[i];
    Role r = arg_role(a.key);
    if (r != kRoleNone && f_.has(r)) r = kRoleNone;  // a repeated key: the first one describes the event
    roles_[i] = r;
    if (r == kRoleNone) continue;
    f_.present |= bit(r);
    f_.v[r] = &a.value;
  }
}

ArgValue Importer::arg_value(const JsonToken& v) {
  switch (v.type) {
    case JsonToken::Type::kNumber: {
      int64_t i;
      double d;
      if (v.plain_integer) {
        if (v.to_int(i)) return ArgValue::of_int(i);
        uint64_t u;
        if (v.to_uint(u)) return ArgValue::of_uint(u);
      }
      if (v.to_double(d)) return ArgValue::of_double(d);
      return ArgValue::of_string(intern(v.text));
    }
    case JsonToken::Type::kBool: return ArgValue::of_bool(v.text == "true");
    case JsonToken::Type::kString: return ArgValue::of_string(intern(v.text));
    case JsonToken::Type::kObject:
    case JsonToken::Type::kArray: return ArgValue::of_json(intern(v.text));
    case JsonToken::Type::kNull:
    case JsonToken::Type::kAbsent: break;
  }
  return ArgValue::of_json(b_.intern("null"));
}

// Free-form args: every arg whose role is not in `structured` (roles from scan() of this event).
std::span<const Arg> Importer::collect_args(const RawEvent& e, uint64_t structured) {
  args_.clear();
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (structured && ((structured >> roles_[i]) & 1) && roles_[i] != kRoleNone) continue;
    const RawArg& a = e.args[i];
    args_.push_back(Arg{intern(a.key), arg_value(a.value)});
  }
  return args_;
}

// Args of a begin event plus those of its end event.
std::span<const Arg> Importer::merged_args(uint32_t begin_set, const RawEvent& end_event) {
  const auto b = b_.trace().args.get(begin_set);
  std::vector<Arg> all(b.begin(), b.end());
  for (const Arg& a : collect_args(end_event, 0)) all.push_back(a);
  args_.swap(all);
  return args_;
}

// Kineto writes the events of accelerators other than CUDA and ROCm GPUs (Meta's MTIA, and the
// like) on a process named after the device ("MTIA 9"), with categories this reader does not know:
// they become CPU threads of that process. Say so, once per such process, rather than show 0 devices
// without a word.
void Importer::warn_other_accelerators() {
  static constexpr std::string_view kLabels[] = {"MTIA", "TPU", "HPU", "XPU", "NPU", "IPU"};
  const Trace& tr = b_.trace();
  for (uint32_t p : w_.processes) {
    const std::string& name = tr.processes[p].name;
    bool accel = false;
    for (std::string_view l : kLabels)
      accel = accel || (name.size() > l.size() && name.compare(0, l.size(), l) == 0 && name[l.size()] == ' ');
    if (!accel) continue;
    size_t slices = 0;
    for (const Track& t : tr.tracks)
      if (t.key.process == p && t.key.device < 0) slices += t.slices.start.size();
    if (slices)
      b_.warn(path_ + ": process '" + name + "' holds " + std::to_string(slices) +
              " slices of a non-CUDA accelerator, shown as its CPU threads (Parascope reads CUDA and ROCm GPUs as devices)");
  }
}

}  // namespace parascope::kineto
