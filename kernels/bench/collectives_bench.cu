// `parascope-bench collectives`: every collective variant of ours against NCCL in the same process
// and run, over a size sweep and both dtypes. Each row: check on fresh random data (outputs
// poisoned), time inside per-GPU CUDA graphs (≥ 100 ops per graph for small messages), check
// again. Prints the table and issue #5's targets; optionally probes chosen variants into a
// .pstrace (per-block spans: communicate / wait / reduce, with SM ids).
#include <algorithm>
#include <cstdio>

#include "bench/collective_row.h"
#include "bench/commands.h"
#include "bench/graph_floor.h"
#include "bench/report.h"
#include "bench/row_runner.h"
#include "collectives/collective_ops.h"
#include "device/cuda_check.h"
#include "host/calibration_file.h"
#include "host/size_spec.h"
#include "host/targets.h"

namespace parascope::bench {

CheckPlanFn collective_check_plan(const CollectiveOp& op, const CollResources& res, int n) {
  return [&op, &res, n](uint64_t seed) {
    CheckPlan p;
    for (int r = 0; r < n; ++r) {
      p.inputs.push_back({r, res.in.at(r), op.config().dtype, static_cast<uint32_t>(r), op.input_elems()});
      OutputCheck oc;
      oc.rank = r;
      oc.ptr = res.out.at(r);
      oc.bytes = op.output_bytes();
      oc.spec = op.check_spec(r, seed);
      p.outputs.push_back(oc);
    }
    return p;
  };
}

ResultRow collective_row(GpuContext& ctx, CollResources& res, const CollConfig& cfg) {
  CollectiveOp op(ctx, res, cfg);
  ResultRow row;
  row.op = std::string(collective_name(cfg.op));
  row.variant = cfg.variant;
  row.mechanism = op.mechanism();
  row.dtype = dtype_name(cfg.dtype);
  row.bytes = cfg.bytes;
  row.nranks = ctx.n();
  const std::string why = op.unusable_reason();
  if (!why.empty()) {
    row.problem = "skipped: " + why;
    return row;
  }
  row.sms = op.sms_used();
  row.threads = op.threads();
  const double factor = busbw_factor(cfg.op, ctx.n());
  const double est = 8000.0 + static_cast<double>(cfg.bytes) * factor / 300.0;
  measure_row(ctx, op, collective_check_plan(op, res, ctx.n()), plan_timing(est), row);
  if (row.ok) {
    row.algbw_gbps = gbps(cfg.bytes, row.ns.median);
    row.busbw_gbps = row.algbw_gbps * factor;
  }
  return row;
}

namespace {

// "all_reduce:twoshot_tma:bf16:64MiB" → one probed run of that variant.
std::vector<ProbeLaunch> probe_collective(GpuContext& ctx, CollResources& res, const std::string& spec) {
  const auto parts = split_list(spec, ':');
  if (parts.size() != 4) throw UsageError("--probe-ops entries are OP:VARIANT:DTYPE:SIZE, not '" + spec + "'");
  CollConfig cfg;
  cfg.op = parse_collective(parts[0]);
  cfg.variant = parts[1];
  cfg.dtype = parse_dtype(parts[2]);
  cfg.bytes = parse_bytes(parts[3]);
  cfg.ldst_sms = ctx.sms();
  CollectiveOp op(ctx, res, cfg);
  if (const auto why = op.unusable_reason(); !why.empty()) throw UsageError("cannot probe " + spec + ": " + why);
  ProbeSession session(ctx, 1u << 16);
  op.set_probe(&session);
  op.prepare();
  const auto plan = collective_check_plan(op, res, ctx.n())(fresh_seed());
  for (const auto& in : plan.inputs) {
    ctx.set(in.rank);
    enqueue_fill(in.ptr, in.dtype, plan.seed, in.stream_id, in.count, ctx.stream(in.rank));
  }
  session.reset();
  op.enqueue();
  return session.collect();
}

}  // namespace

int cmd_collectives(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"--ops", true, "LIST     all_reduce,all_gather,reduce_scatter,all_to_all (default all four)"},
      {"--variants", true, "LIST  only these variants (default all, NCCL included)"},
      {"--sizes", true, "LIST   bytes per rank buffer (default 4KiB:1GiB:x4)"},
      {"--dtypes", true, "LIST  bf16,fp32 (default both)"},
      {"--gpus", true, "N        GPUs (default all)"},
      {"--ldst-sms", true, "N    block limit of LD/ST variants (default all SMs)"},
      {"--tma-sms", true, "N     block limit of TMA variants (default 32)"},
      {"--json", true, "FILE     result rows"},
      {"--table", true, "FILE    readable table and targets"},
      {"--p2p", true, "FILE      calibration file of the P2P sweep: mechanism peaks for the targets"},
      {"--exclude", true, "LIST   leave out variants containing any of these tokens (e.g. tma)"},
      {"--floor", false, "        first time empty kernels in the same graph harness (op graph_floor): the launch floor"},
      {"--probe", true, "FILE    write probe records of --probe-ops to this .pstrace"},
      {"--probe-ops", true, "LIST  OP:VARIANT:DTYPE:SIZE,... (default all_reduce:twoshot_tma:bf16:64MiB,"
                            "all_reduce:twoshot_ldst:bf16:64MiB,all_gather:tma:bf16:64MiB)"},
  };
  return run_subcommand("collectives", args, specs, 2, [&](const Options& o) {
    std::vector<Collective> ops;
    for (const auto& s : split_list(o.get("--ops", "all_reduce,all_gather,reduce_scatter,all_to_all"))) ops.push_back(parse_collective(s));
    const auto filter = o.has("--variants") ? split_list(o.get("--variants", "")) : std::vector<std::string>{};
    const auto exclude = split_list(o.get("--exclude", ""));
    const auto sizes = parse_size_list(o.get("--sizes", "4KiB:1GiB:x4"));
    std::vector<DType> dtypes;
    for (const auto& s : split_list(o.get("--dtypes", "bf16,fp32"))) dtypes.push_back(parse_dtype(s));
    const int n = o.get_int("--gpus", GpuContext::available_gpus());
    if (n < 2 || n > kMaxRanks) throw UsageError("--gpus must be 2.." + std::to_string(kMaxRanks));

    GpuContext ctx(n);
    preload_all_kernels(ctx);
    Report report("collectives", join_args("collectives", args), o.get("--json", ""), o.get("--table", ""));
    add_machine_meta(report.set(), ctx);
    CollResources res = alloc_coll_resources(ctx, *std::max_element(sizes.begin(), sizes.end()));
    if (o.has("--floor")) {
      const SymBuffer counters = ctx.alloc(256);
      for (const FloorConfig& f : default_floor_configs()) report.add(graph_floor_row(ctx, counters, f));
    }

    // NCCL's symmetric windows, allocated only when a variant that needs them is selected
    CollResources symm_res;
    auto resources_for = [&](const std::string& variant) -> CollResources* {
      if (!needs_nccl_symmetric(variant)) return &res;
      if (!symm_res.symm) {
        symm_res = with_nccl_symmetric(ctx, res);
        if (!symm_res.symm->problem().empty())
          std::fprintf(stderr, "NCCL symmetric windows unavailable: %s\n", symm_res.symm->problem().c_str());
      }
      return &symm_res;
    };

    for (Collective op : ops)
      for (DType t : dtypes)
        for (uint64_t bytes : sizes)
          for (const auto& variant : collective_variants(op)) {
            if (!filter.empty() && std::find(filter.begin(), filter.end(), variant) == filter.end()) continue;
            if (excluded(exclude, variant)) continue;
            CollConfig cfg;
            cfg.op = op;
            cfg.variant = variant;
            cfg.dtype = t;
            cfg.bytes = bytes;
            cfg.ldst_sms = o.get_int("--ldst-sms", ctx.sms());
            cfg.tma_sms = o.get_int("--tma-sms", kDefaultTmaSms);
            ResultRow row = collective_row(ctx, *resources_for(variant), cfg);
            if (row.problem.rfind("skipped", 0) == 0) {  // not applicable at this size (NCCL's refusals are said)
              if (needs_nccl_symmetric(variant)) std::fprintf(stderr, "  %s: %s\n", variant.c_str(), row.problem.c_str());
              continue;
            }
            report.add(row);
          }

    MechanismPeaks peaks;
    std::string peak_source = "none (no --p2p file): the 0.95 x peak term is left out";
    if (o.has("--p2p")) {
      const auto cal = parse_calibration(load_json_file(o.get("--p2p", "")), o.get("--p2p", ""));
      peaks.ce = peak_gbps(cal, "ce", "bi");
      peaks.tma = peak_gbps(cal, "tma", "bi");
      peaks.ldst = std::max(peak_gbps(cal, "ldst_push", "bi"), peak_gbps(cal, "ldst_pull", "bi"));
      peak_source = o.get("--p2p", "") + " (bidirectional, per direction)";
    }
    report.set().set_meta("mechanism_peaks_source", JsonValue::string(peak_source));
    for (auto& t : allreduce_targets(report.set().rows())) report.add_target(t);
    for (auto& t : gather_scatter_targets(report.set().rows(), peaks)) report.add_target(t);
    report.finish("collectives on " + ctx.describe());

    if (o.has("--probe")) {
      std::vector<ProbeLaunch> all;
      for (const auto& spec : split_list(o.get("--probe-ops", "all_reduce:twoshot_tma:bf16:64MiB,all_reduce:twoshot_ldst:bf16:64MiB,all_gather:tma:bf16:64MiB"))) {
        if (spec.empty() || excluded(exclude, spec)) continue;
        try {
          for (auto& l : probe_collective(ctx, res, spec)) all.push_back(std::move(l));
        } catch (const CudaError& e) {
          std::fprintf(stderr, "probe %s failed: %s\n", spec.c_str(), e.what());
          if (!ctx.healthy()) throw ContextLost(e.what());
          ctx.reset_sync();
        }
      }
      write_probe_pstrace(o.get("--probe", ""),
                          probe_file_info(ctx, {{"tool", "parascope-bench collectives"},
                                                {"command", join_args("collectives", args)}, {"date", utc_now_iso()},
                                                {"devices", ctx.describe()}, {"clock", "globaltimer ns per GPU"}}),
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
