#include "trace/io/pstrace/pstrace_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <zstd.h>

#include "trace/core/error.h"
#include "trace/io/collector/collector_notes.h"
#include "trace/io/common/file_import.h"
#include "trace/io/pstrace/chunk_prefetcher.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/collector_import.h"
#include "trace/io/pstrace/page_prefaulter.h"
#include "trace/io/pstrace/parsed_chunks.h"
#include "trace/io/pstrace/pstrace_codec.h"
#include "trace/io/pstrace/slice_chunk.h"

namespace parascope {

namespace {

using pstrace::kNoDetailBit;
using pstrace::kTextIdBase;
using pstrace::local_string;
using pstrace::read_enum;
using pstrace::read_ref;

struct Segment {
  uint64_t file_first = 0;  // first file row of a slices chunk
  uint32_t builder_first = 0;
  uint32_t count = 0;
};

struct TrackState {
  uint32_t builder = 0;
  int64_t file_parent = -1;
  std::vector<Segment> segments;
  bool sorted = true;
  uint64_t reserve = 0;   // slices the file's chunks say this track has (bounded hint), reserved at its first chunk
  uint64_t expected = 0;  // the same, kept
  uint64_t counter_reserve = 0;  // counter samples, the same way
  size_t last_segment = 0;       // resolve()'s last hit
  uint64_t first_n = 0;   // slices of the first chunk decoded, and how many had a detail record of each kind
  std::array<uint64_t, 16> first_kinds{};
};

// The prefetcher's parse of one payload into `out`, reusing the object of an earlier chunk when it
// is a Chunk; a parse error stays inside it, for the reader to rethrow in the chunk's place.
template <class Chunk>
void parse_into(ByteReader& r, std::unique_ptr<ParsedChunk>& out, void (*parse)(ByteReader&, Chunk&)) {
  if (!dynamic_cast<Chunk*>(out.get())) out = std::make_unique<Chunk>();
  auto& pc = static_cast<Chunk&>(*out);
  try {
    parse(r, pc);
  } catch (...) {
    pc.error = std::current_exception();
  }
}

// Chunk-type groups, decoded in this order so declarations exist before what refers to them.
int phase_of(uint32_t type) {
  switch (static_cast<ChunkType>(type & ~kChunkMustUnderstand)) {
    case ChunkType::kMetadata: return 0;
    case ChunkType::kProcesses: return 1;
    case ChunkType::kDevices: return 2;
    case ChunkType::kLinks: return 3;
    case ChunkType::kTracks: return 4;
    case ChunkType::kTopology:
    case ChunkType::kWarnings:
    case ChunkType::kNotes: return 5;
    case ChunkType::kSlices:
    case ChunkType::kCounters:
    case ChunkType::kCuptiRecords:
    case ChunkType::kNcclRecords:
    case ChunkType::kStandInRecords:
    case ChunkType::kProbeRecords: return 6;
    case ChunkType::kFlows:
    case ChunkType::kCollectives: return 7;
    default: return -1;
  }
}
constexpr int kPhases = 8;

class Importer {
 public:
  Importer(const std::string& path, TraceBuilder& b, const PstraceReadOptions& o, PstraceFileReport& report)
      : path_(path), b_(b), o_(o), report_(report), reader_(path),
        collector_(b, path, CollectorImportHooks{[this] { return default_process(); },
                                                 [this](uint32_t ordinal) { return device_for_ordinal(ordinal); },
                                                 [this](std::string_view key) { return meta(key); },
                                                 [this](const std::string& m) { warn(m); }}) {}

