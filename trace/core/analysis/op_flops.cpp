#include "trace/core/analysis/op_flops.h"

#include <algorithm>
#include <array>

namespace parascope {

namespace {

enum class Family : uint8_t {
  kMm, kAddmm, kBmm, kBaddbmm, kMatmul, kLinear, kMv, kAddmv,
  kConv, kConvTransposed, kConvBackward,
  kAttention, kAttentionBackward,
};

// Query, key, value as [batch..., heads, length, dim] (the sdpa ops) or [batch, length, heads, dim]
// (the flash / efficient kernels' own ops, which get the transposed views).
enum class Layout : uint8_t { kBhld, kBshd };

struct Formula {
  std::string_view op;
  Family family;
  uint8_t first = 0;  // position of the first operand (after the bias, the gradient)
  Layout layout = Layout::kBhld;
};

// Names as the profiler gives them (no overload suffix). The conv ops list their backends too: the
// innermost op around a cuDNN launch is aten::cudnn_convolution.
constexpr std::array<Formula, 34> kFormulas = {{
    {"aten::mm", Family::kMm},
    {"aten::addmm", Family::kAddmm, 1},
    {"aten::bmm", Family::kBmm},
    {"aten::baddbmm", Family::kBaddbmm, 1},
    {"aten::matmul", Family::kMatmul},
    {"aten::linear", Family::kLinear},
    {"aten::mv", Family::kMv},
    {"aten::addmv", Family::kAddmv, 1},
    {"aten::conv1d", Family::kConv},
    {"aten::conv2d", Family::kConv},
    {"aten::conv3d", Family::kConv},
    {"aten::convolution", Family::kConv},
    {"aten::_convolution", Family::kConv},
    {"aten::cudnn_convolution", Family::kConv},
    {"aten::_conv_depthwise2d", Family::kConv},
    {"aten::conv_depthwise3d", Family::kConv},
    {"aten::conv_transpose1d", Family::kConvTransposed},
    {"aten::conv_transpose2d", Family::kConvTransposed},
    {"aten::conv_transpose3d", Family::kConvTransposed},
    {"aten::cudnn_convolution_transpose", Family::kConvTransposed},
    {"aten::convolution_backward", Family::kConvBackward, 1},
    {"aten::scaled_dot_product_attention", Family::kAttention},
    {"aten::_scaled_dot_product_flash_attention", Family::kAttention},
    {"aten::_scaled_dot_product_efficient_attention", Family::kAttention},
    {"aten::_scaled_dot_product_cudnn_attention", Family::kAttention},
    {"aten::_cudnn_attention_forward", Family::kAttention},  // cuDNN's own op under the one above (torch >= 2.6)
    {"aten::_flash_attention_forward", Family::kAttention, 0, Layout::kBshd},
    {"aten::_efficient_attention_forward", Family::kAttention, 0, Layout::kBshd},
    {"aten::_scaled_dot_product_flash_attention_backward", Family::kAttentionBackward, 1},
    {"aten::_scaled_dot_product_efficient_attention_backward", Family::kAttentionBackward, 1},
    {"aten::_scaled_dot_product_cudnn_attention_backward", Family::kAttentionBackward, 1},
    {"aten::_cudnn_attention_backward", Family::kAttentionBackward, 1},
    {"aten::_flash_attention_backward", Family::kAttentionBackward, 1, Layout::kBshd},
    {"aten::_efficient_attention_backward", Family::kAttentionBackward, 1, Layout::kBshd},
}};

const Formula* formula_of(std::string_view op) {
  for (const Formula& f : kFormulas)
    if (f.op == op) return &f;
  return nullptr;
}

double numel(const TensorDims& d) {
  if (d.empty()) return 0;  // a non-tensor argument (or a 0-dim tensor: one element, left out)
  double n = 1;
  for (int64_t x : d) n *= static_cast<double>(x);
  return n;
}

double product(const TensorDims& d, size_t from, size_t to) {
  double n = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) n *= static_cast<double>(d[i]);
  return n;
}

bool positive(const TensorDims& d) {
  return !d.empty() && std::all_of(d.begin(), d.end(), [](int64_t x) { return x > 0; });
}

struct Gemm {
  double batch = 1, m = 0, k = 0, n = 0;
};

// a [batch..., M, K] (1-D: [K]) times b [batch..., K, N] (1-D: [K]); batch dims broadcast.
bool matmul_dims(const TensorDims& a, const TensorDims& b, Gemm& g) {
  if (!positive(a) || !positive(b)) return false;
  const size_t ra = a.size(), rb = b.size();
  g.m = ra == 1 ? 1 : static_cast<double>(a[ra - 2]);
  g.k = static_cast<double>(a[ra - 1]);
  const double kb = static_cast<double>(rb == 1 ? b[0] : b[rb - 2]);
  g.n = rb == 1 ? 1 : static_cast<double>(b[rb - 1]);
  if (g.k != kb) return false;
  const size_t ba = ra > 2 ? ra - 2 : 0, bb = rb > 2 ? rb - 2 : 0;
  g.batch = 1;
  for (size_t i = 0; i < std::max(ba, bb); ++i) {  // from the right
    const int64_t x = i < ba ? a[ba - 1 - i] : 1, y = i < bb ? b[bb - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return false;
    g.batch *= static_cast<double>(std::max(x, y));
  }
  return true;
}

const TensorDims& arg(const std::vector<TensorDims>& in, size_t i) {
  static const TensorDims kNone;
  return i < in.size() ? in[i] : kNone;
}

OpFlops counted(double flops, double read, double written, bool known = true) {
  OpFlops r;
  r.status = OpFlopsStatus::kCounted;
  r.flops = flops;
  r.elements_read = read;
  r.elements_written = written;
  r.elements_known = known;
  return r;
}

OpFlops no_fit() {
  OpFlops r;
  r.status = OpFlopsStatus::kShapesDoNotFit;
  return r;
}

double elements_in(const std::vector<TensorDims>& in) {
  double e = 0;
  for (const TensorDims& d : in) e += numel(d);
  return e;
}

OpFlops gemm_flops(const Formula& f, const std::vector<TensorDims>& in) {
  const TensorDims &a = arg(in, f.first), &b = arg(in, f.first + 1u);
  Gemm g;
  switch (f.family) {
    case Family::kMm:
    case Family::kAddmm:
      if (a.size() != 2 || b.size() != 2) return no_fit();
      break;
    case Family::kBmm:
    case Family::kBaddbmm:
      if (a.size() != 3 || b.size() != 3 || a[0] != b[0]) return no_fit();
      break;
    case Family::kMv:
    case Family::kAddmv:
      if (a.size() != 2 || b.size() != 1) return no_fit();
      break;
    case Family::kLinear: {  // x [..., in] · w [out, in]ᵀ
      if (!positive(a) || b.size() != 2 || !positive(b) || a.back() != b[1]) return no_fit();
      const double rows = numel(a) / static_cast<double>(a.back());
      return counted(2 * rows * static_cast<double>(b[1]) * static_cast<double>(b[0]), elements_in(in), rows * static_cast<double>(b[0]));
    }
    default:
      break;
  }
  if (!matmul_dims(a, b, g)) return no_fit();
  return counted(2 * g.batch * g.m * g.k * g.n, elements_in(in), g.batch * g.m * g.n);
}

OpFlops conv_flops(const Formula& f, const std::vector<TensorDims>& in, const TensorDims* output) {
  if (f.family == Family::kConvBackward) {  // (grad_output, input, weight, ...): grad_output has the output's shape
    const TensorDims &g = arg(in, 0), &x = arg(in, 1), &w = arg(in, 2);
    const size_t r = x.size();
    if (r < 3 || r > 5 || w.size() != r || g.size() != r || !positive(x) || !positive(w) || !positive(g) || g[0] != x[0] ||
        g[1] != w[0])
      return no_fit();
    const double forward = 2 * static_cast<double>(x[0]) * product(g, 2, r) * numel(w);
    return counted(2 * forward, elements_in(in), numel(x) + numel(w));
  }
  const TensorDims &x = arg(in, f.first), &w = arg(in, f.first + 1u);
  const size_t r = x.size();
  if (r < 3 || r > 5 || w.size() != r || !positive(x) || !positive(w)) return no_fit();
  if (f.family == Family::kConvTransposed) {  // weight [C_in, C_out / groups, k...]
    if (x[1] != w[0]) return no_fit();
    return counted(2 * static_cast<double>(x[0]) * product(x, 2, r) * numel(w), elements_in(in), 0, false);
  }
  // weight [C_out, C_in / groups, k...]; the spatial size is the output's
  if (x[1] % w[1] != 0 || !output || output->size() != r || !positive(*output) || (*output)[0] != x[0] || (*output)[1] != w[0])
    return no_fit();
  return counted(2 * static_cast<double>(x[0]) * product(*output, 2, r) * numel(w), elements_in(in), numel(*output));
}

OpFlops attention_flops(const Formula& f, const std::vector<TensorDims>& in) {
  const TensorDims &q = arg(in, f.first), &k = arg(in, f.first + 1u), &v = arg(in, f.first + 2u);
  const size_t r = q.size();
  if (!positive(q) || !positive(k) || !positive(v) || k.size() != r || v.size() != r) return no_fit();
  double heads = 0, l = 0, s = 0;  // heads: batch × query heads
  if (f.layout == Layout::kBhld) {
    if (r < 3 || k[r - 1] != q[r - 1] || k[r - 2] != v[r - 2]) return no_fit();
    l = static_cast<double>(q[r - 2]);
    s = static_cast<double>(k[r - 2]);
    heads = product(q, 0, r - 2);
  } else {
    if (r != 4 || k[3] != q[3] || k[1] != v[1] || k[0] != q[0]) return no_fit();
    l = static_cast<double>(q[1]);
    s = static_cast<double>(k[1]);
    heads = static_cast<double>(q[0]) * static_cast<double>(q[2]);
  }
  const double e = static_cast<double>(q[r - 1]), ev = static_cast<double>(v[r - 1]);
  const double forward = 2 * heads * l * s * (e + ev);  // Q·Kᵀ and P·V
  if (f.family == Family::kAttentionBackward)
    return counted(2 * forward, elements_in(in), numel(q) + numel(k) + numel(v));
  return counted(forward, elements_in(in), heads * l * ev);
}

}  // namespace

bool op_flops_needs_output(std::string_view op) {
  const Formula* f = formula_of(op);
  return f && f->family == Family::kConv;
}

OpFlops op_flops(std::string_view op, const std::vector<TensorDims>& inputs, const TensorDims* output) {
  const Formula* f = formula_of(op);
  if (!f) return {};
  switch (f->family) {
    case Family::kConv:
    case Family::kConvTransposed:
    case Family::kConvBackward: return conv_flops(*f, inputs, output);
    case Family::kAttention:
    case Family::kAttentionBackward: return attention_flops(*f, inputs);
    default: return gemm_flops(*f, inputs);
  }
}

}  // namespace parascope
