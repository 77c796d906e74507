// FLOPs from PyTorch's NVTX op ranges (nvtx_op_work.h) through the roofline: a hand-built trace of
// every rule, the collector's real trace with op ranges placed around its real launches, and a real
// Nsight Systems export whose op ranges were recorded without shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <unordered_map>

#include "skip.h"
#include "test_paths.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/pstrace_reader.h"

using namespace parascope;

namespace {

RooflineCeilings h200_like() {
  RooflineCeilings c;
  c.bf16_flops = 989e12;
  c.hbm_bytes_per_s = 4.8e12;
  c.link_bytes_per_s = 0.45e12;
  return c;
}

struct Builder {
  TraceBuilder b;
  uint32_t proc = 0, stream = 0;
  uint32_t correlation = 0;

  Builder() {
    Process p;
    p.rank = 0;
    proc = b.add_process(p);
    Device d;
    d.process = proc;
    const auto dev = static_cast<int32_t>(b.add_device(d));
    stream = b.track({TrackKind::kGpuStream, proc, dev, 7}, "stream 7");
  }
  uint32_t thread(int64_t tid) { return b.track({TrackKind::kCpuThread, proc, -1, tid}, "thread"); }
  void range(uint32_t thread, TimeNs start, TimeNs end, std::string_view name) {
    b.add_slice(thread, start, end - start, b.intern(name), b.add_nvtx({}));
  }
  // a launch call on `thread` at [at, at + 10) and its kernel on the stream
  void launch(uint32_t thread, TimeNs at, std::string_view kernel, TimeNs k_start, TimeNs k_dur) {
    ApiInfo a;
    a.correlation = ++correlation;
    const EventRef call = b.add_slice(thread, at, 10, b.intern("cudaLaunchKernel"), b.add_api_call(a));
    KernelInfo k;
    k.correlation = correlation;
    const EventRef ker = b.add_slice(stream, k_start, k_dur, b.intern(kernel), b.add_kernel(k));
    b.add_flow(call, ker, FlowKind::kLaunch);
  }
};

const RooflinePoint& point(const Trace& t, const Roofline& r, std::string_view name) {
  const auto it = std::find_if(r.points.begin(), r.points.end(), [&](const RooflinePoint& p) { return t.str(p.name) == name; });
  REQUIRE(it != r.points.end());
  return *it;
}

std::string flops_from(const Trace& t, const Roofline& r, std::string_view name) {
  const DataTable table = roofline_table(t, r);
  for (const auto& row : table.rows)
    if (row.front().text == name) return row.back().text;
  return "(no row)";
}

}  // namespace

