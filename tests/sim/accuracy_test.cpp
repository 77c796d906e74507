// The calibration against the real 2 x H200 measurements: the P2P mechanism fit of the raw sweep
// (values pinned from the fit of 2026-11-30's sweep, which the committed preset carries), and the
// accuracy of the committed preset on the harness rows it was not fitted on (validation rows: not
// blind, docs/accuracy.md), against issue #4's targets (64 KiB - 1 GiB: median |error| <= 5 %, worst
// <= 15 %).
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <tuple>

#include "h200x2_harness.h"
#include "sim/accuracy.h"
#include "sim/calibration.h"
#include "sim/collective_fit.h"
#include "sim/collectives.h"
#include "sim/platform.h"
#include "sim/simulation.h"
#include "sim/workload_spec.h"
#include "test_paths.h"
#include "trace/core/topology_json.h"

using namespace parascope;
using namespace parascope::sim;

namespace {

std::vector<std::string> raw_files() {
  std::vector<std::string> out;
  for (const auto& f : test::h200x2_raw_p2p()) out.push_back(test::source_path(f));
  return out;
}

const GpuSpec& gpu0(const Topology& t) { return *t.nodes[static_cast<size_t>(t.gpu_node(0))].gpu; }

// A batch no fit reads (batch 3), scored on the committed preset: every modelled row is validation.
AccuracyReport score_batch(const std::vector<std::string>& files) {
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  std::vector<HarnessRow> rows;
  for (const auto& f : files)
    for (auto& r : load_harness_rows(test::source_path(f))) rows.push_back(std::move(r));
  return evaluate_accuracy(preset, unique_rows(rows), unfitted_batch_split());
}

}  // namespace

