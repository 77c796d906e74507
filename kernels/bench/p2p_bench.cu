// `parascope-bench p2p`: the P2P mechanism sweep between GPU 0 and GPU 1 — copy engine, TMA,
// LD/ST push and pull; uni- and bidirectional; log-spaced sizes; a few SM counts. Every row is
// checked (the destination must equal the source bit for bit) before and after timing. Writes the
// result JSON, the readable table and the raw calibration file of DESIGN.md ("Calibration").
#include <algorithm>
#include <cstdio>

#include "bench/commands.h"
#include "bench/report.h"
#include "bench/row_runner.h"
#include "device/cuda_check.h"
#include "host/calibration_file.h"
#include "host/size_spec.h"
#include "host/targets.h"
#include "p2p/p2p.h"

namespace parascope::bench {

namespace {

P2PMech parse_mech(const std::string& s) {
  for (P2PMech m : {P2PMech::kCe, P2PMech::kTma, P2PMech::kLdstPush, P2PMech::kLdstPull, P2PMech::kTmaPull})
    if (s == p2p_mech_name(m)) return m;
  throw UsageError("unknown mechanism '" + s + "' (ce, tma, ldst_push, ldst_pull, tma_pull)");
}

// Rough bandwidth (GB/s = B/ns) per mechanism and SM count, only to size the timing plan.
double guess_gbps(P2PMech m, int sms) {
  switch (m) {
    case P2PMech::kCe: return 390;
    case P2PMech::kTma:
    case P2PMech::kTmaPull: return std::min(370.0, 46.0 * sms);
    default: return std::min(370.0, 38.0 * sms);
  }
}

// The SM counts worth timing at this size: more blocks than work units would idle.
bool useful_sms(P2PMech m, uint64_t bytes, int sms, int smallest, int ldst_threads) {
  if (m == P2PMech::kCe) return true;
  const bool tma = m == P2PMech::kTma || m == P2PMech::kTmaPull;
  const uint64_t units = tma ? (bytes + kTmaTile - 1) / kTmaTile : (bytes / 16 + ldst_threads - 1) / ldst_threads;
  return sms == smallest || static_cast<uint64_t>(sms) <= units;
}

}  // namespace

int cmd_p2p(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"--sizes", true, "LIST   sizes per direction (default 1KiB:1GiB:x4)"},
      {"--sms", true, "LIST     SM counts of the SM mechanisms (default 1,2,4,8,16,32,66,132)"},
      {"--mechanisms", true, "LIST  ce,ldst_push,ldst_pull,tma,tma_pull (default all, in this order)"},
      {"--directions", true, "LIST  uni,bi (default both)"},
      {"--json", true, "FILE    result rows"},
      {"--table", true, "FILE   readable table and targets"},
      {"--calibration", true, "FILE  raw calibration JSON (DESIGN.md), passing rows only"},
      {"--machine", true, "NAME  machine name in the calibration file (default h200x2)"},
      {"--calibration-append", false, "  keep the rows already in the --calibration file (a second process of one run)"},
      {"--exclude", true, "LIST  leave out mechanisms containing any of these tokens"},
      {"--threads", true, "N     threads per block of ldst_push/ldst_pull (default 1024; the collectives run 512)"},
  };
  return run_subcommand("p2p", args, specs, 2, [&](const Options& o) {
    const auto sizes = parse_size_list(o.get("--sizes", "1KiB:1GiB:x4"));
    const auto sms_list = parse_int_list(o.get("--sms", "1,2,4,8,16,32,66,132"), 1, kSyncMaxBlocks);
    std::vector<P2PMech> mechs;
    const auto exclude = split_list(o.get("--exclude", ""));
    for (const auto& m : split_list(o.get("--mechanisms", "ce,ldst_push,ldst_pull,tma,tma_pull")))
      if (!excluded(exclude, m)) mechs.push_back(parse_mech(m));
    std::vector<bool> bidir;
    for (const auto& d : split_list(o.get("--directions", "uni,bi"))) {
      if (d != "uni" && d != "bi") throw UsageError("direction must be uni or bi, not '" + d + "'");
      bidir.push_back(d == "bi");
    }
    for (uint64_t b : sizes)
      if (b % 16) throw UsageError("P2P sizes must be multiples of 16 bytes");
    const uint64_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
    const int smallest = *std::min_element(sms_list.begin(), sms_list.end());
    const int ldst_threads = static_cast<int>(parse_int_list(o.get("--threads", std::to_string(kLdstThreads)), 32, kLdstThreads).at(0));
    if (ldst_threads % 32) throw UsageError("--threads must be a multiple of 32");

    GpuContext ctx(2);
    preload_all_kernels(ctx);
    Report report("p2p", join_args("p2p", args), o.get("--json", ""), o.get("--table", ""));
    add_machine_meta(report.set(), ctx);
    const SymBuffer src = ctx.alloc(max_bytes), dst = ctx.alloc(max_bytes);

    // The calibration file is rewritten after every row, so a crash later keeps what was measured.
    std::vector<CalibrationRow> kept;
    const std::string cal_path = o.get("--calibration", "");
    if (!cal_path.empty() && o.has("--calibration-append")) {
      try {
        kept = parse_calibration(load_json_file(cal_path), cal_path);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "  (no earlier calibration rows kept: %s)\n", e.what());
      }
    }
    const CalibrationMeta meta{o.get("--machine", "h200x2"), utc_now_iso(), join_args("p2p", args), ctx.describe(), 0, 1};
    auto write_calibration = [&] {
      if (cal_path.empty()) return;
      std::vector<CalibrationRow> rows = kept;
      for (const auto& r : report.set().rows()) {
        if (!r.ok || r.ns.n == 0) continue;
        const CalibrationRow c{r.mechanism, r.direction, r.bytes, r.sms, r.threads, r.ns.n, r.ns.median, r.ns.p10, r.ns.p90};
        if (calibration_row_problem(c).empty()) rows.push_back(c);
      }
      write_text_file(cal_path, calibration_json(meta, rows));
    };

    for (P2PMech mech : mechs)
      for (bool bi : bidir)
        for (uint64_t bytes : sizes)
          for (int sms : mech == P2PMech::kCe ? std::vector<int>{0} : sms_list) {
            if (!useful_sms(mech, bytes, sms, smallest, ldst_threads)) continue;
            P2POp op(ctx, src, dst, {mech, bi, bytes, sms, ldst_threads});
            ResultRow row;
            row.op = "p2p";
            row.variant = p2p_mech_name(mech);
            row.mechanism = row.variant;
            row.direction = bi ? "bi" : "uni";
            row.dtype = "bytes";
            row.bytes = bytes;
            row.nranks = 2;
            row.sms = sms;
            row.threads = op.threads();
            const CheckPlanFn plan_fn = [&](uint64_t) {
              CheckPlan p;
              const uint64_t elems = bytes / 4;  // checked as fp32 words: a copy must be exact
              for (int from : bi ? std::vector<int>{0, 1} : std::vector<int>{0}) {
                const int to = 1 - from;
                p.inputs.push_back({from, src.at(from), DType::kF32, static_cast<uint32_t>(from), elems});
                OutputCheck oc;
                oc.rank = to;
                oc.ptr = dst.at(to);
                oc.bytes = bytes;
                oc.spec.kind = CheckKind::kCopyFrom;
                oc.spec.dtype = DType::kF32;
                oc.spec.rank = to;
                oc.spec.nranks = 2;
                oc.spec.aux = from;
                oc.spec.count = elems;
                p.outputs.push_back(oc);
              }
              return p;
            };
            const double est = 3000.0 + static_cast<double>(bytes) / guess_gbps(mech, sms);
            measure_row(ctx, op, plan_fn, plan_timing(est), row, {.flush_l2 = false, .second_check = false});
            if (row.ok) {
              row.algbw_gbps = gbps(bytes, row.ns.median);
              row.busbw_gbps = row.algbw_gbps;
            }
            report.add(row);
            write_calibration();
          }

    for (auto& t : p2p_targets(report.set().rows())) report.add_target(t);
    report.finish("P2P mechanism sweep, GPU 0 <-> GPU 1 (" + ctx.describe() + ")");
    if (o.has("--calibration")) std::printf("calibration: %s\n", o.get("--calibration", "").c_str());
    return report.any_failed() ? kExitFailed : 0;
  });
}

}  // namespace parascope::bench
