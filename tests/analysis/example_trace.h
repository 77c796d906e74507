// A small hand-built trace the analysis tests share; every expected value in the tests is worked
// out from the timeline drawn here.
//
//   device 0 (rank 0)          0    50   100  150  200  250  300  320  340
//     stream 7   gemm          [=========)    [=========)
//                sync                                   [====)
//                Memcpy HtoD                                      [==)
//     stream 17  nccl AllReduce     [==============)
//     SM 3       compute role  [0, 40)   communicate role [20, 60)
//   device 1 (rank 1)
//     stream 7   relu 10,20,30,40,50 ns at 1000, 1100, 1200, 1300, 1400; gemm [1500, 1510)
#pragma once

#include "trace/core/trace_builder.h"

namespace parascope::test {

struct ExampleTrace {
  Trace trace;
  uint32_t s7 = 0, s17 = 0, sm3 = 0, d1s7 = 0;
};

inline ExampleTrace make_example_trace() {
  TraceBuilder b;
  Process p0;
  p0.rank = 0;
  Process p1;
  p1.rank = 1;
  const uint32_t r0 = b.add_process(p0), r1 = b.add_process(p1);
  Device dv0;
  dv0.process = r0;
  dv0.ordinal = 0;
  Device dv1;
  dv1.process = r1;
  dv1.ordinal = 0;
  const auto d0 = static_cast<int32_t>(b.add_device(dv0));
  const auto d1 = static_cast<int32_t>(b.add_device(dv1));
  ExampleTrace ex;
  ex.s7 = b.track({TrackKind::kGpuStream, r0, d0, 7}, "stream 7");
  ex.s17 = b.track({TrackKind::kGpuStream, r0, d0, 17}, "stream 17");
  ex.sm3 = b.track({TrackKind::kSmLane, r0, d0, 3}, "SM 3");
  ex.d1s7 = b.track({TrackKind::kGpuStream, r1, d1, 7}, "stream 7");
  const StringId gemm = b.intern("gemm");
  b.add_slice(ex.s7, 0, 100, gemm, b.add_kernel({}));
  b.add_slice(ex.s7, 150, 100, gemm, b.add_kernel({}));
  b.add_slice(ex.s7, 250, 50, b.intern("cudaStreamWaitEvent"), b.add_sync({}));
  MemcpyInfo h2d;
  h2d.copy_kind = CopyKind::kHtoD;
  h2d.bytes = U64Split(1 << 20);
  h2d.dst_device = static_cast<uint16_t>(d0);
  b.add_slice(ex.s7, 320, 20, b.intern("Memcpy HtoD (Pinned -> Device)"), b.add_memcpy(h2d));
  // the communication kernel has an ordinary name: only its annotation makes it communication
  const EventRef ar = b.add_slice(ex.s17, 50, 150, b.intern("fused_allreduce"), b.add_kernel({}));
  CollectiveInfo c;
  c.op = CollectiveOp::kAllReduce;
  c.in_elements = c.out_elements = 1000;
  c.dtype_bytes = 4;
  c.group_size = 4;
  c.rank = 0;
  c.kernel = ar;
  b.add_collective(c);
  SmSpanInfo compute_span;
  compute_span.role = SmRole::kCompute;
  SmSpanInfo comm_span;
  comm_span.role = SmRole::kCommunicate;
  b.add_slice(ex.sm3, 0, 40, b.intern("mma"), b.add_sm_span(compute_span));
  b.add_slice(ex.sm3, 20, 40, b.intern("put"), b.add_sm_span(comm_span));
  const StringId relu = b.intern("relu");
  for (int i = 0; i < 5; ++i) b.add_slice(ex.d1s7, 1000 + 100 * i, 10 * (i + 1), relu, b.add_kernel({}));
  b.add_slice(ex.d1s7, 1500, 10, gemm, b.add_kernel({}));
  ex.trace = b.finish();
  return ex;
}

}  // namespace parascope::test