TEST_CASE("Calibration: the real 2 x H200 P2P sweep fits every mechanism within 5 percent median", "[sim][calibration]") {
  const RawCalibration raw = load_raw_calibrations(raw_files());
  // the main sweep, the TMA rerun (tma, tma_pull), LD/ST at 512 threads and its 1024-thread control
  REQUIRE(raw.rows.size() == 364 + 84 + 182 + 182);
  const CalibrationFit fit = fit_calibration(raw);
  REQUIRE(fit.mechanisms.size() == 5);
  // Over all 812 rows (1 KiB - 1 GiB, 1 - 132 SMs, both directions, 512 and 1024 LD/ST threads).
  CHECK(fit.median_abs_error < 0.025);
  for (const MechanismFit& m : fit.mechanisms) {
    INFO(m.mechanism << ": median " << m.median_abs_error << ", worst " << m.max_abs_error << " (" << m.worst << ")");
    CHECK(m.median_abs_error < 0.05);
  }
  // The copy engine's worst rows are its smallest, timed on a stream (host-issue bound, not fitted):
  // 1 KiB takes 1.7 us measured against 2.6 us of setup fitted on 64 KiB and up.
  const MechanismFit* ce = fit.find("ce");
  REQUIRE(ce != nullptr);
  CHECK(ce->worst == "ce uni 1KiB");
  CHECK(ce->fitted_rows == 16);  // 64 KiB - 1 GiB, one way and both ways
  CHECK(ce->ce.rate_bytes_per_s / 1e9 == Approx(400.9).epsilon(0.005));
  CHECK(ce->latency_ns == Approx(2578).epsilon(0.01));
  CHECK(ce->ce.reverse_weight == Approx(0.0336).epsilon(0.03));  // 1 GiB both ways: 390.7 vs 396.5 GB/s
  // SM mechanisms: ~45 GB/s per SM (not the 30 the old min(k x per-SM, cap) fit gave), saturating at
  // 358-379 GB/s; pull pays a read round trip (1.9 us per operation) and 13-15 % both ways.
  const MechanismFit* push = fit.find("ldst_push");
  const MechanismFit* pull = fit.find("ldst_pull");
  const MechanismFit* tma = fit.find("tma");
  const MechanismFit* tma_pull = fit.find("tma_pull");
  REQUIRE((push && pull && tma && tma_pull));
  CHECK(push->sm.per_sm_bytes_per_s / 1e9 == Approx(44.8).epsilon(0.01));
  CHECK(push->sm.cap_bytes_per_s / 1e9 == Approx(365.1).epsilon(0.01));
  CHECK(push->latency_ns == Approx(1088).epsilon(0.01));
  CHECK(pull->latency_ns == Approx(1916).epsilon(0.01));
  CHECK(pull->sm.reverse_weight == Approx(0.126).epsilon(0.03));
  // Block size (batch3/p2p_ldst_t512 vs _t1024, one session): stores run as fast from 512 threads as
  // from 1024 (45.6 GB/s per SM at 16 MiB both ways), loads of peer memory do not (33.1 vs 47.3):
  // the fit puts push's saturation at 512 threads, pull's at 765, so one SM of 512 threads pulls
  // 46.6 x 512 / 765 = 31.2 GB/s: 16 MiB in 1916 ns + 537.8 us = 539.7 us (measured 506.9, +6.5 %).
  CHECK(push->sm.per_sm_threads == 512);
  CHECK(pull->sm.per_sm_threads == Approx(765).margin(15));
  CalibrationRow slow;
  slow.mechanism = "ldst_pull";
  slow.direction = "uni";
  slow.bytes = 16777216;
  slow.sms = 1;
  slow.threads = 512;
  CHECK(mechanism_time_ns(*pull, slow) / 1000 == Approx(539.7).epsilon(0.01));
  slow.threads = 1024;  // measured 361.8 us at 1024 threads in the same session
  CHECK(mechanism_time_ns(*pull, slow) / 1000 == Approx(361.8).epsilon(0.01));
  CHECK(tma->sm.per_sm_bytes_per_s / 1e9 == Approx(45.8).epsilon(0.01));
  CHECK(tma_pull->sm.per_sm_bytes_per_s / 1e9 == Approx(40.4).epsilon(0.02));
  // A row worked by hand from the fitted numbers: LD/ST push, 8 SMs, 64 MiB one way,
  // t = 1088 ns + 67108864 B / smooth_min(8 x 44.82, 365.07; 17.57), the smooth min of 358.55 and
  // 365.07: 358.55 x (1 + 0.9821^17.57)^(-1/17.57) = 358.55 x 1.7286^(-0.0569) ≈ 347.56 GB/s, so
  // t ≈ 1.088 + 193.09 ≈ 194.2 us against 186.3 us measured in the main sweep (+4.2 %; the knee is
  // softer since the 512-thread rows joined the fit).
  CalibrationRow row;
  row.mechanism = "ldst_push";
  row.direction = "uni";
  row.bytes = 67108864;
  row.sms = 8;
  row.threads = 1024;
  CHECK(mechanism_time_ns(*push, row) == Approx(push->latency_ns + 67108864 / sm_model_rate(push->sm, 8) * 1e9).epsilon(1e-9));
  CHECK(mechanism_time_ns(*push, row) / 1000 == Approx(194.2).epsilon(0.002));
  CHECK(mechanism_time_ns(*push, row) / 186304.0 - 1 == Approx(0.042).margin(0.002));
}

TEST_CASE("Calibration: the committed h200x2 preset carries the fit of the real sweep", "[sim][calibration]") {
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  REQUIRE(preset.calibration == Calibration::kMeasured);
  REQUIRE(preset.calibration_source.find("parascope-cli calibrate resources/calibration/h200x2_p2p.json") == 0);
  const CalibrationFit fit = fit_calibration(load_raw_calibrations(raw_files()));
  const GpuSpec& g = gpu0(preset);
  CHECK(g.kernel_latency_ns == Approx(1023).margin(5));  // the graph floor rows: an empty kernel per graph node
  CHECK(g.copy_engine.rate_bytes_per_s == Approx(fit.find("ce")->ce.rate_bytes_per_s).epsilon(1e-6));
  CHECK(g.ldst.per_sm_bytes_per_s == Approx(fit.find("ldst_push")->sm.per_sm_bytes_per_s).epsilon(1e-6));
  CHECK(g.ldst.cap_bytes_per_s == Approx(fit.find("ldst_push")->sm.cap_bytes_per_s).epsilon(1e-6));
  CHECK(g.ldst_pull.reverse_weight == Approx(fit.find("ldst_pull")->sm.reverse_weight).epsilon(1e-6));
  CHECK(g.tma_pull.sharpness == Approx(fit.find("tma_pull")->sm.sharpness).epsilon(1e-6));
  // setup = the fitted per-operation latency minus the launch the simulator charges per kernel
  CHECK(g.ldst.setup_ns == Approx(fit.find("ldst_push")->latency_ns - g.kernel_latency_ns).epsilon(1e-6));
  REQUIRE(preset.nccl.has_value());
  CHECK(preset.nccl->channels == 24);
}

