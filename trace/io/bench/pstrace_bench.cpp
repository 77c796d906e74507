// Native-format benchmark: generates a Kineto JSON trace shaped like a real 8-GPU training run
// (one file per rank: nested CPU ops, runtime calls with ac2g flows, GEMM and elementwise kernels
// with Kineto's args, NCCL collectives with their annotations, copies, memsets, [memory] instants),
// imports it with the JSON reader (the baseline), then measures writing it as .pstrace (whole
// trace, and through the incremental PstraceWriter API a collector uses) and loading it back,
// and compares sizes. Prints a table and writes the numbers as JSON.
//
//   parascope-bench-pstrace [--events N] [--dir DIR] [--json OUT] [--keep]
//   parascope-bench-pstrace --only-native FILE.pstrace   (write/load phases on an existing file: profiling)
//   parascope-bench-pstrace --load-only FILE.pstrace [N] [--prefault on|off|both]
//                          (N loads of a file and nothing else: profiling; `both`: without and with
//                          the page prefaulter in every round)
#include <sys/resource.h>

#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trace/core/json.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/pstrace_reader.h"
#include "trace/io/pstrace/pstrace_writer.h"

namespace fs = std::filesystem;
using namespace parascope;

namespace {

constexpr int kRanks = 8;
constexpr int kLayers = 32;

// Deterministic jitter (no wall clock, no unseeded randomness).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  int64_t jitter(int64_t base, int pct) { return base + static_cast<int64_t>(next() % static_cast<uint32_t>(base * pct / 100 + 1)); }
};

class JsonOut {
 public:
  explicit JsonOut(const std::string& path) : f_(std::fopen(path.c_str(), "wb")) {
    if (!f_) throw std::runtime_error("cannot write " + path);
    buf_.reserve(kFlush + 65536);
  }
  ~JsonOut() { close(); }
  void close() {
    if (!f_) return;
    flush();
    std::fclose(f_);
    f_ = nullptr;
  }
  JsonOut& s(std::string_view v) {
    buf_.append(v);
    if (buf_.size() > kFlush) flush();
    return *this;
  }
  JsonOut& i(int64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    buf_.append(b, r.ptr);
    return *this;
  }
  // Kineto writes microseconds with three decimals.
  JsonOut& us(int64_t ns) {
    i(ns / 1000);
    char b[5] = {'.', static_cast<char>('0' + ns / 100 % 10), static_cast<char>('0' + ns / 10 % 10), static_cast<char>('0' + ns % 10)};
    buf_.append(b, 4);
    return *this;
  }
  uint64_t bytes() const { return written_ + buf_.size(); }

 private:
  static constexpr size_t kFlush = 4 << 20;
  void flush() {
    std::fwrite(buf_.data(), 1, buf_.size(), f_);
    written_ += buf_.size();
    buf_.clear();
  }
  FILE* f_;
  std::string buf_;
  uint64_t written_ = 0;
};

struct GenStats {
  uint64_t json_bytes = 0;
  uint64_t json_events = 0;
};

