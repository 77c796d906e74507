// parascope-collector-bench MODE [options]: the workloads the collector is measured with on the GPU
// machine (scripts/gpu/collector.sh). It knows nothing about the collector except the optional
// header-only API (probe hand-over, rank name); overhead is the same binary run with and without
// `parascope-cli record`. Each mode prints one JSON line on stdout.
//   spin   --kernels N --us U     N one-block kernels of U µs each: wall time of the whole loop
//   launch --kernels N --us U [--warmup W] [--batch B] [--cpu C]
//                                 host time per launch in steady state: W untimed launches first,
//                                 then batches of B launches that never fill the queue, each timed;
//                                 median and quartiles over batches (main thread pinned to CPU C);
//                                 --settle-ms S: idle S ms after the warm-up
//   launch ... --alternate N       (traced runs) the same in one process: N pairs of batches, one
//                                 with capture stopped (parascope_collector_stop: CUPTI activity
//                                 off) and one capturing, order alternating; each batch follows an
//                                 untimed batch after its toggle. Per pair: capturing − stopped.
//   launch ... --cupti-floor N      (untraced runs) what any CUPTI client costs here, in one process:
//                                 N rounds of four states in rotating order — no subscriber; a
//                                 subscriber with no callback; + the reset callbacks the collector
//                                 enables (cudaDeviceReset, cuCtxDestroy, cuDevicePrimaryCtxReset);
//                                 + CONCURRENT_KERNEL activity (buffers discarded). libcupti is
//                                 dlopen()ed only in this mode.
//   launch ... --bare-cupti         (untraced runs) the plain launch measurement with a minimal
//                                 CUPTI kernel tracer of the bench's own attached first
//                                 (subscriber + CONCURRENT_KERNEL, buffers freed unread): the cost
//                                 any CUPTI-based tracer pays per launch, against untraced runs.
//   crash  --how kill|abort|segv --kernels K --wait-ms W   K kernels, sync, wait W, K more, sync, die
//   probe  --kernels N --blocks B [--no-probe]  kernels writing one ProbeRecord per block through
//                                 parascope/probe.cuh, handed over to the collector (alignment)
//   probe-cost --kernels N --blocks B --shape end|chunks [--chunks C]  probe cost: the same kernel
//                                 without probes, with the first probe code (v1), probe.cuh's
//                                 ProbeSpan and ProbeReservedSpan, launches interleaved, one JSON
//                                 line per variant (median and quartiles of event times)
//   timer                         %globaltimer: smallest step, read cost in SM cycles
//   peer   --copies N --mib M      peer copies device 0 → 1 (needs 2 GPUs)
//   graph  --launches N           a 3-kernel CUDA graph launched N times
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "parascope/collector.h"
#include "parascope/probe.cuh"
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

// Fixed arithmetic work per block (~90 µs at 20 000 iterations, 264 blocks of 128 threads on an
// H200), optionally bracketed by a probe span that thread 0 ends (probe.cuh's ProbeSpan).
__device__ __forceinline__ void fma_work(float& x, float& y, int iters) {
  for (int i = 0; i < iters; ++i) {
    x = fmaf(x, 1.0000001f, y);
    y = fmaf(y, 0.9999999f, x);
  }
}

__global__ void probe_kernel(parascope::ProbeBufferHeader* header, int iters, bool probe, float* sink) {
  const parascope::ProbeSpan span;
  float x = threadIdx.x * 0.001f, y = blockIdx.x * 0.002f;
  fma_work(x, y, iters);
  if (x == 12345.f) sink[0] = y;  // keeps the loop
  __syncthreads();
  if (probe && threadIdx.x == 0) span.end(header, parascope::ProbeRole::kCompute, 0);
}