TEST_CASE("Kernels get FLOPs from the innermost PyTorch NVTX op range around their launch", "[analysis][nvtx_op]") {
  Builder x;
  const uint32_t main = x.thread(1), autograd = x.thread(2);
  // aten::linear → aten::addmm launching a bias copy (2 ns) and the GEMM (50 ns)
  x.range(main, 0, 1000, "aten::linear, seq = 1, op_id = 1, sizes = [[512, 768], [3072, 768], [3072]], input_op_ids = [(0,-1), (0,-1), (0,-1)]");
  x.range(main, 10, 20, "aten::t, op_id = 2, sizes = [[3072, 768]], input_op_ids = [(0,-1)]");
  x.range(main, 30, 900, "aten::addmm, seq = 1, op_id = 3, sizes = [[3072], [512, 768], [768, 3072], [], []], input_op_ids = [(0,-1), (0,-1), (2,0), (0,-1), (0,-1)]");
  x.launch(main, 100, "bias_copy", 2000, 2);
  x.launch(main, 200, "gemm", 2010, 50);
  // a copy: no formula; an op recorded without shapes
  x.range(main, 1000, 1100, "aten::copy_, seq = 2, op_id = 4, sizes = [[1024], [1024], []], input_op_ids = [(0,-1), (0,-1), (0,-1)]");
  x.launch(main, 1010, "bias_copy", 2100, 3);
  x.range(main, 1200, 1300, "aten::mm, op_id = 5");
  x.launch(main, 1210, "gemm_without_shapes", 2200, 10);
  // conv2d → convolution → _convolution → cudnn_convolution; relu takes conv2d's result (op 20, output 0)
  x.range(main, 1400, 1900, "aten::conv2d, seq = 3, op_id = 20, sizes = [[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], []], input_op_ids = [(0,-1), (0,-1), (0,-1), (0,-1), (0,-1), (0,-1), (0,-1)]");
  x.range(main, 1410, 1890, "aten::convolution, op_id = 21, sizes = [[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]");
  x.range(main, 1420, 1880, "aten::_convolution, op_id = 22, sizes = [[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], [], [], [], [], []]");
  x.range(main, 1430, 1870, "aten::cudnn_convolution, op_id = 23, sizes = [[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]");
  x.launch(main, 1440, "cudnn_conv", 2300, 100);
  x.range(main, 1950, 1990, "aten::relu, seq = 4, op_id = 30, sizes = [[8, 128, 56, 56]], input_op_ids = [(20,0)]");
  // a convolution whose result nothing recorded takes: its output size stays unknown
  x.range(main, 3000, 3500, "aten::cudnn_convolution, op_id = 40, sizes = [[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]");
  x.launch(main, 3010, "cudnn_conv_alone", 4000, 100);
  // the program's own range around an op: the op decides
  x.range(main, 5000, 6000, "matmul");
  x.range(main, 5100, 5900, "aten::mm, seq = 5, op_id = 50, sizes = [[512, 768], [768, 3072]], input_op_ids = [(0,-1), (0,-1)]");
  x.launch(main, 5200, "gemm", 7000, 50);
  x.launch(main, 6500, "lonely", 8000, 10);  // outside any op range
  // backward on autograd's thread: aten::mm inside MmBackward0 carries its own sizes
  x.range(autograd, 9000, 9500, "autograd::engine::evaluate_function: MmBackward0, op_id = 60");
  x.range(autograd, 9010, 9490, "MmBackward0, seq = 5, op_id = 61, sizes = [[512, 3072]], input_op_ids = [(50,0)]");
  x.range(autograd, 9020, 9200, "aten::mm, seq = 0, op_id = 62, sizes = [[512, 3072], [3072, 768]], input_op_ids = [(61,0), (0,-1)]");
  x.launch(autograd, 9030, "gemm", 10000, 50);
  const Trace t = x.b.finish();
  const Roofline r = compute_roofline(t, h200_like());

  CHECK(r.kernels == 9);
  CHECK(r.kernels_with_flops == 4);  // the three GEMMs and the convolution with a known output
  CHECK(r.kernels_in_ops_without_shapes == 1);
  // each GEMM: 2·512·768·3072 = 2 415 919 104 (the backward's [512, 3072] x [3072, 768] the same)
  const RooflinePoint& gemm = point(t, r, "gemm");
  CHECK(gemm.count == 3);
  CHECK(gemm.with_flops == 3);
  CHECK(gemm.flops == 3 * 2415919104.0);
  CHECK(gemm.flop_source == WorkSource::kNvtxOpShapes);
  CHECK(gemm.op == "aten::addmm");  // the first instance's op
  CHECK(gemm.hbm_bytes == 0);       // NVTX names carry no dtype
  CHECK(flops_from(t, r, "gemm") == "NVTX op shapes (aten::addmm)");
  // 3 · 2 415 919 104 FLOP in 150 ns
  CHECK(gemm.placement.achieved_flops_per_s == Approx(3 * 2415919104.0 / 150e-9));
  // 2·8·56·56·(128·64·3·3) = 3 699 376 128, the output [8, 128, 56, 56] from relu's input
  const RooflinePoint& conv = point(t, r, "cudnn_conv");
  CHECK(conv.flops == 3699376128.0);
  CHECK(conv.op == "aten::cudnn_convolution");
  // the bias copy's first instance is the addmm's shorter kernel; the second sits in aten::copy_
  const RooflinePoint& copy = point(t, r, "bias_copy");
  CHECK(copy.with_flops == 0);
  REQUIRE(copy.op_range_gap);
  CHECK(*copy.op_range_gap == OpRangeOutcome::kOnLongerKernel);
  CHECK(flops_from(t, r, "bias_copy") == "no FLOP count: aten::addmm's FLOPs are on its longest kernel");
  CHECK(flops_from(t, r, "gemm_without_shapes") == "no FLOP count: aten::mm's NVTX range has no shapes");
  CHECK(flops_from(t, r, "cudnn_conv_alone") == "no FLOP count: aten::cudnn_convolution's shapes fit no formula");
  CHECK(flops_from(t, r, "lonely") == "no FLOP count");
  CHECK(roofline_table(t, r).note.find("4 of 9 kernels have a FLOP count; 1 were launched inside PyTorch NVTX op ranges recorded "
                                       "without shapes") != std::string::npos);

  SECTION("an op's only kernel in aten::copy_ gets no formula") {
    Builder y;
    const uint32_t th = y.thread(1);
    y.range(th, 0, 100, "aten::copy_, seq = 2, op_id = 4, sizes = [[1024], [1024], []]");
    y.launch(th, 10, "copy_kernel", 1000, 5);
    const Trace u = y.b.finish();
    const Roofline ru = compute_roofline(u, h200_like());
    CHECK(flops_from(u, ru, "copy_kernel") == "no FLOP count: no formula for aten::copy_");
  }
}

