#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/rich_trace.h"
#include "io/trace_compare.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/probe_record.h"
#include "trace/core/summary.h"
#include "trace/io/common/byte_io.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/chunk_writer.h"
#include "trace/io/pstrace/crc32c.h"
#include "trace/io/pstrace/pstrace_reader.h"
#include "trace/io/pstrace/pstrace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

TEST_CASE("Round trip: every part of the model survives Trace to pstrace to Trace", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-rich");
  const Trace original = test::make_rich_trace();
  // the fixture really covers what it claims: every detail kind, args, flows, collectives...
  REQUIRE(original.kernels.size() == 4);
  REQUIRE(original.memcpys.size() == 2);
  REQUIRE(original.memsets.size() == 1);
  REQUIRE(original.syncs.size() == 2);
  REQUIRE(original.nvtx.size() == 2);
  REQUIRE(original.cpu_ops.size() == 3);
  REQUIRE(original.api_calls.size() == 2);
  REQUIRE(original.sm_spans.size() == 3);
  REQUIRE(original.flows.size() == 3);
  REQUIRE(original.collectives.size() == 2);
  REQUIRE(original.links.size() == 2);
  REQUIRE(original.topology.has_value());
  REQUIRE(original.tracks[0].max_depth == 2);  // matmul > mm > cudaLaunchKernel
  REQUIRE(original.warnings.size() == 3);      // two recorded + the clamped negative duration
  REQUIRE(original.notes.size() == 2);         // kept apart from the warnings, in the notes chunk

  SECTION("whole-trace writer, one chunk per run") {
    const std::string path = (dir / "rich.pstrace").string();
    write_pstrace(original, path);
    PstraceFileReport report;
    Trace back = read_pstrace(path, {}, &report);
    CHECK(test::trace_difference(original, back) == "");
    // the comparison can fail: a changed detail field, arg or name is found
    back.memsets[0].value = 1;
    // stream 7 sorted: fill, nvjet, no config, PtoP, DtoH, memset (row 5)
    CHECK(test::trace_difference(original, back) == "track 2 slice 5 value differs: 3735928559 vs 1");
    back.memsets[0].value = 0xDEADBEEF;
    back.tracks[4].name = back.strings.intern("renamed");
    CHECK(test::trace_difference(original, back) == "track 4 name differs: stream 17 vs renamed");
    CHECK(back.source_format == "pstrace");
    CHECK(report.warnings.empty());
    CHECK_FALSE(report.truncated);
    CHECK(report.slices == static_cast<int64_t>(original.slice_count()));
    CHECK(report.counter_samples == 6);
  }
  SECTION("whole-trace writer, tiny chunks (runs split, rows continue across chunks)") {
    const std::string path = (dir / "rich-split.pstrace").string();
    PstraceWriteOptions o;
    o.slices_per_chunk = 2;
    o.codec = Codec::kNone;
    write_pstrace(original, path, o);
    const Trace back = read_pstrace(path);
    CHECK(test::trace_difference(original, back) == "");
    // the stream track alone has 10 slices: 5 chunks of 2
    ChunkReader r(path);
    size_t slice_chunks = 0;
    for (const auto& c : r.chunks()) slice_chunks += c.header.type == static_cast<uint32_t>(ChunkType::kSlices);
    CHECK(slice_chunks > 10);
  }
  SECTION("incremental writer with automatic flushes equals the builder given the same calls") {
    const std::string path = (dir / "rich-inc.pstrace").string();
    PstraceWriteOptions o;
    o.max_buffered_events = 3;  // flushes every third event: runs of one track span many flushes
    o.slices_per_chunk = 2;
    {
      test::WriterSink w(path, o);
      test::record_rich_trace(w);
      w.w.close();
    }
    const Trace back = read_pstrace(path);
    CHECK(test::trace_difference(original, back) == "");
  }
  fs::remove_all(dir);
}