// The probe code as first measured (2026-11-30): atomic, then the capacity load, then the
// launch_id load, then the store, one after the other. Kept to compare with probe.cuh.
__device__ __forceinline__ void probe_emit_v1(parascope::ProbeBufferHeader* h, uint64_t t_start, uint64_t t_end,
                                              parascope::ProbeRole role, uint32_t tag) {
  if (h == nullptr) return;
  const uint32_t slot = atomicAdd(&h->next, 1u);
  if (slot >= h->capacity) return;
  parascope::ProbeRecord r;
  r.t_start_ns = t_start;
  r.t_end_ns = t_end;
  r.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  r.smid = static_cast<uint16_t>(smid());
  r.warp = 0xff;
  r.role = static_cast<uint8_t>(role);
  r.tag = tag;
  r.launch_id = h->launch_id;
  parascope::probe_records(h)[slot] = r;
}

// Probe cost kernel. V: 0 no probes, 1 v1 code, 2 probe.cuh ProbeSpan, 3 probe.cuh
// ProbeReservedSpan. chunks = 0: one span per block over the whole work, ended at the kernel's end
// (the first measurement's shape). chunks = C: like the project's fused kernels, C chunks, each a
// compute span (the work) and a communicate span (a store of the block's partial), every span
// ended by thread 0 and followed by a barrier: 2·C spans per block.
template <int V>
__global__ void probe_cost_kernel(parascope::ProbeBufferHeader* h, int iters, int chunks, float* sink) {
  using parascope::ProbeRole;
  float x = threadIdx.x * 0.001f, y = blockIdx.x * 0.002f;
  const bool t0 = threadIdx.x == 0;
  auto span_work = [&](int n, ProbeRole role, uint32_t tag, bool store) {
    if constexpr (V == 3) {
      const parascope::ProbeReservedSpan s(h, t0);
      if (store) sink[1 + blockIdx.x * blockDim.x + threadIdx.x] = x + y; else fma_work(x, y, n);
      __syncwarp();
      if (t0) s.end(role, tag);
    } else {
      [[maybe_unused]] uint64_t start = 0;
      if constexpr (V != 0) start = parascope::probe_now();
      if (store) sink[1 + blockIdx.x * blockDim.x + threadIdx.x] = x + y; else fma_work(x, y, n);
      __syncwarp();
      if constexpr (V == 1) if (t0) probe_emit_v1(h, start, parascope::probe_now(), role, tag);
      if constexpr (V == 2) if (t0) parascope::probe_emit(h, start, parascope::probe_now(), role, tag);
    }
    __syncthreads();
  };
  if (chunks <= 0) {
    span_work(iters, ProbeRole::kCompute, 0, false);
  } else {
    for (int c = 0; c < chunks; ++c) {
      span_work(iters / chunks, ProbeRole::kCompute, static_cast<uint32_t>(c), false);
      span_work(0, ProbeRole::kCommunicate, static_cast<uint32_t>(c), true);
    }
  }
  if (x == 12345.f) sink[0] = y;
}

__global__ void probe_reset_kernel(parascope::ProbeBufferHeader* h, uint32_t launch_id) {
  h->next = 0;
  h->launch_id = launch_id;
}

// %globaltimer: smallest non-zero step seen in 4096 back-to-back reads, and SM cycles per read.
__global__ void timer_kernel(unsigned long long* out) {
  uint64_t prev = globaltimer(), min_step = ~0ull, steps = 0;
  const long long c0 = clock64();
  for (int i = 0; i < 4096; ++i) {
    const uint64_t t = globaltimer();
    if (t != prev) {
      min_step = min(min_step, t - prev);
      ++steps;
    }
    prev = t;
  }
  const long long c1 = clock64();
  out[0] = min_step;
  out[1] = steps;
  out[2] = static_cast<unsigned long long>(c1 - c0);
}

