// Communication/compute overlap per device, per stream and per SM lane: how much communication
// ran while compute ran. Time is measured on interval unions, so two concurrent kernels of one
// kind never count twice.
//  - device: C = union of compute on its streams, M = union of communication; overlap = |C ∩ M|.
//  - stream: this stream's communication under compute anywhere on the device (|M_s ∩ C|) and its
//    compute under communication anywhere on the device (|C_s ∩ M|). One stream runs one thing at
//    a time, so overlap *within* a stream is always 0 and would say nothing.
//  - SM lane: probe spans of role compute vs communicate on the same SM (|C_sm ∩ M_sm|), e.g. a
//    fused kernel whose warps compute while others move data.
#pragma once

#include <vector>

#include "trace/core/analysis/device_activity.h"

namespace parascope {

struct OverlapTotals {
  TimeNs compute_ns = 0;        // |C|
  TimeNs communication_ns = 0;  // |M|
  TimeNs overlap_ns = 0;        // |C ∩ M|
  // Share of communication that ran under compute (0 when there is no communication).
  double communication_overlapped() const {
    return communication_ns ? static_cast<double>(overlap_ns) / static_cast<double>(communication_ns) : 0.0;
  }
  double compute_overlapped() const {
    return compute_ns ? static_cast<double>(overlap_ns) / static_cast<double>(compute_ns) : 0.0;
  }
};

struct StreamOverlap {
  uint32_t track = 0;
  int64_t stream = 0;
  TimeNs compute_ns = 0;                 // |C_s|
  TimeNs communication_ns = 0;           // |M_s|
  TimeNs compute_under_comm_ns = 0;      // |C_s ∩ M_device|
  TimeNs comm_under_compute_ns = 0;      // |M_s ∩ C_device|
};

struct SmLaneOverlap {
  uint32_t track = 0;
  int64_t sm = 0;
  OverlapTotals totals;
};

struct DeviceOverlap {
  uint32_t device = 0;
  OverlapTotals totals;
  std::vector<StreamOverlap> streams;
  std::vector<SmLaneOverlap> sm_lanes;
};

std::vector<DeviceOverlap> compute_overlap(const std::vector<DeviceActivity>& activity);
std::vector<DeviceOverlap> compute_overlap(const Trace& trace);

}  // namespace parascope