TEST_CASE("Calibration: comm_interference is fitted on half of interference.json and scored on the other half",
          "[sim][calibration][interference]") {
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  const auto rows = load_interference(test::source_path("resources/captures/h200x2_2026-11-30/interference.json"));
  REQUIRE(rows.size() == 3);
  const InterferenceFit fit = fit_interference(preset, rows);
  // FitSplit's NCCL fit sizes: 16 and 256 MiB fit, 64 MiB the scored half (not blind)
  REQUIRE(fit.fitted == std::vector<bool>{true, false, true});
  CHECK(fit.comm_interference == Approx(gpu0(preset).comm_interference));  // the preset's one value
  CHECK(std::abs(fit.errors[1]) < 0.03);                                     // scored half (+0.7 %)
  // the what-if replay's a-priori slow-down: measured apart, carried with where it came from
  CHECK(gpu0(preset).comm_slowdown == Approx(0.03));
  CHECK(gpu0(preset).comm_slowdown_source.find("comm_beside_gemm.sh") != std::string::npos);
}

TEST_CASE("Accuracy: the first table's validation rows (2 x H200 harness) stay within issue 4 targets", "[sim][accuracy]") {
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  std::vector<HarnessRow> rows;
  for (const auto& f : test::h200x2_harness_files())
    for (auto& r : load_harness_rows(test::source_path(f))) rows.push_back(std::move(r));
  rows = unique_rows(rows);
  const FitSplit split;
  const AccuracyReport rep = evaluate_accuracy(preset, rows, split);
  // The split (docs/accuracy.md): NCCL's profile is fitted on bf16 all-reduce, all-gather,
  // reduce-scatter and send/recv at 16^k and 2 x 4^k sizes (this table's 4 KiB, 64 KiB, 1 MiB, 16 MiB,
  // 256 MiB, 1 GiB; batch 2's; the forced-protocol rows of nccl_proto/); the kernels' shared
  // parameters on four bf16 variants at every size. Validation: the other sizes (256 KiB, 4 MiB, 64 MiB),
  // the other ten kernel variants, and their fp32 twins. A validation row never shares (op, variant,
  // size) with a fit row.
  std::set<std::tuple<std::string, std::string, double>> fit_points;
  for (const AccuracyRow& a : rep.rows)
    if (a.role == RowRole::kNcclFit || a.role == RowRole::kKernelFit) fit_points.insert({a.row.op, a.row.variant, a.row.bytes});
  for (const AccuracyRow& a : rep.rows) {
    if (a.role != RowRole::kValidation) continue;
    INFO(a.row.op << " " << a.row.variant << " " << a.row.dtype << " " << a.row.bytes);
    CHECK(fit_points.count({a.row.op, a.row.variant, a.row.bytes}) == 0);
    CHECK(a.row.bytes >= 65536);
    CHECK(a.row.bytes <= 1073741824);
  }
  // NCCL: (AR, AG, RS, send/recv) x (256 KiB, 4 MiB, 64 MiB) x 2 dtypes.
  CHECK(rep.validation_nccl.count == 24);
  CHECK(rep.validation_kernels.count == 80);
  INFO("validation: " << rep.validation.count << " rows, median " << rep.validation.median_abs << ", worst " << rep.validation.max_abs
                    << "; NCCL median " << rep.validation_nccl.median_abs << ", worst " << rep.validation_nccl.max_abs << "; kernels median "
                    << rep.validation_kernels.median_abs << ", worst " << rep.validation_kernels.max_abs);
  // Issue #4's targets, met since the protocol split (docs/accuracy.md; since the per-operation NCCL
  // curves of stop 15: all 3.5 % median / 13.0 % worst; kernels 3.6 / 13.0 %; NCCL 1.7 / 11.7 %).
  CHECK(rep.validation.median_abs <= 0.05);
  CHECK(rep.validation.max_abs <= 0.15);
  CHECK(rep.validation_kernels.median_abs <= 0.05);
  CHECK(rep.validation_kernels.max_abs <= 0.15);
  CHECK(rep.validation_nccl.median_abs <= 0.05);
  CHECK(rep.validation_nccl.max_abs <= 0.15);
  CHECK(rep.fit.median_abs <= 0.05);
}