TEST_CASE("The collector's real trace with op ranges around its real matmul launches", "[analysis][nvtx_op][real]") {
  // collector_workload.py's "matmul" range holds c = a @ b; d = c @ b on [4096, 4096] bf16 tensors:
  // two nvjet_sm90 GEMMs per range. Placed around each launch, as emit_nvtx(record_shapes=True) does,
  // aten::matmul ⊃ aten::mm, and each of the 110 GEMMs of rank 0 must get 2·4096³ = 137 438 953 472.
  const std::string file = test::sample_path("record_torch_nccl_2xh200/vm-3490-r0.pstrace");
  const Trace real = read_pstrace(file);
  std::unordered_map<uint64_t, EventRef> launch_of;  // API call → kernel
  for (const Flow& f : real.flows)
    if (f.kind == FlowKind::kLaunch) launch_of.emplace((static_cast<uint64_t>(f.from.track) << 32) | f.from.index, f.to);
  struct Op {
    uint32_t track;
    TimeNs start, end;
    std::string name;
  };
  std::vector<Op> ops;
  int64_t placed = 0;
  for (uint32_t ti = 0; ti < real.tracks.size(); ++ti) {
    const SliceColumns& s = real.tracks[ti].slices;
    if (real.tracks[ti].key.kind != TrackKind::kCpuThread) continue;
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.ref[i].kind() != SliceKind::kNvtxRange || real.str(s.name[i]) != "matmul" || s.dur[i] == 0) continue;
      // the range's children; the two GEMM launches among them
      std::vector<uint32_t> kids, gemms;
      for (uint32_t j = i + 1; j < s.size() && s.start[j] < s.end(i); ++j) {
        if (s.depth_of(j) != s.depth_of(i) + 1) continue;
        kids.push_back(j);
        const auto it = launch_of.find((static_cast<uint64_t>(ti) << 32) | j);
        if (it != launch_of.end() && real.str(real.tracks[it->second.track].slices.name[it->second.index]).rfind("nvjet_sm90", 0) == 0)
          gemms.push_back(j);
      }
      REQUIRE(gemms.size() == 2);
      TimeNs end1 = 0;  // the first op ends with the last child that starts before the second launch
      for (uint32_t j : kids)
        if (s.start[j] < s.start[gemms[1]]) end1 = std::max(end1, s.end(j));
      const TimeNs first = s.start[kids.front()], last = s.end(kids.back());  // the children lie inside the two ops
      REQUIRE(first >= s.start[i] + 3);
      REQUIRE(s.start[gemms[1]] >= end1 + 5);
      REQUIRE(last <= s.end(i) - 3);
      const std::string mm = ", sizes = [[4096, 4096], [4096, 4096]], input_op_ids = [(0,-1), (0,-1)]";
      ops.push_back({ti, s.start[i] + 1, end1 + 2, "aten::matmul, seq = 0, op_id = " + std::to_string(4 * placed + 1) + mm});
      ops.push_back({ti, s.start[i] + 2, end1 + 1, "aten::mm, seq = 0, op_id = " + std::to_string(4 * placed + 2) + mm});
      ops.push_back({ti, end1 + 3, s.end(i) - 1, "aten::matmul, seq = 0, op_id = " + std::to_string(4 * placed + 3) + mm});
      ops.push_back({ti, end1 + 4, s.end(i) - 2, "aten::mm, seq = 0, op_id = " + std::to_string(4 * placed + 4) + mm});
      ++placed;
    }
  }
  CHECK(placed == 55);  // 5 warm-up + 50 measured iterations
  TraceBuilder b;
  import_pstrace(file, b);
  for (const Op& o : ops) b.add_slice(o.track, o.start, o.end - o.start, b.intern(o.name), b.add_nvtx({}));
  const Trace t = b.finish();
  const Roofline r = compute_roofline(t, h200_like());
  const RooflinePoint& g = point(t, r, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  CHECK(g.count == 110);
  CHECK(g.with_flops == 110);
  CHECK(g.flops == 110 * 137438953472.0);
  CHECK(g.flop_source == WorkSource::kNvtxOpShapes);
  CHECK(g.op == "aten::mm");
  CHECK(r.kernels_with_flops == 110);  // the NCCL and elementwise kernels sit in no op range
  CHECK(r.kernels_in_ops_without_shapes == 0);
  CHECK(g.placement.achieved_flops_per_s == Approx(110 * 137438953472.0 / (static_cast<double>(g.flops_ns) * 1e-9)));
  SECTION("without the op ranges, as recorded: no FLOP count") {
    const Roofline plain = compute_roofline(real, h200_like());
    CHECK(plain.kernels_with_flops == 0);
    CHECK(plain.kernels_in_ops_without_shapes == 0);  // "matmul" is the program's range, not an op's
  }
}

