// `parascope-bench fused`: all-gather + GEMM and GEMM + reduce-scatter with a real GEMM (cuBLASLt,
// bf16), every variant in one process and run: the GEMM alone (all SMs, and at the SM target the
// fused variants use), the communication alone (NCCL and ours), cuBLAS + NCCL in sequence, and the
// fused variants over a num_comm_sms sweep. Each row is checked against fp64 host references on
// fresh data before and after timing; timings are single operations with a cold L2.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

#include "bench/commands.h"
#include "bench/report.h"
#include "bench/row_runner.h"
#include "device/cuda_check.h"
#include "fused/fused_ops.h"
#include "host/size_spec.h"
#include "host/targets.h"

namespace parascope::bench {

namespace {

FusedShape parse_shape(const std::string& s) {
  const auto parts = split_list(s, 'x');
  if (parts.size() != 3) throw UsageError("a shape is MxNxK, e.g. 8192x8192x2048, not '" + s + "'");
  FusedShape sh;
  const auto v = parse_int_list(parts[0] + "," + parts[1] + "," + parts[2], 128, 1 << 20);
  sh.m = v[0];
  sh.n = v[1];
  sh.k = v[2];
  return sh;
}

FusedKind parse_kind(const std::string& s) {
  if (s == "ag_gemm") return FusedKind::kAgGemm;
  if (s == "gemm_rs") return FusedKind::kGemmRs;
  throw UsageError("fused kind must be ag_gemm or gemm_rs, not '" + s + "'");
}

ResultRow fused_row(GpuContext& ctx, FusedResources& res, const FusedConfig& cfg, int reps,
                    ProbeSession* probe = nullptr) {
  FusedOp op(ctx, res, cfg);
  op.set_probe(probe);
  ResultRow row;
  row.op = std::string(fused_kind_name(cfg.kind)) + ":" + cfg.shape.label();
  row.variant = cfg.variant;
  row.mechanism = op.mechanism();
  row.dtype = "bf16";
  row.nranks = ctx.n();
  row.bytes = op.comm_bytes();
  const bool sm_variant = cfg.variant == "gemm_sm" || cfg.variant.find("ldst") != std::string::npos ||
                          cfg.variant.find("tma") != std::string::npos;
  row.sms = sm_variant ? cfg.comm_sms : 0;
  row.extra["m"] = cfg.shape.m;
  row.extra["n"] = cfg.shape.n;
  row.extra["k"] = cfg.shape.k;
  row.extra["chunks"] = cfg.chunks;
  row.extra["num_comm_sms"] = row.sms;
  if (const auto why = op.unusable_reason(); !why.empty()) {
    row.problem = "skipped: " + why;
    return row;
  }
  ctx.reset_sync();  // signal counts per operation differ between variants
  TimingPlan plan;
  plan.ops_per_graph = 1;
  plan.reps = reps;
  plan.warmup = 2;
  measure_row(ctx, op, {}, plan, row, {.flush_l2 = true, .second_check = true},
              [&op](uint64_t seed) { return op.check(seed); });
  if (row.ok) {
    row.algbw_gbps = gbps(row.bytes, row.ns.median);
    row.busbw_gbps = row.algbw_gbps;
    if (!op.is_comm_only()) row.extra["tflops_per_gpu"] = op.flops() / row.ns.median / 1e3;
  }
  return row;
}

const ResultRow* find_fused(const std::vector<ResultRow>& rows, const std::string& op, const std::string& variant, int sms) {
  for (const auto& r : rows)
    if (r.op == op && r.variant == variant && r.sms == sms && r.ok && r.ns.n > 0) return &r;
  return nullptr;
}

void add_fused_targets(Report& report, const std::string& op, const FusedShape& shape) {
  const auto& rows = report.set().rows();
  const ResultRow* gemm = find_fused(rows, op, "gemm_only", 0);
  const ResultRow* seq = find_fused(rows, op, "seq_nccl", 0);
  const ResultRow* nccl = find_fused(rows, op, "nccl_comm", 0);
  const ResultRow* best = nullptr;
  for (const auto& r : rows)
    if (r.op == op && r.variant.rfind("fused_", 0) == 0 && r.ok && r.ns.n > 0 && (!best || r.ns.median < best->ns.median))
      best = &r;
  const bool comm_heavy = shape.k < shape.m;
  const std::string what = best ? best->variant + (best->sms ? " " + std::to_string(best->sms) + " SMs" : "") : "none";
  if (!comm_heavy) {
    // t_comm: the best variant's own communication alone (NCCL's for the epilogue variant)
    const ResultRow* comm = nullptr;
    if (best) {
      std::string mech = best->variant.substr(6);  // ce | ldst | tma | epilogue, then "/cN" chunks
      mech = mech.substr(0, mech.find('/'));
      comm = mech == "epilogue" ? nccl : find_fused(rows, op, "comm_" + mech, best->sms);
    }
    TargetCheck t = fused_overlap_target(op + " overlap (" + what + ")", best ? best->ns.median : 0,
                                         gemm ? gemm->ns.median : 0, comm ? comm->ns.median : 0);
    if (nccl) t.detail += "; NCCL alone " + std::to_string(static_cast<int>(nccl->ns.median / 1e3)) + " us";
    report.add_target(t);
  } else {
    report.add_target(fused_speedup_target(op + " vs cuBLAS+NCCL (" + what + ")", best ? best->ns.median : 0,
                                           seq ? seq->ns.median : 0));
  }
}

// Probe cost on a fused kernel (issue #6: ≤ 2 %): the same op timed with and without probe
// writes, `rounds` pairs in alternating order; each round's ratio is with / without − 1. The
// probe buffers hold 2^20 records each, so no launch of the timing runs into a full buffer
// (the overflow count says so).
void probe_cost(GpuContext& ctx, FusedResources& res, FusedConfig cfg, int rounds, int reps, Report& report) {
  std::vector<double> pct;
  uint64_t records = 0, overflow = 0, launches = 0;
  for (int round = 0; round < rounds; ++round) {
    double t[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const bool probed = (k + round) % 2 == 1;
      ProbeSession session(ctx, 1u << 20);
      ResultRow row = fused_row(ctx, res, cfg, reps, probed ? &session : nullptr);
      if (!row.ok) {
        row.variant += probed ? "+probe" : "";
        row.problem = "probe cost: " + row.problem;
        report.add(row);
        return;
      }
      t[probed ? 1 : 0] = row.ns.median;
      if (probed) {
        for (const auto& l : session.collect()) records += l.records.size(), overflow += l.overflow;
        launches += static_cast<uint64_t>(row.ns.n + 4);  // timed samples + warm-up (2) + checks (2)
      }
      if (round == 0) {
        row.variant += probed ? "+probe" : "";
        row.extra["probe_cost_round"] = 0;
        report.add(row);
      }
    }
    pct.push_back((t[1] / t[0] - 1) * 100);
  }
  std::vector<double> sorted = pct;
  std::sort(sorted.begin(), sorted.end());
  const double med = sorted[sorted.size() / 2];
  TargetCheck tc;
  tc.name = std::string(fused_kind_name(cfg.kind)) + ":" + cfg.shape.label() + " " + cfg.variant + " " +
            std::to_string(cfg.comm_sms) + " SMs probe overhead";
  tc.unit = "%";
  tc.higher_is_better = false;
  tc.target = 2.0;
  tc.measured = med;
  char buf[240];
  std::snprintf(buf, sizeof buf, "median of %d alternating pairs, range %+.2f .. %+.2f %%; %llu records in ~%llu probed "
                "launches, %llu overflowed", rounds, sorted.front(), sorted.back(),
                static_cast<unsigned long long>(records), static_cast<unsigned long long>(launches),
                static_cast<unsigned long long>(overflow));
  tc.detail = buf;
  report.add_target(tc);
}

}  // namespace

int cmd_fused(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"--kinds", true, "LIST     ag_gemm,gemm_rs (default both)"},
      {"--shapes", true, "LIST    global MxNxK (default 8192x8192x8192,8192x8192x2048)"},
      {"--comm-sms", true, "LIST  num_comm_sms sweep of the SM variants (default 8,16)"},
      {"--chunks", true, "LIST    chunks per rank block of the fused variants (default 4,1; the others use the first)"},
      {"--exclude", true, "LIST   leave out variants containing any of these tokens (e.g. tma)"},
      {"--variants", true, "LIST  only these variants (default all)"},
      {"--reps", true, "N         timed samples per row (default 10)"},
      {"--gpus", true, "N         GPUs (default all)"},
      {"--json", true, "FILE      result rows"},
      {"--table", true, "FILE     readable table and targets"},
      {"--probe", true, "FILE     probe records of --probe-variants on the first shape (.pstrace)"},
      {"--probe-variants", true, "LIST  KIND:VARIANT:SMS,... (default ag_gemm:fused_tma:8,gemm_rs:fused_ldst:8)"},
      {"--probe-cost", true, "N     also time --probe-variants with and without probes, N alternating pairs"},
  };
  return run_subcommand("fused", args, specs, 2, [&](const Options& o) {
    std::vector<FusedKind> kinds;
    for (const auto& s : split_list(o.get("--kinds", "ag_gemm,gemm_rs"))) kinds.push_back(parse_kind(s));
    std::vector<FusedShape> shapes;
    for (const auto& s : split_list(o.get("--shapes", "8192x8192x8192,8192x8192x2048"))) shapes.push_back(parse_shape(s));
    const auto comm_sms = parse_int_list(o.get("--comm-sms", "8,16"), 1, 131);
    const auto chunk_list = parse_int_list(o.get("--chunks", "4,1"), 1, 16);
    const int chunks = chunk_list.front();
    const auto exclude = split_list(o.get("--exclude", ""));
    const int reps = o.get_int("--reps", 10);
    const auto filter = o.has("--variants") ? split_list(o.get("--variants", "")) : std::vector<std::string>{};
    const int n = o.get_int("--gpus", GpuContext::available_gpus());
    if (n < 2 || n > kMaxRanks) throw UsageError("--gpus must be 2.." + std::to_string(kMaxRanks));

    GpuContext ctx(n);
    preload_all_kernels(ctx);
    Report report("fused", join_args("fused", args), o.get("--json", ""), o.get("--table", ""));
    add_machine_meta(report.set(), ctx);
    report.set().set_meta("gemm", JsonValue::string("cuBLASLt bf16 TN, fp32 accumulate; fused SM variants set "
                                                    "CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = SMs - num_comm_sms"));
    std::map<std::pair<int, std::string>, std::unique_ptr<FusedResources>> resources;

    for (FusedKind kind : kinds)
      for (const FusedShape& shape : shapes) {
        auto& res = resources[{static_cast<int>(kind), shape.label()}];
        res = std::make_unique<FusedResources>(ctx, kind, shape);
        // (variant, num_comm_sms, chunks): the fused variants over the chunk list, the rest once
        std::vector<std::tuple<std::string, int, int>> plan;
        auto add = [&](const std::string& v, int k) {
          if (v.rfind("fused_", 0) == 0 && v != "fused_epilogue")
            for (int c : chunk_list) plan.emplace_back(v, k, c);
          else
            plan.emplace_back(v, k, chunks);
        };
        for (const char* v : {"gemm_only", "nccl_comm", "seq_nccl", "comm_ce", "fused_ce"}) add(v, 0);
        for (int k : comm_sms)
          for (const char* v : {"gemm_sm", "comm_ldst", "fused_ldst", "comm_tma", "fused_tma"}) add(v, k);
        if (kind == FusedKind::kGemmRs) add("fused_epilogue", 0);
        for (const auto& [variant, k, c] : plan) {
          if (!filter.empty() && std::find(filter.begin(), filter.end(), variant) == filter.end()) continue;
          if (excluded(exclude, variant)) continue;
          FusedConfig cfg;
          cfg.kind = kind;
          cfg.shape = shape;
          cfg.variant = variant;
          cfg.comm_sms = k;
          cfg.chunks = c;
          ResultRow row = fused_row(ctx, *res, cfg, reps);
          if (row.problem.rfind("skipped", 0) == 0) {
            std::fprintf(stderr, "  %s %s: %s\n", row.op.c_str(), variant.c_str(), row.problem.c_str());
            continue;
          }
          if (variant.rfind("fused_", 0) == 0 && chunk_list.size() > 1) row.variant += "/c" + std::to_string(c);
          report.add(row);
        }
        add_fused_targets(report, std::string(fused_kind_name(kind)) + ":" + shape.label(), shape);
      }
    // --probe-variants (KIND:VARIANT:SMS) on the first shape, each with its spec and resources
    struct ProbeTarget {
      std::string spec;
      FusedConfig cfg;
      FusedResources* res;
    };
    auto probe_targets = [&] {
      std::vector<ProbeTarget> out;
      for (const auto& spec : split_list(o.get("--probe-variants", "ag_gemm:fused_tma:8,gemm_rs:fused_ldst:8"))) {
        const auto parts = split_list(spec, ':');
        if (parts.size() != 3) throw UsageError("--probe-variants entries are KIND:VARIANT:SMS");
        FusedConfig cfg;
        cfg.kind = parse_kind(parts[0]);
        cfg.shape = shapes.front();
        cfg.variant = parts[1];
        cfg.comm_sms = parse_int_list(parts[2], 0, 131).front();
        cfg.chunks = chunks;
        auto& res = resources[{static_cast<int>(cfg.kind), cfg.shape.label()}];
        if (!res) res = std::make_unique<FusedResources>(ctx, cfg.kind, cfg.shape);
        out.push_back({spec, cfg, res.get()});
      }
      return out;
    };
    if (o.has("--probe-cost"))
      for (const auto& t : probe_targets()) probe_cost(ctx, *t.res, t.cfg, o.get_int("--probe-cost", 5), reps, report);
    report.finish("fused GEMM + communication on " + ctx.describe());

    if (o.has("--probe")) {
      std::vector<ProbeLaunch> all;
      for (const auto& [spec, cfg, res] : probe_targets()) {
        if (excluded(exclude, cfg.variant)) continue;
        try {
          ctx.reset_sync();
          FusedOp op(ctx, *res, cfg);
          if (const auto why = op.unusable_reason(); !why.empty()) throw UsageError("cannot probe " + spec + ": " + why);
          ProbeSession session(ctx, 1u << 16);
          op.set_probe(&session);
          op.prepare();
          session.reset();
          const CheckVerdict v = op.check(fresh_seed());
          for (auto& l : session.collect()) all.push_back(std::move(l));
          std::printf("probe %s: check %s\n", op.name().c_str(), v.ok ? "ok" : v.problem.c_str());
        } catch (const CudaError& e) {
          std::fprintf(stderr, "probe %s failed: %s\n", spec.c_str(), e.what());
          if (!ctx.healthy()) throw ContextLost(e.what());
          ctx.reset_sync();
        }
      }
      write_probe_pstrace(o.get("--probe", ""),
                          probe_file_info(ctx, {{"tool", "parascope-bench fused"}, {"command", join_args("fused", args)},
                                                {"date", utc_now_iso()}, {"devices", ctx.describe()},
                                                {"clock", "globaltimer ns per GPU"},
                                                {"note", "communication kernels, signal waits and barriers are probed; the "
                                                         "cuBLAS GEMM is not (its SMs are the ones without communicate/wait "
                                                         "spans)"}}),
                          all);
      std::fputs(describe_probes(all).c_str(), stdout);
      uint64_t records = 0, overflow = 0;
      for (const auto& l : all) records += l.records.size(), overflow += l.overflow;
      std::printf("probe: %zu buffers, %llu records, %llu overflowed -> %s\n", all.size(),
                  static_cast<unsigned long long>(records), static_cast<unsigned long long>(overflow),
                  o.get("--probe", "").c_str());
    }
    return report.any_failed() ? kExitFailed : 0;
  });
}

}  // namespace parascope::bench
