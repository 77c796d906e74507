// The NCCL profiler plugin side of libparascope_cupti.so (NCCL_PROFILER_PLUGIN=<this library>).
// It enables NCCL's API, collective, point-to-point and kernel-launch events (not the proxy or
// per-channel events, which cost more) and writes one NcclRecord per operation, per kernel
// launch and per group into a buffer the collector's writer thread empties each period.
// Linking an operation to its kernel: NCCL emits, per plan, KernelLaunch(start) → cuLaunchKernelEx
// → KernelLaunch(stop) → Coll/P2p events of that plan, on the launching thread. The collector's
// driver-API callback hands the launch's CUPTI correlation id to nccl_on_driver_launch() while the
// KernelLaunch event is open on that thread; each operation takes the serial of the last launch
// of its communicator in the same group. Event handles live in a per-communicator ring (parents are
// read after NCCL stopped them: CollApi is stopped before its Coll starts).
#pragma once

#include <cstdint>
#include <vector>

namespace parascope::collector {

// Called by the collector's CUPTI callback at the entry of cuLaunchKernel*/cuLaunchKernelEx*.
void nccl_on_driver_launch(uint32_t correlation) noexcept;

// Encoded NcclRecords gathered since the last call (empty when none); the writer thread calls it.
std::vector<uint8_t> nccl_take_records();

struct NcclPluginStats {
  uint64_t records = 0, dropped_events = 0, communicators = 0, launches = 0, launches_with_correlation = 0;
};
NcclPluginStats nccl_plugin_stats();

}  // namespace parascope::collector
