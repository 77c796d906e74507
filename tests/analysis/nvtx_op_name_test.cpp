// PyTorch's NVTX op range names, in the formats PyTorch's own sources write them:
//   torch/csrc/profiler/util.cpp getNvtxStr (called by torch/csrc/profiler/standalone/nvtx_observer.cpp):
//     name, then ", seq = N" (seq >= 0), ", op_id = N" (op_id > 0), ", sizes = " shapesToStr
//     ("[[512, 768], []]"), ", input_op_ids = " inputOpIdsToStr ("[(5,0), (0,-1)]");
//   torch/csrc/autograd/profiler_legacy.cpp getNvtxStr: name ", seq = " N then ", sizes = [...]",
//     the name left out when seq < 0;
//   torch/csrc/autograd/profiler.cpp (1.0) pushRangeImpl: name ", seq=" N, backward ", stashed seq=" N.
#include <catch2/catch.hpp>

#include "trace/core/analysis/nvtx_op_name.h"

using namespace parascope;

TEST_CASE("NVTX op names of today's observer: seq, op_id, sizes, input_op_ids", "[analysis][nvtx_op]") {
  SECTION("a forward op with everything") {
    const auto n = parse_nvtx_op_name("aten::mm, seq = 5, op_id = 12, sizes = [[512, 768], [768, 3072]], input_op_ids = [(10,0), (11,0)]");
    REQUIRE(n);
    CHECK(n->op == "aten::mm");
    CHECK(n->seq == 5);
    CHECK_FALSE(n->stashed_seq);
    CHECK(n->op_id == 12);
    REQUIRE(n->has_sizes);
    CHECK(n->sizes == std::vector<std::vector<int64_t>>{{512, 768}, {768, 3072}});
    CHECK(n->input_op_ids == std::vector<std::pair<uint64_t, int32_t>>{{10, 0}, {11, 0}});
    CHECK_FALSE(n->cut);
  }
  SECTION("no seq (no autograd), non-tensor arguments as [] with no producer (0,-1)") {
    const auto n = parse_nvtx_op_name(
        "aten::addmm, op_id = 40, sizes = [[3072], [512, 768], [768, 3072], [], []], input_op_ids = [(0,-1), (38,0), (39,0), (0,-1), (0,-1)]");
    REQUIRE(n);
    CHECK(n->op == "aten::addmm");
    CHECK(n->seq == -1);
    CHECK(n->op_id == 40);
    CHECK(n->sizes == std::vector<std::vector<int64_t>>{{3072}, {512, 768}, {768, 3072}, {}, {}});
    REQUIRE(n->input_op_ids.size() == 5);
    CHECK(n->input_op_ids[0] == std::pair<uint64_t, int32_t>{0, -1});
    CHECK(n->input_op_ids[2] == std::pair<uint64_t, int32_t>{39, 0});
  }
  SECTION("recorded without shapes: an Nsight Systems export's range (h100_2gpu_1s.sqlite)") {
    const auto n = parse_nvtx_op_name("aten::mm, op_id = 314307");
    REQUIRE(n);
    CHECK(n->op == "aten::mm");
    CHECK(n->op_id == 314307);
    CHECK_FALSE(n->has_sizes);
    CHECK_FALSE(n->cut);
  }
  SECTION("a backward node, an engine range, a record_function scope, a flattened tensor list") {
    const auto b = parse_nvtx_op_name("MmBackward0, seq = 3, op_id = 100, sizes = [[512, 3072]], input_op_ids = [(99,0)]");
    REQUIRE(b);
    CHECK(b->op == "MmBackward0");
    CHECK(b->seq == 3);
    const auto e = parse_nvtx_op_name("autograd::engine::evaluate_function: MmBackward0, op_id = 99");
    REQUIRE(e);
    CHECK(e->op == "autograd::engine::evaluate_function: MmBackward0");
    const auto u = parse_nvtx_op_name("FSDP::pre_forward (encoder.block.0.layer.0), op_id = 17");
    REQUIRE(u);
    CHECK(u->op == "FSDP::pre_forward (encoder.block.0.layer.0)");
    const auto cat = parse_nvtx_op_name("aten::cat, seq = 2, op_id = 7, sizes = [[4, 8], [4, 8], []], input_op_ids = [(5,0), (6,0), (0,-1)]");
    REQUIRE(cat);
    CHECK(cat->sizes.size() == 3);
    CHECK(cat->sizes[2].empty());
  }
  SECTION("\"(39, 0)\" with a space reads the same") {
    const auto n = parse_nvtx_op_name("aten::addmm, seq = 12, op_id = 40, sizes = [[256], [64, 128], [128, 256], [], []], input_op_ids = [(39, 0)]");
    REQUIRE(n);
    CHECK(n->input_op_ids == std::vector<std::pair<uint64_t, int32_t>>{{39, 0}});
  }
  SECTION("a name cut inside the sizes keeps its op and op_id, without sizes") {
    const auto n = parse_nvtx_op_name("aten::mm, seq = 5, op_id = 12, sizes = [[512, 768], [76");
    REQUIRE(n);
    CHECK(n->op == "aten::mm");
    CHECK(n->op_id == 12);
    CHECK(n->cut);
    CHECK_FALSE(n->has_sizes);
    CHECK(n->sizes.empty());
  }
  SECTION("a name cut inside input_op_ids keeps the sizes") {
    const auto n = parse_nvtx_op_name("aten::mm, op_id = 12, sizes = [[512, 768], [768, 3072]], input_op_ids = [(10,0), (1");
    REQUIRE(n);
    CHECK(n->has_sizes);
    CHECK(n->cut);
    CHECK(n->input_op_ids.empty());
  }
}

TEST_CASE("NVTX op names of older PyTorch", "[analysis][nvtx_op]") {
  SECTION("profiler_legacy: seq and sizes") {
    const auto n = parse_nvtx_op_name("aten::mm, seq = 3, sizes = [[512, 768], [768, 3072]]");
    REQUIRE(n);
    CHECK(n->op == "aten::mm");
    CHECK(n->seq == 3);
    CHECK(n->op_id == 0);
    CHECK(n->sizes == std::vector<std::vector<int64_t>>{{512, 768}, {768, 3072}});
  }
  SECTION("profiler_legacy without a seq: the name is lost, the op is unknown") {
    const auto n = parse_nvtx_op_name(", sizes = [[4, 4], []]");
    REQUIRE(n);
    CHECK(n->op.empty());
    CHECK(n->has_sizes);
  }
  SECTION("1.0: seq= and stashed seq=") {
    const auto f = parse_nvtx_op_name("mm, seq=3");
    REQUIRE(f);
    CHECK(f->op == "mm");
    CHECK(f->seq == 3);
    CHECK_FALSE(f->stashed_seq);
    const auto b = parse_nvtx_op_name("MmBackward, stashed seq=3");
    REQUIRE(b);
    CHECK(b->op == "MmBackward");
    CHECK(b->seq == 3);
    CHECK(b->stashed_seq);
  }
}

TEST_CASE("Names that are not PyTorch op ranges", "[analysis][nvtx_op]") {
  CHECK_FALSE(parse_nvtx_op_name("matmul"));           // the program's own range (collector_workload.py)
  CHECK_FALSE(parse_nvtx_op_name("iter 3"));
  CHECK_FALSE(parse_nvtx_op_name("nccl:all_reduce"));
  CHECK_FALSE(parse_nvtx_op_name("forward, backward"));  // a comma, but no field
  CHECK_FALSE(parse_nvtx_op_name(""));
}