  void run() {
    report_.file = path_;
    report_.version_major = reader_.version_major();
    report_.version_minor = reader_.version_minor();
    report_.chunks = reader_.chunks().size();
    report_.truncated = !reader_.had_index();
    for (const std::string& w : reader_.warnings()) warn(w);
    if (!reader_.had_index() && reader_.warnings().empty())
      warn("has no end index (its writer did not close it: still running, or killed); read " +
           std::to_string(reader_.chunks().size()) + " complete chunks by scanning");

    std::vector<std::vector<const ChunkInfo*>> phases(kPhases);
    std::map<uint32_t, size_t> unknown;
    for (const ChunkInfo& c : reader_.chunks()) {
      const int ph = phase_of(c.header.type);
      if (ph >= 0) {
        phases[static_cast<size_t>(ph)].push_back(&c);
        continue;
      }
      const ChunkTypeInfo* info = find_chunk_type(c.header.type);
      if ((c.header.type & kChunkMustUnderstand) || (info && info->must_understand)) {
        InputLocation where;
        where.file = path_;
        where.byte_offset = static_cast<int64_t>(c.offset);
        throw InputError(where, "chunk of type " + std::string(chunk_type_name(c.header.type)) +
                                    " must be understood and this build does not read it; update Parascope");
      }
      ++unknown[c.header.type];
    }
    for (const auto& [type, n] : unknown) {
      report_.chunks_skipped += n;
      warn(std::to_string(n) + " " + std::string(chunk_type_name(type)) + " chunk" + (n == 1 ? "" : "s") +
           " not read by this build; skipped");
    }
    total_bytes_ = reader_.file_size();
    for (int ph = 0; ph < 6; ++ph) {  // declarations: small, read here
      for (const ChunkInfo* c : phases[static_cast<size_t>(ph)]) {
        try {
          reader_.payload(*c, payload_);  // into the same buffer each time: its pages are touched once
        } catch (const InputError& e) {
          skipped(*c, e);
          continue;
        }
        decode_chunk(*c);
      }
      if (ph == 4) finish_tracks();
    }
    // Each track's first slices chunk first: its kinds, scaled to the track's count, size the
    // trace-wide detail tables once (see reserve_details). Order does not change the result: rows
    // are mapped through per-track segments and detail indexes are per record. The events (the
    // bulk of the file) are verified and decompressed on a second thread, a few chunks ahead.
    std::vector<const ChunkInfo*> order = reserve_hints(phases[6], phases[7]);
    const size_t firsts = order.size();
    std::unordered_set<const ChunkInfo*> done(order.begin(), order.end());
    for (const ChunkInfo* c : phases[6])
      if (!done.count(c)) order.push_back(c);
    order.insert(order.end(), phases[7].begin(), phases[7].end());
    if (firsts == 0) reserve_details();
    {
      // Slices, counters and flows chunks are parsed without the model (slice_chunk.h,
      // parsed_chunks.h) by whichever thread is free first (chunk_prefetcher.h); this thread then
      // interns and appends.
      ChunkPrefetcher::Parse parse;
      parse.wants = [](const ChunkInfo& c) {
        const auto type = static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand);
        return type == ChunkType::kSlices || type == ChunkType::kFlows || type == ChunkType::kCounters;
      };
      parse.parse = [path = path_](const ChunkInfo& c, const std::vector<uint8_t>& payload, std::unique_ptr<ParsedChunk>& out) {
        ByteReader r(payload.data(), payload.size(), path, 0);
        switch (static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand)) {
          case ChunkType::kFlows: parse_into<FlowChunk>(r, out, parse_flow_chunk); break;
          case ChunkType::kCounters: parse_into<CounterChunk>(r, out, parse_counter_chunk); break;
          default: parse_into<SliceChunk>(r, out, parse_slice_chunk); break;
        }
      };
      // With 2 cores the pages are mapped by the prefetch thread when it would wait, not by a third
      // thread competing with the two that decode.
      if (prefault_on_ && prefault_runner() == PagePrefaulter::Runner::kCaller) parse.idle = [this] { return prefault_.step(); };
      ChunkPrefetcher ahead(reader_, order, 3, std::move(parse));
      for (size_t i = 0; i < order.size(); ++i) {
        bool read = true;
        try {
          ahead.next(payload_, parsed_);
        } catch (const InputError& e) {
          skipped(*order[i], e);
          read = false;
        }
        if (read) decode_chunk(*order[i]);
        if (i + 1 == firsts) reserve_details();
      }
      parsed_.reset();
    }
    prefault_.stop();  // everything is written: what is left unmapped was over-reserved
    collector_.finish();
    report_.collector = collector_.report();
    report_.cupti_records = report_.collector.cupti_records;
    report_.probe_records = report_.collector.probe_records;
    resolve();
    b_.trace().source_files.push_back(path_);
  }

 private:
  void warn(const std::string& m) {
    report_.warnings.push_back(path_ + ": " + m);
    b_.warn(path_ + ": " + m);
  }

  // A chunk whose payload could not be read (checksum, compression): skipped with a warning.
  void skipped(const ChunkInfo& c, const InputError& e) {
    ++report_.chunks_skipped;
    warn(std::string(chunk_type_name(c.header.type)) + " chunk at byte " + std::to_string(c.offset) +
         " skipped: " + e.problem() + lost_hint(c.header.type));
    done_bytes_ += kChunkHeaderBytes + c.header.length;
  }

