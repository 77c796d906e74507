// libparascope_pkb_kernels.so: the C interface of pkb_kernels.h over Parascope's collective
// kernels. The only kernel-facing file of the pkb suite: it builds the SyncView and CollBuffers the
// launchers take from the peer addresses the caller passes, and turns every C++ error into a
// return code (nothing may unwind into Python's ctypes).
#include "pkb/pkb_kernels.h"

#include <cuda_runtime.h>

#include <exception>
#include <string>

#include "collectives/collectives.h"
#include "device/sync_ops.h"

namespace {

thread_local std::string g_error;

using parascope::bench::CollBuffers;
using parascope::bench::DType;
using parascope::bench::SyncArea;
using parascope::bench::SyncView;
using parascope::bench::kMaxRanks;

int fail(const std::string& why) {
  g_error = why;
  return -1;
}

bool check_ranks(int rank, int nranks) {
  if (nranks < 1 || nranks > kMaxRanks) {
    g_error = "nranks " + std::to_string(nranks) + " outside 1.." + std::to_string(kMaxRanks);
    return false;
  }
  if (rank < 0 || rank >= nranks) {
    g_error = "rank " + std::to_string(rank) + " outside 0.." + std::to_string(nranks - 1);
    return false;
  }
  return true;
}

SyncView view(const uint64_t* sync, int rank, int nranks, int channel) {
  SyncView v{};
  auto area = [&](int p) { return reinterpret_cast<SyncArea*>(static_cast<uintptr_t>(sync[p])); };
  v.self = &area(rank)->ch[channel];
  for (int p = 0; p < kMaxRanks; ++p) v.peer[p] = p < nranks ? &area(p)->ch[channel] : nullptr;
  v.error = &area(rank)->error;
  v.rank = rank;
  v.nranks = nranks;
  v.channel = channel;
  return v;
}

CollBuffers buffers(const uint64_t* in, const uint64_t* out, const uint64_t* scratch, int nranks) {
  CollBuffers b{};
  for (int p = 0; p < nranks; ++p) {
    b.in[p] = in ? reinterpret_cast<void*>(static_cast<uintptr_t>(in[p])) : nullptr;
    b.out[p] = out ? reinterpret_cast<void*>(static_cast<uintptr_t>(out[p])) : nullptr;
    b.scratch[p] = scratch ? reinterpret_cast<void*>(static_cast<uintptr_t>(scratch[p])) : nullptr;
  }
  return b;
}

int sms_or_all(int max_sms) {
  if (max_sms > 0) return max_sms;
  int dev = 0, n = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
  return n;
}

bool sized(uint64_t bytes, int nranks) {
  if (bytes == 0 || bytes % (16ull * static_cast<uint64_t>(nranks)) != 0) {
    g_error = "bytes " + std::to_string(bytes) + " is not a positive multiple of 16 x nranks";
    return false;
  }
  return true;
}

int launched() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : fail(std::string("launch failed: ") + cudaGetErrorString(e));
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace

extern "C" {

int parascope_pkb_abi_version(void) { return PARASCOPE_PKB_ABI_VERSION; }
uint64_t parascope_pkb_sync_bytes(void) { return sizeof(SyncArea); }
const char* parascope_pkb_last_error(void) { return g_error.c_str(); }

int parascope_pkb_preload(void) {
  return guarded([] {
    parascope::bench::preload_collective_kernels();
    parascope::bench::preload_sync_kernels();
    return 0;
  });
}

int parascope_pkb_all_reduce(int algo, int rank, int nranks, const uint64_t* in, const uint64_t* out,
                             const uint64_t* scratch, const uint64_t* sync, int dtype, uint64_t bytes, int max_sms,
                             uint64_t stream) {
  if (!check_ranks(rank, nranks) || !sized(bytes, nranks)) return -1;
  return guarded([&] {
    const DType t = dtype == 0 ? DType::kF32 : DType::kBF16;
    const auto s = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream));
    if (algo == 0) {
      parascope::bench::launch_ar_oneshot_pull(view(sync, rank, nranks, parascope::bench::kChOneShotPull),
                                               buffers(in, out, nullptr, nranks), t, bytes, sms_or_all(max_sms), s);
    } else if (algo == 1) {
      if (!scratch) return fail("two-shot all-reduce needs a scratch buffer");
      parascope::bench::launch_twoshot_ldst(view(sync, rank, nranks, parascope::bench::kChTwoShotLdst),
                                            buffers(in, out, scratch, nranks), t, true, bytes, sms_or_all(max_sms), s);
    } else {
      return fail("all-reduce algo " + std::to_string(algo) + " (0: one-shot pull, 1: two-shot LD/ST)");
    }
    return launched();
  });
}

int parascope_pkb_all_gather(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                             uint64_t bytes, int max_sms, uint64_t stream) {
  if (!check_ranks(rank, nranks) || !sized(bytes, nranks)) return -1;
  return guarded([&] {
    parascope::bench::launch_ag_ldst(view(sync, rank, nranks, parascope::bench::kChAllGatherLdst),
                                     buffers(in, out, nullptr, nranks), bytes, sms_or_all(max_sms),
                                     reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream)));
    return launched();
  });
}

int parascope_pkb_reduce_scatter(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                                 int dtype, uint64_t bytes, int max_sms, uint64_t stream) {
  if (!check_ranks(rank, nranks) || !sized(bytes, nranks)) return -1;
  return guarded([&] {
    parascope::bench::launch_rs_pull(view(sync, rank, nranks, parascope::bench::kChReduceScatterPull),
                                     buffers(in, out, nullptr, nranks), dtype == 0 ? DType::kF32 : DType::kBF16, bytes,
                                     sms_or_all(max_sms), reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream)));
    return launched();
  });
}

int parascope_pkb_all_to_all(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                             uint64_t bytes, int max_sms, uint64_t stream) {
  if (!check_ranks(rank, nranks) || !sized(bytes, nranks)) return -1;
  return guarded([&] {
    parascope::bench::launch_a2a_ldst(view(sync, rank, nranks, parascope::bench::kChAllToAllLdst),
                                      buffers(in, out, nullptr, nranks), bytes, sms_or_all(max_sms),
                                      reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream)));
    return launched();
  });
}

}  // extern "C"
