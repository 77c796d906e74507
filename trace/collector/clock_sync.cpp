#include "trace/collector/clock_sync.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace parascope::collector {

namespace {

constexpr uint32_t kExchanges = 32;

// entry(flag, out, n, entry): records %globaltimer at entry, then for i < n waits until the host
// sets flag >= i + 1 and stores %globaltimer in out[i]. Gives up 2 s after entry.
constexpr const char* kPtx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry parascope_clock_sync(
  .param .u64 p_flag,
  .param .u64 p_out,
  .param .u32 p_n,
  .param .u64 p_entry)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;

  mov.u64 %rd1, %globaltimer;
  ld.param.u64 %rd2, [p_flag];
  ld.param.u64 %rd3, [p_out];
  ld.param.u32 %r1, [p_n];
  ld.param.u64 %rd4, [p_entry];
  st.volatile.global.u64 [%rd4], %rd1;
  membar.sys;
  add.u64 %rd9, %rd1, 2000000000;
  mov.u32 %r2, 0;
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  add.u32 %r3, %r2, 1;
WAIT:
  ld.volatile.global.u32 %r4, [%rd2];
  setp.ge.u32 %p2, %r4, %r3;
  @%p2 bra GOT;
  mov.u64 %rd10, %globaltimer;
  setp.gt.u64 %p3, %rd10, %rd9;
  @%p3 bra DONE;
  bra WAIT;
GOT:
  mov.u64 %rd5, %globaltimer;
  mul.wide.u32 %rd6, %r2, 8;
  add.u64 %rd7, %rd3, %rd6;
  st.volatile.global.u64 [%rd7], %rd5;
  membar.sys;
  mov.u32 %r2, %r3;
  bra LOOP;
DONE:
  ret;
}

// out[block.x - 1] = {globaltimer at entry, globaltimer at the end}; thread (0, 0) writes.
.visible .entry parascope_clock_bracket(
  .param .u64 p_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;

  mov.u64 %rd1, %globaltimer;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  or.b32 %r3, %r1, %r2;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra BDONE;
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r4, %ntid.x;
  sub.u32 %r5, %r4, 1;
  mul.wide.u32 %rd3, %r5, 16;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u64 [%rd4], %rd1;
  mov.u64 %rd5, %globaltimer;
  st.global.u64 [%rd4+8], %rd5;
BDONE:
  ret;
}
)";

struct ModuleCache {
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUfunction bracket = nullptr;
};

// The module with both kernels for `ctx` (cached per thread and context).
ModuleCache* module_for(const DriverApi& d, CUcontext ctx, std::string* error) {
  static thread_local ModuleCache cache[8];
  ModuleCache* m = nullptr;
  for (auto& c : cache)
    if (c.ctx == ctx) return &c;
  for (auto& c : cache)
    if (!c.ctx) m = &c;
  if (!m) m = &cache[0];
  m->ctx = nullptr;
  if (CUresult r = d.cuModuleLoadData(&m->module, kPtx); r != CUDA_SUCCESS) {
    if (error) *error = "cuModuleLoadData: " + d.error(r);
    return nullptr;
  }
  if (CUresult r = d.cuModuleGetFunction(&m->fn, m->module, "parascope_clock_sync"); r != CUDA_SUCCESS) {
    if (error) *error = "cuModuleGetFunction: " + d.error(r);
    return nullptr;
  }
  if (CUresult r = d.cuModuleGetFunction(&m->bracket, m->module, "parascope_clock_bracket"); r != CUDA_SUCCESS) {
    if (error) *error = "cuModuleGetFunction: " + d.error(r);
    return nullptr;
  }
  m->ctx = ctx;
  return m;
}

}  // namespace

