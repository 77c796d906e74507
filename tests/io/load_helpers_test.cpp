// The two helpers a .pstrace load runs beside its decoding: the chunk prefetcher (checksums and
// zstd on a second thread, in the reader's order, errors in their place) and the page prefaulter
// (reserved memory mapped ahead of the writes, never written itself).
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "io/trace_compare.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/error.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_prefetcher.h"
#include "trace/io/pstrace/chunk_reader.h"
#include "trace/io/pstrace/page_prefaulter.h"
#include "trace/io/pstrace/pstrace_format.h"
#include "trace/io/pstrace/pstrace_reader.h"
#include "trace/io/pstrace/pstrace_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

// The bundled sample written as .pstrace in many small chunks (16 slices each), in `dir`.
static std::string sample_in_small_chunks(const fs::path& dir) {
  const std::string path = (dir / "p.pstrace").string();
  PstraceWriteOptions o;
  o.slices_per_chunk = 16;
  write_pstrace(load_trace({test::sample_path("allreduce_matmul_2xh200")}), path, o);
  return path;
}

// Every chunk of a file, in file order.
static std::vector<const ChunkInfo*> file_order(const ChunkReader& r) {
  std::vector<const ChunkInfo*> order;
  for (const ChunkInfo& c : r.chunks()) order.push_back(&c);
  return order;
}

TEST_CASE("Chunk prefetcher: every payload in the given order, a damaged chunk's error in its place", "[io][pstrace]") {
  const fs::path dir = test::temp_dir("pst-prefetch");
  const std::string path = sample_in_small_chunks(dir);
  size_t victim = 0;
  {
    ChunkReader r(path);
    REQUIRE(r.chunks().size() > 20);
    victim = r.chunks().size() / 2;
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const ChunkInfo& c = r.chunks()[victim];
    f.seekp(static_cast<std::streamoff>(c.offset + kChunkHeaderBytes + c.header.length / 2));
    const char b = static_cast<char>(f.peek() ^ 0x5A);
    f.put(b);
  }
  ChunkReader r(path);
  // backwards, so the order is the caller's and not the file's
  std::vector<const ChunkInfo*> order;
  for (size_t i = r.chunks().size(); i-- > 0;) order.push_back(&r.chunks()[i]);
  std::vector<std::vector<uint8_t>> expected(order.size());
  {
    ChunkReader plain(path);
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i] != &r.chunks()[victim]) expected[i] = plain.payload(plain.chunks()[static_cast<size_t>(order[i] - r.chunks().data())]);
  }
  ChunkPrefetcher ahead(r, order, 2);
  std::vector<uint8_t> got;
  size_t errors = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    INFO("chunk " << i << " of the order");
    if (order[i] == &r.chunks()[victim]) {
      CHECK_THROWS_AS(ahead.next(got), InputError);
      ++errors;
      continue;
    }
    ahead.next(got);
    CHECK(got == expected[i]);
  }
  CHECK(errors == 1);
  fs::remove_all(dir);
}