TEST_CASE("Notes travel in a notes chunk of their own, which older readers may skip", "[io][pstrace][notes]") {
  const fs::path dir = test::temp_dir("pst-notes");
  const std::string path = (dir / "notes.pstrace").string();
  TraceBuilder b;
  b.warn("r0.pstrace: 2 NVTX ranges have no end");
  b.note("r0.pstrace: nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum");
  b.note("cut to 1 time range: 3 slices kept, 0 left out");
  write_pstrace(b.finish(), path);

  // chunk type 18, "notes", not must-understand: a reader without it skips it (and says so in a
  // warning, as for any optional unknown chunk) and loses only the notes
  const ChunkTypeInfo* info = find_chunk_type(18);
  REQUIRE(info);
  CHECK(info->type == ChunkType::kNotes);
  CHECK(info->name == "notes");
  CHECK_FALSE(info->must_understand);
  ChunkReader r(path);
  std::vector<std::string> stored;
  size_t notes_chunks = 0;
  for (const ChunkInfo& c : r.chunks()) {
    if (c.header.type != 18) continue;
    ++notes_chunks;
    const std::vector<uint8_t> p = r.payload(c);
    ByteReader br(p.data(), p.size(), path, 0);
    while (!br.done()) stored.emplace_back(br.str());  // the warnings chunk's layout: (v len, bytes)...
  }
  CHECK(notes_chunks == 1);
  CHECK(stored == std::vector<std::string>{"r0.pstrace: nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum",
                                           "cut to 1 time range: 3 slices kept, 0 left out"});

  PstraceFileReport report;
  const Trace back = read_pstrace(path, {}, &report);
  CHECK(back.warnings == std::vector<std::string>{"r0.pstrace: 2 NVTX ranges have no end"});
  CHECK(back.notes == stored);
  CHECK(report.chunks_skipped == 0);

  SECTION("a file without notes (every file before the notes chunk) has none, and no notes chunk is written") {
    TraceBuilder plain;
    plain.warn("only a warning");
    const std::string old = (dir / "old.pstrace").string();
    write_pstrace(plain.finish(), old);
    ChunkReader ro(old);
    for (const ChunkInfo& c : ro.chunks()) CHECK(c.header.type != 18);
    const Trace t = read_pstrace(old);
    CHECK(t.warnings == std::vector<std::string>{"only a warning"});
    CHECK(t.notes.empty());
  }
  fs::remove_all(dir);
}

TEST_CASE("Round trip of the real Kineto sample keeps every event, count and reference", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-sample");
  const Trace original = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const std::string path = (dir / "sample.pstrace").string();
  write_pstrace(original, path);
  const Trace back = read_pstrace(path);
  CHECK(test::trace_difference(original, back) == "");
  // counts from resources/samples/allreduce_matmul_2xh200/README.md (Python's json module)
  const TraceSummary s = summarize(back);
  REQUIRE(s.processes.size() == 2);
  for (const auto& p : s.processes) {
    REQUIRE(p.devices.size() == 1);
    CHECK(p.devices[0].kernels == 21);
    CHECK(p.devices[0].comm_kernels == 6);
    CHECK(p.devices[0].memcpys == 3);
    CHECK(p.devices[0].memsets == 0);
  }
  // and it is much smaller than the JSON it came from (2 × 105 kB)
  CHECK(fs::file_size(path) * 4 < fs::file_size(test::sample_path("allreduce_matmul_2xh200/rank0.json")) * 2);
  fs::remove_all(dir);
}

namespace {

// Slices declared by a slices chunk's payload (skips its string table, reads track, row, n).
uint64_t slices_in_chunk(const ChunkReader& r, const ChunkInfo& c) {
  const std::vector<uint8_t> p = r.payload(c);
  ByteReader b(p.data(), p.size(), "", 0);
  const uint64_t strings = b.varint();
  for (uint64_t i = 0; i < strings; ++i) b.str();
  b.varint();  // track
  b.varint();  // first row
  return b.varint();
}

void write_u16_at(const std::string& path, uint64_t at, uint16_t v) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(reinterpret_cast<const char*>(&v), 2);
}

}  // namespace

