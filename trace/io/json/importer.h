// The JSON importer's state for one file: a ChromeJsonHandler that turns each event into model
// rows as it streams by. Identity (pid/tid → process, thread, device, track) and arg handling live
// here and in importer.cpp; each record family has its file (cpu_events, gpu_events, async_events,
// links). Rows this file adds are remembered per track (first_row_) so the clock offset and flow
// binding touch only them: tracks can be shared with earlier files of the same worker.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/common/file_import.h"
#include "trace/io/json/arg_roles.h"
#include "trace/io/json/chrome_json_parser.h"
#include "trace/io/json/flow_binder.h"

namespace parascope {

namespace kineto {

// String pids/tids (Chrome allows them) get ids in this range so they never collide with numbers.
constexpr int64_t kStringIdBase = int64_t{1} << 62;
constexpr uint32_t kNoTrack = ~0u;

}  // namespace kineto

// What the files of one worker share: the process(es), devices and the pid → process mapping.
struct WorkerJoin::State {
  uint32_t main_process = kineto::kNoTrack;
  bool main_bound = false;  // main_process has its real pid
  std::unordered_map<int64_t, uint32_t> process_by_pid;
  std::vector<uint32_t> processes;
  std::map<int32_t, uint32_t> devices;  // CUDA ordinal → trace device
  std::string first_file;
  int files = 0;
};

namespace kineto {

struct ThreadKey {
  int64_t pid, tid;
  friend bool operator==(const ThreadKey&, const ThreadKey&) = default;
};
struct ThreadKeyHash {
  size_t operator()(const ThreadKey& k) const noexcept {
    const uint64_t h = static_cast<uint64_t>(k.pid) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(k.tid) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// Names, arg keys and JSON values repeat from event to event: a direct-mapped cache in front of the
// string table, keyed by length and the first and last 8 bytes, verified against the stored text.
class InternCache {
 public:
  StringId intern(TraceBuilder& b, std::string_view s) {
    const uint64_t fp = fingerprint(s);
    Entry& e = entries_[fp & (kSize - 1)];
    if (e.fp == fp && e.id != kNone32 && b.strings().view(e.id) == s) return e.id;
    e.id = b.intern(s);
    e.fp = fp;
    return e.id;
  }

 private:
  static constexpr size_t kSize = 4096;
  struct Entry {
    uint64_t fp = 0;
    StringId id = kNone32;
  };
  static uint64_t fingerprint(std::string_view s) {
    uint64_t head = 0, tail = 0;
    const size_t n = s.size();
    if (n >= 8) {
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
    } else if (n > 0) {
      std::memcpy(&head, s.data(), n);
    }
    uint64_t h = (head ^ (n * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    h ^= (tail + (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
  }
  std::vector<Entry> entries_ = std::vector<Entry>(kSize);
};

struct PendingBegin {
  TimeNs ts = 0;
  StringId name = kEmptyString;
  uint32_t args = kNone32;
  int64_t event_index = 0;
  bool has_bind = false, flow_in = false, flow_out = false;
  uint64_t bind_id = 0;
};

struct DeviceProps {
  std::string name;
  uint32_t sms = 0;
  uint64_t mem = 0;
  uint32_t major = 0, minor = 0;
};

class Importer final : public ChromeJsonHandler {
 public:
  Importer(const std::string& path, TraceBuilder& b, FileImportReport& report, WorkerJoin::State& w)
      : path_(path), b_(b), report_(report), w_(w) {}

  void on_metadata(std::string_view key, const JsonValue& v) override;
  void on_event(const RawEvent& e) override;
  // After the last event: names, sort indexes, the clock offset, and the links (launch flows,
  // collectives' issuing ops, bound flow events) that need the whole file.
  void finish(const ChromeJsonStats& stats);

 private:
  void warn_other_accelerators();  // processes of MTIA and other non-GPU accelerators: one warning each
  struct Thread {
    ThreadKey key;
    uint32_t cpu_track = kNoTrack;
    std::vector<uint32_t> tracks;  // every track fed by events of this (pid, tid), for flow binding
    std::vector<PendingBegin> open;
  };
  struct AsyncKey {
    int64_t scope;  // pid, or kGlobalScope
    StringId cat;
    uint64_t id;
    bool id_is_string;
    friend bool operator==(const AsyncKey&, const AsyncKey&) = default;
  };
  struct AsyncKeyHash {
    size_t operator()(const AsyncKey& k) const noexcept {
      uint64_t h = static_cast<uint64_t>(k.scope) * 0x9e3779b97f4a7c15ull ^ k.id * 0xff51afd7ed558ccdull;
      h ^= (static_cast<uint64_t>(k.cat) << 1 | k.id_is_string) * 0xc4ceb9fe1a85ec53ull;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  struct AsyncTrack {
    uint32_t track = kNoTrack;
    std::vector<PendingBegin> open;
  };
  static constexpr int64_t kGlobalScope = std::numeric_limits<int64_t>::min();
  struct GpuRecord {
    uint32_t correlation;
    EventRef ref;
    uint64_t external_id;
  };
  struct ParamComms {
    EventRef ref;
    int64_t seq = -1;
    int32_t src_rank = -1, dst_rank = -1;
  };
  struct GpuTrackCache {
    int64_t device, stream;
    bool annotation;
    uint32_t track;
  };

  [[noreturn]] void bad(const RawEvent& e, const std::string& problem) const {
    InputLocation where;
    where.file = path_;
    where.byte_offset = e.byte_offset;
    where.event_index = e.index;
    throw InputError(where, problem);
  }

  int64_t pid_key(const RawEvent& e) { return key_of(e.pid, "pid", e); }
  int64_t tid_key(const RawEvent& e) { return key_of(e.tid, "tid", e); }

  Thread& thread(const RawEvent& e) {
    const ThreadKey k{pid_key(e), tid_key(e)};
    if (last_thread_ != kNoTrack && threads_[last_thread_].key == k) return threads_[last_thread_];
    auto [it, inserted] = thread_index_.try_emplace(k, static_cast<uint32_t>(threads_.size()));
    if (inserted) threads_.push_back(Thread{k, kNoTrack, {}, {}});
    last_thread_ = it->second;
    return threads_[it->second];
  }
  uint32_t thread_number(const Thread& t) const { return static_cast<uint32_t>(&t - threads_.data()); }

  static void feed(Thread& th, uint32_t track) {
    for (uint32_t t : th.tracks)
      if (t == track) return;
    th.tracks.push_back(track);
  }

  void register_process(uint32_t idx) { w_.processes.push_back(idx); }

  uint32_t track(const TrackKey& key, std::string_view name) {
    const uint32_t t = b_.track(key, name);
    if (t >= first_row_.size()) {
      first_row_.resize(t + 1, kNoTrack);
      first_sample_.resize(t + 1, kNoTrack);
    }
    return t;
  }
  // Remembers where this file's rows start on a track (offsets and flow binding touch only those).
  void touch_rows(uint32_t t) {
    if (first_row_[t] == kNoTrack) first_row_[t] = static_cast<uint32_t>(b_.trace().tracks[t].slices.size());
  }
  void touch_samples(uint32_t t) {
    if (first_sample_[t] == kNoTrack) first_sample_[t] = static_cast<uint32_t>(b_.trace().tracks[t].counter.size());
  }

  StringId intern(std::string_view s) { return cache_.intern(b_, s); }

  void check_time(const RawEvent& e) {
    if (!e.has_ts) bad(e, "event has no \"ts\"");
    if (e.ts < 0) bad(e, "negative \"ts\" (" + std::to_string(e.ts) + " ns); expected a time >= 0");
    min_ts_ = std::min(min_ts_, e.ts);
  }

  EventRef add_slice(uint32_t t, TimeNs start, TimeNs dur, StringId name, SliceRef ref, std::span<const Arg> args) {
    touch_rows(t);
    return b_.add_slice_with_arg_set(t, start, dur, name, ref, arg_set(args));
  }
  // Always deduplicated: Kineto's per-event "Ev Idx" makes CPU-op sets unique within a file, but
  // ranks of one job repeat each other's (1268 of 1280 in the dp_step capture), so dedup pays.
  uint32_t arg_set(std::span<const Arg> args) { return args.empty() ? kNone32 : b_.trace().args.add(args); }

  void maybe_v2_flow(const RawEvent& e, EventRef r, TimeNs start) {
    if (!e.bind_id.present()) return;
    uint64_t id;
    if (!flow_id_number(e.bind_id, id)) return;
    if (e.flow_in || e.flow_out) binder_.add_v2(id, e.flow_in, e.flow_out, r, start);
  }

  // identity and args (importer.cpp)
  int64_t key_of(const JsonToken& t, const char* what, const RawEvent& e);
  uint32_t process_for_pid(int64_t pid);
  uint32_t main_process();
  uint32_t device(int32_t ordinal);
  uint32_t cpu_track(Thread& th, const RawEvent& e);
  void scan(const RawEvent& e);
  ArgValue arg_value(const JsonToken& v);
  std::span<const Arg> collect_args(const RawEvent& e, uint64_t structured);
  std::span<const Arg> merged_args(uint32_t begin_set, const RawEvent& end_event);

  // CPU-side records: X, B/E, instants, counters, metadata (cpu_events.cpp)
  void complete(const RawEvent& e);
  void begin(const RawEvent& e);
  void end(const RawEvent& e);
  void instant(const RawEvent& e);
  void counter(const RawEvent& e);
  void metadata_event(const RawEvent& e);

  // GPU records: kernels, copies, memsets, syncs, annotations, memory counters (gpu_events.cpp)
  void gpu_complete(const RawEvent& e, Thread& th, Cat cat);
  void profiler_range(const RawEvent& e, Thread& th);
  uint32_t gpu_track(Thread& th, const RawEvent& e, const Fields& f, bool annotation);
  void memory_sample(const RawEvent& e, Thread& th);

  // Chrome async ranges b/e/n (async_events.cpp)
  void async_event(const RawEvent& e);

  // flow events and the links made once the whole file is read (links.cpp)
  void flow_event(const RawEvent& e);
  void link_launches();
  void link_collectives();
  void bind_flows(TimeNs offset);

  std::string path_;
  TraceBuilder& b_;
  FileImportReport& report_;
  WorkerJoin::State& w_;
  bool kineto_ = false;
  bool has_base_time_ = false;
  TimeNs base_time_ns_ = 0;
  TimeNs min_ts_ = std::numeric_limits<TimeNs>::max();
  int32_t rank_ = -1;
  std::map<int32_t, DeviceProps> device_props_;
  std::unordered_map<int64_t, std::string> pid_names_;
  std::unordered_map<int64_t, int64_t> pid_sort_;
  std::unordered_map<ThreadKey, std::string, ThreadKeyHash> thread_names_;
  std::unordered_map<ThreadKey, int64_t, ThreadKeyHash> thread_sort_;
  std::unordered_map<ThreadKey, uint32_t, ThreadKeyHash> thread_index_;
  std::vector<Thread> threads_;
  uint32_t last_thread_ = kNoTrack;
  std::vector<GpuTrackCache> gpu_tracks_;
  std::vector<uint32_t> first_row_;     // per track: first row added by this file (kNoTrack: none)
  std::vector<uint32_t> first_sample_;  // per track: first counter sample added by this file
  Fields f_;
  std::vector<Role> roles_;  // per arg of the current event, from scan()
  InternCache cache_;
  std::vector<Arg> args_;
  std::vector<std::pair<uint32_t, EventRef>> api_calls_;  // (correlation, runtime/driver call)
  std::vector<GpuRecord> gpu_events_;
  std::unordered_map<uint64_t, ParamComms> param_comms_;  // External id → record_param_comms op
  std::vector<std::pair<uint64_t, uint32_t>> collectives_;  // (External id, collective)
  std::unordered_map<AsyncKey, AsyncTrack, AsyncKeyHash> async_;
  std::string id_storage_;
  FlowBinder binder_;
  int64_t unknown_phases_ = 0;
  int64_t unmatched_ends_ = 0;
  int64_t async_unmatched_ = 0;
  int64_t async_no_id_ = 0;
  int64_t async_slices_ = 0;
};

}  // namespace kineto
}  // namespace parascope
