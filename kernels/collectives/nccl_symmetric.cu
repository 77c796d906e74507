#include "collectives/nccl_symmetric.h"

#include <cuda_bf16.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "device/cuda_check.h"
#include "device/device_ptx.cuh"

#if PARASCOPE_NCCL_DEVICE_API && defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= 22803 && \
    __has_include(<nccl_device.h>)
#define PS_NCCL_DEVICE_API 1
#include <nccl_device.h>
#else
#define PS_NCCL_DEVICE_API 0
#endif

namespace parascope::bench {

struct NcclSymmetric::State {
  std::vector<ncclComm_t> comms;
  std::vector<void*> in, out;
  std::vector<ncclWindow_t> in_win, out_win;
#if PS_NCCL_DEVICE_API
  std::vector<ncclDevComm> dev;
  std::vector<bool> dev_ok;
#endif
};

namespace {

// Runs f(r) for every rank at once, each on its own thread with device r current; the first
// error (by rank) wins.
template <class F>
std::string on_every_rank(int n, F f) {
  std::vector<std::string> errors(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        PS_CUDA(cudaSetDevice(r));
        f(r);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (!e.empty()) return e;
  return {};
}

#if PS_NCCL_DEVICE_API
constexpr int kUnroll = 4;

// Rank `me` owns vectors [me·per, (me+1)·per): it loads them from every rank's input window (LSA
// pointers; its own is local), sums in rank order in fp32 and stores the sum to every rank's
// output window. The first barrier says every rank's input is ready; the last, with acquire and
// release, that every store into my output has landed before the stream moves on.
template <typename T>
__global__ void __launch_bounds__(kNcclDevThreads) nccl_dev_all_reduce_kernel(ncclWindow_t in_win, ncclWindow_t out_win,
                                                                              uint64_t per, ncclDevComm comm) {
  ncclLsaBarrierSession<ncclCoopCta> bar{ncclCoopCta(), comm, ncclTeamLsa(comm), comm.lsaBarrier,
                                         static_cast<uint32_t>(blockIdx.x)};
  bar.sync(ncclCoopCta(), cuda::memory_order_relaxed);
  const ncclTeam team = ncclTeamLsa(comm);
  const int n = team.nRanks, me = team.rank;
  const size_t base = static_cast<size_t>(me) * per * 16;
  const int4* src[kMaxRanks];
  int4* dst[kMaxRanks];
  for (int p = 0; p < n; ++p) {
    src[p] = static_cast<const int4*>(ncclGetLsaPointer(in_win, base, p));
    dst[p] = static_cast<int4*>(ncclGetLsaPointer(out_win, base, p));
  }
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t v = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; v + (kUnroll - 1) * stride < per; v += kUnroll * stride) {
    float acc[kUnroll][8];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) vec_zero(acc[u]);
    for (int p = 0; p < n; ++p) {
      int4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = ld_cg(src[p] + v + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) vec_add<T>(acc[u], x[u]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int4 y = vec_pack<T>(acc[u]);
      for (int p = 0; p < n; ++p) dst[p][v + u * stride] = y;
    }
  }
  for (; v < per; v += stride) {
    float acc[8];
    vec_zero(acc);
    for (int p = 0; p < n; ++p) vec_add<T>(acc, ld_cg(src[p] + v));
    const int4 y = vec_pack<T>(acc);
    for (int p = 0; p < n; ++p) dst[p][v] = y;
  }
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}
#endif

}  // namespace

NcclSymmetric::NcclSymmetric(GpuContext& ctx, uint64_t bytes) : ctx_(ctx), st_(std::make_unique<State>()) {
  const int n = ctx.n();
  const size_t sz = std::max<size_t>(bytes, NCCL_WIN_REQUIRED_ALIGNMENT);
  try {
    for (int r = 0; r < n; ++r) st_->comms.push_back(ctx.nccl(r));
  } catch (const std::exception& e) {
    problem_ = e.what();
    return;
  }
  st_->in.assign(static_cast<size_t>(n), nullptr);
  st_->out.assign(static_cast<size_t>(n), nullptr);
  st_->in_win.assign(static_cast<size_t>(n), nullptr);
  st_->out_win.assign(static_cast<size_t>(n), nullptr);
  problem_ = on_every_rank(n, [&](int r) {
    const auto i = static_cast<size_t>(r);
    PS_NCCL(ncclMemAlloc(&st_->in[i], sz));
    PS_NCCL(ncclMemAlloc(&st_->out[i], sz));
    PS_NCCL(ncclCommWindowRegister(st_->comms[i], st_->in[i], sz, &st_->in_win[i], NCCL_WIN_COLL_SYMMETRIC));
    PS_NCCL(ncclCommWindowRegister(st_->comms[i], st_->out[i], sz, &st_->out_win[i], NCCL_WIN_COLL_SYMMETRIC));
  });
  if (!problem_.empty()) {
    device_problem_ = problem_;
    return;
  }
  in_.ptr.assign(st_->in.begin(), st_->in.end());
  out_.ptr.assign(st_->out.begin(), st_->out.end());
  in_.bytes = out_.bytes = sz;
#if PS_NCCL_DEVICE_API
  st_->dev.resize(static_cast<size_t>(n));
  st_->dev_ok.assign(static_cast<size_t>(n), false);
  const std::string why = on_every_rank(n, [&](int r) {
    const auto i = static_cast<size_t>(r);
    ncclDevCommRequirements req;
#ifdef NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER
    req = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
    std::memset(&req, 0, sizeof req);
#endif
    req.lsaBarrierCount = kNcclDevMaxBlocks;  // lsaMultimem stays false: no multicast objects
    PS_NCCL(ncclDevCommCreate(st_->comms[i], &req, &st_->dev[i]));
    st_->dev_ok[i] = true;
  });
  device_problem_ = why;
#else
  device_problem_ = "built without NCCL's device API (PARASCOPE_NCCL_DEVICE_API=OFF or NCCL < 2.28.3)";
#endif
}

NcclSymmetric::~NcclSymmetric() {
  const int n = static_cast<int>(st_->comms.size());
  if (n == 0) return;
  on_every_rank(n, [&](int r) {
    const auto i = static_cast<size_t>(r);
    cudaDeviceSynchronize();
#if PS_NCCL_DEVICE_API
    if (i < st_->dev_ok.size() && st_->dev_ok[i]) ncclDevCommDestroy(st_->comms[i], &st_->dev[i]);
#endif
    if (i < st_->in_win.size() && st_->in_win[i]) ncclCommWindowDeregister(st_->comms[i], st_->in_win[i]);
    if (i < st_->out_win.size() && st_->out_win[i]) ncclCommWindowDeregister(st_->comms[i], st_->out_win[i]);
    if (i < st_->in.size() && st_->in[i]) ncclMemFree(st_->in[i]);
    if (i < st_->out.size() && st_->out[i]) ncclMemFree(st_->out[i]);
  });
}

int NcclSymmetric::blocks(uint64_t bytes, int nranks) {
  const uint64_t per = bytes / 16 / static_cast<uint64_t>(nranks);
  const uint64_t want = (per + kNcclDevThreads * 4ull - 1) / (kNcclDevThreads * 4ull);
  return static_cast<int>(std::clamp<uint64_t>(want, 1, kNcclDevMaxBlocks));
}

void NcclSymmetric::launch_all_reduce(int r, DType t, uint64_t bytes, cudaStream_t s) const {
#if PS_NCCL_DEVICE_API
  const auto i = static_cast<size_t>(r);
  const int n = static_cast<int>(st_->comms.size());
  const uint64_t per = bytes / 16 / static_cast<uint64_t>(n);
  const int g = blocks(bytes, n);
  if (t == DType::kF32)
    nccl_dev_all_reduce_kernel<float><<<g, kNcclDevThreads, 0, s>>>(st_->in_win[i], st_->out_win[i], per, st_->dev[i]);
  else
    nccl_dev_all_reduce_kernel<__nv_bfloat16><<<g, kNcclDevThreads, 0, s>>>(st_->in_win[i], st_->out_win[i], per,
                                                                            st_->dev[i]);
  PS_LAUNCH();
#else
  (void)r, (void)t, (void)bytes, (void)s;
  throw CudaError(device_problem_);
#endif
}

}  // namespace parascope::bench
