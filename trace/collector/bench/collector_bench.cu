// parascope-collector-bench MODE [options]: the workloads the collector is measured with on the GPU
// machine (scripts/gpu/collector.sh). It knows nothing about the collector except the optional
// header-only API (probe hand-over, rank name); overhead is the same binary run with and without
// `parascope-cli record`. Each mode prints one JSON line on stdout.
//   spin   --kernels N --us U     N one-block kernels of U µs each: wall time of the whole loop
//   launch --kernels N --us U     host time per launch (launches in batches that never fill the queue)
//   crash  --how kill|abort|segv --kernels K --wait-ms W   K kernels, sync, wait W, K more, sync, die
//   probe  --kernels N --blocks B [--no-probe]  kernels writing one ProbeRecord per block, handed over
//   peer   --copies N --mib M      peer copies device 0 → 1 (needs 2 GPUs)
//   graph  --launches N           a 3-kernel CUDA graph launched N times
#include <cuda_runtime.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "parascope/collector.h"
#include "trace/core/probe_record.h"

namespace {

#define CHECK_CUDA(x)                                                                             \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
      std::exit(2);                                                                               \
    }                                                                                             \
  } while (0)

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__global__ void spin_kernel(uint64_t ns) {
  const uint64_t t0 = globaltimer();
  while (globaltimer() - t0 < ns) {
  }
}

// Fixed arithmetic work per block, optionally bracketed by a probe span written by thread 0.
__global__ void probe_kernel(parascope::ProbeBufferHeader* header, parascope::ProbeRecord* records, int iters,
                             bool probe, float* sink) {
  uint64_t t0 = 0;
  if (probe && threadIdx.x == 0) t0 = globaltimer();
  float x = threadIdx.x * 0.001f, y = blockIdx.x * 0.002f;
  for (int i = 0; i < iters; ++i) {
    x = fmaf(x, 1.0000001f, y);
    y = fmaf(y, 0.9999999f, x);
  }
  if (x == 12345.f) sink[0] = y;  // keeps the loop
  __syncthreads();
  if (probe && threadIdx.x == 0) {
    const uint64_t t1 = globaltimer();
    const uint32_t slot = atomicAdd(&header->next, 1u);
    if (slot < header->capacity) {
      parascope::ProbeRecord r;
      r.t_start_ns = t0;
      r.t_end_ns = t1;
      r.block = blockIdx.x;
      r.smid = static_cast<uint16_t>(smid());
      r.warp = 0xff;
      r.role = static_cast<uint8_t>(parascope::ProbeRole::kCompute);
      r.tag = 0;
      r.launch_id = header->launch_id;
      records[slot] = r;
    }
  }
}

struct Options {
  std::string mode;
  long kernels = 10000, us = 20, blocks = 264, copies = 20, mib = 64, launches = 5, wait_ms = 2500;
  std::string how = "kill";
  bool probe = true;
};

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) {
    std::fprintf(stderr, "usage: parascope-collector-bench spin|launch|crash|probe|peer|graph [options]\n");
    std::exit(2);
  }
  o.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kernels") o.kernels = std::atol(next());
    else if (a == "--us") o.us = std::atol(next());
    else if (a == "--blocks") o.blocks = std::atol(next());
    else if (a == "--copies") o.copies = std::atol(next());
    else if (a == "--mib") o.mib = std::atol(next());
    else if (a == "--launches") o.launches = std::atol(next());
    else if (a == "--wait-ms") o.wait_ms = std::atol(next());
    else if (a == "--how") o.how = next();
    else if (a == "--no-probe") o.probe = false;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int run_spin(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  spin_kernel<<<1, 32>>>(1000);  // context and module load outside the timed loop
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < o.kernels; ++i) spin_kernel<<<1, 32>>>(static_cast<uint64_t>(o.us) * 1000);
  CHECK_CUDA(cudaDeviceSynchronize());
  const double s = seconds_since(t0);
  std::printf("{\"mode\":\"spin\",\"kernels\":%ld,\"kernel_us\":%ld,\"seconds\":%.6f,\"traced\":%d}\n", o.kernels, o.us, s,
              parascope_collector_status());
  return 0;
}

int run_launch(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  spin_kernel<<<1, 32>>>(1000);
  CHECK_CUDA(cudaDeviceSynchronize());
  const long batch = 256;  // 256 × U µs of GPU work per batch: the launch queue never fills
  double launch_s = 0;
  long done = 0;
  while (done < o.kernels) {
    const long n = std::min(batch, o.kernels - done);
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) spin_kernel<<<1, 32>>>(static_cast<uint64_t>(o.us) * 1000);
    launch_s += seconds_since(t0);
    CHECK_CUDA(cudaDeviceSynchronize());
    done += n;
  }
  std::printf("{\"mode\":\"launch\",\"kernels\":%ld,\"ns_per_launch\":%.1f,\"traced\":%d}\n", o.kernels,
              launch_s * 1e9 / static_cast<double>(o.kernels), parascope_collector_status());
  return 0;
}

