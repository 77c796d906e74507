// Trace → Perfetto protobuf trace (.pftrace) for ui.perfetto.dev and trace_processor, written with
// our own encoder (proto_encoder.h; field numbers from Perfetto's public protos/perfetto/trace/
// trace_packet.proto and track_event/*.proto). Layout: a process track per rank (ProcessDescriptor),
// thread tracks for CPU threads (ThreadDescriptor), and custom tracks for the rest — per GPU a
// group track holding its streams (annotation tracks under their stream), an "SMs" group of SM
// lanes, and counter tracks (CounterDescriptor, "(estimated)" in the name when derived).
// Slices become SLICE_BEGIN/SLICE_END pairs, instants TYPE_INSTANT, flows flow_ids /
// terminating_flow_ids on the two slices' begins, counters TYPE_COUNTER with double values.
// Events are emitted in global timestamp order (a k-way merge over tracks, no full copy), and
// properly nested per track: a child reaching past its parent's end is cut at that end (counted).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

struct PerfettoWriteOptions {
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct PerfettoWriteResult {
  std::vector<std::string> files;
  std::vector<std::string> warnings;
  // What went into the file, for checks: descriptors by kind and events.
  int64_t process_tracks = 0, thread_tracks = 0, custom_tracks = 0, counter_tracks = 0;
  int64_t slices = 0, instants = 0, counter_samples = 0, flows = 0;
  int64_t clamped_children = 0;
};

PerfettoWriteResult write_perfetto(const Trace& trace, const std::string& path, const PerfettoWriteOptions& options = {});

}  // namespace parascope