TEST_CASE("Chunk prefetcher: the parse hook's result comes with its chunk, empty where it does not parse, recycled", "[io][pstrace]") {
  // The hook parses slices chunks only (the reader's also parses flows and counters), on either thread; each
  // result must arrive with its own payload, other chunks with nothing, and at most a few parse
  // objects ever exist. Run twice: the reader taking chunks at once (it parses most itself) and
  // slowly (the prefetch thread parses ahead).
  const fs::path dir = test::temp_dir("pst-prefetch-parse");
  const std::string path = sample_in_small_chunks(dir);
  struct Seen : ParsedChunk {
    uint64_t offset = 0;
    size_t bytes = 0;
  };
  std::atomic<int> created{0};
  ChunkPrefetcher::Parse parse;
  parse.wants = [](const ChunkInfo& c) { return static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand) == ChunkType::kSlices; };
  parse.parse = [&](const ChunkInfo& c, const std::vector<uint8_t>& payload, std::unique_ptr<ParsedChunk>& out) {
    if (!out) {
      out = std::make_unique<Seen>();
      ++created;
    }
    auto& s = static_cast<Seen&>(*out);
    s.offset = c.offset;
    s.bytes = payload.size();
  };
  ChunkReader r(path);
  std::vector<const ChunkInfo*> order;
  size_t slice_chunks = 0;
  for (const ChunkInfo& c : r.chunks()) {
    order.push_back(&c);
    slice_chunks += static_cast<ChunkType>(c.header.type & ~kChunkMustUnderstand) == ChunkType::kSlices;
  }
  REQUIRE(slice_chunks > 20);
  for (const bool slow : {false, true}) {
  INFO((slow ? "slow reader" : "fast reader"));
  created = 0;
  ChunkPrefetcher ahead(r, order, 2, parse);
  std::vector<uint8_t> got;
  std::unique_ptr<ParsedChunk> parsed;
  size_t with = 0;
  for (const ChunkInfo* c : order) {
    if (slow) std::this_thread::sleep_for(std::chrono::microseconds(200));
    ahead.next(got, parsed);
    const bool slices = static_cast<ChunkType>(c->header.type & ~kChunkMustUnderstand) == ChunkType::kSlices;
    INFO("chunk at " << c->offset);
    REQUIRE(static_cast<bool>(parsed) == slices);
    if (!parsed) continue;
    ++with;
    const auto& s = dynamic_cast<const Seen&>(*parsed);
    CHECK(s.offset == c->offset);
    CHECK(s.bytes == got.size());
  }
  CHECK(with == slice_chunks);
  CHECK(created.load() <= 5);  // 2 ahead, 1 being parsed, 1 with the reader: recycled, not one per chunk
  }
  fs::remove_all(dir);
}

TEST_CASE("Chunk prefetcher: destroyed before every chunk was taken, it stops", "[io][pstrace]") {
  // The reader takes one payload, then throws (a decoding error) and destroys the prefetcher with
  // the rest untaken. With ahead = 1 the prefetch thread has read at most the next chunk by then:
  // the destructor must stop it there (a thread draining the file first, or waiting for a next()
  // that never comes, fails here; the second hangs until ctest's timeout). A parse hook that wants
  // every chunk counts what was read: chunk 0, and chunk 1 if the thread got to it.
  const fs::path dir = test::temp_dir("pst-prefetch-stop");
  const std::string path = sample_in_small_chunks(dir);
  ChunkReader r(path);
  const std::vector<const ChunkInfo*> order = file_order(r);
  REQUIRE(order.size() > 20);
  std::vector<uint8_t> first;
  {
    ChunkReader plain(path);
    first = plain.payload(*order[0]);
  }
  std::mutex m;
  std::vector<uint64_t> parsed_offsets;
  ChunkPrefetcher::Parse parse;
  parse.wants = [](const ChunkInfo&) { return true; };
  parse.parse = [&](const ChunkInfo& c, const std::vector<uint8_t>&, std::unique_ptr<ParsedChunk>&) {
    std::lock_guard lock(m);
    parsed_offsets.push_back(c.offset);
  };
  {
    ChunkPrefetcher ahead(r, order, 1, parse);
    std::vector<uint8_t> got;
    std::unique_ptr<ParsedChunk> parsed;
    ahead.next(got, parsed);
    CHECK(got == first);
  }
  // the destructor joined the thread: nothing is parsed any more, and it read no more than 2 chunks
  std::lock_guard lock(m);
  REQUIRE(!parsed_offsets.empty());
  CHECK(parsed_offsets.size() <= 2);
  CHECK(std::find(parsed_offsets.begin(), parsed_offsets.end(), order[0]->offset) != parsed_offsets.end());
  for (const uint64_t o : parsed_offsets) CHECK((o == order[0]->offset || o == order[1]->offset));
  fs::remove_all(dir);
}

