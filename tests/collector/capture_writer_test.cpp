#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "skip.h"
#include "test_paths.h"
#include "trace/collector/capture_writer.h"
#include "trace/collector/chunk_payloads.h"
#include "trace/collector/crash_guard.h"
#include "trace/io/collector/collector_notes.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_reader.h"

using namespace parascope;
using namespace parascope::collector;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> warning_payload(const std::string& text) { return encode_lines({text}); }

// Every line of the file's warnings (or notes) chunks, in order.
std::vector<std::string> warnings_in(const ChunkReader& r, ChunkType type = ChunkType::kWarnings) {
  std::vector<std::string> out;
  for (const auto& c : r.chunks()) {
    if (c.header.type != static_cast<uint32_t>(type)) continue;
    const auto p = r.payload(c);
    ByteReader br(p.data(), p.size(), r.path(), static_cast<int64_t>(c.offset));
    for (auto& w : decode_lines(br)) out.push_back(w);
  }
  return out;
}

Metadata metadata_in(const ChunkReader& r) {
  Metadata kv;
  for (const auto& c : r.chunks()) {
    if (c.header.type != static_cast<uint32_t>(ChunkType::kMetadata)) continue;
    const auto p = r.payload(c);
    ByteReader br(p.data(), p.size(), r.path(), static_cast<int64_t>(c.offset));
    for (auto& e : decode_metadata(br)) kv.push_back(e);
  }
  return kv;
}

CaptureWriter* g_crash_writer = nullptr;
bool crash_flush_for_test(int sig, int timeout_ms) noexcept { return g_crash_writer->crash_flush(sig, timeout_ms); }

// Runs `body` in a forked child (which owns a running writer on `path`) and returns its wait status.
template <class Body>
int in_child(const std::string& path, uint32_t flush_ms, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    // the child dies the way a real program would: no test-framework handler after ours
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM}) ::signal(sig, SIG_DFL);
    CaptureWriter::Options o;
    o.flush_ms = flush_ms;
    auto* w = new CaptureWriter(path, o, nullptr);
    w->start();
    g_crash_writer = w;
    install_crash_guard(crash_flush_for_test, 3000);
    body(*w);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("A chunk is on disk once sync() returns, before the capture ends", "[collector][writer]") {
  const fs::path dir = test::temp_dir("writer-sync");
  const std::string path = (dir / "a.pstrace").string();
  CaptureWriter w(path, {}, nullptr);
  w.start();
  w.submit_chunk(ChunkType::kWarnings, warning_payload("first"));
  REQUIRE(w.sync(std::chrono::seconds(5)));
  {
    ChunkReader live(path);  // the file is still open: no index yet, the chunk is found by scanning
    CHECK_FALSE(live.had_index());
    REQUIRE(live.chunks().size() == 1);
    CHECK(warnings_in(live) == std::vector<std::string>{"first"});
  }
  w.finish({{"rank", "3"}});
  ChunkReader done(path);
  CHECK(done.had_index());
  const Metadata md = metadata_in(done);
  CHECK(metadata_value(md, "rank") == "3");
  CHECK(metadata_value(md, "final") == "1");
  CHECK(metadata_value(md, "end_reason") == "exit");
  CHECK(metadata_value(md, "records") == "0");
  // the run summary is a note when nothing was lost, the very line older collectors wrote as a
  // warning and the reader's rule (collector_notes.h) takes for a note
  CHECK(warnings_in(done) == std::vector<std::string>{"first"});
  const auto notes = warnings_in(done, ChunkType::kNotes);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "collector: 0 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (exit)");
  CHECK(is_collector_note(notes[0]));
  // after finish every call is a no-op
  w.submit_chunk(ChunkType::kWarnings, warning_payload("late"));
  CHECK_FALSE(w.sync(std::chrono::milliseconds(10)));
  fs::remove_all(dir);
}

