// `parascope-bench selftest` (ctest label gpu): every kernel against its reference at small and
// odd sizes, each checked three times in a row with fresh data (epochs, double buffers and signal
// counts must survive repeated launches), probe overflow counted exactly, and graph capture of
// our kernels and of NCCL exercised once. Exit 0 all passed, 1 a check failed, 77 < 2 GPUs.
#include <cstdio>

#include "bench/collective_ops.h"
#include "bench/commands.h"
#include "bench/cuda_check.h"
#include "bench/fused_ops.h"
#include "bench/p2p.h"
#include "bench/report.h"
#include "bench/row_runner.h"
#include "host/size_spec.h"

namespace parascope::bench {

namespace {

struct Tally {
  int passed = 0, failed = 0;
  void record(const std::string& what, const CheckVerdict& v) {
    (v.ok ? passed : failed)++;
    std::printf("%s %s%s%s\n", v.ok ? "PASS" : "FAIL", what.c_str(), v.ok ? "" : ": ", v.problem.c_str());
    std::fflush(stdout);
  }
};

CheckVerdict guarded(GpuContext& ctx, const std::function<CheckVerdict()>& fn) {
  try {
    return fn();
  } catch (const CudaError& e) {
    if (!ctx.healthy()) throw ContextLost(e.what());
    ctx.reset_sync();
    CheckVerdict v;
    v.problem = e.what();
    return v;
  }
}

}  // namespace

int cmd_selftest(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {{"--quick", false, "  skip the fused GEMM checks"}};
  return run_subcommand("selftest", args, specs, 2, [&](const Options& o) {
    GpuContext ctx(2);
    preload_all_kernels(ctx);
    std::printf("selftest on %s\n", ctx.describe().c_str());
    Tally tally;

    // P2P: every mechanism, both directions, a size that is not a power of two, two SM counts
    const SymBuffer src = ctx.alloc(32ull << 20), dst = ctx.alloc(32ull << 20);
    for (P2PMech m : {P2PMech::kCe, P2PMech::kTma, P2PMech::kLdstPush, P2PMech::kLdstPull})
      for (bool bi : {false, true})
        for (uint64_t bytes : {uint64_t{1024}, uint64_t{(1ull << 20) + 48}, uint64_t{32ull << 20}})
          for (int sms : {1, 7}) {
            if (m == P2PMech::kCe && sms != 1) continue;
            P2POp op(ctx, src, dst, {m, bi, bytes, sms});
            for (int rep = 0; rep < 2; ++rep) {
              const uint64_t seed = fresh_seed();
              CheckPlan p;
              p.seed = seed;
              for (int from : bi ? std::vector<int>{0, 1} : std::vector<int>{0}) {
                p.inputs.push_back({from, src.at(from), DType::kF32, static_cast<uint32_t>(from), bytes / 4});
                OutputCheck oc;
                oc.rank = 1 - from;
                oc.ptr = dst.at(1 - from);
                oc.bytes = bytes;
                oc.spec = {CheckKind::kCopyFrom, DType::kF32, seed, 1 - from, 2, 0, from, bytes / 4};
                p.outputs.push_back(oc);
              }
              tally.record(op.name() + " " + format_bytes(bytes) + " " + std::to_string(sms) + " SMs #" + std::to_string(rep),
                           guarded(ctx, [&] { return run_check(ctx, op, p); }));
            }
          }

    // Collectives: every variant, both dtypes, three sizes (one odd), three checks in a row
    CollResources res = alloc_coll_resources(ctx, 40ull << 20);
    for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll,
                         Collective::kSendRecv})
      for (const auto& variant : collective_variants(c))
        for (DType t : {DType::kBF16, DType::kF32})
          for (uint64_t bytes : {uint64_t{4096}, uint64_t{98304}, uint64_t{40ull << 20}}) {
            CollConfig cfg;
            cfg.op = c;
            cfg.variant = variant;
            cfg.dtype = t;
            cfg.bytes = bytes;
            cfg.ldst_sms = 7;  // an odd grid: ownership by block must still hold
            cfg.tma_sms = 5;
            CollectiveOp op(ctx, res, cfg);
            if (!op.unusable_reason().empty()) continue;
            op.prepare();
            const auto plan_fn = collective_check_plan(op, res, ctx.n());
            for (int rep = 0; rep < 3; ++rep)
              tally.record(op.name() + " #" + std::to_string(rep), guarded(ctx, [&] {
                             const uint64_t seed = fresh_seed();
                             CheckPlan p = plan_fn(seed);
                             p.seed = seed;
                             for (auto& oc : p.outputs) oc.spec.seed = seed;
                             return run_check(ctx, op, p);
                           }));
          }

    // Probe overflow is counted exactly: 4 spans per block per rank into a 4-record buffer
    {
      CheckVerdict v = guarded(ctx, [&] {
        CollConfig cfg;
        cfg.op = Collective::kAllReduce;
        cfg.variant = "twoshot_ldst";
        cfg.dtype = DType::kBF16;
        cfg.bytes = 8ull << 20;
        cfg.ldst_sms = 6;
        CollectiveOp op(ctx, res, cfg);
        ProbeSession session(ctx, 4);
        op.set_probe(&session);
        op.prepare();
        session.reset();
        op.enqueue();
        CheckVerdict r;
        r.ok = true;
        for (const auto& l : session.collect()) {
          const uint64_t expected = 4ull * static_cast<uint64_t>(op.sms_used());
          if (l.records.size() != 4 || l.records.size() + l.overflow != expected) {
            r.ok = false;
            r.problem = "GPU " + std::to_string(l.device) + ": " + std::to_string(l.records.size()) + " records + " +
                        std::to_string(l.overflow) + " overflow, expected " + std::to_string(expected) + " spans";
          }
          for (const auto& rec : l.records)
            if (rec.t_end_ns < rec.t_start_ns || rec.block >= static_cast<uint32_t>(op.sms_used())) {
              r.ok = false;
              r.problem = "record with end < start or a block outside the grid";
            }
        }
        return r;
      });
      tally.record("probe overflow accounting", v);
    }

    // Graph capture of our kernels and of NCCL (falls back to stream timing if refused)
    for (const char* variant : {"oneshot_push", "twoshot_ldst", "ce", "nccl"}) {
      CollConfig cfg;
      cfg.op = Collective::kAllReduce;
      cfg.variant = variant;
      cfg.dtype = DType::kBF16;
      cfg.bytes = 64 << 10;
      ResultRow row = collective_row(ctx, res, cfg);
      CheckVerdict v;
      v.ok = row.ok && row.timing == "graphs";
      v.problem = row.ok ? "timed with '" + row.timing + "' instead of CUDA graphs" : row.problem;
      tally.record(std::string("graph timing all_reduce ") + variant + " (" + std::to_string(row.ns.median / 1e3) + " us)", v);
    }

    if (!o.has("--quick")) {
      for (FusedKind kind : {FusedKind::kAgGemm, FusedKind::kGemmRs}) {
        FusedShape shape;
        shape.m = 1024;
        shape.n = 768;
        shape.k = 512;
        FusedResources fres(ctx, kind, shape);
        for (const auto& variant : fused_variants(kind)) {
          FusedConfig cfg;
          cfg.kind = kind;
          cfg.shape = shape;
          cfg.variant = variant;
          cfg.comm_sms = 3;
          cfg.chunks = 3;
          FusedOp op(ctx, fres, cfg);
          ctx.reset_sync();
          for (int rep = 0; rep < 3; ++rep)
            tally.record(op.name() + " #" + std::to_string(rep), guarded(ctx, [&] {
                           if (rep == 0) op.prepare();
                           return op.check(fresh_seed());
                         }));
        }
      }
    }
    std::printf("selftest: %d passed, %d failed\n", tally.passed, tally.failed);
    return tally.failed ? kExitFailed : 0;
  });
}

}  // namespace parascope::bench