TEST_CASE("Chunk prefetcher: the idle hook runs on the prefetch thread between chunks, never in place of one", "[io][pstrace]") {
  // The reader's page prefaulter runs through this hook on 2 cores. A slow reader leaves the prefetch
  // thread idle: it must spend that time in the hook, still hand every payload over in order, and
  // stop when destroyed even if the hook always has more work.
  const fs::path dir = test::temp_dir("pst-prefetch-idle");
  const std::string path = sample_in_small_chunks(dir);
  ChunkReader r(path);
  const std::vector<const ChunkInfo*> order = file_order(r);
  REQUIRE(order.size() > 20);
  std::vector<std::vector<uint8_t>> expected;
  {
    ChunkReader plain(path);
    for (const ChunkInfo& c : plain.chunks()) expected.push_back(plain.payload(c));
  }
  const std::thread::id reader_thread = std::this_thread::get_id();
  std::atomic<int> pieces{0}, on_reader{0};
  constexpr int kBudget = 200;  // pieces of idle work on offer
  ChunkPrefetcher::Parse parse;
  parse.idle = [&] {
    if (std::this_thread::get_id() == reader_thread) ++on_reader;
    return ++pieces < kBudget;
  };
  {
    ChunkPrefetcher ahead(r, order, 2, parse);
    std::vector<uint8_t> got;
    for (size_t i = 0; i < order.size(); ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      ahead.next(got);
      INFO("chunk " << i);
      CHECK(got == expected[i]);
    }
  }
  CHECK(pieces.load() >= kBudget);  // with a slow reader the hook got the idle time, all of it
  CHECK(on_reader.load() == 0);
  {
    ChunkPrefetcher::Parse endless;
    endless.idle = [] {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      return true;
    };
    const auto t0 = std::chrono::steady_clock::now();
    {
      ChunkPrefetcher ahead(r, order, 1, endless);
      std::vector<uint8_t> got;
      ahead.next(got);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));  // joined after the piece in progress
  }
  fs::remove_all(dir);
}

TEST_CASE("A load with and without the page prefaulter gives the same trace", "[io][pstrace]") {
  // 300 000 kernels with args on one GPU stream: every column and table is megabytes, so the load
  // hands them to the prefaulter (ranges of 1 MiB and more) while it decodes 19 chunks.
  const fs::path dir = test::temp_dir("pst-prefault");
  const std::string path = (dir / "r.pstrace").string();
  TraceBuilder b;
  Process proc;
  proc.pid = 7;
  const uint32_t p = b.add_process(proc);
  TrackKey key;
  key.kind = TrackKind::kGpuStream;
  key.process = p;
  key.id = 7;
  const uint32_t track = b.track(key, "stream 7");
  const StringId gemm = b.intern("gemm"), grid = b.intern("grid"), seq = b.intern("seq");
  for (int64_t i = 0; i < 300000; ++i) {
    KernelInfo k;
    k.correlation = static_cast<uint32_t>(i);
    const Arg args[] = {{grid, ArgValue::of_int(i % 7)}, {seq, ArgValue::of_int(i)}};
    b.add_slice(track, 1000 * i, 900, gemm, b.add_kernel(k), args);
  }
  const Trace original = b.finish();
  write_pstrace(original, path);
  PstraceReadOptions on, off;
  on.prefault = true;  // whatever the machine's default (on with 3 or more cores)
  off.prefault = false;
  const Trace a = read_pstrace(path, on), c = read_pstrace(path, off);
  CHECK(a.slice_count() == 300000);
  CHECK(test::trace_difference(a, c).empty());
  // and what was written (the loaded trace also names its source file)
  REQUIRE(a.tracks.size() == original.tracks.size());
  const SliceColumns &got = a.tracks[track].slices, &want = original.tracks[track].slices;
  CHECK(got.start == want.start);
  CHECK(got.dur == want.dur);
  CHECK(a.kernels.size() == 300000);
  CHECK(a.args.get(got.args[299999]).size() == 2);
  CHECK(a.args.get(got.args[299999])[1].value.i == 299999);
  fs::remove_all(dir);
}