TEST_CASE("Warnings and notes go to their own chunks; a summary that reports drops is a warning", "[collector][writer][notes]") {
  const fs::path dir = test::temp_dir("writer-notes");
  const std::string path = (dir / "n.pstrace").string();
  CaptureWriter w(path, {}, nullptr);
  w.start();
  w.submit_chunk(ChunkType::kMetadata, encode_metadata({{"source_format", "parascope-collector"}}));  // as Collector does
  w.add_note("nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum");
  w.add_warning("nvlink sampling: PM sampling hardware buffer overflowed on device 0: samples were lost (raise the interval)");
  w.note_dropped(5);
  w.finish({});
  ChunkReader done(path);
  const auto warnings = warnings_in(done);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].starts_with("nvlink sampling: PM sampling hardware buffer overflowed"));
  CHECK(warnings[1] == "collector: 0 CUPTI records, 5 dropped by CUPTI, 0 buffer requests refused (exit)");
  CHECK_FALSE(is_collector_note(warnings[1]));  // an older collector's file says the same
  CHECK(warnings_in(done, ChunkType::kNotes) ==
        std::vector<std::string>{"nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum"});
  // and the reader keeps them apart, named by the file
  const Trace t = load_trace({path});
  CHECK(t.warnings.size() == 2);
  CHECK(t.warnings[1] == path + ": collector: 0 CUPTI records, 5 dropped by CUPTI, 0 buffer requests refused (exit)");
  CHECK(t.notes == std::vector<std::string>{path + ": nvlink sampling: PM sampling on device 0 (GH100) every 1000 us: nvlrx__bytes.sum nvltx__bytes.sum"});
  fs::remove_all(dir);
}

TEST_CASE("The periodic hook runs every flush period and once more at the end", "[collector][writer]") {
  const fs::path dir = test::temp_dir("writer-period");
  CaptureWriter::Options o;
  o.flush_ms = 20;
  CaptureWriter w((dir / "p.pstrace").string(), o, nullptr);
  std::atomic<int> periods{0}, finals{0};
  w.set_periodic_hook([&](CaptureWriter::HookReason r) {
    if (r == CaptureWriter::HookReason::kPeriod) ++periods;
    if (r == CaptureWriter::HookReason::kFinal) ++finals;
  });
  w.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  w.finish({});
  // 300 ms at a 20 ms period is 15 periods; a loaded CI machine may lose a few, never most
  CHECK(periods.load() >= 5);
  CHECK(periods.load() <= 16);
  CHECK(finals.load() == 1);
  fs::remove_all(dir);
}

TEST_CASE("CUPTI buffers go through the converter and give their budget back", "[collector][writer]") {
  const fs::path dir = test::temp_dir("writer-buffers");
  const std::string path = (dir / "b.pstrace").string();
  CaptureWriter::Options o;
  o.max_buffered_bytes = 1000;
  // stands in for CUPTI's record iteration: one memset record per buffer, `valid` bytes big
  CaptureWriter w(path, o, [](const uint8_t*, size_t valid, ByteWriter& out) -> uint64_t {
    CollectedActivity a;
    a.kind = RecordKind::kMemset;
    a.bytes = valid;
    encode(out, a);
    return 1;
  });
  w.start();
  REQUIRE(w.reserve_buffer(600));
  CHECK_FALSE(w.reserve_buffer(600));  // 1200 > 1000: CUPTI would drop records
  w.submit_buffer(static_cast<uint8_t*>(std::malloc(600)), 600, 48);
  REQUIRE(w.sync(std::chrono::seconds(5)));
  CHECK(w.reserve_buffer(600));  // the converted buffer was freed and its budget returned
  w.submit_buffer(static_cast<uint8_t*>(std::malloc(600)), 600, 0);  // empty: freed, nothing written
  w.note_dropped(7);
  w.finish({});
  const auto s = w.stats();
  CHECK(s.records == 1);
  CHECK(s.refused_buffers == 1);
  CHECK(s.dropped == 7);
  ChunkReader r(path);
  size_t cupti_chunks = 0;
  for (const auto& c : r.chunks()) {
    if (c.header.type != static_cast<uint32_t>(ChunkType::kCuptiRecords)) continue;
    ++cupti_chunks;
    const auto p = r.payload(c);
    ByteReader br(p.data(), p.size(), path, 0);
    const auto recs = decode_all(br);
    REQUIRE(recs.size() == 1);
    CHECK(recs[0].bytes == 48);
  }
  CHECK(cupti_chunks == 1);
  CHECK(metadata_value(metadata_in(r), "dropped_records") == "7");
  fs::remove_all(dir);
}