TEST_CASE("A real record --op-shapes trace: every GEMM, convolution and attention FLOP counted", "[analysis][nvtx_op][real]") {
  // scripts/gpu/op_shapes_check.sh on the lent H200 (torch 2.11): op_shapes_workload.py's 6 iterations
  // (1 warm-up + 5) of two 2048³ matmuls, a [8·512, 4096] x [4096, 4096] linear layer forward + backward,
  // a 3x3 convolution 64 -> 128 channels on 8 x 56 x 56 forward + backward, and scaled_dot_product_attention
  // on [2, 16, 1024, 64] forward + backward, under PyTorch's own NVTX op ranges with shapes.
  const std::string file = test::source_path("resources/captures/h200_op_shapes_2026-12-03/shapes/vm-584-rnone.pstrace");
  const Trace t = read_pstrace(file);
  const Roofline r = compute_roofline(t, h200_like());
  const double per_iteration = 2 * (2.0 * 2048 * 2048 * 2048)       // mm
                               + 3 * (2.0 * 8 * 512 * 4096 * 4096)  // linear: forward, input and weight gradients
                               + 3 * (2.0 * 8 * 56 * 56 * 128 * 64 * 9)  // conv: backward 2 x forward
                               + 3 * (4.0 * 2 * 16 * 1024 * 1024 * 64);  // attention: backward 2 x forward
  double counted = 0;
  for (const RooflinePoint& p : r.points) counted += p.flops;
  CHECK(counted == Approx(6 * per_iteration).epsilon(1e-9));
  // cuDNN's attention (torch 2.11 picks it on an H200): its kernels sit inside aten::_cudnn_attention_*
  const auto by_op = [&](std::string_view op) {
    double f = 0;
    for (const RooflinePoint& p : r.points)
      if (p.op == op) f += p.flops;
    return f;
  };
  CHECK(by_op("aten::_cudnn_attention_forward") == 6 * 4.0 * 2 * 16 * 1024 * 1024 * 64);
  CHECK(by_op("aten::_cudnn_attention_backward") == 6 * 8.0 * 2 * 16 * 1024 * 1024 * 64);
  CHECK(r.kernels_with_flops == 54);
  CHECK(r.kernels_in_ops_without_shapes == 0);
}

TEST_CASE("A real Nsight export's PyTorch op ranges without shapes give no FLOP count, and say so", "[analysis][nvtx_op][real][nsys]") {
#ifndef PARASCOPE_HAVE_SQLITE
  PARASCOPE_SKIP("built without SQLite: the Nsight Systems reader is not there");
#else
  if (!test::shared_available()) PARASCOPE_SKIP("../shared/data (real Nsight exports) is not present");
  const Trace t = load_trace({test::shared_path("data/nsys/h100_2gpu_1s.sqlite")});
  const Roofline r = compute_roofline(t, h200_like());
  // Python over the export: 3442 kernels; 1632 of them are launched by a runtime call inside a
  // push/pop range named like "aten::mm, op_id = 314307" on the same thread (none has sizes)
  CHECK(r.kernels == 3442);
  CHECK(r.kernels_with_flops == 0);
  CHECK(r.kernels_in_ops_without_shapes == 1632);
  const RooflinePoint& top = r.points.front();
  CHECK(t.str(top.name).rfind("sm80_xmma_gemm_f32f32", 0) == 0);
  REQUIRE(top.op_range_gap);
  CHECK(*top.op_range_gap == OpRangeOutcome::kWithoutShapes);
  CHECK(top.gap_op == "aten::mm");
  const DataTable table = roofline_table(t, r);
  CHECK(table.rows.front().back().text == "no FLOP count: aten::mm's NVTX range has no shapes");
  CHECK(table.note.find("0 of 3442 kernels have a FLOP count; 1632 were launched inside PyTorch NVTX op ranges recorded without "
                        "shapes (record them with parascope-cli record --op-shapes") != std::string::npos);
#endif
}