TEST_CASE("Accuracy: the 2026-11-30 batch 2: its NCCL rows fit, its kernel rows are validation", "[sim][accuracy]") {
  // batch2/ was measured after the first preset, at 32 KiB, 128 KiB, 512 KiB, 2, 8, 32, 128 and 512
  // MiB: between the 4^k grid. Since stop 15 its NCCL bf16 rows fit NCCL's per-operation curves (a
  // row every factor 2 with the first table's); its kernel rows shaped no parameter and are validation
  // (nccl_fitted_batch_split); 32 KiB lies below issue #4's range and is reported apart.
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  std::vector<HarnessRow> rows;
  for (const auto& f : test::h200x2_batch2_files())
    for (auto& r : load_harness_rows(test::source_path(f))) rows.push_back(std::move(r));
  const AccuracyReport rep = evaluate_accuracy(preset, unique_rows(rows), nccl_fitted_batch_split());
  for (const AccuracyRow& a : rep.rows) {
    INFO(a.row.op << " " << a.row.variant << " " << a.row.dtype << " " << a.row.bytes);
    CHECK(a.role != RowRole::kKernelFit);
    if (a.row.variant == "nccl" && a.row.op != "all_to_all")
      CHECK(a.role == (a.row.dtype == "bf16" ? RowRole::kNcclFit : RowRole::kFitOtherDtype));
    const double k = std::log(a.row.bytes / 4096.0) / std::log(4.0);  // no size of the 4^k table
    CHECK(std::fabs(k - std::round(k)) > 0.25);
  }
  // The kernels: 11 variants with 2 (oneshot_ll: 128 KiB), 4 (oneshot_push: up to 512 KiB) or 14 rows
  // = 132; NCCL all-to-all (not fitted) 14; below range 22 kernel rows at 32 KiB.
  CHECK(rep.validation_nccl.count == 0);
  CHECK(rep.validation_kernels.count == 132);
  CHECK(rep.validation_extra.count == 14);
  CHECK(rep.below_range.count == 22);
  INFO("batch 2: " << rep.validation.count << " rows, median " << rep.validation.median_abs << ", worst " << rep.validation.max_abs);
  // 2026-11-30 (docs/accuracy.md): kernels 3.0 % median / 14.4 % worst (was 25.2 % before the
  // reduce-scatter pull's local reads overlapped its peer reads and LD/ST got its measured thread
  // scaling); NCCL's fit rows 1.4 % median over all fit rows.
  CHECK(rep.validation.median_abs <= 0.05);
  CHECK(rep.validation.max_abs <= 0.15);
  CHECK(rep.fit.median_abs <= 0.03);
}

TEST_CASE("Accuracy: the 2026-11-30 batch 3, validation no fit reads, stays within issue 4 targets", "[sim][accuracy]") {
  // batch3/ (scripts/gpu/sim_batch3.sh) was measured after the batch-2 model changes were written, at
  // 96 KiB x 2^k ... 768 MiB: a factor 1.5 off both earlier grids. Its P2P rows (512 / 1024 threads)
  // joined the calibration; no fit reads its collective rows, but they are validation, not blind: the
  // LL limits (from NCCL's own printed tuning table) were set after its 1.5 MiB all-reduce was seen
  // at +33 %, and NCCL's per-operation curves were built after it left NCCL as the only miss
  // (docs/accuracy.md, "Validation").
  const AccuracyReport rep = score_batch(test::h200x2_batch3_files());
  for (const AccuracyRow& a : rep.rows) {
    INFO(a.row.op << " " << a.row.variant << " " << a.row.bytes);
    CHECK(a.role != RowRole::kNcclFit);
    CHECK(a.role != RowRole::kKernelFit);
    const double k = std::log2(a.row.bytes / (96.0 * 1024));  // 96 KiB x 2^k: never a 4^k or 2 x 4^k size
    CHECK(std::fabs(k - std::round(k)) < 1e-9);
  }
  // NCCL AR, AG, RS, send/recv x 14 sizes x 2 dtypes = 112; the kernels' default variants 264; NCCL
  // all-to-all 28; nothing below 64 KiB.
  CHECK(rep.validation_nccl.count == 112);
  CHECK(rep.validation_kernels.count == 264);
  CHECK(rep.validation_extra.count == 28);
  CHECK(rep.below_range.count == 0);
  INFO("batch 3: " << rep.validation.count << " rows, median " << rep.validation.median_abs << ", worst " << rep.validation.max_abs
                   << "; NCCL median " << rep.validation_nccl.median_abs << ", worst " << rep.validation_nccl.max_abs
                   << "; kernels median " << rep.validation_kernels.median_abs << ", worst " << rep.validation_kernels.max_abs);
  // Since the per-operation NCCL curves (stop 15): all 3.0 % median / 14.8 % worst; NCCL 2.6 / 8.9 %
  // (was 3.6 / 16.7 % on one shared curve: all-reduce at 6-12 MiB 13-17 % slow, reduce-scatter 2 MiB
  // given all-gather's time); kernels 3.3 / 14.8 %.
  CHECK(rep.validation.median_abs <= 0.05);
  CHECK(rep.validation.max_abs <= 0.15);
  CHECK(rep.validation_nccl.median_abs <= 0.05);
  CHECK(rep.validation_nccl.max_abs <= 0.15);
  CHECK(rep.validation_kernels.median_abs <= 0.05);
  CHECK(rep.validation_kernels.max_abs <= 0.15);
}

