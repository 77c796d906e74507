// The op formulas (op_flops.h), one op at a time; inputs positional as the ops receive them
// (torch's native_functions.yaml signatures), [] for non-tensor arguments.
#include <catch2/catch.hpp>

#include "trace/core/analysis/op_flops.h"

using namespace parascope;

namespace {
double flops(std::string_view op, const std::vector<TensorDims>& in, const TensorDims* out = nullptr) {
  const OpFlops f = op_flops(op, in, out);
  return f.status == OpFlopsStatus::kCounted ? f.flops : -1;
}
}  // namespace

TEST_CASE("GEMM-like ops: 2·M·N·K", "[analysis][op_flops]") {
  // mm [512, 768] x [768, 3072]: 2·512·768·3072 = 2 415 919 104; reads 393 216 + 2 359 296, writes 1 572 864
  const OpFlops mm = op_flops("aten::mm", {{512, 768}, {768, 3072}});
  REQUIRE(mm.status == OpFlopsStatus::kCounted);
  CHECK(mm.flops == 2415919104.0);
  CHECK(mm.elements_read == 2752512.0);
  CHECK(mm.elements_written == 1572864.0);
  // addmm(bias, a, b): the same product; the bias is read (3072 more), its add not counted
  const OpFlops addmm = op_flops("aten::addmm", {{3072}, {512, 768}, {768, 3072}, {}, {}});
  CHECK(addmm.flops == 2415919104.0);
  CHECK(addmm.elements_read == 2752512.0 + 3072);
  // bmm [16, 128, 64] x [16, 64, 256]: 2·16·128·64·256 = 67 108 864; baddbmm the same after its bias
  CHECK(flops("aten::bmm", {{16, 128, 64}, {16, 64, 256}}) == 67108864.0);
  CHECK(flops("aten::baddbmm", {{16, 128, 256}, {16, 128, 64}, {16, 64, 256}, {}, {}}) == 67108864.0);
  // matmul [8, 512, 768] x [768, 3072]: batch 8 → 8 · 2 415 919 104 = 19 327 352 832
  CHECK(flops("aten::matmul", {{8, 512, 768}, {768, 3072}}) == 19327352832.0);
  // broadcast batch [2, 1] with [1, 4] → 8: 2·8·128·64·32 = 4 194 304
  CHECK(flops("aten::matmul", {{2, 1, 128, 64}, {1, 4, 64, 32}}) == 4194304.0);
  // linear x [4, 2048, 4096], W [8192, 4096]: 8192 rows → 2·8192·4096·8192 = 549 755 813 888
  CHECK(flops("aten::linear", {{4, 2048, 4096}, {8192, 4096}, {8192}}) == 549755813888.0);
  // mv [1024, 512] · [512]: 2·1024·512 = 1 048 576; addmv(bias, mat, vec) the same
  CHECK(flops("aten::mv", {{1024, 512}, {512}}) == 1048576.0);
  CHECK(flops("aten::addmv", {{1024}, {1024, 512}, {512}, {}, {}}) == 1048576.0);
  SECTION("shapes that do not multiply") {
    CHECK(op_flops("aten::mm", {{512, 768}, {1024, 3072}}).status == OpFlopsStatus::kShapesDoNotFit);
    CHECK(op_flops("aten::bmm", {{16, 128, 64}, {8, 64, 256}}).status == OpFlopsStatus::kShapesDoNotFit);
    CHECK(op_flops("aten::matmul", {{3, 128, 64}, {2, 64, 32}}).status == OpFlopsStatus::kShapesDoNotFit);
    CHECK(op_flops("aten::mm", {{}, {}}).status == OpFlopsStatus::kShapesDoNotFit);
  }
  SECTION("ops without a formula") {
    CHECK(op_flops("aten::gelu", {{8192, 8192}}).status == OpFlopsStatus::kNoFormula);
    CHECK(op_flops("aten::copy_", {{8192}, {8192}, {}}).status == OpFlopsStatus::kNoFormula);
    CHECK(op_flops("", {{4, 4}}).status == OpFlopsStatus::kNoFormula);
  }
}