// One rank's Kineto trace. Steps of 32 layers forward and backward on one CPU thread; kernels on
// stream 7, NCCL on stream 17.
GenStats generate_rank(const std::string& path, int rank, int steps) {
  JsonOut o(path);
  Lcg rng{0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(rank + 1)};
  const int64_t pid = 1000 + rank;
  o.s("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": ").i(rank).s(
      ", \"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150754820096, \"computeMajor\": 9, \"computeMinor\": 0, "
      "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
      "\"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132}],\n");
  o.s("  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ").i(rank).s(", \"world_size\": 8, \"pg_count\": 1},\n");
  o.s("  \"cupti_version\": 26, \"cuda_runtime_version\": 13000, \"baseTimeNanoseconds\": 1790857026000000000,\n");
  o.s("  \"traceEvents\": [\n");
  uint64_t events = 0;
  bool first = true;
  auto begin_event = [&]() {
    if (!first) o.s(",\n");
    first = false;
    ++events;
  };
  auto x = [&](const char* cat, std::string_view name, int64_t p, int64_t tid, int64_t ts, int64_t dur) {
    begin_event();
    o.s("  {\"ph\": \"X\", \"cat\": \"").s(cat).s("\", \"name\": \"").s(name).s("\", \"pid\": ").i(p).s(", \"tid\": ").i(tid)
        .s(", \"ts\": ").us(ts).s(", \"dur\": ").us(dur).s(", \"args\": {");
  };
  auto flow = [&](char ph, int64_t id, int64_t p, int64_t tid, int64_t ts) {
    begin_event();
    o.s("  {\"ph\": \"").s(std::string_view(&ph, 1)).s("\", \"id\": ").i(id).s(", \"pid\": ").i(p).s(", \"tid\": ").i(tid)
        .s(", \"ts\": ").us(ts).s(ph == 'f' ? ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}" : ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
  };
  int64_t ext = 1, corr = 50'000, ev_idx = 0, seq = 0;
  int64_t cpu = 1'000'000'000 + rank * 1'733;  // ns since the trace's base
  int64_t gpu = cpu, nccl_free = cpu;
  int64_t allocated = 335'544'832;
  auto launch = [&](int64_t at, const char* runtime, int cbid, int64_t correlation) {
    x("cuda_runtime", runtime, pid, pid, at, 4'200);
    o.s("\"External id\": ").i(ext).s(", \"cbid\": ").i(cbid).s(", \"correlation\": ").i(correlation).s("}}");
    flow('s', correlation, pid, pid, at);
  };
  auto kernel = [&](std::string_view name, int64_t stream, int64_t start, int64_t dur, int64_t correlation, int grid,
                    int block, int regs, int smem, bool nccl_args, const char* coll) {
    x("kernel", name, 0, stream, start, dur);
    o.s("\"External id\": ").i(ext).s(", \"queued\": 0, \"device\": ").i(rank).s(", \"context\": 1, \"stream\": ").i(stream)
        .s(", \"correlation\": ").i(correlation).s(", \"registers per thread\": ").i(regs).s(", \"shared memory\": ").i(smem)
        .s(", \"blocks per SM\": 1.454545, \"warps per SM\": 11.636364, \"grid\": [").i(grid).s(", 1, 1], \"block\": [").i(block)
        .s(", 1, 1], \"est. achieved occupancy %\": 18");
    if (nccl_args)
      o.s(", \"Collective name\": \"").s(coll).s("\", \"In msg nelems\": 16777216, \"Out msg nelems\": 16777216, \"Group size\": 8, "
          "\"dtype\": \"BFloat16\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
          "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\", \"Seq\": ")
          .i(seq);
    o.s("}}");
    flow('f', correlation, 0, stream, start);
  };
  for (int step = 0; step < steps; ++step) {
    const int64_t step_start = cpu;
    const int64_t step_ext = ext++;
    std::vector<int64_t> step_marks;
    for (int pass = 0; pass < 2; ++pass) {
      for (int layer = 0; layer < kLayers; ++layer) {
        // aten::linear > aten::matmul > aten::mm > cudaLaunchKernel → GEMM
        const int64_t lin = cpu, lin_ext = ext++;
        const int64_t mm_start = lin + 9'000, launch_at = mm_start + 6'000;
        const int64_t c1 = corr++;
        launch(launch_at, "cudaLaunchKernel", 211, c1);
        const int64_t gemm_dur = rng.jitter(pass ? 180'000 : 90'000, 10);
        gpu = std::max(gpu, launch_at + 5'000);
        kernel(pass ? "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNT" : "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", 7,
               gpu, gemm_dur, c1, 132, 384, 168, 232448, false, "");
        gpu += gemm_dur + 1'200;
        const int64_t mm_end = launch_at + 12'000;
        x("cpu_op", "aten::mm", pid, pid, mm_start, mm_end - mm_start);
        o.s("\"External id\": ").i(ext++).s(", \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\"], "
                                             "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[4096, 1], [1, 4096]], "
                                             "\"Input Dims\": [[8192, 4096], [4096, 4096]], \"Ev Idx\": ").i(ev_idx++).s("}}");
        x("cpu_op", "aten::matmul", pid, pid, mm_start - 3'000, mm_end - mm_start + 5'000);
        o.s("\"External id\": ").i(ext++).s(", \"Record function id\": 0, \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], "
                                             "\"Input Dims\": [[8192, 4096], [4096, 4096]], \"Ev Idx\": ").i(ev_idx++).s("}}");
        // [memory] instant for the output tensor
        begin_event();
        allocated += 67'108'864;
        o.s("  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": ").i(pid)
            .s(", \"tid\": ").i(pid).s(", \"ts\": ").us(mm_start + 1'000).s(", \"args\": {\"Total Reserved\": 887095296, "
                                                                             "\"Total Allocated\": ").i(allocated)
            .s(", \"Bytes\": 67108864, \"Device Id\": ").i(rank).s(", \"Device Type\": 1, \"Addr\": 140163002925056, \"Ev Idx\": ").i(ev_idx++).s("}}");
        // aten::add_ → elementwise kernel
        const int64_t add_start = mm_end + 6'000, c2 = corr++;
        launch(add_start + 5'000, "cudaLaunchKernel", 211, c2);
        gpu = std::max(gpu, add_start + 10'000);
        const int64_t ew = rng.jitter(12'000, 20);
        kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
               "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
               7, gpu, ew, c2, 8192, 128, 32, 0, false, "");
        gpu += ew + 900;
        x("cpu_op", "aten::add_", pid, pid, add_start, 14'000);
        o.s("\"External id\": ").i(ext++).s(", \"Record function id\": 0, \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"], "
                                             "\"Ev Idx\": ").i(ev_idx++).s("}}");
        int64_t lin_end = add_start + 16'000;
        if (layer % 4 == 3) {
          // tensor-parallel all-reduce: record_param_comms > nccl:all_reduce, kernel on stream 17
          const int64_t at = lin_end + 3'000, c3 = corr++;
          ++seq;
          launch(at + 8'000, "cuLaunchKernelEx", 652, c3);
          const int64_t start = std::max({nccl_free, gpu, at + 14'000});
          const int64_t dur = rng.jitter(260'000, 15);
          kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 17, start, dur, c3, 16, 640, 96,
                 103808, true, "allreduce");
          x("gpu_user_annotation", "nccl:all_reduce", 0, 17, start - 2'000, dur + 4'000);
          o.s("\"External id\": ").i(ext).s("}}");
          nccl_free = start + dur;
          x("cpu_op", "record_param_comms", pid, pid, at, 26'000);
          o.s("\"External id\": ").i(ext++).s(", \"Record function id\": 0, \"Collective name\": \"allreduce\", \"dtype\": \"BFloat16\", "
                                               "\"In msg nelems\": 16777216, \"Out msg nelems\": 16777216, \"Group size\": 8, \"Seq\": ")
              .i(seq).s(", \"Ev Idx\": ").i(ev_idx++).s("}}");
          x("cpu_op", "c10d::allreduce_", pid, pid, at - 2'000, 30'000);
          o.s("\"External id\": ").i(ext++).s(", \"Record function id\": 0, \"Ev Idx\": ").i(ev_idx++).s("}}");
          lin_end = at + 32'000;
        }
        if (layer % 16 == 15) {
          const int64_t at = lin_end + 2'000, c4 = corr++, c5 = corr++;
          launch(at, "cudaMemsetAsync", 51, c4);
          x("gpu_memset", "Memset (Device)", 0, 7, gpu, 1'800);
          o.s("\"External id\": ").i(ext).s(", \"device\": ").i(rank).s(", \"context\": 1, \"stream\": 7, \"correlation\": ").i(c4)
              .s(", \"bytes\": 4194304, \"memory bandwidth (GB/s)\": 2330.168}}");
          flow('f', c4, 0, 7, gpu);
          gpu += 2'500;
          launch(at + 6'000, "cudaMemcpyAsync", 41, c5);
          x("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 7, gpu, 9'000);
          o.s("\"External id\": ").i(ext++).s(", \"device\": ").i(rank).s(", \"context\": 1, \"stream\": 7, \"correlation\": ").i(c5)
              .s(", \"bytes\": 16777216, \"memory bandwidth (GB/s)\": 1864.135}}");
          flow('f', c5, 0, 7, gpu);
          gpu += 10'000;
          lin_end = at + 12'000;
        }
        x("cpu_op", pass ? "LinearBackward0" : "aten::linear", pid, pid, lin, lin_end - lin + 1'000);
        o.s("\"External id\": ").i(lin_ext).s(", \"Record function id\": 0, \"Sequence number\": ").i(step * 64 + pass * 32 + layer)
            .s(", \"Fwd thread id\": 0, \"Ev Idx\": ").i(ev_idx++).s("}}");
        cpu = lin_end + 3'000;
      }
    }
    // the step waits for the GPU
    cpu = std::max(cpu, std::max(gpu, nccl_free)) + 20'000;
    x("user_annotation", "ProfilerStep#" + std::to_string(step), pid, pid, step_start, cpu - step_start);
    o.s("\"External id\": ").i(step_ext).s(", \"Record function id\": 0, \"Ev Idx\": ").i(ev_idx++).s("}}");
  }
  begin_event();
  o.s("  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": ").i(pid).s(", \"tid\": 0, \"args\": {\"name\": \"python\"}}");
  o.s("\n  ],\n  \"traceName\": \"rank").i(rank).s(".json\"\n}\n");
  GenStats g;
  g.json_events = events;
  g.json_bytes = o.bytes();
  o.close();
  return g;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

long peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// The trace replayed through the incremental API (what the collector, bench harness and simulator do).
// `with_args` false: the same events without their free-form args (what the collector and Nsight
// exports produce), to show what the args cost.
void replay_incremental(const Trace& t, const std::string& path, bool with_args = true) {
  PstraceWriter w(path);
  std::vector<StringId> sid(t.strings.size());
  for (size_t i = 0; i < t.strings.size(); ++i) sid[i] = w.intern(t.strings.view(static_cast<StringId>(i)));
  for (const Process& p : t.processes) w.add_process(p);
  for (const Device& d : t.devices) w.add_device(d);
  for (const Link& l : t.links) w.add_link(l);
  for (const Track& tr : t.tracks) {
    TrackDecl d;
    d.key = tr.key;
    if (d.key.id >= (int64_t{1} << 62)) d.key.id = (int64_t{1} << 62) + sid[static_cast<size_t>(d.key.id - (int64_t{1} << 62))];
    d.name = std::string(t.str(tr.name));
    d.parent = tr.parent;
    d.simulated = tr.simulated;
    d.counter_source = tr.counter_source;
    d.unit = std::string(t.str(tr.unit));
    w.add_track(d);
  }
  std::vector<Arg> args;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const SliceColumns& s = t.tracks[ti].slices;
    for (size_t i = 0; i < s.size(); ++i) {
      args.clear();
      for (Arg a : t.args.get(with_args ? s.args_of(i) : kNone32)) {
        a.key = sid[a.key];
        if (a.value.type == ArgValue::Type::kString || a.value.type == ArgValue::Type::kJson) a.value.s = sid[a.value.s];
        args.push_back(a);
      }
      const SliceRef r = s.ref[i];
      const StringId name = sid[s.name[i]];
      switch (r.has_detail() ? r.kind() : SliceKind::kGeneric) {
        case SliceKind::kKernel: {
          const KernelInfo& k = t.kernels[r.index()];
          w.add_kernel(ti, s.start[i], s.dur[i], name, k, t.launch_config(k), args);
          break;
        }
        case SliceKind::kMemcpy: w.add_memcpy(ti, s.start[i], s.dur[i], name, t.memcpys[r.index()], args); break;
        case SliceKind::kMemset: w.add_memset(ti, s.start[i], s.dur[i], name, t.memsets[r.index()], args); break;
        case SliceKind::kSync: w.add_sync(ti, s.start[i], s.dur[i], name, t.syncs[r.index()], args); break;
        case SliceKind::kCpuOp: w.add_cpu_op(ti, s.start[i], s.dur[i], name, t.cpu_ops[r.index()], args); break;
        case SliceKind::kRuntimeApi: w.add_api_call(ti, s.start[i], s.dur[i], name, t.api_calls[r.index()], args); break;
        default: w.add_slice(ti, s.start[i], s.dur[i], name, r.kind(), args); break;
      }
    }
    for (size_t i = 0; i < t.tracks[ti].counter.size(); ++i)
      w.add_counter_sample(ti, t.tracks[ti].counter.time[i], t.tracks[ti].counter.value[i]);
  }
  for (const Flow& f : t.flows) w.add_flow(f.from, f.to, f.kind);
  for (CollectiveInfo c : t.collectives) {
    c.dtype = sid[c.dtype];
    c.group = sid[c.group];
    c.group_ranks = sid[c.group_ranks];
    c.algorithm = sid[c.algorithm];
    c.protocol = sid[c.protocol];
    w.add_collective(c);
  }
  w.close();
}

uint64_t events_of(const Trace& t) {
  uint64_t n = t.slice_count();
  for (const Track& tr : t.tracks) n += tr.counter.size();
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t target = 10'000'000;
  std::string dir = (fs::temp_directory_path() / "parascope-bench-pstrace").string();
  std::string json_out = "pstrace_bench.json";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_out = argv[++i];
    else if (a == "--keep") keep = true;
    else if (a == "--load-only" && i + 1 < argc) {
      // repeated loads of one file and nothing else (profiling the reader)
      const std::string file = argv[++i];
      const int repeat = i + 1 < argc && argv[i + 1][0] != '-' ? std::atoi(argv[++i]) : 3;
      // --prefault both: off then on in every round (side by side); absent: the reader's default
      std::vector<std::optional<bool>> modes = {std::nullopt};
      if (i + 2 < argc && std::strcmp(argv[i + 1], "--prefault") == 0) {
        const std::string m = argv[i + 2];
        i += 2;
        modes = m == "both" ? std::vector<std::optional<bool>>{false, true} : std::vector<std::optional<bool>>{m != "off"};
      }
      for (int run = 0; run < repeat; ++run)
        for (const std::optional<bool> pf : modes) {
          PstraceReadOptions o;
          o.prefault = pf;
          const double c0 = cpu_seconds();
          const auto t0 = std::chrono::steady_clock::now();
          const Trace back = read_pstrace(file, o);
          const double wall = seconds_since(t0), l = cpu_seconds() - c0;
          std::printf("load %" PRIu64 " events, prefault %-3s: %.3f wall s (%.2f M/s), %.3f cpu s (%.2f M/s cpu), trace %.0f MB (args %.0f MB), peak RSS %ld MB\n",
                      events_of(back), !pf ? "default" : *pf ? "on" : "off", wall, events_of(back) / wall / 1e6, l, events_of(back) / l / 1e6,
                      back.memory_bytes() / 1e6, back.args.memory_bytes() / 1e6, peak_rss_mb());
        }
      return 0;
    }
    else if (a == "--only-native" && i + 1 < argc) {
      const Trace t = read_pstrace(argv[++i]);
      const std::string out = (fs::temp_directory_path() / "parascope-bench-only-native.pstrace").string();
      double c0 = cpu_seconds();
      write_pstrace(t, out);
      const double w = cpu_seconds() - c0;
      c0 = cpu_seconds();
      const Trace back = read_pstrace(out);
      const double l = cpu_seconds() - c0;
      std::printf("%" PRIu64 " events: write %.3f cpu s (%.0f/s), load %.3f cpu s (%.0f/s)\n", events_of(t), w,
                  events_of(t) / w, l, events_of(back) / l);
      fs::remove(out);
      return 0;
    }
    else {
      std::fprintf(stderr, "usage: %s [--events N] [--dir DIR] [--json OUT] [--keep]\n", argv[0]);
      return 2;
    }
  }
  // about 10.5 slices per layer, 64 layers a step, 8 ranks
  const int steps = static_cast<int>(std::max<uint64_t>(1, (target + kRanks * 64 * 10 - 1) / (kRanks * 64 * 10.5)));
  fs::remove_all(dir);
  fs::create_directories(dir / fs::path("json"));
  std::printf("generating %d steps x %d layers x 2 passes on %d ranks in %s\n", steps, kLayers, kRanks, dir.c_str());
  GenStats gen;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < kRanks; ++r) {
    const GenStats g = generate_rank((fs::path(dir) / "json" / ("rank" + std::to_string(r) + ".json")).string(), r, steps);
    gen.json_bytes += g.json_bytes;
    gen.json_events += g.json_events;
  }
  const double gen_s = seconds_since(t0);

  double c0 = cpu_seconds();
  t0 = std::chrono::steady_clock::now();
  const Trace trace = load_trace({(fs::path(dir) / "json").string()});
  const double json_s = seconds_since(t0), json_cpu = cpu_seconds() - c0;
  const uint64_t events = events_of(trace);
  std::printf("imported %" PRIu64 " events (%zu slices, %zu flows) from %" PRIu64 " JSON events, %.2f GB\n", events,
              trace.slice_count(), trace.flows.size(), gen.json_events, gen.json_bytes / 1e9);

  const std::string native = (fs::path(dir) / "trace.pstrace").string();
  c0 = cpu_seconds();
  t0 = std::chrono::steady_clock::now();
  write_pstrace(trace, native);
  const double write_s = seconds_since(t0), write_cpu = cpu_seconds() - c0;
  const uint64_t native_bytes = fs::file_size(native);

  const std::string incremental = (fs::path(dir) / "incremental.pstrace").string();
  c0 = cpu_seconds();
  t0 = std::chrono::steady_clock::now();
  replay_incremental(trace, incremental);
  const double inc_s = seconds_since(t0), inc_cpu = cpu_seconds() - c0;
  const uint64_t inc_bytes = fs::file_size(incremental);

  const std::string bare = (fs::path(dir) / "no-args.pstrace").string();
  replay_incremental(trace, bare, false);
  double bare_s = 1e30, bare_cpu = 0;
  for (int run = 0; run < 3; ++run) {
    c0 = cpu_seconds();
    t0 = std::chrono::steady_clock::now();
    const Trace back = read_pstrace(bare);
    const double s = seconds_since(t0);
    if (s < bare_s) {
      bare_s = s;
      bare_cpu = cpu_seconds() - c0;
    }
  }
  const uint64_t bare_bytes = fs::file_size(bare);

  double load_s = 1e30, load_cpu = 0;
  size_t loaded_slices = 0, loaded_flows = 0;
  for (int run = 0; run < 3; ++run) {
    c0 = cpu_seconds();
    t0 = std::chrono::steady_clock::now();
    const Trace back = read_pstrace(native);
    const double s = seconds_since(t0);
    if (s < load_s) {
      load_s = s;
      load_cpu = cpu_seconds() - c0;
    }
    loaded_slices = back.slice_count();
    loaded_flows = back.flows.size();
  }
  const bool same = loaded_slices == trace.slice_count() && loaded_flows == trace.flows.size();

  std::printf("\n%-44s %9s %9s %14s %14s %10s\n", "phase", "wall s", "cpu s", "events/s wall", "events/s cpu", "MB/s");
  auto row = [&](const char* what, double s, double cpu, double mb) {
    std::printf("%-44s %9.3f %9.3f %14.0f %14.0f %10.1f\n", what, s, cpu, events / s, events / cpu, mb / s);
  };
  std::printf("%-44s %9.3f %9s %14s %14s %10.1f\n", "generate Kineto JSON (8 ranks)", gen_s, "-", "-", "-", gen.json_bytes / 1e6 / gen_s);
  row("JSON import (load_trace, baseline)", json_s, json_cpu, gen.json_bytes / 1e6);
  row("native write (write_pstrace)", write_s, write_cpu, native_bytes / 1e6);
  row("native write (PstraceWriter incremental API)", inc_s, inc_cpu, inc_bytes / 1e6);
  row("native load (read_pstrace, best of 3)", load_s, load_cpu, native_bytes / 1e6);
  row("native load, same events without args", bare_s, bare_cpu, bare_bytes / 1e6);
  std::printf("\nsizes: JSON %" PRIu64 " bytes, .pstrace %" PRIu64 " bytes (1/%.1f), incremental %" PRIu64
              " bytes; %.2f bytes/event\n",
              gen.json_bytes, native_bytes, static_cast<double>(gen.json_bytes) / native_bytes, inc_bytes,
              static_cast<double>(native_bytes) / events);
  std::printf("load speed-up over JSON import: %.1fx; round trip %s; peak RSS %ld MB\n", json_s / load_s,
              same ? "kept every slice and flow" : "LOST EVENTS", peak_rss_mb());

  const JsonValue doc = JsonValue::object({
      {"schema_version", JsonValue::number(int64_t{1})},
      {"benchmark", JsonValue::string("pstrace")},
      {"ranks", JsonValue::number(int64_t{kRanks})},
      {"events", JsonValue::number(static_cast<int64_t>(events))},
      {"slices", JsonValue::number(static_cast<int64_t>(trace.slice_count()))},
      {"flows", JsonValue::number(static_cast<int64_t>(trace.flows.size()))},
      {"json_events", JsonValue::number(static_cast<int64_t>(gen.json_events))},
      {"json_bytes", JsonValue::number(static_cast<int64_t>(gen.json_bytes))},
      {"pstrace_bytes", JsonValue::number(static_cast<int64_t>(native_bytes))},
      {"incremental_pstrace_bytes", JsonValue::number(static_cast<int64_t>(inc_bytes))},
      {"size_ratio_json_over_pstrace", JsonValue::number(static_cast<double>(gen.json_bytes) / native_bytes)},
      {"json_import_s", JsonValue::number(json_s)},
      {"write_s", JsonValue::number(write_s)},
      {"incremental_write_s", JsonValue::number(inc_s)},
      {"load_s", JsonValue::number(load_s)},
      {"load_cpu_s", JsonValue::number(load_cpu)},
      {"load_events_per_s", JsonValue::number(events / load_s)},
      {"load_cpu_events_per_s", JsonValue::number(events / load_cpu)},
      {"load_no_args_s", JsonValue::number(bare_s)},
      {"load_no_args_cpu_s", JsonValue::number(bare_cpu)},
      {"no_args_pstrace_bytes", JsonValue::number(static_cast<int64_t>(bare_bytes))},
      {"write_events_per_s", JsonValue::number(events / write_s)},
      {"json_import_events_per_s", JsonValue::number(events / json_s)},
      {"round_trip_complete", JsonValue::boolean(same)},
      {"peak_rss_mb", JsonValue::number(static_cast<int64_t>(peak_rss_mb()))},
  });
  if (FILE* f = std::fopen(json_out.c_str(), "w")) {
    std::fprintf(f, "%s\n", to_json(doc, 2).c_str());
    std::fclose(f);
  }
  if (!keep) fs::remove_all(dir);
  return same ? 0 : 1;
}