TEST_CASE("NCCL profile: another channel count splits the measured aggregate, one SM's LD/ST at most", "[sim][accuracy]") {
  const Topology preset = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  REQUIRE(preset.nccl.has_value());
  const Platform p = Platform::seal(preset);
  auto channel_rate = [&](const std::string& spec) {
    const Workload w = build_workload(p, parse_workload_spec(spec));
    REQUIRE(!w.actors.empty());
    return w.actors.front().agent_capacity / w.actors.front().sms;
  };
  // 1 GiB all-reduce on 2 ranks (Simple: count 1 GiB > the 1.715 MB LL limit): 512 MiB ring steps, the
  // last knot of all-reduce's own Simple curve (fitted on the 512 MiB and 1 GiB rows): 27.6 GB/s per
  // channel at NCCL's 24 channels.
  const double r24 = preset.nccl->rate_for("allreduce", 512.0 * 1024 * 1024, false);
  CHECK(r24 / 1e9 == Approx(27.6).epsilon(0.01));
  CHECK(channel_rate("allreduce:bytes=1GiB") == Approx(r24));
  // 4 channels: 24/4 x 29.0 = 174 GB/s each would keep the aggregate, but one SM moves at most
  // 44.8 GB/s with LD/ST (the P2P fit): 44.8 GB/s per channel.
  CHECK(channel_rate("allreduce:bytes=1GiB,channels=4") == Approx(preset.nodes[static_cast<size_t>(preset.gpu_node(0))].gpu->ldst.per_sm_bytes_per_s));
  // 48 channels: the aggregate split in 48, 13.8 GB/s each.
  CHECK(channel_rate("allreduce:bytes=1GiB,channels=48") == Approx(r24 / 2));
}