TEST_CASE("Pooled buffers come back zero-filled after the converter saw what was written", "[collector][writer]") {
  const fs::path dir = test::temp_dir("writer-pool");
  const std::string path = (dir / "pool.pstrace").string();
  CaptureWriter::Options o;
  o.flush_ms = 10000;
  o.pool_buffers = 2;
  o.pool_buffer_bytes = 4096;
  o.max_buffered_bytes = 3 * 4096;
  std::atomic<int> nonzero_seen{0};
  CaptureWriter w(path, o, [&](const uint8_t* data, size_t valid, ByteWriter&) -> uint64_t {
    for (size_t i = 0; i < valid; ++i) nonzero_seen += data[i] != 0;
    return 0;
  });
  w.start();
  // the writer fills the pool when it starts; wait for it (a sync round trip runs after fill_pool)
  w.submit_chunk(ChunkType::kWarnings, warning_payload("start"));
  REQUIRE(w.sync(std::chrono::seconds(5)));
  uint8_t* a = w.take_buffer(4096);
  REQUIRE(a != nullptr);
  for (size_t i = 0; i < 4096; ++i) REQUIRE(a[i] == 0);
  std::memset(a, 0xab, 100);  // "CUPTI" writes 100 bytes
  w.submit_buffer(a, 4096, 100);
  REQUIRE(w.sync(std::chrono::seconds(5)));
  CHECK(nonzero_seen.load() == 100);  // the converter saw the bytes before they were cleared
  // take every buffer the budget allows: 3 × 4096; each is all zeros, the re-used one included
  std::vector<uint8_t*> taken;
  for (int i = 0; i < 3; ++i) {
    uint8_t* b = w.take_buffer(4096);
    REQUIRE(b != nullptr);
    for (size_t j = 0; j < 4096; ++j) REQUIRE(b[j] == 0);
    taken.push_back(b);
  }
  CHECK(w.take_buffer(4096) == nullptr);  // budget spent: refused, counted
  const auto s = w.stats();
  // first take + two of the three later ones came from the pool (2 pooled buffers, one refilled
  // after the first came back); at least one later take had to allocate
  CHECK(s.pool_hits >= 2);
  CHECK(s.pool_hits + s.pool_misses == 4);
  CHECK(s.refused_buffers == 1);
  for (uint8_t* b : taken) w.submit_buffer(b, 4096, 0);
  w.finish({});
  fs::remove_all(dir);
}

