// FLOPs of GPU kernels from PyTorch's NVTX op ranges with input shapes (nvtx_op_name.h, op_flops.h).
// A kernel's op is the innermost PyTorch op range on its launching thread that contains its launch
// call (kernel → its launch API call by correlation → the NVTX push/pop ranges around that call on
// the call's track); the innermost op decides, so a copy kernel inside aten::copy_ inside
// aten::linear gets none of the linear's FLOPs, and aten::mm inside MmBackward0 counts its own sizes.
// When one op launched several kernels, all of its FLOPs go to the longest (ties: the one that
// started first): the GEMM of an addmm beside its bias copy, flash attention's main backward kernel
// beside its small pre- and post-passes; splitting by duration would give copies FLOPs they never
// did. A plain convolution's name lacks its output size: it is the sizes entry of the first later op
// on the thread whose input_op_ids name the convolution's result, or the result of an enclosing
// convolution op that returned the same tensor. NVTX names carry no dtypes: no HBM bytes come from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/core/analysis/nvtx_op_name.h"
#include "trace/core/analysis/op_flops.h"
#include "trace/core/trace.h"

namespace parascope {

enum class OpRangeOutcome : uint8_t {
  kCounted,         // the kernel carries its op's FLOPs
  kOnLongerKernel,  // its op's FLOPs are on a longer kernel that op launched
  kWithoutShapes,   // the op range was recorded without sizes
  kNoFormula,       // the op has no FLOP formula (op_flops.h)
  kShapesDoNotFit,  // the op has one, but its sizes give no count (dims disagree, output size unknown)
};

struct OpRangeWork {
  OpRangeOutcome outcome = OpRangeOutcome::kWithoutShapes;
  double flops = 0;
  std::string_view op;  // the op range's op name (views the trace's strings)
};

// Kernels are added with the innermost op range around their launch call, then attributed at once
// (the longest kernel of each op is known only then). Each NVTX range is parsed once.
class NvtxOpWork {
 public:
  explicit NvtxOpWork(const Trace& trace) : trace_(trace) {}

  // Whether the NVTX range slice `row` is a PyTorch op range.
  bool is_op_range(EventRef row) { return parsed(row) != nullptr; }

  // `op_range`: the innermost slice around the kernel's launch call with is_op_range true.
  void add_kernel(EventRef kernel, EventRef op_range) { kernels_.push_back({kernel, op_range}); }

  // Every added kernel's outcome, keyed by (track << 32) | row.
  std::unordered_map<uint64_t, OpRangeWork> attribute();

 private:
  struct Launch {
    EventRef kernel, op_range;
  };
  const NvtxOpName* parsed(EventRef row);
  std::optional<TensorDims> output_of(EventRef op_range, const NvtxOpName& op);
  const std::unordered_map<uint64_t, TensorDims>& consumed_on(uint32_t track);

  const Trace& trace_;
  std::unordered_map<uint64_t, std::optional<NvtxOpName>> names_;            // by row key
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, TensorDims>> consumed_;  // per track: op_id → its result's dims
  std::vector<Launch> kernels_;
};

}  // namespace parascope