TEST_CASE("A pstrace cut at any offset loads every complete chunk and warns", "[io][pstrace][damage]") {
  const fs::path dir = test::temp_dir("pst-cut");
  const Trace original = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const std::string full = (dir / "full.pstrace").string();
  PstraceWriteOptions o;
  o.slices_per_chunk = 16;  // many chunks, so cuts land in all kinds of places
  write_pstrace(original, full, o);
  const uint64_t size = fs::file_size(full);
  ChunkReader whole(full);
  REQUIRE(whole.chunks().size() > 40);
  uint64_t tracks_end = 0;
  for (const auto& c : whole.chunks())
    if (c.header.type == static_cast<uint32_t>(ChunkType::kTracks)) tracks_end = c.offset + 20 + c.header.length;
  const std::string cut = (dir / "cut.pstrace").string();
  size_t checked = 0;
  for (uint64_t at = kFileHeaderBytes; at < size; at += 1 + (size - kFileHeaderBytes) / 157) {
    fs::copy_file(full, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, at);
    // what a correct reader must return: the slices of every chunk that ends before the cut,
    // provided the track declarations survived
    uint64_t expected = 0;
    if (at >= tracks_end)
      for (const auto& c : whole.chunks())
        if (c.header.type == static_cast<uint32_t>(ChunkType::kSlices) && c.offset + 20 + c.header.length <= at)
          expected += slices_in_chunk(whole, c);
    PstraceFileReport report;
    Trace t;
    REQUIRE_NOTHROW(t = read_pstrace(cut, {}, &report));
    INFO("cut at byte " << at << " of " << size);
    CHECK(t.slice_count() == expected);
    CHECK(report.truncated);
    REQUIRE_FALSE(report.warnings.empty());
    const std::string& w = report.warnings.front();
    CHECK((w.find("truncated: chunk #") != std::string::npos || w.find("ends inside a chunk header") != std::string::npos ||
           w.find("has no end index") != std::string::npos));
    ++checked;
  }
  CHECK(checked >= 150);
  SECTION("the message names the lost chunk's type and offset") {
    const ChunkInfo& last_slices = *std::find_if(whole.chunks().rbegin(), whole.chunks().rend(), [](const ChunkInfo& c) {
      return c.header.type == static_cast<uint32_t>(ChunkType::kSlices);
    });
    fs::copy_file(full, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, last_slices.offset + 20 + 3);
    PstraceFileReport report;
    read_pstrace(cut, {}, &report);
    REQUIRE(report.warnings.size() >= 1);
    CHECK_THAT(report.warnings[0], Catch::Contains("(slices) at byte " + std::to_string(last_slices.offset) + " needs " +
                                                   std::to_string(last_slices.header.length) + " payload bytes, 3 present"));
  }
  fs::remove_all(dir);
}

TEST_CASE("A chunk failing its checksum is skipped with its offset and type, the rest loads", "[io][pstrace][damage]") {
  const fs::path dir = test::temp_dir("pst-crc");
  const Trace original = load_trace({test::sample_path("allreduce_matmul_2xh200")});
  const std::string path = (dir / "crc.pstrace").string();
  PstraceWriteOptions o;
  o.slices_per_chunk = 16;
  write_pstrace(original, path, o);
  ChunkReader r(path);
  const ChunkInfo* victim = nullptr;
  for (const auto& c : r.chunks())
    if (c.header.type == static_cast<uint32_t>(ChunkType::kSlices)) victim = &c;  // the last one
  REQUIRE(victim);
  const uint64_t lost = slices_in_chunk(r, *victim);
  const uint64_t at = victim->offset;
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at + 20 + victim->header.length / 2));
    const char c = static_cast<char>(f.peek() ^ 0x5A);
    f.put(c);
  }
  PstraceFileReport report;
  const Trace t = read_pstrace(path, {}, &report);
  CHECK(t.slice_count() == original.slice_count() - lost);
  CHECK(report.chunks_skipped == 1);
  REQUIRE_FALSE(report.warnings.empty());
  CHECK(report.warnings[0] == path + ": slices chunk at byte " + std::to_string(at) +
                                  " skipped: checksum mismatch in slices chunk (its slices are missing from the trace)");
  fs::remove_all(dir);
}

TEST_CASE("A newer major version is refused, a newer minor is read", "[io][pstrace][damage]") {
  const fs::path dir = test::temp_dir("pst-ver");
  const std::string path = (dir / "v.pstrace").string();
  write_pstrace(test::make_rich_trace(), path);
  auto rewrite_header_crc = [&] {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> head(28);
    in.read(head.data(), 28);
    in.close();
    const uint32_t crc = crc32c(head.data(), 28);
    std::fstream g(path, std::ios::in | std::ios::out | std::ios::binary);
    g.seekp(28);
    g.write(reinterpret_cast<const char*>(&crc), 4);
  };
  SECTION("major 2") {
    write_u16_at(path, 8, 2);
    rewrite_header_crc();
    REQUIRE_THROWS_WITH(load_trace({path}), path + " (byte 8): format version 2.0 is newer than this build reads (1.x); update Parascope");
  }
  SECTION("minor 7 of the same major") {
    write_u16_at(path, 10, 7);
    rewrite_header_crc();
    PstraceFileReport report;
    const Trace t = read_pstrace(path, {}, &report);
    CHECK(report.version_minor == 7);
    CHECK(t.slice_count() == test::make_rich_trace().slice_count());
  }
  fs::remove_all(dir);
}

