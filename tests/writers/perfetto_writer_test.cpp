#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>

#include "cli/run_command.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/trace_builder.h"
#include "trace/io/export/perfetto_writer.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

// What `protoc --decode_raw` shows of a Perfetto trace: field numbers only. Trace.packet = 1,
// TracePacket.track_descriptor = 60 (uuid 1, process 3, thread 4, counter 8),
// TracePacket.track_event = 11 (type 9: 1 begin, 2 end, 3 instant, 4 counter; track_uuid 11;
// flow_ids 47; terminating_flow_ids 48).
struct Decoded {
  int64_t packets = 0, descriptors = 0, process_descriptors = 0, thread_descriptors = 0, counter_descriptors = 0;
  int64_t begins = 0, ends = 0, instants = 0, counters = 0, flow_starts = 0, flow_ends = 0;
  std::set<std::string> declared_uuids;
  std::set<std::string> used_uuids;
};

Decoded decode(const std::string& text) {
  Decoded d;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> path;  // open messages by field number
  while (std::getline(in, line)) {
    const size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    const std::string s = line.substr(b);
    if (s == "}") {
      path.pop_back();
      continue;
    }
    if (s.size() > 2 && s.substr(s.size() - 2) == " {") {
      const std::string field = s.substr(0, s.size() - 2);
      path.push_back(field);
      if (path == std::vector<std::string>{"1"}) ++d.packets;
      if (path == std::vector<std::string>{"1", "60"}) ++d.descriptors;
      if (path.size() == 3 && path[1] == "60") {
        d.process_descriptors += field == "3";
        d.thread_descriptors += field == "4";
        d.counter_descriptors += field == "8";
      }
      continue;
    }
    const size_t colon = s.find(": ");
    if (colon == std::string::npos) continue;
    const std::string field = s.substr(0, colon), value = s.substr(colon + 2);
    if (path == std::vector<std::string>{"1", "60"} && field == "1") d.declared_uuids.insert(value);
    if (path == std::vector<std::string>{"1", "11"}) {
      if (field == "11") d.used_uuids.insert(value);
      if (field == "9") {
        d.begins += value == "1";
        d.ends += value == "2";
        d.instants += value == "3";
        d.counters += value == "4";
      }
      d.flow_starts += field == "47";
      d.flow_ends += field == "48";
    }
  }
  return d;
}

bool have_protoc() { return test::run_command("protoc --version").exit_code == 0; }

Decoded decode_file(const std::string& path) {
  const test::CommandResult r = test::run_command("protoc --decode_raw < '" + path + "'");
  REQUIRE(r.exit_code == 0);
  return decode(r.out);
}

}  // namespace

TEST_CASE("A hand-built trace decodes with protoc with every track, slice, flow and counter", "[writers][perfetto]") {
  if (!have_protoc()) PARASCOPE_SKIP("protoc not installed (apt-get install protobuf-compiler): skipping the --decode_raw check");
  // one rank, one GPU: stream 7 with a parent [0,100) holding children [10,20) and [90,120) (the
  // second reaches past its parent and is cut at 100), an instant at 50; a CPU thread with a
  // launch [0,5) flowing to the parent; a host counter with 3 samples
  TraceBuilder b;
  Process p;
  p.pid = 42;
  p.rank = 0;
  const uint32_t pi = b.add_process(p);
  Device dv;
  dv.process = pi;
  const auto d = static_cast<int32_t>(b.add_device(dv));
  const uint32_t stream = b.track({TrackKind::kGpuStream, pi, d, 7}, "stream 7");
  const uint32_t thread = b.track({TrackKind::kCpuThread, pi, -1, 43}, "thread 43");
  const uint32_t counter = b.track({TrackKind::kCounter, pi, -1, 1}, "memory");
  const EventRef parent = b.add_slice(stream, 0, 100, b.intern("k"), b.add_kernel({}));
  b.add_slice(stream, 10, 10, b.intern("child"), {});
  b.add_slice(stream, 90, 30, b.intern("late child"), {});
  b.add_slice(stream, 50, 0, b.intern("mark"), SliceRef(SliceKind::kInstant, SliceRef::kNoDetail));
  const EventRef launch = b.add_slice(thread, 0, 5, b.intern("cudaLaunchKernel"), b.add_api_call({}));
  b.add_flow(launch, parent, FlowKind::kLaunch);
  for (int i = 0; i < 3; ++i) b.add_counter_sample(counter, 10 * i, 1.5 * i);
  const Trace t = b.finish();
  const fs::path dir = test::temp_dir("pftrace");
  const std::string path = (dir / "t.pftrace").string();
  const PerfettoWriteResult r = write_perfetto(t, path);
  CHECK(r.clamped_children == 1);
  const Decoded dec = decode_file(path);
  // descriptors: process, GPU group, stream (custom), thread, counter = 5
  CHECK(dec.descriptors == 5);
  CHECK(dec.process_descriptors == 1);
  CHECK(dec.thread_descriptors == 1);
  CHECK(dec.counter_descriptors == 1);
  CHECK(dec.begins == 4);  // 3 slices on the stream + the launch
  CHECK(dec.ends == 4);
  CHECK(dec.instants == 1);
  CHECK(dec.counters == 3);
  CHECK(dec.flow_starts == 1);
  CHECK(dec.flow_ends == 1);
  for (const std::string& u : dec.used_uuids) CHECK(dec.declared_uuids.count(u) == 1);
  fs::remove_all(dir);
}

TEST_CASE("convert writes a .pftrace of the real sample that protoc decodes completely", "[writers][perfetto][real][cli]") {
  if (!have_protoc()) PARASCOPE_SKIP("protoc not installed (apt-get install protobuf-compiler): skipping the --decode_raw check");
  const fs::path dir = test::temp_dir("pftrace-cli");
  const std::string out = (dir / "sample.pftrace").string();
  const std::string s = test::sample_path("allreduce_matmul_2xh200/");
  const test::CommandResult r = test::run_command(std::string(PARASCOPE_CLI) + " convert --quiet --estimate-links " + s +
                                                  "rank0.json " + s + "rank1.json -o " + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Decoded dec = decode_file(out);
  // Counted independently with Python's json on the two files: per rank 236 'X' events (112
  // cuda_runtime, 51 cpu_op, 21 user_annotation, 21 kernel, 15 gpu_user_annotation, 12
  // cuda_driver, 3 gpu_memcpy, 1 Trace) and 2 'i' events; each rank's 21 kernels and 3 memcpys
  // were launched by a runtime/driver call with the same correlation id (24 launch flows).
  CHECK(dec.begins == 2 * 236);
  CHECK(dec.ends == 2 * 236);
  CHECK(dec.instants == 2 * 2);
  CHECK(dec.flow_starts == 2 * 24);
  CHECK(dec.flow_ends == 2 * 24);
  // tracks: 2 processes, 2 GPU groups, per rank 3 CPU threads + streams 7 and 17 + their two
  // annotation tracks, and 2 estimated link counters (GPU0→GPU1, GPU1→GPU0)
  CHECK(dec.process_descriptors == 2);
  CHECK(dec.counter_descriptors == 2);
  CHECK(dec.descriptors == 2 + 2 + 2 * 7 + 2);
  // each link carries the 3 all-reduces of its rank, which never touch: a rise and a fall each
  CHECK(dec.counters == 2 * 3 * 2);
  for (const std::string& u : dec.used_uuids) CHECK(dec.declared_uuids.count(u) == 1);
  fs::remove_all(dir);
}
