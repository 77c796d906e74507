// A hand-built trace of PKB's worker as the collector records it (utils/performance.py's loop),
// shared by the pkb tests; every expected value is worked out from the timeline drawn here.
//
//   thread (rank 0)     the shape hook's start-up cudaDeviceSynchronize [500, 600)
//                       first call                       warm-up      timed loop (4 iterations)
//     NVTX aten::mm [1000, 3000)  c10d::allreduce_ [3000, 4000)       at h_k = 50000 + 20000 k, k = 0..4:
//     launch gemm 1100, launch nccl 3100                               cudaEventCreateWithFlags [h_k, +50)
//                                                                      cudaGetDevice [h_k + 60, +30)
//     cudaDeviceSynchronize [4000, 32000)                              cudaEventRecord [h_k + 100, +100)
//                                   launch gemm 32500                  (k < 4) launch gemm h_k + 300, nccl h_k + 500
//                                   cudaDeviceSynchronize [40000, 41000)   sync [h_4 + 300, 171000), then 5 x
//                                                                      (cudaGetDevice, cudaEventElapsedTime)
//   GPU 0 stream 7      gemm [1300, 11300) nccl [11300, 31300)   gemm [33000, 43000)
//                       timed: gemm [g_k, g_k + 10000), nccl [g_k + 10000, g_k + 30000), g_k = 50500 + 30000 k
// The GPU is the bottleneck in the loop (30 us of work per iteration, the host enqueues one every
// 20 us), so iterations run back to back: the loop's window is [50200 (event 0 recorded),
// 170500 (last nccl end)) = 120300 ns, 30075 per iteration: gemm 10000, nccl 20000, idle 75.
#pragma once

#include "trace/core/trace_builder.h"

namespace parascope::test {

struct PkbLoopTrace {
  Trace trace;
  uint32_t thread = 0, stream = 0;
};

// c10d_events: after each timed iteration's nccl launch, c10d's own event as ProcessGroupNCCL makes
// it at world 1 on the H200: cudaEventCreateWithFlags [h_k + 700, +30), cudaGetDevice [h_k + 740,
// +10), cudaEventRecord [h_k + 760, +30), cudaEventDestroy [h_k + 800, +30) - not a PKB event.
// kept_events: after that, an event the call keeps (a work's end event, a task's stream event):
// cudaEventCreateWithFlags [h_k + 900, +30), cudaGetDevice [h_k + 940, +10), cudaEventRecord
// [h_k + 960, +30), never destroyed in the loop - in every iteration k with k % kept_every == 0
// (0: none; 1: one per iteration between PKB's; 2: iterations 0 and 2 only).
inline PkbLoopTrace make_pkb_loop_trace(bool c10d_events = false, int kept_every = 0) {
  TraceBuilder b;
  Process p;
  p.rank = 0;
  p.pid = 4242;
  p.name = "python3";
  const uint32_t proc = b.add_process(p);
  Device d;
  d.process = proc;
  d.ordinal = 0;
  d.name = "NVIDIA H200";
  const auto dev = static_cast<int32_t>(b.add_device(d));
  PkbLoopTrace out;
  out.thread = b.track({TrackKind::kCpuThread, proc, -1, 100}, "thread 100");
  out.stream = b.track({TrackKind::kGpuStream, proc, dev, 7}, "stream 7");
  uint32_t corr = 1;
  auto api = [&](const char* name, TimeNs start, TimeNs dur) {
    return b.add_slice(out.thread, start, dur, b.intern(name), b.add_api_call({corr++, 0, 0}));
  };
  auto kernel = [&](const char* name, TimeNs start, TimeNs dur) {
    return b.add_slice(out.stream, start, dur, b.intern(name), b.add_kernel({kNone32, corr, 0, {}}));
  };
  auto nvtx = [&](const char* name, TimeNs start, TimeNs dur) {
    b.add_slice(out.thread, start, dur, b.intern(name), b.add_nvtx({}));
  };
  auto allreduce = [&](EventRef k) {
    CollectiveInfo c;
    c.op = CollectiveOp::kAllReduce;
    c.dtype_bytes = 2;
    c.group_size = 2;
    c.rank = 0;
    c.dtype = b.intern("bf16");
    c.in_elements = c.out_elements = 1024 * 1024;
    c.kernel = k;
    b.add_collective(c);
  };
  const char* kGemm = "nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NNT";
  const char* kNccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
  api("cudaDeviceSynchronize", 500, 100);  // emit_nvtx's __enter__ (the shape hook), nothing launched yet
  // first call
  nvtx("aten::mm, seq = 0, op_id = 1, sizes = [[1024, 512], [512, 1024]]", 1000, 2000);
  b.add_flow(api("cudaLaunchKernel", 1100, 100), kernel(kGemm, 1300, 10000), FlowKind::kLaunch);
  nvtx("c10d::allreduce_, seq = 1, op_id = 2, sizes = [[1024, 1024]]", 3000, 1000);
  {
    const EventRef k = kernel(kNccl, 11300, 20000);
    b.add_flow(api("cuLaunchKernelEx", 3100, 100), k, FlowKind::kLaunch);
    allreduce(k);
  }
  api("cudaDeviceSynchronize", 4000, 28000);
  // warm-up
  b.add_flow(api("cudaLaunchKernel", 32500, 100), kernel(kGemm, 33000, 10000), FlowKind::kLaunch);
  api("cudaDeviceSynchronize", 40000, 1000);
  // timed loop
  for (int k = 0; k <= 4; ++k) {
    const TimeNs h = 50000 + 20000 * k;
    api("cudaEventCreateWithFlags", h, 50);
    api("cudaGetDevice", h + 60, 30);  // torch's device guard, as in the collector's PyTorch traces
    api("cudaEventRecord", h + 100, 100);
    if (k == 4) break;
    const TimeNs g = 50500 + 30000 * k;
    b.add_flow(api("cudaLaunchKernel", h + 300, 100), kernel(kGemm, g, 10000), FlowKind::kLaunch);
    const EventRef nk = kernel(kNccl, g + 10000, 20000);
    b.add_flow(api("cuLaunchKernelEx", h + 500, 100), nk, FlowKind::kLaunch);
    allreduce(nk);
    if (c10d_events) {
      api("cudaEventCreateWithFlags", h + 700, 30);
      api("cudaGetDevice", h + 740, 10);
      api("cudaEventRecord", h + 760, 30);
      api("cudaEventDestroy", h + 800, 30);
    }
    if (kept_every > 0 && k % kept_every == 0) {
      api("cudaEventCreateWithFlags", h + 900, 30);
      api("cudaGetDevice", h + 940, 10);
      api("cudaEventRecord", h + 960, 30);
    }
  }
  api("cudaDeviceSynchronize", 130300, 40700);  // [h_4 + 300, 171000)
  for (int i = 0; i < 5; ++i) {
    api("cudaGetDevice", 171000 + 1000 * i, 100);
    api("cudaEventElapsedTime", 171200 + 1000 * i, 300);
  }
  out.trace = b.finish();
  return out;
}

}  // namespace parascope::test