struct Options {
  std::string mode;
  long kernels = 10000, us = 20, blocks = 264, copies = 20, mib = 64, launches = 5, wait_ms = 2500;
  long warmup = 2000, batch = 256, cpu = -1, chunks = 0, iters = 20000, settle_ms = 0, alternate = 0, cupti_floor = 0;
  bool bare_cupti = false;
  std::string how = "kill", shape = "end";
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
    else if (a == "--warmup") o.warmup = std::atol(next());
    else if (a == "--batch") o.batch = std::max(1L, std::atol(next()));
    else if (a == "--cpu") o.cpu = std::atol(next());
    else if (a == "--chunks") o.chunks = std::atol(next());
    else if (a == "--iters") o.iters = std::atol(next());
    else if (a == "--settle-ms") o.settle_ms = std::atol(next());
    else if (a == "--alternate") o.alternate = std::atol(next());
    else if (a == "--cupti-floor") o.cupti_floor = std::atol(next());
    else if (a == "--bare-cupti") o.bare_cupti = true;
    else if (a == "--shape") o.shape = next();
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

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// Host time per launch in steady state. The W warm-up launches take CUPTI's and the collector's
// one-time costs (first activity buffer, device buffers, lazy module work) out of the numbers; the
// main thread is pinned only after CUDA (and an injected collector with its threads) started, so
// those threads keep the whole CPU set. Each batch ends with a synchronize, outside its timing.
// A bare CUPTI client for --cupti-floor: the entry points from the libcupti the CUDA toolkit has.
struct BareCupti {
  void* lib = nullptr;
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUpti_SubscriberHandle sub = nullptr;
  bool load() {
#ifdef PARASCOPE_CUPTI_BUILD_PATH
    const char* built = PARASCOPE_CUPTI_BUILD_PATH;
#else
    const char* built = "libcupti.so";
#endif
    for (const char* n : {"libcupti.so.13", built, "libcupti.so"})
      if ((lib = dlopen(n, RTLD_NOW | RTLD_GLOBAL))) break;
    if (!lib) return false;
    subscribe = reinterpret_cast<decltype(subscribe)>(dlsym(lib, "cuptiSubscribe"));
    unsubscribe = reinterpret_cast<decltype(unsubscribe)>(dlsym(lib, "cuptiUnsubscribe"));
    enable_callback = reinterpret_cast<decltype(enable_callback)>(dlsym(lib, "cuptiEnableCallback"));
    activity_enable = reinterpret_cast<decltype(activity_enable)>(dlsym(lib, "cuptiActivityEnable"));
    activity_disable = reinterpret_cast<decltype(activity_disable)>(dlsym(lib, "cuptiActivityDisable"));
    register_callbacks = reinterpret_cast<decltype(register_callbacks)>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
    flush_all = reinterpret_cast<decltype(flush_all)>(dlsym(lib, "cuptiActivityFlushAll"));
    return subscribe && unsubscribe && enable_callback && activity_enable && activity_disable && register_callbacks &&
           flush_all;
  }
  static void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}
  static void CUPTIAPI on_request(uint8_t** buf, size_t* size, size_t* max) {
    *size = 8u << 20;
    *buf = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max = 0;
  }
  static void CUPTIAPI on_complete(CUcontext, uint32_t, uint8_t* buf, size_t, size_t) { std::free(buf); }
  // 0 none, 1 subscribed, 2 + reset callbacks, 3 + kernel activity
  void set_state(int s) {
    if (sub) {
      activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      flush_all(1);
      unsubscribe(sub);
      sub = nullptr;
    }
    if (s == 0) return;
    if (subscribe(&sub, on_callback, nullptr) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "cuptiSubscribe failed\n");
      std::exit(3);
    }
    if (s >= 2) {
      enable_callback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
      for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
                                  CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2})
        enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
    if (s >= 3) {
      register_callbacks(on_request, on_complete);
      activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
  }
};