TEST_CASE("NCCL profile: the logged LL switch and channel count pick the curve and the channels", "[sim][accuracy]") {
  // NCCL 2.28's per-call choices on the 2 x H200 (batch2/nccl_tuning.txt): ring LL while the per-rank
  // count is <= 1 MiB, Simple above (the 1 MiB limit of the first preset; batch3/nccl_switch has the
  // switches themselves); 4 / 16 channels at 32 / 128 KiB of all-reduce buffer, i.e. one
  // channel per 8 KiB, at most 24. Put on the committed preset's profile with LL knots of 4 GB/s at a
  // 2 KiB step and 8 GB/s at 512 KiB.
  Topology t = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  REQUIRE(t.nccl.has_value());
  t.nccl->op_channel_rate.clear();  // the shared curves (op_channel_rate: the simulator test's golden cases)
  t.nccl->ll_max_bytes = 1048576;
  // all-gather / reduce-scatter by their whole buffer: batch3/nccl_switch/nccl_tuning_choices.txt,
  // LL at a count of 1 MiB (2 MiB buffer), Simple at 1.5 MiB (3 MiB)
  t.nccl->ll_max_buffer_bytes = 2132000;
  t.nccl->channel_min_bytes = 8192;
  t.nccl->ll_channel_rate = {{2048.0, 4e9}, {524288.0, 8e9}};
  const NcclProfile& p = *t.nccl;
  CHECK(p.channels_for(4096) == 1);
  CHECK(p.channels_for(32768) == 4);
  CHECK(p.channels_for(131072) == 16);
  CHECK(p.channels_for(524288) == 24);  // 64, capped at the profile's 24
  // Log-log between the LL knots: a 32 KiB step is halfway (16x of 256x): sqrt(4 x 8) = 5.657 GB/s.
  CHECK(p.rate_at(32768, true) / 1e9 == Approx(5.657).epsilon(1e-3));
  CHECK(p.rate_at(32768, false) == Approx(t.nccl->rate_at(32768)));  // Simple: the channel_rate knots
  // The JSON keeps the choices (written only when set).
  const Topology back = topology_from_json(topology_to_json(t), "roundtrip");
  REQUIRE(back.nccl.has_value());
  CHECK(back.nccl->ll_max_bytes == 1048576);
  CHECK(back.nccl->ll_max_buffer_bytes == 2132000);
  CHECK(back.nccl->channel_min_bytes == 8192);
  CHECK(back.nccl->ll_channel_rate.size() == 2);
  CHECK(back.nccl->simple_extra_ns == t.nccl->simple_extra_ns);
  CHECK(back.nccl->simple_extra_per_step_ns == t.nccl->simple_extra_per_step_ns);
  CHECK(back.nccl->p2p_rate_scale == t.nccl->p2p_rate_scale);
  const Platform plat = Platform::seal(t);
  auto built = [&](const std::string& spec) { return build_workload(plat, parse_workload_spec(spec)); };
  // 128 KiB all-reduce: count 128 KiB <= 1 MiB, LL; 16 channels; a 64 KiB step is 5/8 of the way in log
  // space: 4^(3/8) x 8^(5/8) = 6.169 GB/s per channel.
  const Workload ar = built("allreduce:bytes=128KiB");
  CHECK(ar.collectives.front().protocol == "ll");
  CHECK(ar.collectives.front().channels == 16);
  CHECK(ar.actors.front().agent_capacity / ar.actors.front().sms / 1e9 == Approx(6.169).epsilon(1e-3));
  // 2 MiB: above the LL limit: Simple on the profile's knots, all 24 channels.
  const Workload ar2 = built("allreduce:bytes=2MiB");
  CHECK(ar2.collectives.front().protocol == "simple");
  CHECK(ar2.collectives.front().channels == 24);
  CHECK(ar2.actors.front().agent_capacity / ar2.actors.front().sms == Approx(p.rate_at(1048576)));
  // All-gather of 64 KiB per rank: a 128 KiB output buffer, 16 channels, LL. Send/recv keeps 24, Simple.
  const Workload ag = built("allgather:bytes=64KiB");
  CHECK(ag.collectives.front().channels == 16);
  CHECK(ag.collectives.front().protocol == "ll");
  // By the buffer: all-gather of 1 MiB per rank (2 MiB out) and reduce-scatter of 2 MiB in: LL;
  // 1.5 MiB per rank (3 MiB): Simple, though the per-rank count is under an all-reduce's limit.
  CHECK(built("allgather:bytes=1MiB").collectives.front().protocol == "ll");
  CHECK(built("reducescatter:bytes=2MiB").collectives.front().protocol == "ll");
  CHECK(built("allgather:bytes=1536KiB").collectives.front().protocol == "simple");
  CHECK(built("reducescatter:bytes=3MiB").collectives.front().protocol == "simple");
  t.nccl->ll_max_bytes = 1715000;  // the preset's all-reduce limit: 1.5 MiB runs LL, 1.75 MiB Simple
  const Platform plat2 = Platform::seal(t);
  CHECK(build_workload(plat2, parse_workload_spec("allreduce:bytes=1536KiB")).collectives.front().protocol == "ll");
  CHECK(build_workload(plat2, parse_workload_spec("allreduce:bytes=1792KiB")).collectives.front().protocol == "simple");
  const Workload sr = built("sendrecv:bytes=64KiB");
  CHECK(sr.collectives.front().channels == 24);
  CHECK(sr.collectives.front().protocol == "simple");
}