TEST_CASE("Convolutions: 2 · N · spatial · numel(weight)", "[analysis][op_flops]") {
  // conv2d [8, 64, 56, 56] * [128, 64, 3, 3] → [8, 128, 56, 56]: 2·8·3136·73 728 = 3 699 376 128
  const TensorDims out{8, 128, 56, 56};
  const std::vector<TensorDims> conv = {{8, 64, 56, 56}, {128, 64, 3, 3}, {128}, {}, {}, {}, {}};
  CHECK(flops("aten::conv2d", conv, &out) == 3699376128.0);
  CHECK(flops("aten::cudnn_convolution", {{8, 64, 56, 56}, {128, 64, 3, 3}, {}, {}, {}, {}, {}, {}, {}}, &out) == 3699376128.0);
  CHECK(op_flops_needs_output("aten::cudnn_convolution"));
  CHECK_FALSE(op_flops_needs_output("aten::mm"));
  // the output's size is not in the inputs' shapes (stride, padding are [])
  CHECK(op_flops("aten::conv2d", conv).status == OpFlopsStatus::kShapesDoNotFit);
  // an output that is not this convolution's (channels differ)
  const TensorDims wrong{8, 64, 56, 56};
  CHECK(op_flops("aten::conv2d", conv, &wrong).status == OpFlopsStatus::kShapesDoNotFit);
  // depthwise (groups 64): weight [64, 1, 3, 3] → 2·8·3136·576 = 28 901 376
  const TensorDims dw_out{8, 64, 56, 56};
  CHECK(flops("aten::conv2d", {{8, 64, 56, 56}, {64, 1, 3, 3}, {}, {}, {}, {}, {}}, &dw_out) == 28901376.0);
  // conv1d [4, 16, 100] * [32, 16, 5] → [4, 32, 96]: 2·4·96·2560 = 1 966 080
  const TensorDims out1{4, 32, 96};
  CHECK(flops("aten::conv1d", {{4, 16, 100}, {32, 16, 5}, {}, {}, {}, {}, {}}, &out1) == 1966080.0);
  // transposed: the input's spatial size; weight [C_in, C_out, 4, 4]: 2·8·784·131 072 = 1 644 167 168
  const OpFlops t = op_flops("aten::conv_transpose2d", {{8, 128, 28, 28}, {128, 64, 4, 4}, {}, {}, {}, {}, {}, {}});
  CHECK(t.flops == 1644167168.0);
  CHECK_FALSE(t.elements_known);  // its output size is unknown
  // convolution_backward(grad_output, input, weight, ...): input and weight gradients, 2 × forward
  CHECK(flops("aten::convolution_backward", {{8, 128, 56, 56}, {8, 64, 56, 56}, {128, 64, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}}) ==
        2 * 3699376128.0);
}

TEST_CASE("Attention: 4·B·H·L·S·D forward, twice that backward", "[analysis][op_flops]") {
  // q, k, v [2, 16, 1024, 64]: 4·2·16·1024·1024·64 = 8 589 934 592
  const std::vector<TensorDims> qkv = {{2, 16, 1024, 64}, {2, 16, 1024, 64}, {2, 16, 1024, 64}, {}, {}, {}, {}};
  CHECK(flops("aten::scaled_dot_product_attention", qkv) == 8589934592.0);
  CHECK(flops("aten::_scaled_dot_product_flash_attention", qkv) == 8589934592.0);
  CHECK(flops("aten::_scaled_dot_product_efficient_attention", qkv) == 8589934592.0);
  CHECK(flops("aten::_scaled_dot_product_cudnn_attention", qkv) == 8589934592.0);
  // cuDNN's own op, the innermost range around its kernel on an H200 with torch 2.11 (same layout)
  CHECK(flops("aten::_cudnn_attention_forward", qkv) == 8589934592.0);
  // the kernels' own ops take [B, L, H, D] views
  const std::vector<TensorDims> bshd = {{2, 1024, 16, 64}, {2, 1024, 16, 64}, {2, 1024, 16, 64}, {}, {}, {}, {}, {}, {}, {}};
  CHECK(flops("aten::_flash_attention_forward", bshd) == 8589934592.0);
  CHECK(flops("aten::_efficient_attention_forward", bshd) == 8589934592.0);
  // grouped-query: 32 query heads over 8 key/value heads, L 512, S 2048, D 128: 4·2·32·512·2048·128
  CHECK(flops("aten::scaled_dot_product_attention", {{2, 32, 512, 128}, {2, 8, 2048, 128}, {2, 8, 2048, 128}}) == 34359738368.0);
  // value dim 32 beside query dim 64: 2·1·128·128·(64 + 32) = 3 145 728
  CHECK(flops("aten::scaled_dot_product_attention", {{1, 1, 128, 64}, {1, 1, 128, 64}, {1, 1, 128, 32}}) == 3145728.0);
  // backward (grad_out, q, k, v, out, logsumexp, ...): 2 × 8 589 934 592
  const std::vector<TensorDims> bwd = {{2, 16, 1024, 64}, {2, 16, 1024, 64}, {2, 16, 1024, 64}, {2, 16, 1024, 64},
                                       {2, 16, 1024, 64}, {2, 16, 1024}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  CHECK(flops("aten::_scaled_dot_product_flash_attention_backward", bwd) == 17179869184.0);
  CHECK(flops("aten::_cudnn_attention_backward", bwd) == 17179869184.0);
  const std::vector<TensorDims> bwd_bshd = {{2, 1024, 16, 64}, {2, 1024, 16, 64}, {2, 1024, 16, 64}, {2, 1024, 16, 64}};
  CHECK(flops("aten::_flash_attention_backward", bwd_bshd) == 17179869184.0);
  // keys of another head dim than the queries: no count
  CHECK(op_flops("aten::scaled_dot_product_attention", {{2, 16, 1024, 64}, {2, 16, 1024, 32}, {2, 16, 1024, 64}}).status ==
        OpFlopsStatus::kShapesDoNotFit);
}