TEST_CASE("request_period runs the periodic hook without waiting for the period", "[collector][writer]") {
  const fs::path dir = test::temp_dir("writer-request");
  CaptureWriter::Options o;
  o.flush_ms = 60000;
  CaptureWriter w((dir / "r.pstrace").string(), o, nullptr);
  std::atomic<int> periods{0};
  w.set_periodic_hook([&](CaptureWriter::HookReason r) { periods += r == CaptureWriter::HookReason::kPeriod; });
  w.start();
  w.request_period();
  for (int i = 0; i < 500 && periods.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(periods.load() == 1);  // a 60 s period would not have come in 1 s
  w.finish({});
  fs::remove_all(dir);
}

TEST_CASE("abort() and a segfault keep every delivered chunk and close the file", "[collector][writer][crash]") {
  const fs::path dir = test::temp_dir("writer-crash");
  const std::string path = (dir / "c.pstrace").string();
  SECTION("abort") {
    const int status = in_child(path, 60000, [](CaptureWriter& w) {
      for (int i = 0; i < 3; ++i) w.submit_chunk(ChunkType::kWarnings, warning_payload("before abort " + std::to_string(i)));
      std::abort();  // no sync: the handler must get the queue onto disk
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);  // the default action still ends the process
    ChunkReader r(path);
    CHECK(r.had_index());
    const auto w = warnings_in(r);
    REQUIRE(w.size() == 4);
    CHECK(w[0] == "before abort 0");
    CHECK(w[2] == "before abort 2");
    // the writer's summary stays a warning: the process ended by a signal
    CHECK(w[3] == "collector: 0 CUPTI records, 0 dropped by CUPTI, 0 buffer requests refused (SIGABRT)");
    CHECK(warnings_in(r, ChunkType::kNotes).empty());
    CHECK(metadata_value(metadata_in(r), "end_reason") == "SIGABRT");
  }
  SECTION("segfault") {
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer keeps SIGSEGV for itself (allow_user_segv_handler=0): our handler never runs
    PARASCOPE_SKIP("the segfault case under AddressSanitizer, which does not let programs handle SIGSEGV");
#endif
    const int status = in_child(path, 60000, [](CaptureWriter& w) {
      w.submit_chunk(ChunkType::kWarnings, warning_payload("before segv"));
      volatile uintptr_t address = 0;
      *reinterpret_cast<volatile int*>(address) = 1;
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGSEGV);  // the default action still ends the process
    ChunkReader r(path);
    CHECK(r.had_index());
    const auto w = warnings_in(r);
    REQUIRE(w.size() == 2);  // + the writer's summary, a warning after a signal
    CHECK(w[0] == "before segv");
    CHECK(metadata_value(metadata_in(r), "end_reason") == "SIGSEGV");
  }
  fs::remove_all(dir);
}

TEST_CASE("SIGKILL leaves a readable file holding everything written before the last flush", "[collector][writer][crash]") {
  const fs::path dir = test::temp_dir("writer-kill");
  const std::string path = (dir / "k.pstrace").string();
  const int status = in_child(path, 50, [](CaptureWriter& w) {
    for (int i = 0; i < 3; ++i) w.submit_chunk(ChunkType::kWarnings, warning_payload("chunk " + std::to_string(i)));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // > one flush period
    ::raise(SIGKILL);
  });
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  ChunkReader r(path);
  CHECK_FALSE(r.had_index());  // nobody could close it
  CHECK(r.warnings().empty());  // cut at a chunk boundary: nothing half-written
  CHECK(warnings_in(r) == std::vector<std::string>{"chunk 0", "chunk 1", "chunk 2"});
  fs::remove_all(dir);
}

TEST_CASE("exit() from a thread other than main keeps every chunk and closes the file", "[collector][writer][crash]") {
  // The collector finishes its file from an atexit handler (Collector::at_exit); exit() called on
  // a worker thread runs it there while the main thread is still alive.
  const fs::path dir = test::temp_dir("writer-thread-exit");
  const std::string path = (dir / "t.pstrace").string();
  const int status = in_child(path, 60000, [](CaptureWriter& w) {
    std::atexit([] { g_crash_writer->finish({{"rank", "1"}}); });
    for (int i = 0; i < 3; ++i) w.submit_chunk(ChunkType::kWarnings, warning_payload("main " + std::to_string(i)));
    std::thread([&w] {
      w.submit_chunk(ChunkType::kWarnings, warning_payload("worker"));
      std::exit(7);  // no sync: finish() must drain the queue first
    }).detach();
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));  // main carries on until the process ends
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  ChunkReader r(path);
  CHECK(r.had_index());
  const auto w = warnings_in(r);
  REQUIRE(w.size() == 4);  // 3 + 1; the writer's summary is a note
  CHECK(warnings_in(r, ChunkType::kNotes).size() == 1);
  CHECK(w[0] == "main 0");
  CHECK(w[2] == "main 2");
  CHECK(w[3] == "worker");
  const Metadata md = metadata_in(r);
  CHECK(metadata_value(md, "end_reason") == "exit");
  CHECK(metadata_value(md, "rank") == "1");
  fs::remove_all(dir);
}

TEST_CASE("A full file size limit (RLIMIT_FSIZE) is one clear error and leaves every complete chunk", "[collector][writer][crash]") {
  // SIGXFSZ's default action kills a process silently; the writer thread blocks it, so the write
  // fails with EFBIG instead: one line on stderr, the partial chunk is cut off again, the program
  // keeps running and exits normally. Each chunk is 20 header bytes + a 1000-byte payload that
  // does not compress (a warning of 998 random bytes), so with a limit of 32 + 9 x 1020 + 500
  // bytes exactly nine chunks fit and the tenth is cut off.
  const fs::path dir = test::temp_dir("writer-fsize");
  const std::string path = (dir / "f.pstrace").string();
  constexpr rlim_t kLimit = 32 + 9 * 1020 + 500;
  int err_pipe[2];
  REQUIRE(::pipe(err_pipe) == 0);
  const int status = in_child(path, 60000, [&](CaptureWriter& w) {
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(err_pipe[0]);
    rlimit rl{kLimit, kLimit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    uint64_t x = 88172645463325252ull;  // xorshift: the same bytes every run
    for (int i = 0; i < 20; ++i) {
      std::string text(998, '\0');
      for (char& c : text) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<char>(x >> 56);
      }
      text.replace(0, 6, "chunk" + std::string(1, static_cast<char>('a' + i)));
      w.submit_chunk(ChunkType::kWarnings, warning_payload(text));
    }
    w.sync(std::chrono::seconds(10));
    w.finish({});
    ::_exit(w.stats().write_errors > 0 ? 0 : 3);
  });
  ::close(err_pipe[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(err_pipe[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
  ::close(err_pipe[0]);
  INFO("child stderr: " << err);
  REQUIRE(WIFEXITED(status));  // not killed by SIGXFSZ
  CHECK(WEXITSTATUS(status) == 0);
  // one clear line, naming the file, where the limit hit (9212 + the 500 bytes that still fitted) and why
  CHECK(err.find(path + ": write failed at byte 9712: File too large") != std::string::npos);
  CHECK(err.find("parascope collector:") == err.rfind("parascope collector:"));
  CHECK(fs::file_size(path) == 32 + 9 * 1020);
  ChunkReader r(path);
  CHECK_FALSE(r.had_index());  // the index did not fit either
  CHECK(r.warnings().empty());  // nothing half-written: the file ends on a chunk boundary
  const auto w = warnings_in(r);
  REQUIRE(w.size() == 9);
  CHECK(w[0].substr(0, 6) == "chunka");
  CHECK(w[8].substr(0, 6) == "chunki");
  fs::remove_all(dir);
}