int run_crash(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  for (long i = 0; i < o.kernels; ++i) spin_kernel<<<1, 32>>>(20'000);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("{\"mode\":\"crash\",\"phase\":1,\"completed\":%ld}\n", o.kernels);
  std::fflush(stdout);
  usleep(static_cast<useconds_t>(o.wait_ms) * 1000);  // at least one periodic flush happens here
  for (long i = 0; i < o.kernels; ++i) spin_kernel<<<1, 32>>>(20'000);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("{\"mode\":\"crash\",\"phase\":2,\"completed\":%ld,\"how\":\"%s\"}\n", 2 * o.kernels, o.how.c_str());
  std::fflush(stdout);
  if (o.how == "kill") ::raise(SIGKILL);
  if (o.how == "abort") std::abort();
  volatile uintptr_t address = 0;
  *reinterpret_cast<volatile int*>(address) = 1;  // segv
  return 0;
}

int run_probe(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  const uint32_t capacity = static_cast<uint32_t>(o.blocks);
  const size_t bytes = sizeof(parascope::ProbeBufferHeader) + capacity * sizeof(parascope::ProbeRecord);
  void* dev = nullptr;
  float* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&dev, bytes));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  std::vector<uint8_t> host(bytes);
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  auto* header = static_cast<parascope::ProbeBufferHeader*>(dev);
  auto* records = reinterpret_cast<parascope::ProbeRecord*>(static_cast<char*>(dev) + sizeof(parascope::ProbeBufferHeader));
  const int iters = 20000;  // ~ 50 µs per block on an H200
  probe_kernel<<<static_cast<unsigned>(o.blocks), 128>>>(header, records, 10, false, sink);  // warm-up
  CHECK_CUDA(cudaDeviceSynchronize());
  double gpu_ms = 0;
  long submitted = 0, spans = 0;
  for (long k = 0; k < o.kernels; ++k) {
    parascope::ProbeBufferHeader h{parascope::kProbeMagic, capacity, 0, static_cast<uint32_t>(k)};
    CHECK_CUDA(cudaMemcpy(dev, &h, sizeof h, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaEventRecord(a));
    probe_kernel<<<static_cast<unsigned>(o.blocks), 128>>>(header, records, iters, o.probe, sink);
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    gpu_ms += ms;
    if (o.probe) {
      CHECK_CUDA(cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost));
      parascope::ProbeBufferHeader back;
      std::memcpy(&back, host.data(), sizeof back);
      spans += std::min(back.next, back.capacity);
      submitted += parascope_collector_submit_probes(0, host.data(), bytes, "probe_kernel", 0);
    }
  }
  std::printf("{\"mode\":\"probe\",\"kernels\":%ld,\"blocks\":%ld,\"probe\":%s,\"gpu_ms_per_kernel\":%.4f,"
              "\"spans\":%ld,\"submitted\":%ld}\n",
              o.kernels, o.blocks, o.probe ? "true" : "false", gpu_ms / static_cast<double>(o.kernels), spans, submitted);
  return 0;
}

int run_peer(const Options& o) {
  int n = 0;
  CHECK_CUDA(cudaGetDeviceCount(&n));
  if (n < 2) {
    std::printf("{\"mode\":\"peer\",\"skipped\":\"needs 2 GPUs\"}\n");
    return 0;
  }
  const size_t bytes = static_cast<size_t>(o.mib) << 20;
  void *src = nullptr, *dst = nullptr;
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaMalloc(&dst, bytes));
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaMalloc(&src, bytes));
  int can = 0;
  CHECK_CUDA(cudaDeviceCanAccessPeer(&can, 0, 1));
  if (can) CHECK_CUDA(cudaDeviceEnablePeerAccess(1, 0));
  CHECK_CUDA(cudaMemset(src, 1, bytes));
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < o.copies; ++i) CHECK_CUDA(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes));
  CHECK_CUDA(cudaDeviceSynchronize());
  const double s = seconds_since(t0);
  std::printf("{\"mode\":\"peer\",\"copies\":%ld,\"bytes\":%zu,\"peer_access\":%d,\"gb_per_s\":%.1f}\n", o.copies, bytes,
              can, static_cast<double>(bytes) * o.copies / s / 1e9);
  return 0;
}

int run_graph(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 3; ++i) spin_kernel<<<1, 32, 0, s>>>(10'000);
  CHECK_CUDA(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (long i = 0; i < o.launches; ++i) CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::printf("{\"mode\":\"graph\",\"launches\":%ld,\"kernels\":%ld}\n", o.launches, 3 * o.launches);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (const char* r = std::getenv("BENCH_RANK_NAME")) parascope_collector_name_rank(0, r);
  if (o.mode == "spin") return run_spin(o);
  if (o.mode == "launch") return run_launch(o);
  if (o.mode == "crash") return run_crash(o);
  if (o.mode == "probe") return run_probe(o);
  if (o.mode == "peer") return run_peer(o);
  if (o.mode == "graph") return run_graph(o);
  std::fprintf(stderr, "unknown mode %s\n", o.mode.c_str());
  return 2;
}