  // Decodes chunk c from payload_ (its verified, decompressed payload).
  void decode_chunk(const ChunkInfo& c) {
    if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) throw OperationCancelled();
    std::vector<uint8_t>& payload = payload_;
    const auto type = static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand);
    if (type == ChunkType::kCuptiRecords || type == ChunkType::kNcclRecords || type == ChunkType::kProbeRecords ||
        type == ChunkType::kStandInRecords) {
      // decoded by CollectorImport once every chunk is in (records refer across chunks)
      collector_.add(type, c.offset, std::move(payload));
      payload = {};
      done_bytes_ += kChunkHeaderBytes + c.header.length;
      if (o_.progress) o_.progress(done_bytes_, total_bytes_);
      return;
    }
    ByteReader r(payload.data(), payload.size(), path_, 0);
    try {
      switch (static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand)) {
        case ChunkType::kMetadata: metadata(r); break;
        case ChunkType::kProcesses: processes(r); break;
        case ChunkType::kDevices: devices(r); break;
        case ChunkType::kLinks: links(r); break;
        case ChunkType::kTracks: tracks(r); break;
        case ChunkType::kTopology: topology(r); break;
        case ChunkType::kWarnings: warnings(r); break;
        case ChunkType::kNotes: notes(r); break;
        case ChunkType::kSlices: parsed_or_own(r, own_slices_, parse_slice_chunk, [this](SliceChunk& sc) { apply_slices(sc); }); break;
        case ChunkType::kCounters: parsed_or_own(r, own_counters_, parse_counter_chunk, [this](CounterChunk& cc) { apply_counters(cc); }); break;
        case ChunkType::kFlows: parsed_or_own(r, own_flows_, parse_flow_chunk, [this](FlowChunk& fc) { apply_flows(fc); }); break;
        case ChunkType::kCollectives: collectives(r); break;
        default: break;
      }
    } catch (const InputError& e) {
      InputLocation where;
      where.file = path_;
      where.byte_offset = static_cast<int64_t>(c.offset);
      where.field = std::string(chunk_type_name(c.header.type)) + " chunk, payload byte " +
                    std::to_string(e.where().byte_offset);
      throw InputError(where, e.problem());
    }
    done_bytes_ += kChunkHeaderBytes + c.header.length;
    if (o_.progress) o_.progress(done_bytes_, total_bytes_);
  }

  static std::string lost_hint(uint32_t type) {
    switch (static_cast<ChunkType>(type & ~kChunkMustUnderstand)) {
      case ChunkType::kSlices: return " (its slices are missing from the trace)";
      case ChunkType::kCounters: return " (its counter samples are missing)";
      case ChunkType::kTracks: return " (slices of the tracks it declared are dropped)";
      case ChunkType::kCuptiRecords: return " (its GPU activity records are missing)";
      case ChunkType::kNcclRecords: return " (its NCCL operations are missing)";
      case ChunkType::kStandInRecords: return " (its stand-in collectives are missing)";
      case ChunkType::kProbeRecords: return " (its SM spans are missing)";
      default: return "";
    }
  }

  // declarations

  void metadata(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(2, "metadata entry");
    for (uint64_t i = 0; i < n; ++i) {
      const StringId k = local_string(r, strs_);
      const StringId v = local_string(r, strs_);
      report_.metadata.emplace_back(std::string(b_.strings().view(k)), std::string(b_.strings().view(v)));
    }
  }

  // The last value of a metadata key (writers append; the collector rewrites keys at the end).
  std::string meta(std::string_view key) const {
    std::string v;
    for (const auto& [k, val] : report_.metadata)
      if (k == key) v = val;
    return v;
  }

  std::string text(ByteReader& r) { return std::string(b_.strings().view(local_string(r, strs_))); }

  void processes(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(8, "process");
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t index = r.varint();
      Process p;
      p.rank = static_cast<int32_t>(r.svarint());
      p.pid = r.svarint();
      p.host = text(r);
      p.name = text(r);
      p.source = text(r);
      p.clock_offset_ns = r.svarint();
      p.clock_offset_reason = text(r);
      if (p.source.empty()) p.source = path_;
      proc_[index] = b_.add_process(std::move(p));
    }
  }

  uint32_t process_of(uint64_t file_index) {
    if (auto it = proc_.find(file_index); it != proc_.end()) return it->second;
    return default_process();
  }

  // The process of raw collector chunks, or of declarations whose process was lost.
  uint32_t default_process() {
    if (default_process_ != ~0u) return default_process_;
    if (auto it = proc_.find(0); it != proc_.end()) return default_process_ = it->second;
    Process p;
    if (o_.default_process) {
      p = *o_.default_process;
    } else {
      p.host = meta("host");
      if (const std::string pid = meta("pid"); !pid.empty()) p.pid = std::strtoll(pid.c_str(), nullptr, 10);
      if (const std::string rank = meta("rank"); !rank.empty()) p.rank = static_cast<int32_t>(std::strtol(rank.c_str(), nullptr, 10));
      if (p.host.empty() && p.pid == 0) parse_record_name(std::filesystem::path(path_).filename().string(), p);
    }
    if (p.source.empty()) p.source = path_;
    if (p.name.empty() && p.rank < 0) p.name = program_name(meta("process_command"));
    if (p.name.empty()) p.name = p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid);
    if (p.clock_offset_reason.empty())
      p.clock_offset_reason = meta("clock") == "cupti" ? "collector: CUPTI clock = CLOCK_REALTIME ns, not shifted"
                                                       : "none (the file's own clock)";
    return default_process_ = b_.add_process(std::move(p));
  }

  // The program of a command line: "/venv/bin/python /venv/bin/torchrun --x" → "torchrun" (an
  // interpreter's script), "./bench spin" → "bench"; "" when there is none.
  static std::string program_name(const std::string& command) {
    std::vector<std::string> words;
    size_t at = 0;
    while (at < command.size() && words.size() < 2) {
      const size_t end = command.find(' ', at);
      const std::string w = command.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (!w.empty()) words.push_back(w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    if (words.empty()) return {};
    const bool interpreter = words[0].rfind("python", 0) == 0 || words[0] == "bash" || words[0] == "sh";
    return interpreter && words.size() > 1 && words[1].front() != '-' ? words[1] : words[0];
  }

  // "<host>-<pid>-r<rank>.pstrace" (the record layout); hosts may contain '-'.
  static void parse_record_name(const std::string& name, Process& p) {
    const std::string stem = name.substr(0, name.rfind(".pstrace"));
    const size_t r = stem.rfind("-r");
    if (r == std::string::npos || r == 0) return;
    const size_t d = stem.rfind('-', r - 1);
    if (d == std::string::npos || d == 0) return;
    const std::string pid = stem.substr(d + 1, r - d - 1), rank = stem.substr(r + 2);
    auto digits = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
    if (!digits(pid) || !digits(rank)) return;
    p.host = stem.substr(0, d);
    p.pid = std::strtoll(pid.c_str(), nullptr, 10);
    p.rank = static_cast<int32_t>(std::strtol(rank.c_str(), nullptr, 10));
  }

  void devices(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(11, "device");
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t index = r.varint();
      Device d;
      d.process = process_of(r.varint());
      d.ordinal = static_cast<int32_t>(r.svarint());
      d.name = text(r);
      d.pci_bus_id = text(r);
      d.uuid = text(r);
      d.sm_count = static_cast<uint32_t>(r.varint());
      d.compute_major = static_cast<uint32_t>(r.varint());
      d.compute_minor = static_cast<uint32_t>(r.varint());
      d.memory_bytes = r.varint();
      d.topology_gpu = static_cast<int32_t>(r.svarint());
      dev_[index] = b_.add_device(std::move(d));
    }
  }

  uint16_t device_of(uint64_t plus_one) {
    if (plus_one == 0) return kNoDevice;
    auto it = dev_.find(plus_one - 1);
    if (it == dev_.end()) {
      ++unknown_devices_;
      return kNoDevice;
    }
    return static_cast<uint16_t>(it->second);
  }

  void links(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(14, "link");
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t index = r.varint();
      Link l;
      l.src_device = device_of(r.varint());
      l.dst_device = device_of(r.varint());
      l.direction = read_enum<LinkDirection>(r, 2, "link direction");
      l.medium = read_enum<Medium>(r, 6, "medium");
      l.port = static_cast<int32_t>(r.svarint());
      l.capacity_bytes_per_s = r.f64();
      // not add_link: identical links stay distinct, as in the file, so link tracks keep their ids
      b_.trace().links.push_back(l);
      link_[index] = static_cast<uint32_t>(b_.trace().links.size() - 1);
    }
  }

  void tracks(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(10, "track");
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t index = r.varint();
      TrackKey key;
      key.kind = read_enum<TrackKind>(r, static_cast<uint8_t>(TrackKind::kCount), "track kind");
      key.process = process_of(r.varint());
      const int64_t dev = r.svarint();
      if (dev >= 0) {
        auto it = dev_.find(static_cast<uint64_t>(dev));
        if (it == dev_.end()) ++unknown_devices_;
        key.device = it == dev_.end() ? -1 : static_cast<int32_t>(it->second);
      } else {
        key.device = -1;
      }
      const uint8_t text_id = r.u8();
      if (text_id) key.id = kTextIdBase + local_string(r, strs_);
      else key.id = r.svarint();
      if (key.kind == TrackKind::kLink && !text_id) {
        auto it = link_.find(static_cast<uint64_t>(key.id));
        if (it != link_.end()) key.id = it->second;
      }
      const StringId name = local_string(r, strs_);
      const int64_t parent = r.svarint();
      const uint8_t flags = r.u8();
      const auto source = read_enum<CounterSource>(r, 3, "counter source");
      const StringId unit = local_string(r, strs_);
      const uint32_t t = b_.track(key);
      Track& tr = b_.trace().tracks[t];
      tr.name = name;
      tr.simulated = flags & 1;
      tr.counter_source = source;
      tr.unit = unit;
      TrackState& st = tracks_[index];
      st.builder = t;
      st.file_parent = parent;
    }
  }

  void finish_tracks() {
    for (auto& [index, st] : tracks_) {
      if (st.file_parent < 0) continue;
      auto it = tracks_.find(static_cast<uint64_t>(st.file_parent));
      b_.set_track_parent(st.builder, it == tracks_.end() ? -1 : static_cast<int32_t>(it->second.builder));
    }
  }

  void topology(ByteReader& r) {
    Topology t = pstrace::read_topology(r);
    if (b_.trace().topology) warn("carries a topology too; the first input's was kept");
    else b_.trace().topology = std::move(t);
  }

  // The file's own warnings and notes. The collector's (written as they happen, one process per
  // file) are named by their file, and the informational lines older collectors wrote as
  // warnings become notes (collector_notes.h); a written trace's are as they were.
  void warnings(ByteReader& r) {
    const bool collector = meta("source_format") == "parascope-collector";
    while (!r.done()) {
      const std::string w(r.str());
      if (!collector) b_.warn(w);
      else if (is_collector_note(w)) b_.note(path_ + ": " + w);
      else b_.warn(path_ + ": " + w);
    }
  }
  void notes(ByteReader& r) {
    const bool collector = meta("source_format") == "parascope-collector";
    while (!r.done()) {
      const std::string n(r.str());
      b_.note(collector ? path_ + ": " + n : n);
    }
  }

  // data

  // Slices per track, from the head of each slices chunk (string table, track, first row, count;
  // zstd chunks are decompressed only that far), so each track's columns are allocated once
  // instead of growing by copies. Only a hint: unverified (the chunk's CRC is checked when it is
  // decoded), so each chunk adds at most kReserveSlicesPerByte x its stored bytes, and a lying
  // count costs no more memory than an honest file of that size could.
  // Returns the first slices chunk of each track (by its head), in file order.
  static constexpr uint64_t kReserveSlicesPerByte = 4;
  // The first bytes of a chunk's payload (zstd chunks decompressed only that far), empty when
  // they cannot be had.
  std::span<const uint8_t> head_of(const ChunkInfo& c) {
    const std::span<const uint8_t> stored = reader_.stored(c);
    if (stored.empty() || c.header.codec == Codec::kNone) return stored;
    if (c.header.codec != Codec::kZstd) return {};
    if (!dctx_) dctx_.reset(ZSTD_createDCtx());
    if (!dctx_) return {};
    head_.resize(std::min<size_t>(stored.size() * kMaxExpansion, 64 << 10));
    ZSTD_DCtx_reset(dctx_.get(), ZSTD_reset_session_only);
    ZSTD_inBuffer in{stored.data(), stored.size(), 0};
    ZSTD_outBuffer out{head_.data(), head_.size(), 0};
    while (out.pos < out.size) {
      const size_t before_in = in.pos, before_out = out.pos;
      const size_t ret = ZSTD_decompressStream(dctx_.get(), &out, &in);
      if (ZSTD_isError(ret) || ret == 0 || (in.pos == before_in && out.pos == before_out)) break;
    }
    return std::span<const uint8_t>(head_.data(), out.pos);
  }

  // Also counts the counter samples per track, and the flows and collectives of the file (the
  // same bound per stored byte), reserved before they are decoded.
  std::vector<const ChunkInfo*> reserve_hints(const std::vector<const ChunkInfo*>& chunks,
                                              const std::vector<const ChunkInfo*>& later) {
    std::vector<const ChunkInfo*> firsts;
    uint64_t flows = 0, collectives = 0;
    for (const ChunkInfo* c : later) {
      const uint32_t type = c->header.type & ~kChunkMustUnderstand;
      const bool is_flows = type == static_cast<uint32_t>(ChunkType::kFlows);
      if (!is_flows && type != static_cast<uint32_t>(ChunkType::kCollectives)) continue;
      const std::span<const uint8_t> head = head_of(*c);
      try {
        ByteReader r(head.data(), head.size(), path_, 0);
        const uint64_t strings = r.varint();
        for (uint64_t i = 0; i < strings; ++i) r.str();
        (is_flows ? flows : collectives) += std::min<uint64_t>(r.varint(), kReserveSlicesPerByte * c->header.length);
      } catch (const InputError&) {
      }
    }
    if (flows) {
      std::vector<Flow>& f = b_.trace().flows;
      f.reserve(f.size() + std::min<uint64_t>(flows, uint64_t{1} << 32));
      if (prefault_on_) prefault_.add_capacity(f);
    }
    if (collectives) {
      std::vector<CollectiveInfo>& c = b_.trace().collectives;
      c.reserve(c.size() + std::min<uint64_t>(collectives, uint64_t{1} << 32));
      pending_collectives_.reserve(pending_collectives_.size() + std::min<uint64_t>(collectives, uint64_t{1} << 32));
      if (prefault_on_) {
        prefault_.add_capacity(c);
        prefault_.add_capacity(pending_collectives_);
      }
    }
    for (const ChunkInfo* c : chunks) {
      const uint32_t type = c->header.type & ~kChunkMustUnderstand;
      const bool slices = type == static_cast<uint32_t>(ChunkType::kSlices);
      if (!slices && type != static_cast<uint32_t>(ChunkType::kCounters)) continue;
      const std::span<const uint8_t> head = head_of(*c);
      if (head.empty()) continue;
      try {
        ByteReader r(head.data(), head.size(), path_, 0);
        const uint64_t strings = r.varint();
        for (uint64_t i = 0; i < strings; ++i) r.str();
        const uint64_t file_track = r.varint();
        if (slices) r.varint();  // first row
        const uint64_t n = std::min<uint64_t>(r.varint(), kReserveSlicesPerByte * c->header.length);
        auto it = tracks_.find(file_track);
        if (it == tracks_.end()) continue;
        if (!slices) {
          it->second.counter_reserve += n;
          continue;
        }
        if (it->second.reserve == 0 && it->second.first_n == 0) firsts.push_back(c);
        it->second.reserve += n;
        it->second.expected += n;
        expected_slices_ += n;
      } catch (const InputError&) {
        // the head did not fit the prefix, or is malformed: no hint (decoding reports the latter)
      }
    }
    return firsts;
  }

  // After the first chunk of each track: each detail table gets room for what those chunks'
  // kinds predict for the rest of their tracks (count x expected / decoded, + 1/32), at most the
  // slices the heads announced (bounded above), in one allocation instead of doubling copies.
  // An under-estimate only means the table grows as it would have.
  void reserve_details() {
    std::array<uint64_t, 16> want{};
    for (auto& [index, st] : tracks_) {
      if (st.first_n == 0 || st.expected <= st.first_n) continue;
      const uint64_t rest = st.expected - st.first_n;
      for (size_t k = 0; k < want.size(); ++k)
        if (st.first_kinds[k]) want[k] += std::min(rest, (st.first_kinds[k] * rest + st.first_n - 1) / st.first_n * 33 / 32 + 64);
    }
    Trace& tr = b_.trace();
    auto grow = [&](auto& table, SliceKind k) {
      const uint64_t w = want[static_cast<size_t>(k)];
      if (w) table.reserve(table.size() + std::min<uint64_t>(w, SliceRef::kMaxIndex));
    };
    grow(tr.kernels, SliceKind::kKernel);
    grow(tr.memcpys, SliceKind::kMemcpy);
    grow(tr.memsets, SliceKind::kMemset);
    grow(tr.syncs, SliceKind::kSync);
    grow(tr.nvtx, SliceKind::kNvtxRange);
    grow(tr.cpu_ops, SliceKind::kCpuOp);
    grow(tr.api_calls, SliceKind::kRuntimeApi);
    grow(tr.sm_spans, SliceKind::kSmSpan);
    if (prefault_on_) {
      prefault_.add_capacity(tr.kernels);
      prefault_.add_capacity(tr.memcpys);
      prefault_.add_capacity(tr.memsets);
      prefault_.add_capacity(tr.syncs);
      prefault_.add_capacity(tr.nvtx);
      prefault_.add_capacity(tr.cpu_ops);
      prefault_.add_capacity(tr.api_calls);
      prefault_.add_capacity(tr.sm_spans);
    }
  }

  TrackState* track_state(uint64_t file_track, uint64_t lost) {
    auto it = tracks_.find(file_track);
    if (it != tracks_.end()) return &it->second;
    lost_to_undeclared_ += lost;
    return nullptr;
  }

  // A slices, counters or flows chunk as the prefetch thread parsed it (slice_chunk.h,
  // parsed_chunks.h), or parsed here into `own` when it did not; then applied.
  template <class Chunk, class Parse, class Apply>
  void parsed_or_own(ByteReader& r, Chunk& own, Parse parse, Apply apply) {
    if (auto* pc = dynamic_cast<Chunk*>(parsed_.get())) {
      if (pc->error) std::rethrow_exception(pc->error);
      apply(*pc);
    } else {
      parse(r, own);
      apply(own);
    }
  }

  // Interns the chunk's strings and appends its configurations, argument sets, detail records and
  // slices to the trace.
  void apply_slices(SliceChunk& c) {
    strs_.resize(c.strings.size() + 1);
    strs_[0] = kEmptyString;
    for (size_t i = 0; i < c.strings.size(); ++i) strs_[i + 1] = b_.strings().intern(c.strings[i]);
    const uint64_t n = c.n, k = c.k;
    configs_.clear();
    for (const LaunchConfig& lc : c.configs) configs_.push_back(b_.add_launch_config(lc));
    const size_t h = c.shape_fields.size() - 1;
    // String values and keys: the chunk's local strings -> the trace's
    for (uint64_t i = 0, at = 0; i < k; ++i) {
      const uint32_t sh = c.set_shapes[i];
      for (uint32_t f = c.shape_fields[sh]; f < c.shape_fields[sh + 1]; ++f, ++at)
        if (c.shape_types[f] == ArgValue::Type::kString || c.shape_types[f] == ArgValue::Type::kJson) c.bits[at] = strs_[c.bits[at]];
    }
    for (size_t f = 0; f < c.shape_keys.size(); ++f)
      if (c.shape_types[f] == ArgValue::Type::kString || c.shape_types[f] == ArgValue::Type::kJson) c.first_bits[f] = strs_[c.first_bits[f]];
    uint32_t first_set = 0;
    if (k) {
      ArgStore& store = b_.trace().args;
      if (!sets_reserved_) {  // at most one set per slice: the heads' slice count bounds them
        store.reserve_sets(std::max<uint64_t>(expected_slices_, k));
        sets_reserved_ = true;
        if (prefault_on_)
          for (const ArgStore::Unwritten& u : store.unwritten()) prefault_.add(u.at, u.bytes);
      }
      store_shape_.resize(h);
      size_t stored = 0;
      bool any_shared = false;
      for (uint64_t sh = 0; sh < h; ++sh) {
        if (c.shape_sets[sh] == 0) continue;
        fields_.clear();
        const bool share = c.shape_sets[sh] >= 2;
        for (uint32_t f = c.shape_fields[sh]; f < c.shape_fields[sh + 1]; ++f) {
          ArgField af;
          af.key = strs_[c.shape_keys[f]];
          af.type = c.shape_types[f];
          af.shared = share && c.same[f];
          af.bits = af.shared ? c.first_bits[f] : 0;
          any_shared |= af.shared;
          fields_.push_back(af);
        }
        store_shape_[sh] = store.shape(fields_);
        stored += static_cast<uint64_t>(c.shape_sets[sh]) * store.unshared_count(store_shape_[sh]);
      }
      uint64_t* out = store.append_begin(stored);
      if (prefault_on_) {  // the values grew (their room ends elsewhere): map the new room, once
        const ArgStore::Unwritten room = store.unwritten()[0];
        const void* end = static_cast<const char*>(room.at) + room.bytes;
        if (end != values_end_) {
          values_end_ = end;
          prefault_.add(room.at, room.bytes);
        }
      }
      if (!any_shared) {
        if (c.used) std::memcpy(out, c.bits.get(), c.used * 8);
      } else {
        size_t at = 0, o = 0;
        for (uint64_t i = 0; i < k; ++i) {
          const uint32_t sh = c.set_shapes[i];
          for (uint32_t f = c.shape_fields[sh]; f < c.shape_fields[sh + 1]; ++f, ++at)
            if (!(c.shape_sets[sh] >= 2 && c.same[f])) out[o++] = c.bits[at];
        }
      }
      for (uint64_t i = 0; i < k; ++i) c.set_shapes[i] = store_shape_[c.set_shapes[i]];
      // a chunk's sets are distinct (the writer deduplicated them): no per-slice lookup
      first_set = store.append_commit(c.set_shapes);
    }
    for (uint64_t i = 0; i < n; ++i) c.name[i] = strs_[c.name[i]];
    TrackState* st = track_state(c.file_track, n);
    if (!st) return;
    const uint32_t bt = st->builder;
    if (st->reserve) {  // the pre-pass's count for this track (reserve_hints), once
      b_.reserve_slices(bt, st->reserve, c.has_args);
      st->reserve = 0;
      if (prefault_on_) {
        const SliceColumns& cols = b_.trace().tracks[bt].slices;
        prefault_.add_capacity(cols.start);
        prefault_.add_capacity(cols.dur);
        prefault_.add_capacity(cols.name);
        prefault_.add_capacity(cols.ref);
        prefault_.add_capacity(cols.args);
      }
    }
    const bool first_of_track = st->first_n == 0;
    if (first_of_track) {
      st->first_n = n;
      for (uint64_t i = 0; i < n; ++i)
        if (!(c.kind[i] & kNoDetailBit)) ++st->first_kinds[c.kind[i] & 0x0F];
    }
    const size_t builder_first = b_.trace().tracks[bt].slices.size();
    if (builder_first + n >= UINT32_MAX) throw InputError(InputLocation{}, "too many slices on one track");
    if (!st->segments.empty() && st->segments.back().file_first > c.first_row) st->sorted = false;
    st->segments.push_back({c.first_row, static_cast<uint32_t>(builder_first), static_cast<uint32_t>(n)});
    ref_.resize(n);
    size_t next[16] = {};  // the next detail record of each kind
    for (uint64_t i = 0; i < n; ++i) {
      const uint8_t kb = c.kind[i];
      const auto kind = static_cast<SliceKind>(kb & 0x0F);
      SliceRef ref(kind, SliceRef::kNoDetail);
      if (!(kb & kNoDetailBit)) {
        size_t& d = next[kb & 0x0F];
        switch (kind) {
          case SliceKind::kKernel: {
            KernelInfo ki = c.kernels[d++];
            ki.launch_config = ki.launch_config == 0 ? kNone32 : configs_[ki.launch_config - 1];
            ref = b_.add_kernel(ki);
            break;
          }
          case SliceKind::kMemcpy: {
            MemcpyInfo mi = c.memcpys[d];
            mi.src_device = device_of(c.memcpy_devices[d].first);
            mi.dst_device = device_of(c.memcpy_devices[d].second);
            ++d;
            ref = b_.add_memcpy(mi);
            break;
          }
          case SliceKind::kMemset: ref = b_.add_memset(c.memsets[d++]); break;
          case SliceKind::kSync: ref = b_.add_sync(c.syncs[d++]); break;
          case SliceKind::kNvtxRange: {
            NvtxInfo ni = c.nvtx[d++];
            ni.domain = strs_[ni.domain];
            ni.category = strs_[ni.category];
            ref = b_.add_nvtx(ni);
            break;
          }
          case SliceKind::kCpuOp: ref = b_.add_cpu_op(c.cpu_ops[d++]); break;
          case SliceKind::kRuntimeApi: ref = b_.add_api_call(c.apis[d++]); break;
          case SliceKind::kSmSpan: {
            const EventRef kernel = c.sm_span_kernels[d];
            ref = b_.add_sm_span(c.sm_spans[d++]);
            if (kernel.valid()) span_kernels_.emplace_back(ref.index(), kernel);
            break;
          }
          default: break;  // the parse refused it
        }
      }
      ref_[i] = ref;
    }
    if (c.has_args)
      for (uint64_t i = 0; i < n; ++i) c.set[i] = c.set[i] ? first_set + c.set[i] - 1 : kNone32;
    b_.append_slices(bt, c.start, c.dur, c.name, ref_, c.has_args ? std::span<const uint32_t>(c.set) : std::span<const uint32_t>());
    report_.slices += static_cast<int64_t>(n);
    if (prefault_on_) report_written(bt);
  }

  // Tells the prefaulter how far this chunk's writes went, so it maps ahead of them where the lead
  // is least (a track's columns fill only while its chunks come; the detail tables and the arg
  // values all along).
  void report_written(uint32_t track) {
    const Trace& tr = b_.trace();
    const SliceColumns& cols = tr.tracks[track].slices;
    prefault_.written_of(cols.start);
    prefault_.written_of(cols.dur);
    prefault_.written_of(cols.name);
    prefault_.written_of(cols.ref);
    prefault_.written_of(cols.args);
    prefault_.written_of(tr.kernels);
    prefault_.written_of(tr.memcpys);
    prefault_.written_of(tr.memsets);
    prefault_.written_of(tr.syncs);
    prefault_.written_of(tr.nvtx);
    prefault_.written_of(tr.cpu_ops);
    prefault_.written_of(tr.api_calls);
    prefault_.written_of(tr.sm_spans);
    for (const ArgStore::Unwritten& u : tr.args.unwritten()) prefault_.written(u.at);
  }

  // Interns a counters chunk's strings and appends its samples to its track.
  void apply_counters(const CounterChunk& c) {
    for (std::string_view sv : c.strings) (void)b_.strings().intern(sv);
    const uint64_t n = c.time.size();
    TrackState* st = track_state(c.file_track, n);
    if (!st) return;
    if (st->counter_reserve) {
      b_.reserve_counter_samples(st->builder, st->counter_reserve);
      st->counter_reserve = 0;
      if (prefault_on_) {
        const CounterColumns& cols = b_.trace().tracks[st->builder].counter;
        prefault_.add_capacity(cols.time);
        prefault_.add_capacity(cols.value);
      }
    }
    b_.append_counter_samples(st->builder, c.time, c.value);
    report_.counter_samples += static_cast<int64_t>(n);
    if (prefault_on_) {
      prefault_.written_of(b_.trace().tracks[st->builder].counter.time);
      prefault_.written_of(b_.trace().tracks[st->builder].counter.value);
    }
  }

  // Interns a flows chunk's strings and appends its flows (resolved later, in place).
  void apply_flows(const FlowChunk& c) {
    for (std::string_view sv : c.strings) (void)b_.strings().intern(sv);
    std::vector<Flow>& out = b_.trace().flows;
    if (flows_begin_ == ~size_t{0}) flows_begin_ = out.size();
    out.insert(out.end(), c.flows.begin(), c.flows.end());
    if (prefault_on_) prefault_.written_of(out);
  }

  void collectives(ByteReader& r) {
    pstrace::read_local_strings(r, b_.strings(), strs_);
    const uint64_t n = r.count(16, "collective");
    for (uint64_t i = 0; i < n; ++i) {
      CollectiveInfo c;
      c.op = read_enum<CollectiveOp>(r, 13, "collective op");
      c.dtype_bytes = r.u8();
      c.channels = static_cast<uint16_t>(r.varint());
      c.rank = static_cast<int32_t>(r.svarint());
      c.group_size = static_cast<int32_t>(r.svarint());
      c.dtype = local_string(r, strs_);
      c.group = local_string(r, strs_);
      c.group_ranks = local_string(r, strs_);
      c.algorithm = local_string(r, strs_);
      c.protocol = local_string(r, strs_);
      c.sequence = r.svarint();
      c.in_elements = r.varint();
      c.out_elements = r.varint();
      const EventRef kernel = read_ref(r);
      const EventRef cpu_op = read_ref(r);
      c.peer = static_cast<int32_t>(r.svarint());
      const uint32_t idx = b_.add_collective(c);
      pending_collectives_.push_back({idx, kernel, cpu_op});
    }
    report_.collectives += static_cast<int64_t>(n);
  }

  // the collector's raw chunks

  uint32_t device_for_ordinal(uint32_t ordinal) {
    const uint32_t proc = default_process();
    if (auto it = dev_by_ordinal_.find(ordinal); it != dev_by_ordinal_.end()) return it->second;
    const Trace& tr = b_.trace();
    for (const auto& [file_index, d] : dev_)
      if (tr.devices[d].process == proc && tr.devices[d].ordinal == static_cast<int32_t>(ordinal))
        return dev_by_ordinal_[ordinal] = d;
    Device d;
    d.process = proc;
    d.ordinal = static_cast<int32_t>(ordinal);
    return dev_by_ordinal_[ordinal] = b_.add_device(std::move(d));
  }

  // references

  // resolve()'s last track (file index) and its state. Flows keep one for their sources and one for
  // their targets: a launch flow goes from a CPU thread to a GPU stream, so one cache would miss on
  // every reference.
  struct LastTrack {
    uint32_t file_track = ~0u;
    TrackState* state = nullptr;
  };

  EventRef resolve(EventRef file_ref, LastTrack& last) {
    if (!file_ref.valid()) return {};
    // Flows name a few tracks over and over, with rows mostly rising: the last track's state
    // and segment are tried first (a hit gives the same answer as the search).
    TrackState* stp;
    if (file_ref.track == last.file_track && last.state) {
      stp = last.state;
    } else {
      auto it = tracks_.find(file_ref.track);
      if (it == tracks_.end()) return {};
      stp = &it->second;
      last.file_track = file_ref.track;
      last.state = stp;
    }
    TrackState& st = *stp;
    if (!st.sorted) {
      std::sort(st.segments.begin(), st.segments.end(),
                [](const Segment& a, const Segment& b) { return a.file_first < b.file_first; });
      st.sorted = true;
      st.last_segment = 0;
    }
    if (st.last_segment < st.segments.size()) {
      const Segment& s = st.segments[st.last_segment];
      const bool next_after = st.last_segment + 1 == st.segments.size() || st.segments[st.last_segment + 1].file_first > file_ref.index;
      if (file_ref.index >= s.file_first && file_ref.index - s.file_first < s.count && next_after)
        return EventRef{st.builder, static_cast<uint32_t>(s.builder_first + (file_ref.index - s.file_first))};
    }
    auto seg = std::upper_bound(st.segments.begin(), st.segments.end(), uint64_t{file_ref.index},
                                [](uint64_t row, const Segment& s) { return row < s.file_first; });
    if (seg == st.segments.begin()) return {};
    --seg;
    if (file_ref.index >= seg->file_first + seg->count) return {};
    st.last_segment = static_cast<size_t>(seg - st.segments.begin());
    return EventRef{st.builder, static_cast<uint32_t>(seg->builder_first + (file_ref.index - seg->file_first))};
  }

  void resolve() {
    Trace& tr = b_.trace();
    LastTrack last_from, last_to;
    size_t dangling = 0;
    if (flows_begin_ != ~size_t{0}) {
      size_t kept = flows_begin_;
      for (size_t i = flows_begin_; i < tr.flows.size(); ++i) {
        Flow f = tr.flows[i];
        f.from = resolve(f.from, last_from);
        f.to = resolve(f.to, last_to);
        if (!f.from.valid() || !f.to.valid()) {
          ++dangling;
          continue;
        }
        tr.flows[kept++] = f;
      }
      report_.flows += static_cast<int64_t>(kept - flows_begin_);
      tr.flows.resize(kept);
    }
    if (dangling) warn(std::to_string(dangling) + " flows refer to slices that are not in the file; dropped");
    size_t lost_refs = 0;
    for (const auto& c : pending_collectives_) {
      CollectiveInfo& ci = tr.collectives[c.index];
      ci.kernel = resolve(c.kernel, last_from);
      ci.cpu_op = resolve(c.cpu_op, last_to);
      lost_refs += (c.kernel.valid() && !ci.kernel.valid()) + (c.cpu_op.valid() && !ci.cpu_op.valid());
    }
    for (const auto& [span, ref] : span_kernels_) {
      tr.sm_spans[span].kernel = resolve(ref, last_from);
      lost_refs += !tr.sm_spans[span].kernel.valid();
    }
    if (lost_refs) warn(std::to_string(lost_refs) + " references to slices that are not in the file were cleared");
    if (lost_to_undeclared_)
      warn(std::to_string(lost_to_undeclared_) + " slices and samples belong to tracks whose declaration is missing; dropped");
    if (unknown_devices_)
      warn(std::to_string(unknown_devices_) + " references to devices whose declaration is missing were cleared");
  }

  struct PendingCollective {
    uint32_t index;
    EventRef kernel, cpu_op;
  };

  std::string path_;
  TraceBuilder& b_;
  const PstraceReadOptions& o_;
  PstraceFileReport& report_;
  ChunkReader reader_;
  CollectorImport collector_;
  uint64_t done_bytes_ = 0, total_bytes_ = 0;
  std::vector<uint8_t> payload_;
  struct DctxFree {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };
  std::unique_ptr<ZSTD_DCtx, DctxFree> dctx_;
  std::vector<uint8_t> head_;
  std::vector<StringId> strs_;
  std::unordered_map<uint64_t, uint32_t> proc_, dev_, link_;
  std::unordered_map<uint64_t, TrackState> tracks_;
  std::unordered_map<uint32_t, uint32_t> dev_by_ordinal_;
  uint32_t default_process_ = ~0u;
  std::vector<uint32_t> configs_;
  std::vector<uint32_t> store_shape_;
  std::vector<ArgField> fields_;
  std::vector<SliceRef> ref_;
  SliceChunk own_slices_;                      // chunks parsed on this thread (parsed_or_own)
  CounterChunk own_counters_;
  FlowChunk own_flows_;
  std::unique_ptr<ParsedChunk> parsed_;        // the prefetcher's parse of the chunk decode_chunk is given
  std::vector<std::pair<uint32_t, EventRef>> span_kernels_;
  std::vector<PendingCollective> pending_collectives_;
  uint64_t lost_to_undeclared_ = 0;
  static PagePrefaulter::Runner prefault_runner() {
    return std::thread::hardware_concurrency() >= 3 ? PagePrefaulter::Runner::kOwnThread : PagePrefaulter::Runner::kCaller;
  }
  const bool prefault_on_ = o_.prefault.value_or(true);
  PagePrefaulter prefault_{prefault_runner()};  // maps reserved columns and tables beside the decoding
  const void* values_end_ = nullptr;  // the end of the arg values' room last handed to prefault_
  uint64_t expected_slices_ = 0;  // all tracks' reserve hints: bounds the arg sets to come
  bool sets_reserved_ = false;
  size_t flows_begin_ = ~size_t{0};  // this file's first flow in the trace's table
  uint64_t unknown_devices_ = 0;
};

}  // namespace

PstraceFileReport import_pstrace(const std::string& path, TraceBuilder& builder, const PstraceReadOptions& options) {
  PstraceFileReport report;
  Importer(path, builder, options, report).run();
  return report;
}

Trace read_pstrace(const std::string& path, const PstraceReadOptions& options, PstraceFileReport* report) {
  TraceBuilder b;
  PstraceFileReport r = import_pstrace(path, b, options);
  Trace t = b.finish();
  t.source_format = "pstrace";
  if (report) *report = std::move(r);
  return t;
}

}  // namespace parascope