TEST_CASE("Lying counts and unknown chunks are rejected or skipped, never trusted", "[io][pstrace][damage]") {
  const fs::path dir = test::temp_dir("pst-lie");
  const std::string path = (dir / "lie.pstrace").string();
  // a valid declaration prefix: one process, one track
  auto prefix = [](PstraceWriter& w) {
    Process p;
    p.pid = 1;
    w.add_process(p);
    TrackDecl d;
    d.key = TrackKey{TrackKind::kCpuThread, 0, -1, 1};
    d.name = "t";
    w.add_track(d);
    w.flush();
  };
  SECTION("a slices chunk claiming 10^12 slices in a few bytes") {
    uint64_t at = 0;
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);  // no strings
      b.varint(0);  // track 0
      b.varint(0);  // first row
      b.varint(1'000'000'000'000ull);
      b.varint(0);
      b.varint(0);
      b.u8(0);
      w.append_raw(ChunkType::kSlices, b.bytes(), Codec::kNone);
      at = w.bytes_written() - 20 - b.size();
    }
    // payload byte 9: the end of the 6-byte count that starts at byte 3
    REQUIRE_THROWS_WITH(read_pstrace(path), path + " (byte " + std::to_string(at) +
                                                ", slices chunk, payload byte 9): slice count 1000000000000 exceeds what the chunk holds");
  }
  SECTION("a flows chunk: a bad flow kind and a lying count, with the reader's offsets") {
    // Flows chunks are parsed on the prefetch thread when it is free (parsed_chunks.h); the errors
    // must be the reader's own, naming the chunk and the payload byte.
    uint64_t at = 0;
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);  // no strings
      b.varint(2);  // two flows
      b.varint(1);  // from: track 0 (+1), row 0
      b.varint(0);
      b.varint(1);  // to: track 0, row 1
      b.varint(1);
      b.u8(0);      // kind 0
      b.varint(0);  // from: none
      b.varint(0);  // to: none
      b.u8(9);      // kind 9, out of range: payload byte 9 (errors name the byte after what they read)
      w.append_raw(ChunkType::kFlows, b.bytes(), Codec::kNone);
      at = w.bytes_written() - 20 - b.size();
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), path + " (byte " + std::to_string(at) +
                                                ", flows chunk, payload byte 10): flow kind value 9 out of range");
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);
      b.varint(1'000'000);  // a million flows in 4 bytes
      w.append_raw(ChunkType::kFlows, b.bytes(), Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("flows chunk, payload byte 4): flow count 1000000 exceeds what the chunk holds"));
    {  // counters chunks are parsed the same way: two samples in too few bytes (9 per sample at least)
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);      // no strings
      b.varint(0);      // track 0
      b.varint(2);      // two samples
      b.svarint(1000);  // t = 1000 (2 bytes)
      b.svarint(5);     // t = 1005
      b.f64(1.5);       // one value of two
      w.append_raw(ChunkType::kCounters, b.bytes(), Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("counters chunk, payload byte 3): counter sample count 2 exceeds what the chunk holds"));
  }
  SECTION("a string table claiming 2^40 strings") {
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(1ull << 40);
      b.str("x");
      w.append_raw(ChunkType::kTracks, b.bytes(), Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("tracks chunk, payload byte 6): string count 1099511627776 exceeds what the chunk holds"));
  }
  SECTION("a probe chunk claiming more records than its bytes") {
    {
      PstraceWriter w(path);
      ByteWriter b;
      b.varint(0);   // device
      b.svarint(0);  // offset
      b.varint(0);   // correlation
      b.varint(0);   // launch
      b.str("k");
      b.varint(0);   // overflow
      b.varint(3);   // three records...
      ProbeRecord rec{};
      b.raw(&rec, sizeof rec);  // ...but one present
      w.append_raw(ChunkType::kProbeRecords, b.bytes(), Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("probe record count 3 exceeds what the chunk holds"));
  }
  SECTION("a string index outside the chunk's table") {
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);  // empty table
      b.varint(0);
      b.varint(0);
      b.varint(1);  // one slice
      b.varint(0);  // no launch configs
      b.varint(0);  // no arg shapes
      b.varint(0);  // no arg sets
      b.u8(0);
      b.svarint(5);
      b.varint(1);
      b.varint(9);  // name: local string 9 of 0
      b.u8(static_cast<uint8_t>(SliceKind::kGeneric) | 0x10);
      w.append_raw(ChunkType::kSlices, b.bytes(), Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("string index 9 outside the chunk's table of 1"));
  }
  SECTION("errors deep in long columns and argument sets name the byte a value-by-value read names") {
    // 40 slices with one argument set each: long enough that the parse decodes columns and sets
    // through its raw-pointer fast path (slice_chunk.cpp), which hands anything unusual back to the
    // checked path. Each damaged value must be reported with the checked path's message and offset
    // (the byte after the bad value), and the undamaged chunk must load with every value.
    enum class Bad { kNone, kShape, kStringValue, kLongVarint, kName, kSetId };
    auto write = [&](Bad bad) {
      uint64_t bad_end = 0;  // payload byte after the damaged value
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(1);
      b.str("key");
      b.varint(0);   // track 0
      b.varint(0);   // first row
      b.varint(40);  // slices
      b.varint(0);   // no launch configs
      b.varint(1);   // one shape: an int and a string
      b.varint(2);
      b.varint(1);
      b.u8(static_cast<uint8_t>(ArgValue::Type::kInt));
      b.varint(1);
      b.u8(static_cast<uint8_t>(ArgValue::Type::kString));
      b.varint(40);  // sets
      for (int i = 0; i < 40; ++i) {
        b.varint(bad == Bad::kShape && i == 20 ? 5 : 0);
        if (bad == Bad::kShape && i == 20) bad_end = b.size();
        if (bad == Bad::kLongVarint && i == 20) {
          for (int j = 0; j < 10; ++j) b.u8(0x80);
          bad_end = b.size();  // the reader gives up after 10 bytes
          b.u8(0);
        } else {
          b.svarint(i == 0 ? 1000 : 3);  // 1000, 1003, 1006, ...
        }
        b.varint(bad == Bad::kStringValue && i == 20 ? 7 : 1);
        if (bad == Bad::kStringValue && i == 20) bad_end = b.size();
      }
      b.u8(1);  // slices have args
      for (int i = 0; i < 40; ++i) b.svarint(i == 0 ? 100 : 10);  // starts 100, 110, ...
      for (int i = 0; i < 40; ++i) b.varint(5);
      for (int i = 0; i < 40; ++i) {
        b.varint(bad == Bad::kName && i == 25 ? 9 : 1);
        if (bad == Bad::kName && i == 25) bad_end = b.size();
      }
      for (int i = 0; i < 40; ++i) b.u8(static_cast<uint8_t>(SliceKind::kGeneric) | 0x10);
      for (int i = 0; i < 40; ++i) {
        b.varint(bad == Bad::kSetId && i == 30 ? 41 : static_cast<uint64_t>(i + 1));
        if (bad == Bad::kSetId && i == 30) bad_end = b.size();
      }
      w.append_raw(ChunkType::kSlices, b.bytes(), Codec::kNone);
      return bad_end;
    };
    write(Bad::kNone);
    const Trace t = read_pstrace(path);
    REQUIRE(t.slice_count() == 40);
    const SliceColumns& cols = t.tracks[0].slices;
    for (size_t i = 0; i < 40; ++i) {
      INFO("slice " << i);
      CHECK(cols.start[i] == 100 + 10 * static_cast<TimeNs>(i));
      CHECK(cols.dur[i] == 5);
      CHECK(t.strings.view(cols.name[i]) == "key");
      const ArgSetView a = t.args.get(cols.args[i]);
      REQUIRE(a.size() == 2);
      CHECK(a[0].value.i == 1000 + 3 * static_cast<int64_t>(i));
      CHECK(t.strings.view(a[1].value.s) == "key");
    }
    const std::pair<Bad, std::string> cases[] = {
        {Bad::kShape, "argument shape 5 outside the chunk's 1"},
        {Bad::kStringValue, "string index 7 outside the chunk's table of 2"},
        {Bad::kLongVarint, "varint longer than 10 bytes"},
        {Bad::kName, "string index 9 outside the chunk's table of 2"},
        {Bad::kSetId, "argument set 41 outside the chunk's 40"},
    };
    for (const auto& [bad, message] : cases) {
      INFO(message);
      const uint64_t end = write(bad);
      REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("slices chunk, payload byte " + std::to_string(end) + "): " + message));
    }
  }
  SECTION("unknown chunk types: optional skipped with a warning, must-understand refused") {
    {
      PstraceWriter w(path);
      prefix(w);
      const std::vector<uint8_t> junk = {1, 2, 3};
      w.append_raw(static_cast<ChunkType>(99), junk, Codec::kNone);
    }
    PstraceFileReport report;
    read_pstrace(path, {}, &report);
    CHECK(report.chunks_skipped == 1);
    REQUIRE(report.warnings.size() == 1);
    CHECK(report.warnings[0] == path + ": 1 unknown(99) chunk not read by this build; skipped");
    {
      PstraceWriter w(path);
      prefix(w);
      const std::vector<uint8_t> junk = {1, 2, 3};
      w.append_raw(static_cast<ChunkType>(99u | kChunkMustUnderstand), junk, Codec::kNone);
    }
    REQUIRE_THROWS_WITH(read_pstrace(path), Catch::Contains("chunk of type unknown(99) must be understood and this build does not read it"));
  }
  SECTION("slices of a track that was never declared are dropped with a count") {
    {
      PstraceWriter w(path);
      prefix(w);
      ByteWriter b;
      b.varint(0);
      b.varint(77);  // undeclared track
      b.varint(0);
      b.varint(1);
      b.varint(0);
      b.varint(0);
      b.varint(0);
      b.u8(0);
      b.svarint(5);
      b.varint(1);
      b.varint(0);
      b.u8(static_cast<uint8_t>(SliceKind::kGeneric) | 0x10);
      w.append_raw(ChunkType::kSlices, b.bytes(), Codec::kNone);
    }
    PstraceFileReport report;
    const Trace t = read_pstrace(path, {}, &report);
    CHECK(t.slice_count() == 0);
    REQUIRE(report.warnings.size() == 1);
    CHECK_THAT(report.warnings[0], Catch::EndsWith("1 slices and samples belong to tracks whose declaration is missing; dropped"));
  }
  fs::remove_all(dir);
}

