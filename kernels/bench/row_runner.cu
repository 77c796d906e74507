#include "bench/row_runner.h"

#include <nccl.h>

#include <cstdio>
#include <ctime>

#include "bench/graph_floor.h"
#include "bench/nvtx.h"
#include "collectives/collectives.h"
#include "device/cuda_check.h"
#include "device/sync_ops.h"
#include "host/size_spec.h"
#include "p2p/p2p.h"

namespace parascope::bench {

void preload_fused_kernels();  // fused_ops.cu

CheckVerdict run_check(GpuContext& ctx, Op& op, const CheckPlan& plan) {
  NvtxRange range("check " + op.name());
  for (const auto& in : plan.inputs) {
    ctx.set(in.rank);
    enqueue_fill(in.ptr, in.dtype, plan.seed, in.stream_id, in.count, ctx.stream(in.rank));
  }
  for (const auto& out : plan.outputs) {
    ctx.set(out.rank);
    enqueue_poison(out.ptr, out.bytes, ctx.stream(out.rank));
  }
  ctx.sync_all();
  op.enqueue();
  ctx.sync_all();
  CheckVerdict worst;
  worst.ok = true;
  const auto errors = ctx.sync_errors();
  for (size_t r = 0; r < errors.size(); ++r)
    if (errors[r]) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "barrier/wait timeout on GPU %zu (code 0x%x)", r, errors[r]);
      worst.ok = false;
      worst.problem = buf;
      return worst;
    }
  for (const auto& out : plan.outputs) {
    ctx.set(out.rank);
    CheckVerdict v = verify_output(out.ptr, out.spec, ctx.stream(out.rank));
    if (!v.ok) {
      v.problem = "GPU " + std::to_string(out.rank) + ": " + v.problem;
      return v;
    }
    if (v.rel_l2 > worst.rel_l2) worst.rel_l2 = v.rel_l2;
    worst.mismatches += v.mismatches;
  }
  return worst;
}

namespace {
CheckPlan with_seed(const CheckPlanFn& fn, uint64_t seed) {
  CheckPlan p = fn(seed);
  p.seed = seed;
  for (auto& o : p.outputs) o.spec.seed = seed;
  return p;
}
}  // namespace

void measure_row(GpuContext& ctx, Op& op, const CheckPlanFn& plan_fn, const TimingPlan& plan, ResultRow& row,
                 const MeasureOptions& opt, const CustomCheckFn& custom) {
  NvtxRange range(op.name());
  auto check = [&]() -> CheckVerdict {
    const uint64_t seed = fresh_seed();
    return custom ? custom(seed) : run_check(ctx, op, with_seed(plan_fn, seed));
  };
  try {
    op.prepare();
    row.checked = true;
    CheckVerdict c = check();
    row.rel_l2 = c.rel_l2;
    row.mismatches = c.mismatches;
    if (!c.ok) {
      row.ok = false;
      row.problem = c.problem;
      ctx.reset_sync();
      return;
    }
    const TimingResult t = time_op(ctx, op, plan, opt.flush_l2);
    row.timing = t.mode;
    row.kernels = t.kernels;
    row.ops_per_graph = t.ops_per_graph;
    if (!t.problem.empty()) {
      row.ok = false;
      row.problem = t.problem;
      ctx.reset_sync();
      return;
    }
    row.ns = t.ns;
    if (opt.second_check) {
      c = check();
      row.rel_l2 = std::max(row.rel_l2, c.rel_l2);
      row.mismatches += c.mismatches;
      if (!c.ok) {
        row.ok = false;
        row.problem = "after timing: " + c.problem;
        ctx.reset_sync();
        return;
      }
    }
    row.ok = true;
  } catch (const CudaError& e) {
    row.ok = false;
    row.problem = e.what();
    if (!ctx.healthy()) throw ContextLost(std::string("CUDA context lost: ") + e.what());
    ctx.reset_sync();
  }
}

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string join_args(const std::string& sub, const std::vector<std::string>& args) {
  std::string s = "parascope-bench " + sub;
  for (const auto& a : args) s += " " + a;
  return s;
}

void add_machine_meta(ResultSet& set, const GpuContext& ctx) {
  int driver = 0, runtime = 0, nccl = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  ncclGetVersion(&nccl);
  set.set_meta("date", JsonValue::string(utc_now_iso()));
  set.set_meta("devices", JsonValue::string(ctx.describe()));
  set.set_meta("gpus", JsonValue::number(int64_t{ctx.n()}));
  set.set_meta("cuda_driver", JsonValue::number(int64_t{driver}));
  set.set_meta("cuda_runtime", JsonValue::number(int64_t{runtime}));
  set.set_meta("nccl_version", JsonValue::number(int64_t{nccl}));
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  set.set_meta("NCCL_NVLS_ENABLE", JsonValue::string(nvls ? nvls : "(unset; the harness sets 0 before NCCL init)"));
}

void print_progress(const ResultRow& r) {
  std::fprintf(stderr, "  %-14s %-16s %-4s %9s sms %3d  %10.2f us  %7.1f GB/s  %s%s\n", r.op.c_str(),
               (r.variant + (r.direction.empty() ? "" : "/" + r.direction)).c_str(), r.dtype.c_str(),
               format_bytes(r.bytes).c_str(), r.sms, r.ns.median / 1e3, r.busbw_gbps,
               !r.checked ? "-" : (r.ok ? "ok" : "FAIL "), r.ok ? "" : r.problem.c_str());
}

void preload_all_kernels(GpuContext& ctx) {
  for (int r = 0; r < ctx.n(); ++r) {
    ctx.set(r);
    preload_sync_kernels();
    preload_check_kernels();
    preload_p2p_kernels();
    preload_collective_kernels();
    preload_fused_kernels();
    preload_floor_kernels();
  }
}

}  // namespace parascope::bench