TEST_CASE("Direct kernels: the reduce-scatter pull reads its own input beside the peers', the push reduces after", "[sim][accuracy]") {
  // kernels/collectives/collectives.cu: rs_pull_kernel keeps every rank's loads of a vector in flight at once
  // (the local one is an HBM read beside the NVLink reads), so its reduction costs no SM time of its
  // own; the push kernel reduces in a pass after its barrier. A slower local copy rate (the SMs'
  // reduce pass) must leave the pull's time alone and slow the push.
  Topology t = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  auto time_of = [&](const Topology& topo, const std::string& mech) {
    SimulationInput in;
    in.topology = topo;
    in.steps = parse_workload_spec("reducescatter:bytes=128KiB,algorithm=one_shot,mechanism=" + mech +
                                   ",channels=2,threads_per_channel=512");
    return run_simulation(in).summary.makespan;
  };
  const TimePs pull = time_of(t, "ldst_pull"), push = time_of(t, "ldst");
  for (TopoNode& n : t.nodes)
    if (n.gpu) n.gpu->local_copy_bytes_per_s /= 4;
  CHECK(time_of(t, "ldst_pull") == pull);
  CHECK(time_of(t, "ldst") > push + 1'000'000);  // 32 KiB x 1.5 per SM at a quarter of 44.9 GB/s: >= 1 us more
  // measured (batch2/collectives_mid.json): 7.28 / 7.18 us bf16 / fp32; the model 8.2 us (+13-14 %)
  CHECK(pull / 1e6 == Approx(8.2).margin(0.15));
}

TEST_CASE("NCCL profile: a one-direction send loads one direction, the exchange both (issue 20 item 5)", "[sim][accuracy]") {
  // The preset's send/recv curve is fitted on exchanges (both ranks send at once: the harness's
  // ncclSend + ncclRecv per rank, batch_isend_irecv in the capture), whose block NCCL splits between
  // its two sides. `send` is one direction: rank 0's block only pushes, rank 1's only copies out, so
  // each agent carries one direction and the push runs against the mechanism port alone. Large
  // messages then gain the block's share (the exchange is block-bound at 64-256 MiB), 1 GiB only the
  // port's reverse-traffic share (both are port-bound there); small ones (one chunk) gain nothing.
  const Topology t = load_topology_file(test::source_path("resources/topologies/h200x2.json"));
  auto run = [&](const std::string& spec) {
    SimulationInput in;
    in.topology = t;
    in.steps = parse_workload_spec(spec);
    return run_simulation(in).summary;
  };
  auto link_bytes = [](const SimSummary& s, const std::string& name) {
    for (const auto& r : s.resources)
      if (r.name == name) return r.bytes;
    return -1.0;
  };
  const double mib = 1024.0 * 1024;
  for (const double b : {64 * mib, 256 * mib, 1024 * mib}) {
    const std::string size = "bytes=" + std::to_string(static_cast<int64_t>(b)) + ",gpus=2";
    const SimSummary ex = run("sendrecv:" + size), one = run("send:" + size);
    CAPTURE(b / mib);
    // The exchange carries the payload both ways, the send one way only.
    CHECK(link_bytes(ex, "gpu0->nvswitch") == Approx(b));
    CHECK(link_bytes(ex, "gpu1->nvswitch") == Approx(b));
    CHECK(link_bytes(one, "gpu0->nvswitch") == Approx(b));
    CHECK(link_bytes(one, "gpu1->nvswitch") <= 0);
    const double speedup = static_cast<double>(ex.makespan) / static_cast<double>(one.makespan);
    // One direction alone never exceeds the LD/ST port's one-way cap (365 GB/s in the preset).
    const double algbw = b / (static_cast<double>(one.makespan) * 1e-12);
    CHECK(algbw < gpu0(t).ldst.cap_bytes_per_s);
    if (b < 1000 * mib) CHECK(speedup > 1.10);  // block-bound exchange: 259 us -> 212 us at 64 MiB
    else CHECK((speedup > 1.01 && speedup < 1.05));  // both port-bound: the reverse weight's 3 %
  }
  // One chunk per channel: the send pushes then copies out what the exchange's block did at once.
  CHECK(run("send:bytes=1MiB,gpus=2").makespan == run("sendrecv:bytes=1MiB,gpus=2").makespan);
  // Pairs: 2k -> 2k+1; an odd count has a rank without a peer.
  CHECK_THROWS_WITH(build_workload(Platform::seal(t), parse_workload_spec("send:bytes=1MiB,gpus=1")),
                    Catch::Contains("even number of GPUs"));
}
