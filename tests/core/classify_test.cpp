#include <catch2/catch.hpp>

#include "trace/core/classify.h"
#include "trace/core/trace_builder.h"

using namespace parascope;

TEST_CASE("Communication kernels are recognised by name as a last resort", "[core][classify]") {
  CHECK(is_communication_kernel_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  CHECK(is_communication_kernel_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"));
  CHECK(is_communication_kernel_name("void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 2>(...)"));
  CHECK(is_communication_kernel_name("parascope_comm_allgather_tma"));
  CHECK_FALSE(is_communication_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
  CHECK_FALSE(is_communication_kernel_name("void at::native::vectorized_elementwise_kernel<4, ...>"));
}

TEST_CASE("Structured data decides before names", "[core][classify]") {
  TraceBuilder b;
  const uint32_t p = b.add_process(Process{});
  const uint32_t d0 = b.add_device(Device{});
  const uint32_t d1 = b.add_device(Device{});
  const uint32_t t = b.track(TrackKey{TrackKind::kGpuStream, p, static_cast<int32_t>(d0), 7}, "s");
  // a kernel with an ordinary name but a collective annotation is communication
  const EventRef k = b.add_slice(t, 0, 10, b.intern("my_fused_kernel"), b.add_kernel(KernelInfo{}));
  CollectiveInfo c;
  c.op = CollectiveOp::kAllReduce;
  c.kernel = k;
  b.add_collective(c);
  // a plain compute kernel
  b.add_slice(t, 20, 10, b.intern("gemm"), b.add_kernel(KernelInfo{}));
  // a peer copy is communication, a host copy is memory
  MemcpyInfo peer;
  peer.src_device = static_cast<uint16_t>(d0);
  peer.dst_device = static_cast<uint16_t>(d1);
  b.add_slice(t, 40, 10, b.intern("Memcpy PtoP"), b.add_memcpy(peer));
  MemcpyInfo h2d;
  h2d.copy_kind = CopyKind::kHtoD;
  h2d.dst_device = static_cast<uint16_t>(d0);
  b.add_slice(t, 60, 10, b.intern("Memcpy HtoD"), b.add_memcpy(h2d));
  b.add_slice(t, 80, 10, b.intern("sync"), b.add_sync(SyncInfo{}));
  SmSpanInfo span;
  span.role = SmRole::kWait;
  b.add_slice(t, 100, 10, b.intern("wait"), b.add_sm_span(span));
  const Trace tr = b.finish();
  const SliceClassifier cls(tr);
  CHECK(cls.category(t, 0) == Category::kCommunication);
  CHECK(cls.category(t, 1) == Category::kCompute);
  CHECK(cls.category(t, 2) == Category::kCommunication);
  CHECK(cls.category(t, 3) == Category::kMemory);
  CHECK(cls.category(t, 4) == Category::kSync);
  CHECK(cls.category(t, 5) == Category::kSync);  // waiting is never compute
}