TEST_CASE("Mutated payloads with valid checksums are read or rejected, never crash", "[io][pstrace][damage]") {
  // Each mutation flips bits of one payload byte and rewrites the chunk's CRC, so the decoder
  // (not the checksum) meets the damage: it must either read the file or throw InputError.
  const fs::path dir = test::temp_dir("pst-mutate");
  const std::string clean = (dir / "clean.pstrace").string();
  PstraceWriteOptions o;
  o.codec = Codec::kNone;
  o.slices_per_chunk = 4;
  write_pstrace(test::make_rich_trace(), clean, o);
  std::vector<char> bytes;
  {
    std::ifstream in(clean, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::vector<ChunkInfo> chunks;
  {
    ChunkReader r(clean);
    chunks = r.chunks();
  }
  REQUIRE(chunks.size() > 20);
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  const std::string path = (dir / "m.pstrace").string();
  size_t read = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<char> m = bytes;
    const ChunkInfo& c = chunks[next() % chunks.size()];
    if (c.header.length == 0) continue;
    const uint64_t body = c.offset + 20;
    m[body + next() % c.header.length] ^= static_cast<char>(1 + next() % 255);
    const uint32_t crc = crc32c(m.data() + body, c.header.length);
    std::memcpy(m.data() + c.offset + 16, &crc, 4);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(m.data(), static_cast<std::streamsize>(m.size()));
    try {
      read_pstrace(path);
      ++read;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  INFO(read << " read, " << rejected << " rejected");
  CHECK(read + rejected > 2900);  // mutations of empty payloads are skipped
  CHECK(rejected > 100);          // most flips of counts, kinds and indexes are caught
  fs::remove_all(dir);
}

TEST_CASE("Loading reserves each track and detail table once, and a lying chunk head cannot reserve more than its bytes", "[io][pstrace][damage]") {
  const fs::path dir = test::temp_dir("pst-reserve");
  const std::string path = (dir / "reserve.pstrace").string();
  {
    PstraceWriteOptions o;
    o.codec = Codec::kNone;
    o.slices_per_chunk = 200;  // 400 slices: two chunks of one track
    PstraceWriter w(path, o);
    Process p;
    p.pid = 1;
    w.add_process(p);
    TrackDecl d;
    d.key = TrackKey{TrackKind::kCpuThread, 0, -1, 1};
    d.name = "t";
    const uint32_t t = w.add_track(d);
    const StringId name = w.intern("aten::mm");
    for (int i = 0; i < 400; ++i) {
      CpuOpInfo c;
      c.external_id = U64Split(static_cast<uint64_t>(i));
      w.add_cpu_op(t, i * 10, 5, name, c);
    }
    w.close();
  }
  SECTION("an honest file: exactly the slices and records it holds") {
    const Trace t = read_pstrace(path);
    REQUIRE(t.slice_count() == 400);
    // heads say 200 + 200; the first chunk's 200 CPU ops predict min(200, 200 x 33/32 + 64) more
    CHECK(t.tracks[0].slices.start.capacity() == 400);
    CHECK(t.tracks[0].slices.ref.capacity() == 400);
    CHECK(t.cpu_ops.capacity() == 400);
  }
  SECTION("the second chunk's head claims 16383 slices and fails its checksum") {
    ChunkReader r(path);
    std::vector<const ChunkInfo*> slices;
    for (const auto& c : r.chunks())
      if (c.header.type == static_cast<uint32_t>(ChunkType::kSlices)) slices.push_back(&c);
    REQUIRE(slices.size() == 2);
    const ChunkInfo second = *slices[1];
    const std::vector<uint8_t> p = r.payload(second);
    ByteReader b(p.data(), p.size(), "", 0);
    const uint64_t strings = b.varint();
    for (uint64_t i = 0; i < strings; ++i) b.str();
    b.varint();  // track
    b.varint();  // first row
    const auto at = static_cast<uint64_t>(b.offset());
    REQUIRE(b.varint() == 200);  // 0xC8 0x01
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(second.offset + 20 + at));
      const char lie[2] = {static_cast<char>(0xFF), 0x7F};  // 16383
      f.write(lie, 2);
    }
    PstraceFileReport report;
    const Trace t = read_pstrace(path, {}, &report);
    CHECK(t.slice_count() == 200);
    CHECK(report.chunks_skipped == 1);
    // the head is read before the checksum is checked, so the hint counts at most 4 slices per
    // stored byte of the chunk: 200 + 4 x its length, far below the 16383 claimed
    CHECK(t.tracks[0].slices.start.capacity() == 200 + 4 * second.header.length);
    CHECK(4 * second.header.length < 16383);
  }
  fs::remove_all(dir);
}

TEST_CASE("Argument sets load as shapes: a value every set of a chunk shares is stored once", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-shapes");
  const std::string path = (dir / "shapes.pstrace").string();
  {
    PstraceWriteOptions o;
    o.slices_per_chunk = 100;  // 250 slices: chunks of rows 0-99, 100-199, 200-249
    PstraceWriter w(path, o);
    Process p;
    p.pid = 1;
    w.add_process(p);
    TrackDecl d;
    d.key = TrackKey{TrackKind::kCpuThread, 0, -1, 1};
    d.name = "t";
    const uint32_t t = w.add_track(d);
    const StringId name = w.intern("aten::mm"), rf = w.intern("Record function id"), ev = w.intern("Ev Idx"),
                   in = w.intern("Input type"), x = w.intern("c10::BFloat16"), seq = w.intern("Seq");
    for (int i = 0; i < 250; ++i) {
      // Kineto's shape: "Record function id" 0 except on row 150, "Ev Idx" = row, "Input type"
      // the same text; row 249 has another shape ({Seq: 7}), alone in its chunk
      const Arg a[] = {{rf, ArgValue::of_int(i == 150 ? 1 : 0)}, {ev, ArgValue::of_int(i)}, {in, ArgValue::of_string(x)}};
      const Arg b[] = {{seq, ArgValue::of_int(7)}};
      CpuOpInfo c;
      c.external_id = U64Split(static_cast<uint64_t>(i));
      w.add_cpu_op(t, i * 10, 5, name, c, i == 249 ? std::span<const Arg>(b) : std::span<const Arg>(a));
    }
    w.close();
  }
  const Trace t = read_pstrace(path);
  REQUIRE(t.slice_count() == 250);
  const SliceColumns& s = t.tracks[0].slices;
  // Values stored per set: chunk 1 only "Ev Idx" (1 x 100; the other two are shared), chunk 2
  // "Record function id" and "Ev Idx" (2 x 100: row 150 differs), chunk 3 "Ev Idx" for 49 sets
  // and "Seq" for the lone set (a shape seen once shares nothing): 100 + 200 + 50 = 350, where
  // every value stored would be 3 x 249 + 1 = 748.
  CHECK(t.args.value_count() == 350);
  // Shapes: chunks 1 and 3 give the same one (same keys, same shared values: interned), chunk 2
  // another, {Seq} a third.
  CHECK(t.args.shape_count() == 3);
  CHECK(t.args.set_count() == 250);
  auto check = [&](size_t row, int64_t rf_value) {
    const auto set = t.args.get(s.args_of(row));
    REQUIRE(set.size() == 3);
    CHECK(t.str(set[0].key) == "Record function id");
    CHECK(set[0].value.i == rf_value);
    CHECK(t.str(set[1].key) == "Ev Idx");
    CHECK(set[1].value.type == ArgValue::Type::kInt);
    CHECK(set[1].value.i == static_cast<int64_t>(row));
    CHECK(t.str(set[2].key) == "Input type");
    CHECK(set[2].value.type == ArgValue::Type::kString);
    CHECK(t.str(set[2].value.s) == "c10::BFloat16");
  };
  check(0, 0);
  check(99, 0);
  check(137, 0);
  check(150, 1);
  check(248, 0);
  const auto last = t.args.get(s.args_of(249));
  REQUIRE(last.size() == 1);
  CHECK(t.str(last[0].key) == "Seq");
  CHECK(last[0].value.i == 7);
  // writing the loaded trace again gives the same args (the view reads like the stored sets)
  const std::string again = (dir / "again.pstrace").string();
  write_pstrace(t, again);
  const Trace u = read_pstrace(again);
  CHECK(test::trace_difference(t, u) == "");
  fs::remove_all(dir);
}

TEST_CASE("Loading reserves counter samples, flows and collectives from their chunk heads, once", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-reserve-more");
  const std::string path = (dir / "more.pstrace").string();
  {
    PstraceWriteOptions o;
    o.codec = Codec::kNone;
    PstraceWriter w(path, o);
    Process p;
    p.pid = 1;
    w.add_process(p);
    TrackDecl d;
    d.key = TrackKey{TrackKind::kCpuThread, 0, -1, 1};
    d.name = "t";
    const uint32_t t = w.add_track(d);
    TrackDecl c;
    c.key = TrackKey{TrackKind::kCounter, 0, -1, 2};
    c.name = "memory";
    const uint32_t ct = w.add_track(c);
    const StringId name = w.intern("op");
    std::vector<EventRef> s;
    for (int i = 0; i < 10; ++i) s.push_back(w.add_slice(t, i * 100, 50, name));
    for (int i = 0; i < 300; ++i) w.add_counter_sample(ct, i * 7, i * 0.5);
    for (int i = 0; i < 250; ++i) w.add_flow(s[static_cast<size_t>(i % 9)], s[static_cast<size_t>(i % 9 + 1)], FlowKind::kDependency);
    for (int i = 0; i < 3; ++i) {
      CollectiveInfo ci;
      ci.op = CollectiveOp::kAllReduce;
      ci.sequence = i;
      w.add_collective(ci);
    }
    w.close();
  }
  const Trace t = read_pstrace(path);
  REQUIRE(t.tracks.size() == 2);
  const Track& counter = t.tracks[0].key.kind == TrackKind::kCounter ? t.tracks[0] : t.tracks[1];
  // the heads say 300 samples, 250 flows, 3 collectives: each table is reserved exactly that once
  // (growing by doubling would leave 512 / 256 / 4)
  CHECK(counter.counter.size() == 300);
  CHECK(counter.counter.time.capacity() == 300);
  CHECK(counter.counter.value.capacity() == 300);
  CHECK(counter.counter.value[299] == 149.5);
  // flows decoded straight into the trace's table and resolved in place: all 250 kept, in order
  REQUIRE(t.flows.size() == 250);
  CHECK(t.flows.capacity() == 250);
  CHECK(t.flows[10].from.index == 1);  // flow 10 goes from slice 10 % 9 = 1 to slice 2
  CHECK(t.flows[10].to.index == 2);
  CHECK(t.collectives.size() == 3);
  CHECK(t.collectives.capacity() == 3);
  fs::remove_all(dir);
}
