#include <catch2/catch.hpp>

#include <algorithm>

#include "test_paths.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/topology_json.h"
#include "trace/core/trace_builder.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {
RooflineCeilings h200_like() {
  RooflineCeilings c;
  c.bf16_flops = 1000e12;
  c.fp32_flops = 60e12;
  c.hbm_bytes_per_s = 4.8e12;
  c.link_bytes_per_s = 0.45e12;
  return c;
}
}  // namespace

TEST_CASE("Roofline placement: the lowest ceiling binds", "[analysis][roofline]") {
  const RooflineCeilings c = h200_like();
  SECTION("a big GEMM is compute-bound") {
    // 8192x4096 @ 4096x8192 in bf16: 2·8192·4096·8192 = 549 755 813 888 FLOP over
    // (33 554 432 + 33 554 432 + 67 108 864) · 2 = 268 435 456 bytes → I = 2048 FLOP/byte;
    // HBM roof 2048 · 4.8e12 = 9.83e15 > 1e15: compute binds. 0.8 ms → 687.2 TFLOP/s = 68.7 %
    const auto p = place_on_roofline(549755813888.0, 268435456.0, 0, 0.8e-3, c.bf16_flops, c);
    CHECK(p.bound == Bound::kCompute);
    CHECK(p.hbm_intensity == Approx(2048));
    CHECK(p.link_intensity == 0);
    CHECK(p.achieved_flops_per_s == Approx(687.19476736e12));
    CHECK(p.attainable_flops_per_s == Approx(1000e12));
    CHECK(p.efficiency == Approx(0.68719476736));
  }
  SECTION("an elementwise kernel is HBM-bound") {
    // 1 GFLOP over 1 GB: I = 1, roof 4.8 TFLOP/s; 1 ms → 1 TFLOP/s = 20.8 %
    const auto p = place_on_roofline(1e9, 1e9, 0, 1e-3, c.bf16_flops, c);
    CHECK(p.bound == Bound::kHbm);
    CHECK(p.attainable_flops_per_s == Approx(4.8e12));
    CHECK(p.efficiency == Approx(1.0 / 4.8));
  }
  SECTION("a fused GEMM that moves a lot over NVLink is link-bound") {
    // I_hbm = 1e12/1e9 = 1000 → 4.8e15; I_link = 1e12/1e10 = 100 → 45e12: the link binds
    const auto p = place_on_roofline(1e12, 1e9, 1e10, 50e-3, c.bf16_flops, c);
    CHECK(p.bound == Bound::kLink);
    CHECK(p.link_intensity == Approx(100));
    CHECK(p.attainable_flops_per_s == Approx(45e12));
    CHECK(p.efficiency == Approx(20e12 / 45e12));
  }
  SECTION("no FLOP count: nothing to place") {
    const auto p = place_on_roofline(0, 1e9, 1e9, 1e-3, c.bf16_flops, c);
    CHECK(p.bound == Bound::kUnknown);
    CHECK(p.attainable_flops_per_s == 0);
  }
  SECTION("fp32 inputs meet the fp32 ceiling") {
    CHECK(c.compute_for("float") == 60e12);
    CHECK(c.compute_for("c10::BFloat16") == 1000e12);
  }
}

TEST_CASE("FLOPs and bytes of PyTorch ops from their input shapes", "[analysis][roofline]") {
  KernelWork w;
  REQUIRE(op_shape_work("aten::mm", "[[8192, 4096], [4096, 8192]]", R"(["c10::BFloat16", "c10::BFloat16"])", w));
  CHECK(w.flops == 549755813888.0);
  CHECK(w.hbm_bytes == 268435456.0);
  CHECK(w.dtype == "c10::BFloat16");
  CHECK(w.flop_source == WorkSource::kOpShapes);
  // addmm: the bias is read too (8192 · 2 bytes more)
  REQUIRE(op_shape_work("aten::addmm", "[[8192], [8192, 4096], [4096, 8192]]", R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])", w));
  CHECK(w.flops == 549755813888.0);
  CHECK(w.hbm_bytes == 268435456.0 + 16384.0);
  // linear: x [4, 2048, 4096] · W [8192, 4096]^T: 8192 rows → 2·8192·4096·8192, fp32
  REQUIRE(op_shape_work("aten::linear", "[[4, 2048, 4096], [8192, 4096], [8192]]", R"(["float", "float", "float"])", w));
  CHECK(w.flops == 549755813888.0);
  CHECK(w.dtype == "float");
  // bmm [16, 128, 64] x [16, 64, 256]: 2·16·128·64·256 = 67 108 864
  REQUIRE(op_shape_work("aten::bmm", "[[16, 128, 64], [16, 64, 256]]", R"(["c10::Half", "c10::Half"])", w));
  CHECK(w.flops == 67108864.0);
  CHECK_FALSE(op_shape_work("aten::mm", "[[8192, 4096], [1024, 8192]]", "", w));  // inner dims differ
  CHECK_FALSE(op_shape_work("aten::gelu", "[[8192, 8192]]", "", w));
  CHECK_FALSE(op_shape_work("aten::mm", "not json", "", w));
  // no shapes (most ops around a launch) and a broken array: false, whatever the first byte
  CHECK_FALSE(op_shape_work("aten::mm", "", "", w));
  CHECK_FALSE(op_shape_work("aten::mm", "  \n", "", w));
  CHECK_FALSE(op_shape_work("aten::mm", "{\"a\": 1}", "", w));
  CHECK_FALSE(op_shape_work("aten::mm", "[[8192, 4096], [4096", "", w));
  // leading white space is still JSON
  REQUIRE(op_shape_work("aten::mm", " \n[[8192, 4096], [4096, 8192]]", "", w));
  CHECK(w.flops == 549755813888.0);
}