bool measure_clock_offset(const DriverApi& d, CUcontext ctx, const std::function<uint64_t()>& now, ClockOffset* out,
                          std::string* error) {
  auto fail = [&](const char* what, CUresult r) {
    if (error) *error = std::string(what) + ": " + d.error(r);
    return false;
  };
  CUcontext previous = nullptr;
  d.cuCtxGetCurrent(&previous);
  if (CUresult r = d.cuCtxSetCurrent(ctx); r != CUDA_SUCCESS) return fail("cuCtxSetCurrent", r);
  struct Restore {
    const DriverApi& d;
    CUcontext c;
    ~Restore() { d.cuCtxSetCurrent(c); }
  } restore{d, previous};

  ModuleCache* m = module_for(d, ctx, error);
  if (!m) return false;

  // host memory the kernel reads and writes through the bus: [flag u32 | pad][entry u64][out u64 × n]
  void* host = nullptr;
  const size_t bytes = 16 + 8 * kExchanges;
  if (CUresult r = d.cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
      r != CUDA_SUCCESS)
    return fail("cuMemHostAlloc", r);
  auto* flag = static_cast<volatile uint32_t*>(host);
  auto* entry = reinterpret_cast<volatile uint64_t*>(static_cast<char*>(host) + 8);
  auto* vals = reinterpret_cast<volatile uint64_t*>(static_cast<char*>(host) + 16);
  *flag = 0;
  *entry = 0;
  for (uint32_t i = 0; i < kExchanges; ++i) vals[i] = 0;
  CUdeviceptr dev = 0;
  if (CUresult r = d.cuMemHostGetDevicePointer(&dev, host, 0); r != CUDA_SUCCESS) {
    d.cuMemFreeHost(host);
    return fail("cuMemHostGetDevicePointer", r);
  }
  CUstream stream = nullptr;
  if (CUresult r = d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
    d.cuMemFreeHost(host);
    return fail("cuStreamCreate", r);
  }
  CUdeviceptr p_flag = dev, p_entry = dev + 8, p_out = dev + 16;
  uint32_t n = kExchanges;
  void* args[] = {&p_flag, &p_out, &n, &p_entry};
  if (CUresult r = d.cuLaunchKernel(m->fn, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr); r != CUDA_SUCCESS) {
    d.cuStreamDestroy(stream);
    d.cuMemFreeHost(host);
    return fail("cuLaunchKernel(parascope_clock_sync)", r);
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (*entry == 0) {
    if (Clock::now() > deadline) {
      // the kernel may still start later and write into `host`: leave the memory and stream alone
      if (error) *error = "the clock-sync kernel did not start within 2 s (device busy)";
      return false;
    }
    std::this_thread::yield();
  }
  ClockOffset best;
  uint64_t best_window = UINT64_MAX;
  uint32_t good = 0;
  for (uint32_t i = 0; i < kExchanges; ++i) {
    const uint64_t t0 = now();
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *flag = i + 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    while (vals[i] == 0 && Clock::now() < deadline) {
    }
    const uint64_t t1 = now();
    const uint64_t g = vals[i];
    if (g == 0) break;
    ++good;
    const uint64_t window = t1 - t0;
    if (window < best_window) {
      best_window = window;
      best.cupti_minus_globaltimer_ns = static_cast<int64_t>(t0 + window / 2) - static_cast<int64_t>(g);
      best.measured_at_ns = t0;
      best.window_lo_ns = static_cast<int64_t>(t0) - static_cast<int64_t>(g);
      best.window_hi_ns = static_cast<int64_t>(t1) - static_cast<int64_t>(g);
    }
  }
  if (good < kExchanges) {
    *flag = kExchanges;  // release the kernel
    if (error) *error = "the clock-sync kernel answered " + std::to_string(good) + " of " + std::to_string(kExchanges);
    if (good == 0) return false;
  }
  d.cuStreamSynchronize(stream);
  d.cuStreamDestroy(stream);
  d.cuMemFreeHost(host);
  best.uncertainty_ns = best_window / 2;
  best.samples = good;
  *out = best;
  return true;
}

bool launch_clock_brackets(const DriverApi& d, CUcontext ctx, uint32_t round, uint32_t count,
                           std::vector<BracketReading>* out, std::string* error) {
  if (round < 1 || round > 64 || count < 1 || count > 16) {
    if (error) *error = "bracket round 1..64 and count 1..16";
    return false;
  }
  CUcontext previous = nullptr;
  d.cuCtxGetCurrent(&previous);
  if (CUresult r = d.cuCtxSetCurrent(ctx); r != CUDA_SUCCESS) {
    if (error) *error = "cuCtxSetCurrent: " + d.error(r);
    return false;
  }
  struct Restore {
    const DriverApi& d;
    CUcontext c;
    ~Restore() { d.cuCtxSetCurrent(c); }
  } restore{d, previous};
  ModuleCache* m = module_for(d, ctx, error);
  if (!m) return false;
  CUdeviceptr dev = 0;
  if (CUresult r = d.cuMemAlloc(&dev, 16 * count); r != CUDA_SUCCESS) {
    if (error) *error = "cuMemAlloc: " + d.error(r);
    return false;
  }
  CUstream stream = nullptr;
  if (CUresult r = d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
    d.cuMemFree(dev);
    if (error) *error = "cuStreamCreate: " + d.error(r);
    return false;
  }
  bool ok = true;
  for (uint32_t i = 0; i < count && ok; ++i) {
    void* args[] = {&dev};
    // one kernel at a time: each starts on an idle stream, so its head is as short as it gets
    if (CUresult r = d.cuLaunchKernel(m->bracket, 1, 1, 1, i + 1, round, 1, 0, stream, args, nullptr);
        r != CUDA_SUCCESS || (r = d.cuStreamSynchronize(stream)) != CUDA_SUCCESS) {
      if (error) *error = "parascope_clock_bracket: " + d.error(r);
      ok = false;
    }
  }
  std::vector<uint64_t> host(2 * count, 0);
  if (ok) {
    if (CUresult r = d.cuMemcpyDtoH(host.data(), dev, 16 * count); r != CUDA_SUCCESS) {
      if (error) *error = "cuMemcpyDtoH: " + d.error(r);
      ok = false;
    }
  }
  d.cuStreamDestroy(stream);
  d.cuMemFree(dev);
  if (!ok) return false;
  out->assign(count, {});
  for (uint32_t i = 0; i < count; ++i) (*out)[i] = {host[2 * i], host[2 * i + 1]};
  return true;
}

}  // namespace parascope::collector