// Pages of [at, at + bytes) (page-aligned) that are mapped now.
static size_t resident_pages(const void* at, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  REQUIRE(mincore(const_cast<void*>(at), bytes, v.data()) == 0);
  size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

TEST_CASE("Page prefaulter: maps reserved memory without writing it, and stops on demand", "[io][pstrace]") {
  if (!PagePrefaulter::supported()) PARASCOPE_SKIP("no MADV_POPULATE_WRITE on this system (Linux >= 5.14): the prefaulter does nothing here");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = size_t{8} << 20;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  auto resident = [&] { return resident_pages(m, bytes); };
  CHECK(resident() == 0);  // fresh anonymous memory: nothing mapped yet
  static_cast<unsigned char*>(m)[100] = 7;  // the owner writes its first page itself
  {
    PagePrefaulter p(PagePrefaulter::Runner::kOwnThread, 0);
    p.add(m, bytes);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (resident() < bytes / page && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK(resident() == bytes / page);
  CHECK(static_cast<unsigned char*>(m)[100] == 7);  // the owner's write is kept, the rest reads zero
  size_t nonzero = 0;
  for (size_t i = 0; i < bytes; ++i) nonzero += static_cast<unsigned char*>(m)[i] != 0;
  CHECK(nonzero == 1);
  munmap(m, bytes);

  // 64 GiB of address space (never backed): stop() returns after the slice in progress.
  const size_t huge = size_t{64} << 30;
  void* h = mmap(nullptr, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (h != MAP_FAILED) {
    PagePrefaulter p(PagePrefaulter::Runner::kOwnThread, 0);
    p.add(h, huge);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto t0 = std::chrono::steady_clock::now();
    p.stop();
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    CHECK(p.populated_bytes() < huge);
    munmap(h, huge);
  }
}

TEST_CASE("Page prefaulter, caller-driven: step() maps a slice at a time on the calling thread, none after stop()", "[io][pstrace]") {
  if (!PagePrefaulter::supported()) PARASCOPE_SKIP("no MADV_POPULATE_WRITE on this system (Linux >= 5.14): the prefaulter does nothing here");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = size_t{4} << 20;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  auto resident = [&] { return resident_pages(m, bytes); };
  PagePrefaulter p(PagePrefaulter::Runner::kCaller, 0);
  CHECK_FALSE(p.step());  // nothing queued
  p.add(m, bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(resident() == 0);  // no thread of its own: nothing happens until someone steps
  CHECK(p.step());
  const size_t after_one = resident();
  CHECK(after_one > 0);
  CHECK(after_one * page <= (size_t{256} << 10));  // one slice
  int steps = 1;
  while (p.step()) ++steps;
  CHECK(resident() == bytes / page);
  CHECK(p.populated_bytes() == bytes);
  CHECK(steps == static_cast<int>(bytes / (size_t{256} << 10)));
  p.add(m, bytes);
  p.stop();
  CHECK_FALSE(p.step());
  munmap(m, bytes);

  // Two fresh ranges; the owner reports writes in the second: the slice after its writes goes
  // first (the least lead), the pages it wrote are not mapped again, then the first range.
  const size_t half = size_t{1} << 20;
  void* two = mmap(nullptr, 2 * half, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(two != MAP_FAILED);
  auto* a = static_cast<unsigned char*>(two);
  unsigned char* b = a + half;
  auto resident_in = [](const unsigned char* from, size_t len) { return resident_pages(from, len); };
  PagePrefaulter q(PagePrefaulter::Runner::kCaller, 0);
  q.add(a, half);
  q.add(b, half);
  q.written(b + half / 2);  // as if b's first half were written (it is not: those pages stay unmapped)
  REQUIRE(q.step());
  CHECK(resident_in(b + half / 2, half / 4) == half / 4 / page);  // 256 KiB right after the writes
  CHECK(resident_in(b, half / 2) == 0);
  CHECK(resident_in(a, half) == 0);
  REQUIRE(q.step());  // b now leads by 256 KiB, a by nothing: a's first slice
  CHECK(resident_in(a, half / 4) == half / 4 / page);
  while (q.step()) {
  }
  CHECK(resident_in(a, half) == half / page);
  CHECK(resident_in(b, half / 2) == 0);
  CHECK(q.populated_bytes() == half + half / 2);
  munmap(two, 2 * half);
}
