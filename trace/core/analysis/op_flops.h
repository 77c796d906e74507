// FLOPs of a PyTorch op from its inputs' shapes: the one set of formulas behind every FLOP count the
// roofline takes from op shapes, whether the shapes came from Kineto's "Input Dims" (roofline.h,
// op_shape_work) or from the sizes in an NVTX op range's name (nvtx_op_work.h). A multiply-add is
// 2 FLOPs and only the matrix products count (bias adds, softmax, scaling are left out), as in
// PyTorch's torch/utils/flop_counter.py. Inputs are positional, as the op receives them; a
// non-tensor argument has no dims.
//   GEMMs: mm, addmm, bmm, baddbmm, matmul (any batch broadcast), linear, mv, addmv: 2·M·N·K (× batch).
//   Convolutions: 2 · N · spatial · numel(weight), spatial = the output's (needs the output shape) or,
//     transposed, the input's; convolution_backward: twice that (input and weight gradients: the
//     output mask is not in the shapes).
//   Attention (scaled_dot_product_attention and the flash / efficient / cuDNN ops, forward):
//     2·B·H·L·S·(E + Ev) = 4·B·H·L·S·D when E = Ev; backward twice that (the four gradient
//     products; flash's recomputation of Q·Kᵀ is not counted). is_causal is not in the shapes: the
//     count is the full attention's, and a causal kernel does about half of it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace parascope {

using TensorDims = std::vector<int64_t>;

enum class OpFlopsStatus : uint8_t {
  kCounted,
  kNoFormula,       // not an op these formulas know
  kShapesDoNotFit,  // a known op, but its shapes do not give a count (dims disagree, output unknown)
};

struct OpFlops {
  OpFlopsStatus status = OpFlopsStatus::kNoFormula;
  double flops = 0;
  // The compulsory traffic, in elements: every tensor input read once, the results written once.
  double elements_read = 0, elements_written = 0;
  bool elements_known = false;  // false when the results' size is unknown (a transposed convolution)
};

// `output`: the op's first result's shape, when known (plain convolutions need it).
OpFlops op_flops(std::string_view op, const std::vector<TensorDims>& inputs, const TensorDims* output = nullptr);

// Whether op_flops needs the op's output shape to count it (plain convolutions).
bool op_flops_needs_output(std::string_view op);

}  // namespace parascope
