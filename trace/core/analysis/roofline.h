// A communication-aware roofline: each kernel name placed against the machine's compute, HBM and
// link ceilings. attainable = min(peak FLOP/s, I_hbm × HBM bandwidth, I_link × link bandwidth) with
// I_hbm = FLOPs / HBM bytes and I_link = FLOPs / link bytes; the binding term names the bound.
// Work per kernel comes from what the trace knows, best first: the kernel's own args ("flops",
// "hbm_bytes"/"bytes", "link_bytes": the project's kernels, simulated and converted traces); the
// launching op's PyTorch `flops` (CpuOpInfo); the op formulas (op_flops.h) over the launching op's
// "Input Dims" (HBM bytes = inputs + output, the compulsory traffic); an enclosing NVTX range on the
// launching thread whose name mentions "flop" and whose payload is the count; the op formulas over
// the sizes in the innermost PyTorch NVTX op range around the launch (nvtx_op_work.h: emit_nvtx with
// record_shapes, nsys --pytorch=autograd-shapes-nvtx, record --op-shapes; no dtype, so no HBM bytes
// and the bf16 ceiling). Link bytes come from collective annotations (collective_wire_bytes) and
// peer copies. A kernel with none of these has "no FLOP count", with the reason when its op range
// gave none (recorded without shapes, no formula, the op's FLOPs on its longer kernel).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace/core/analysis/nvtx_op_work.h"
#include "trace/core/classify.h"
#include "trace/core/data_table.h"
#include "trace/core/topology.h"
#include "trace/core/trace.h"

namespace parascope {

enum class WorkSource : uint8_t { kNone, kKernelArgs, kProfilerFlops, kOpShapes, kNvtxPayload, kNvtxOpShapes };
// "none", "kernel args", "PyTorch flops", "op shapes", "NVTX payload", "NVTX op shapes"
std::string_view to_string(WorkSource s);

struct RooflineCeilings {
  std::string gpu;                 // "NVIDIA H200 (h200x2)"
  double bf16_flops = 0;           // FLOP/s; 0: unknown
  double fp32_flops = 0;
  double hbm_bytes_per_s = 0;
  double link_bytes_per_s = 0;     // one GPU's NVLink bandwidth per direction (all its links)
  std::string peaks_from;          // where compute/HBM peaks came from, when not the machine itself
  // The compute ceiling for a dtype ("c10::BFloat16", "float", ...): bf16 peak for 16-bit types.
  double compute_for(const std::string& dtype) const;
};

// From GPU `gpu_index` of a topology: its spec and the NVLink (else PCIe) bandwidth of its links.
RooflineCeilings ceilings_from(const Topology& topology, int32_t gpu_index = 0);

// As ceilings_from, with compute and HBM peaks raised to those of a datasheet topology with the
// same GPU model where higher: a measured preset's compute figure is an achieved GEMM rate (the
// h200x2 preset's 685 TFLOP/s), which real kernels exceed, so it cannot be a roof.
RooflineCeilings ceilings_with_datasheet(const Topology& machine, const std::vector<Topology>& others);

enum class Bound : uint8_t { kUnknown, kCompute, kHbm, kLink };
std::string_view to_string(Bound b);

// The placement math, for one kernel or an aggregate: unknown inputs (≤ 0) drop their ceiling.
struct RooflinePlacement {
  double achieved_flops_per_s = 0;
  double hbm_intensity = 0, link_intensity = 0;  // FLOP per byte; 0 when bytes unknown
  double attainable_flops_per_s = 0;             // 0 when no ceiling applies
  double efficiency = 0;                         // achieved / attainable
  Bound bound = Bound::kUnknown;
};
RooflinePlacement place_on_roofline(double flops, double hbm_bytes, double link_bytes, double seconds,
                                    double compute_ceiling, const RooflineCeilings& c);

struct KernelWork {
  double flops = 0, hbm_bytes = 0, link_bytes = 0;
  WorkSource flop_source = WorkSource::kNone;
  std::string dtype;  // of the launching op's first input, where known
  std::string op;     // the op the work came from ("aten::mm"), where known
};

struct RooflinePoint {
  StringId name = kEmptyString;
  Category category = Category::kCompute;
  int64_t count = 0, with_flops = 0;
  TimeNs total_ns = 0, flops_ns = 0;  // time of all instances, of those with a FLOP count
  double flops = 0, hbm_bytes = 0, link_bytes = 0;  // summed over the instances with FLOPs (link: all)
  WorkSource flop_source = WorkSource::kNone;       // of the first instance with FLOPs (NVTX op shapes last)
  std::string dtype, op;
  // Why instances launched inside a PyTorch NVTX op range have no FLOPs (the first such instance's
  // op range, not kCounted), and that op: "aten::mm".
  std::optional<OpRangeOutcome> op_range_gap;
  std::string gap_op;
  EventRef example;                                 // the first instance
  RooflinePlacement placement;                      // over the instances with FLOPs
  double link_bytes_per_s = 0;                      // link bytes / total time
};

struct Roofline {
  RooflineCeilings ceilings;
  std::vector<RooflinePoint> points;  // by total time, largest first, then name text
  int64_t kernels = 0, kernels_with_flops = 0;
  int64_t collector_kernels = 0;  // kCollectorClockSyncKernel launches left out (not the program's)
  int64_t kernels_in_ops_without_shapes = 0;  // launched inside PyTorch NVTX op ranges recorded without sizes
};

// "3 of 346 kernels have a FLOP count" and, when some were launched inside PyTorch NVTX op ranges
// without shapes, how many and how to record them with shapes; the table note and the report say it.
std::string roofline_flop_coverage(const Roofline& r);

// Every kernel on GPU streams, by name over all devices; the collector's clock-sync kernel is not
// the program's and is left out (counted), as in kernel statistics.
Roofline compute_roofline(const Trace& trace, const SliceClassifier& classify, const RooflineCeilings& ceilings);
Roofline compute_roofline(const Trace& trace, const RooflineCeilings& ceilings);

// FLOPs and compulsory bytes of a PyTorch op from its name and Kineto's "Input Dims"/"Input type"
// text, by op_flops(); false for ops it has no formula for (and plain convolutions: no output size).
bool op_shape_work(std::string_view op, std::string_view input_dims_json, std::string_view input_types_json, KernelWork& out);

// One row per point: kernel, kind, count, time, FLOPs, FLOP/s, HBM and link bytes, intensities,
// attainable, efficiency, bound, FLOP source ("NVTX op shapes (aten::mm)"; "no FLOP count", with
// why when an op range gave none: "no FLOP count: aten::mm's NVTX range has no shapes").
DataTable roofline_table(const Trace& trace, const Roofline& r);

}  // namespace parascope