TEST_CASE("Kernel args carry FLOPs, HBM and link bytes", "[analysis][roofline]") {
  TraceBuilder b;
  Process p;
  p.rank = 0;
  const uint32_t pi = b.add_process(p);
  Device d;
  d.process = pi;
  d.ordinal = 0;
  const auto di = static_cast<int32_t>(b.add_device(d));
  const uint32_t s = b.track({TrackKind::kGpuStream, pi, di, 7}, "stream 7");
  // a fused all-gather + GEMM: 1e12 FLOP, 1e9 HBM bytes, 1e10 link bytes in 50 ms (as above: link-bound)
  const std::vector<Arg> args = {{b.intern("flops"), ArgValue::of_double(1e12)},
                                 {b.intern("hbm_bytes"), ArgValue::of_double(1e9)},
                                 {b.intern("link_bytes"), ArgValue::of_double(1e10)}};
  b.add_slice(s, 0, 50'000'000, b.intern("fused_ag_gemm"), b.add_kernel({}), args);
  b.add_slice(s, 60'000'000, 1000, b.intern("mystery"), b.add_kernel({}));
  b.add_slice(s, 70'000'000, 1000, b.intern("parascope_clock_sync"), b.add_kernel({}));  // the collector's, not the program's
  const Trace t = b.finish();
  const Roofline r = compute_roofline(t, h200_like());
  REQUIRE(r.points.size() == 2);
  CHECK(r.kernels == 2);
  CHECK(r.collector_kernels == 1);
  CHECK(r.kernels_with_flops == 1);
  const RooflinePoint& f = r.points[0];
  CHECK(t.str(f.name) == "fused_ag_gemm");
  CHECK(f.flop_source == WorkSource::kKernelArgs);
  CHECK(f.placement.bound == Bound::kLink);
  CHECK(f.placement.achieved_flops_per_s == Approx(20e12));
  CHECK(r.points[1].with_flops == 0);
  const DataTable table = roofline_table(t, r);
  CHECK(table.rows[1].back().text == "no FLOP count");
  CHECK(table.note.find("1 of 2 kernels have a FLOP count; the collector's parascope_clock_sync (1) left out") != std::string::npos);
  // work in SI units, the exact count behind it (CSV, JSON)
  CHECK(table.columns[4].title == "FLOPs");
  CHECK(table.rows[0][4].text == "1.000 TFLOP");
  CHECK(table.rows[0][4].value == 1e12);
  CHECK(table.rows[0][5].text == "20.00 TFLOP/s");
  CHECK(table.rows[0][8].text == "1000.0");  // FLOP per HBM byte: a plain number
}

TEST_CASE("FLOP counts read in SI units", "[analysis][roofline]") {
  CHECK(format_flop_count(8796093022208.0) == "8.796 TFLOP");
  CHECK(format_flop_count(549755813888.0) == "549.8 GFLOP");
  CHECK(format_flop_count(67108864.0) == "67.11 MFLOP");
  CHECK(format_flop_count(512) == "512 FLOP");
  CHECK(format_flop_count(2.5e18) == "2.500 EFLOP");
  CHECK(flop_count_cell(1e15).text == "1.000 PFLOP");
}

TEST_CASE("Roofline of the real tensor-parallel capture", "[analysis][roofline][real]") {
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1")});
  const Topology h200x2 = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  const Topology hgx = load_topology_file(test::source_path("resources/topologies/hgx_h200x8.json"));
  // the measured preset's 685 TFLOP/s is a GEMM rate these kernels beat: the datasheet's 989 is the roof
  const RooflineCeilings c = ceilings_with_datasheet(h200x2, {h200x2, hgx});
  CHECK(c.bf16_flops == Approx(989e12));
  CHECK(c.link_bytes_per_s == Approx(478.1e9));  // the measured NVLink of the machine stays
  CHECK(c.peaks_from == "datasheet (hgx_h200x8)");
  const Roofline r = compute_roofline(t, c);
  // 4 profiled steps x 2 ranks: 4 GEMMs (aten::mm) per step per rank have Input Dims; the GELU,
  // the NCCL kernels and the rest have no FLOP count (the capture's with_flops gave none)
  CHECK(r.kernels == 64);
  CHECK(r.kernels_with_flops == 32);
  const RooflinePoint& g = r.points[0];
  CHECK(t.str(g.name) == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  CHECK(g.count == 16);
  // Python over both files: 16 kernels, sum(dur) = 11 957.771 us; each aten::mm [8192,4096]x[4096,8192]
  CHECK(g.total_ns == 11'957'771);
  CHECK(g.flops == 16 * 549755813888.0);
  CHECK(g.flop_source == WorkSource::kOpShapes);
  CHECK(g.op == "aten::mm");
  CHECK(g.placement.achieved_flops_per_s == Approx(16 * 549755813888.0 / 11.957771e-3));
  CHECK(g.placement.bound == Bound::kCompute);
  CHECK(g.placement.efficiency == Approx(16 * 549755813888.0 / 11.957771e-3 / 989e12));
  const DataTable table = roofline_table(t, r);
  CHECK(table.rows[0][4].text == "8.796 TFLOP");  // not "8796093022208" (issue 18)
  // the all-reduce of 32 Mi bf16 elements on 2 ranks: each rank sends S x 1 = 64 MiB per call
  const auto ar = std::find_if(r.points.begin(), r.points.end(), [&](const RooflinePoint& p) {
    return t.str(p.name).rfind("ncclDevKernel_AllReduce", 0) == 0;
  });
  REQUIRE(ar != r.points.end());
  CHECK(ar->category == Category::kCommunication);
  CHECK(ar->with_flops == 0);
  CHECK(ar->link_bytes == 8 * 67108864.0);
}