int run_launch(const Options& o) {
  BareCupti bare;
  if (o.bare_cupti) {  // attached before the context exists, as an injected tracer is
    if (!bare.load()) {
      std::fprintf(stderr, "libcupti not found or incomplete\n");
      return 3;
    }
    bare.set_state(3);
  }
  CHECK_CUDA(cudaSetDevice(0));
  spin_kernel<<<1, 32>>>(1000);
  CHECK_CUDA(cudaDeviceSynchronize());
  int pinned = -1;
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<int>(o.cpu), &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0) pinned = static_cast<int>(o.cpu);
  }
  const uint64_t ns = static_cast<uint64_t>(o.us) * 1000;
  auto batch_ns = [&](long n) {  // n launches, ns per launch; then waits for them
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) spin_kernel<<<1, 32>>>(ns);
    const double s = seconds_since(t0);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    return s * 1e9 / static_cast<double>(n);
  };
  for (long done = 0; done < o.warmup; done += o.batch) batch_ns(std::min(o.batch, o.warmup - done));
  // idle with every kernel complete: a periodic CUPTI flush (it only delivers buffers whose
  // records are all complete) hands the warm-up's records over, as a real program's pauses do
  if (o.settle_ms > 0) usleep(static_cast<useconds_t>(o.settle_ms) * 1000);
  if (o.cupti_floor > 0) {
    BareCupti c;
    if (!c.load()) {
      std::fprintf(stderr, "libcupti not found or incomplete\n");
      return 3;
    }
    std::vector<double> t[4];
    for (long i = 0; i < o.cupti_floor; ++i)
      for (int k = 0; k < 4; ++k) {
        const int s = static_cast<int>((k + i) % 4);
        c.set_state(s);
        batch_ns(o.batch);
        t[s].push_back(batch_ns(o.batch));
      }
    c.set_state(0);
    std::vector<double> d[4];
    for (int s = 1; s < 4; ++s)
      for (size_t i = 0; i < t[0].size(); ++i) d[s].push_back(t[s][i] - t[0][i]);
    std::printf("{\"mode\":\"cupti_floor\",\"rounds\":%ld,\"batch\":%ld,\"cpu\":%d,\"none_ns\":%.1f,"
                "\"subscribed_ns\":%.1f,\"reset_callbacks_ns\":%.1f,\"kernel_activity_ns\":%.1f,"
                "\"d_subscribed\":%.1f,\"d_reset_callbacks\":%.1f,\"d_kernel_activity\":%.1f,"
                "\"d_kernel_activity_p25\":%.1f,\"d_kernel_activity_p75\":%.1f}\n",
                o.cupti_floor, o.batch, pinned, quantile(t[0], 0.5), quantile(t[1], 0.5), quantile(t[2], 0.5),
                quantile(t[3], 0.5), quantile(d[1], 0.5), quantile(d[2], 0.5), quantile(d[3], 0.5),
                quantile(d[3], 0.25), quantile(d[3], 0.75));
    return 0;
  }
  if (o.alternate > 0) {
    // Batch-level pairs in one process: the same pinned thread, warm caches and driver state; only
    // the capture differs. The toggles (a flush on stop) stay outside the timed batches.
    std::vector<double> on, off, diff;
    for (long i = 0; i < o.alternate; ++i) {
      double t[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        const bool capturing = (k + i) % 2 == 1;
        capturing ? parascope_collector_start("alternate on") : parascope_collector_stop("alternate off");
        batch_ns(o.batch);
        t[capturing ? 1 : 0] = batch_ns(o.batch);
      }
      off.push_back(t[0]);
      on.push_back(t[1]);
      diff.push_back(t[1] - t[0]);
    }
    parascope_collector_start("alternate end");
    std::printf("{\"mode\":\"launch_alternate\",\"pairs\":%ld,\"batch\":%ld,\"cpu\":%d,\"stopped_ns\":%.1f,"
                "\"capturing_ns\":%.1f,\"diff_ns\":%.1f,\"diff_p25\":%.1f,\"diff_p75\":%.1f,\"traced\":%d}\n",
                o.alternate, o.batch, pinned, quantile(off, 0.5), quantile(on, 0.5), quantile(diff, 0.5),
                quantile(diff, 0.25), quantile(diff, 0.75), parascope_collector_status());
    return 0;
  }
  std::vector<double> per_batch;
  double total_ns = 0;
  long done = 0;
  while (done < o.kernels) {
    const long n = std::min(o.batch, o.kernels - done);
    const double v = batch_ns(n);
    if (n == o.batch) per_batch.push_back(v);
    total_ns += v * static_cast<double>(n);
    done += n;
  }
  std::printf("{\"mode\":\"launch\",\"kernels\":%ld,\"warmup\":%ld,\"batch\":%ld,\"batches\":%zu,\"cpu\":%d,"
              "\"ns_per_launch\":%.1f,\"p25\":%.1f,\"p75\":%.1f,\"mean\":%.1f,\"max\":%.1f,\"traced\":%d}\n",
              o.kernels, o.warmup, o.batch, per_batch.size(), pinned, quantile(per_batch, 0.5), quantile(per_batch, 0.25),
              quantile(per_batch, 0.75), total_ns / static_cast<double>(std::max(1L, o.kernels)),
              per_batch.empty() ? 0.0 : *std::max_element(per_batch.begin(), per_batch.end()), parascope_collector_status());
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
  const int iters = static_cast<int>(o.iters);  // ~ 90 µs per kernel on an H200 at 20 000
  probe_kernel<<<static_cast<unsigned>(o.blocks), 128>>>(header, 10, false, sink);  // warm-up
  CHECK_CUDA(cudaDeviceSynchronize());
  double gpu_ms = 0;
  long submitted = 0, spans = 0;
  for (long k = 0; k < o.kernels; ++k) {
    parascope::ProbeBufferHeader h{parascope::kProbeMagic, capacity, 0, static_cast<uint32_t>(k)};
    CHECK_CUDA(cudaMemcpy(dev, &h, sizeof h, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaEventRecord(a));
    probe_kernel<<<static_cast<unsigned>(o.blocks), 128>>>(header, iters, o.probe, sink);
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

// Probe cost: four variants of one kernel, launched round-robin back to back (no host work or
// idle GPU between them, so clocks and caches treat them alike), each timed with events; the
// header is reset by a memset outside the events. After the loop every probed variant's last
// buffer must hold exactly blocks × spans-per-block records, each with a sane block, time order
// and launch id.
int run_probe_cost(const Options& o) {
  CHECK_CUDA(cudaSetDevice(0));
  constexpr int kVariants = 4;
  const char* names[kVariants] = {"none", "v1", "span", "reserved"};
  const int chunks = o.shape == "chunks" ? static_cast<int>(std::max(1L, o.chunks)) : 0;
  const uint32_t per_block = chunks ? 2u * static_cast<uint32_t>(chunks) : 1u;
  const uint32_t capacity = static_cast<uint32_t>(o.blocks) * per_block;
  const size_t bytes = sizeof(parascope::ProbeBufferHeader) + capacity * sizeof(parascope::ProbeRecord);
  char* buf[kVariants] = {};
  for (auto& p : buf) CHECK_CUDA(cudaMalloc(&p, bytes));
  float* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&sink, (1 + static_cast<size_t>(o.blocks) * 128) * sizeof(float)));
  const int iters = static_cast<int>(o.iters);
  const unsigned grid = static_cast<unsigned>(o.blocks);
  auto launch = [&](int v, parascope::ProbeBufferHeader* h) {
    switch (v) {
      case 0: probe_cost_kernel<0><<<grid, 128>>>(h, iters, chunks, sink); break;
      case 1: probe_cost_kernel<1><<<grid, 128>>>(h, iters, chunks, sink); break;
      case 2: probe_cost_kernel<2><<<grid, 128>>>(h, iters, chunks, sink); break;
      default: probe_cost_kernel<3><<<grid, 128>>>(h, iters, chunks, sink); break;
    }
  };
  std::vector<parascope::ProbeBufferHeader> hdr(kVariants);
  for (int v = 0; v < kVariants; ++v) {
    hdr[v] = {parascope::kProbeMagic, capacity, 0, 0};
    CHECK_CUDA(cudaMemcpy(buf[v], &hdr[v], sizeof hdr[v], cudaMemcpyHostToDevice));
    launch(v, reinterpret_cast<parascope::ProbeBufferHeader*>(buf[v]));  // warm-up
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  const long n = o.kernels;
  std::vector<cudaEvent_t> ev(static_cast<size_t>(2 * n * kVariants));
  for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));
  for (long k = 0; k < n; ++k) {
    for (int j = 0; j < kVariants; ++j) {
      const int v = static_cast<int>((j + k) % kVariants);  // rotate which variant goes first
      // next = 0 and launch_id = k for this launch, outside the timed region
      probe_reset_kernel<<<1, 1>>>(reinterpret_cast<parascope::ProbeBufferHeader*>(buf[v]), static_cast<uint32_t>(k));
      const size_t e = static_cast<size_t>(2 * (k * kVariants + v));
      CHECK_CUDA(cudaEventRecord(ev[e]));
      launch(v, reinterpret_cast<parascope::ProbeBufferHeader*>(buf[v]));
      CHECK_CUDA(cudaEventRecord(ev[e + 1]));
    }
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::vector<double>> ms(kVariants);
  for (long k = 0; k < n; ++k)
    for (int v = 0; v < kVariants; ++v) {
      float t = 0;
      const size_t e = static_cast<size_t>(2 * (k * kVariants + v));
      CHECK_CUDA(cudaEventElapsedTime(&t, ev[e], ev[e + 1]));
      ms[v].push_back(t);
    }
  const double base = quantile(ms[0], 0.5);
  for (int v = 0; v < kVariants; ++v) {
    std::vector<uint8_t> host(bytes);
    CHECK_CUDA(cudaMemcpy(host.data(), buf[v], bytes, cudaMemcpyDeviceToHost));
    parascope::ProbeBufferHeader back;
    std::memcpy(&back, host.data(), sizeof back);
    long bad = 0;
    const uint32_t filled = std::min(back.next, back.capacity);
    for (uint32_t i = 0; v > 0 && i < filled; ++i) {
      parascope::ProbeRecord r;
      std::memcpy(&r, host.data() + sizeof back + i * sizeof r, sizeof r);
      bad += r.block >= static_cast<uint32_t>(o.blocks) || r.t_end_ns < r.t_start_ns || r.t_start_ns == 0 ||
             r.launch_id != static_cast<uint32_t>(n - 1) || r.warp != 0xff;
    }
    const double med = quantile(ms[v], 0.5);
    std::printf("{\"mode\":\"probe-cost\",\"shape\":\"%s\",\"chunks\":%d,\"blocks\":%ld,\"iters\":%d,"
                "\"variant\":\"%s\",\"kernels\":%ld,\"ms_median\":%.5f,\"ms_p25\":%.5f,\"ms_p75\":%.5f,"
                "\"overhead\":%.5f,\"spans_per_kernel\":%u,\"spans_expected\":%u,\"bad_records\":%ld}\n",
                o.shape.c_str(), chunks, o.blocks, iters, names[v], n, med, quantile(ms[v], 0.25), quantile(ms[v], 0.75),
                med / base - 1, v ? back.next : 0u, v ? capacity : 0u, bad);
  }
  for (auto& e : ev) cudaEventDestroy(e);
  for (auto& p : buf) cudaFree(p);
  cudaFree(sink);
  return 0;
}

int run_timer(const Options&) {
  CHECK_CUDA(cudaSetDevice(0));
  unsigned long long* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 3 * sizeof *d));
  timer_kernel<<<1, 1>>>(d);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  timer_kernel<<<1, 1>>>(d);  // the second run: code and clocks warm
  unsigned long long h[3] = {};
  CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("{\"mode\":\"timer\",\"min_step_ns\":%llu,\"steps_in_4096_reads\":%llu,\"cycles_per_read\":%.1f,"
              "\"traced\":%d}\n",
              h[0], h[1], static_cast<double>(h[2]) / 4096.0, parascope_collector_status());
  cudaFree(d);
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
  if (o.mode == "probe-cost") return run_probe_cost(o);
  if (o.mode == "timer") return run_timer(o);
  if (o.mode == "peer") return run_peer(o);
  if (o.mode == "graph") return run_graph(o);
  std::fprintf(stderr, "unknown mode %s\n", o.mode.c_str());
  return 2;
}
