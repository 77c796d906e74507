// PstraceWriter: the native-format writer, for whole traces (write_pstrace) and for programs that
// record while they run (collector, bench harness, simulator). Processes, devices, links and
// tracks are declared once; slices, counter samples, flows and collectives are appended as they
// come and buffered per track; flush() (and a full buffer, and close()) writes them as
// self-contained chunks, each with its own string table. What was flushed survives a later crash.
// References (EventRef) handed out are (track, n-th slice appended to that track): pass them back
// in flows, collectives and SM spans. One thread at a time; callers that share a writer lock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/core/trace.h"
#include "trace/io/pstrace/chunk_writer.h"
#include "trace/io/pstrace/pstrace_codec.h"

namespace parascope {

struct PstraceWriteOptions {
  ChunkWriter::Options chunk;
  Codec codec = Codec::kZstd;
  size_t slices_per_chunk = 65536;                            // longer runs are split
  size_t max_buffered_events = pstrace::kMaxPendingDefault;   // slices + samples before an automatic flush
};

// Declaration of a track. key.process / key.device are indexes returned by this writer; for
// kLink tracks key.id is a link index returned by add_link.
struct TrackDecl {
  TrackKey key;
  std::string name;
  int32_t parent = -1;
  bool simulated = false;
  CounterSource counter_source = CounterSource::kMeasured;
  std::string unit;
};

class PstraceWriter {
 public:
  PstraceWriter(const std::string& path, PstraceWriteOptions options);
  explicit PstraceWriter(const std::string& path) : PstraceWriter(path, PstraceWriteOptions{}) {}
  ~PstraceWriter();  // closes (atomic: discards, the export failed); errors are swallowed, call close() to see them
  PstraceWriter(const PstraceWriter&) = delete;
  PstraceWriter& operator=(const PstraceWriter&) = delete;

  // Names, NVTX domains, arg keys and values, collective strings are StringIds of this table.
  StringId intern(std::string_view s) { return pending_.strings.intern(s); }
  const StringTable& strings() const { return pending_.strings; }

  void set_metadata(std::string key, std::string value);
  uint32_t add_process(const Process& p);
  uint32_t add_device(const Device& d);  // d.process: an index from add_process
  uint32_t add_link(const Link& l);      // src/dst devices: indexes from add_device
  uint32_t add_track(const TrackDecl& t);
  void set_topology(const Topology& t);
  void add_warning(std::string message);
  void add_note(std::string message);

  EventRef add_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name,
                     SliceKind kind = SliceKind::kGeneric, std::span<const Arg> args = {});
  // k.launch_config is ignored: `config` (may be null) is the kernel's launch configuration.
  EventRef add_kernel(uint32_t track, TimeNs start, TimeNs dur, StringId name, const KernelInfo& k,
                      const LaunchConfig* config, std::span<const Arg> args = {});
  EventRef add_memcpy(uint32_t track, TimeNs start, TimeNs dur, StringId name, const MemcpyInfo& m,
                      std::span<const Arg> args = {});
  EventRef add_memset(uint32_t track, TimeNs start, TimeNs dur, StringId name, const MemsetInfo& m,
                      std::span<const Arg> args = {});
  EventRef add_sync(uint32_t track, TimeNs start, TimeNs dur, StringId name, const SyncInfo& s,
                    std::span<const Arg> args = {});
  EventRef add_nvtx(uint32_t track, TimeNs start, TimeNs dur, StringId name, const NvtxInfo& n,
                    std::span<const Arg> args = {});
  EventRef add_cpu_op(uint32_t track, TimeNs start, TimeNs dur, StringId name, const CpuOpInfo& c,
                      std::span<const Arg> args = {});
  EventRef add_api_call(uint32_t track, TimeNs start, TimeNs dur, StringId name, const ApiInfo& a,
                        std::span<const Arg> args = {});
  EventRef add_sm_span(uint32_t track, TimeNs start, TimeNs dur, StringId name, const SmSpanInfo& s,
                       std::span<const Arg> args = {});
  void add_counter_sample(uint32_t track, TimeNs t, double value);
  void add_flow(EventRef from, EventRef to, FlowKind kind);
  void add_collective(const CollectiveInfo& c);  // kernel/cpu_op: refs from this writer

