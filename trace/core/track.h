// Tracks: the rows of the timeline. A track has an identity (TrackKey), a place in the hierarchy
// (process/rank → device → track) and columnar storage for its slices or counter samples.
// Invariant after TraceBuilder::finish(): slices are sorted by (start, longer first), so a parent
// comes before its children and the visible range is found by binary search on `start`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/events.h"

namespace parascope {

enum class TrackKind : uint8_t {
  kCpuThread,   // host thread: CPU ops, runtime API calls, NVTX on that thread
  kGpuStream,   // kernels, copies, memsets, syncs of one CUDA stream
  kGpuAnnotation,  // framework ranges projected on a stream (child of that stream)
  kSmLane,      // one SM of one device; sub-rows (depth) are SmRole
  kCopyEngine,  // a copy engine's activity, where known
  kLink,        // counter: bytes/s over one link and direction
  kCounter,     // any other counter (memory, utilisation)
  kNvtx,        // NVTX ranges of a domain not tied to a thread
  kCollective,  // cross-rank collective spans (derived)
  kAsync,       // async ranges of one (category, id) not tied to a thread (Chrome b/e/n); nest by time
  kCount
};
std::string_view to_string(TrackKind k);

// GPU stream ids from here on (a group id added) are a stand-in recording's communication streams
// (record --world, trace/io/pstrace/standin_import.h): no CUDA stream, one per group and device,
// far above CUPTI's stream ids.
inline constexpr int64_t kStandInStreamBase = 1'000'000'000;

// Identity of a track inside a trace. `id` means: thread id, stream id, SM id, link index, or a
// counter's interned name, depending on kind.
struct TrackKey {
  TrackKind kind = TrackKind::kCpuThread;
  uint32_t process = 0;     // index into Trace::processes
  int32_t device = -1;      // index into Trace::devices, -1: host-side track
  int64_t id = 0;
  friend bool operator==(const TrackKey&, const TrackKey&) = default;
};

// A GPU stream track's short label for tables and replayed lanes: "stream 7", "stream (none)" for
// work with no stream (synchronisations), "stand-in collectives (group 0)" for a stand-in stream.
std::string stream_label(const TrackKey& key);

struct SliceColumns {
  std::vector<TimeNs> start;
  std::vector<TimeNs> dur;
  std::vector<StringId> name;
  std::vector<SliceRef> ref;
  std::vector<uint8_t> depth;   // empty: every slice at depth 0
  std::vector<uint32_t> args;   // ArgStore set per slice; empty: no slice has args

  size_t size() const { return start.size(); }
  bool empty() const { return start.empty(); }
  TimeNs end(size_t i) const { return start[i] + dur[i]; }
  uint8_t depth_of(size_t i) const { return depth.empty() ? 0 : depth[i]; }
  uint32_t args_of(size_t i) const { return args.empty() ? kNone32 : args[i]; }
};

// Whether a counter was read off hardware or derived by an analysis or the simulator.
enum class CounterSource : uint8_t { kMeasured, kEstimated, kSimulated };
std::string_view to_string(CounterSource s);

struct CounterColumns {
  std::vector<TimeNs> time;     // sorted; each value holds until the next sample
  std::vector<double> value;
  size_t size() const { return time.size(); }
};

struct Track {
  TrackKey key;
  StringId name = kEmptyString;
  int32_t parent = -1;          // parent track (e.g. stream of an annotation track), -1: none
  bool simulated = false;       // produced by the simulator rather than measured
  CounterSource counter_source = CounterSource::kMeasured;
  StringId unit = kEmptyString;  // counters: "bytes/s", "bytes", "%"
  SliceColumns slices;
  CounterColumns counter;
  uint8_t max_depth = 0;        // deepest slice depth (0 when all slices are at depth 0)
  int64_t sort_index = 0;       // order among tracks of one kind and parent, from the source
                                // (Chrome thread_sort_index); ties keep key.id order
};

}  // namespace parascope