  // Appends a chunk the writer does not produce itself (the collector's kCuptiRecords,
  // kProbeRecords), after flushing what is buffered so the file keeps the caller's order.
  void append_raw(ChunkType type, std::span<const uint8_t> payload, Codec codec = Codec::kZstd);

  void flush();  // writes everything buffered and flushes the file
  void close();  // flush, then the index and trailer
  bool is_open() const { return chunks_.is_open(); }
  const std::string& path() const { return chunks_.path(); }
  uint64_t bytes_written() const { return chunks_.bytes_written(); }

 private:
  friend void write_pstrace(const Trace& trace, const std::string& path, const PstraceWriteOptions& options);
  EventRef push_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref, std::span<const Arg> args);
  void write_declarations(const Trace& src, size_t processes_from, size_t devices_from, size_t links_from,
                          size_t tracks_from);
  void write_track_data(const Trace& src, uint32_t track, uint64_t first_row);
  void write_arg_sets(const Trace& src, const std::vector<uint32_t>& sets);
  void write_relations(const Trace& src);
  void write_metadata_warnings_notes(const Trace& src);
  void emit(ChunkType type);  // local_ string table + body_, as one chunk
  void maybe_flush();

  ChunkWriter chunks_;
  PstraceWriteOptions options_;
  Trace pending_;  // declarations (kept) and buffered data (cleared by flush)
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> config_index_;
  std::vector<uint64_t> rows_written_;  // per track: slices already written
  size_t processes_written_ = 0, devices_written_ = 0, links_written_ = 0, tracks_written_ = 0;
  bool topology_written_ = true;
  size_t buffered_ = 0;
  pstrace::LocalStrings local_;
  std::vector<std::pair<StringId, uint8_t>> shapes_;  // fields of every shape of the chunk
  std::vector<uint32_t> shape_fields_;                // shape i: shapes_[shape_fields_[i], [i+1])
  std::unordered_map<uint64_t, std::vector<uint32_t>> shape_index_;
  std::vector<uint32_t> set_shape_;
  std::vector<std::pair<uint64_t, uint32_t>> store_shape_;  // the store's shape -> (chunk stamp, chunk shape)
  uint64_t chunk_stamp_ = 0;
  std::vector<int64_t> prev_values_;
  // Chunk-local numbering of trace-wide ids (launch configs, arg sets) in order of first use:
  // generation-stamped slots, so a new chunk costs nothing and a lookup is two array reads.
  struct LocalIds {
    std::vector<uint32_t> index, gen;
    uint32_t generation = 0;
    void begin(size_t table_size) {
      if (index.size() < table_size) {
        index.resize(table_size, 0);
        gen.resize(table_size, 0);
      }
      if (++generation == 0) {
        std::fill(gen.begin(), gen.end(), 0u);
        generation = 1;
      }
    }
    uint32_t local(uint32_t id, std::vector<uint32_t>& order) {
      if (gen[id] != generation) {
        gen[id] = generation;
        index[id] = static_cast<uint32_t>(order.size());
        order.push_back(id);
      }
      return index[id];
    }
  };
  LocalIds config_slots_, set_slots_;
  std::vector<uint32_t> config_order_, set_order_, local_configs_, local_args_;
  ByteWriter body_;
  ByteWriter chunk_;
};

// Writes a whole trace (a file written atomically unless options say otherwise).
void write_pstrace(const Trace& trace, const std::string& path, const PstraceWriteOptions& options);
void write_pstrace(const Trace& trace, const std::string& path);

}  // namespace parascope
