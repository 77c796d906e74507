#include "pkb/task/design_space.h"

#include <algorithm>
#include <cstdio>

#include "trace/core/data_table.h"

namespace parascope::pkb {

namespace {

constexpr int kSmChoices[] = {8, 32, 132};
constexpr int64_t kFusedChunkChoices[] = {64 * 1024, 256 * 1024, 1024 * 1024};
constexpr int kFusedSmChoices[] = {8, 16, 32};

std::string op_label(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "all-reduce";
    case CollectiveOp::kAllGather: return "all-gather";
    case CollectiveOp::kReduceScatter: return "reduce-scatter";
    case CollectiveOp::kAllToAll: return "all-to-all";
    default: return std::string(to_string(op));
  }
}

// the simulator's op name, empty when it has no model for the collective
std::string sim_op(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "allreduce";
    case CollectiveOp::kAllGather: return "allgather";
    case CollectiveOp::kReduceScatter: return "reducescatter";
    case CollectiveOp::kAllToAll: return "alltoall";
    default: return {};
  }
}

std::string chunk_text(int64_t b) { return b >= 1 << 20 ? std::to_string(b >> 20) + " MiB" : std::to_string(b >> 10) + " KiB"; }

std::string fmt_time(double s) {
  char buf[32];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

// the GEMM next to a collective: after an all-gather, before a reduce-scatter (compute ops between
// them that are not GEMMs end the search)
int neighbour_gemm(const TaskOps& ops, const CollectiveUse& u) {
  const int step = u.op == CollectiveOp::kAllGather ? 1 : u.op == CollectiveOp::kReduceScatter ? -1 : 0;
  if (!step) return -1;
  for (int p = u.position + step; p >= 0 && p < static_cast<int>(ops.ops.size()); p += step) {
    const IterationOp& o = ops.ops[static_cast<size_t>(p)];
    if (o.shape && o.shape->gemm && o.category == Category::kCompute) return p;
    if (o.category == Category::kCommunication) return -1;
    if (o.category == Category::kCompute && o.mean_ns > 0.2 * ops.ops[static_cast<size_t>(u.position)].mean_ns) return -1;
  }
  return -1;
}

}  // namespace

DesignSpace explore_designs(const TaskOps& ops, double reference_s, double host_s, const Topology& machine,
                            double latency_floor_s) {
  DesignSpace ds;
  int gpus = 0;
  for (const TopoNode& n : machine.nodes)
    if (n.gpu) ++gpus;
  for (const CollectiveUse& u : ops.collectives) {
    if (u.group_size < 2) continue;
    const std::string sop = sim_op(u.op);
    char bytes_text[32];
    std::snprintf(bytes_text, sizeof bytes_text, "%.2f MB", static_cast<double>(u.bytes) / 1e6);
    DesignTarget target;
    target.label = op_label(u.op) + " #" + std::to_string(u.order + 1) + ", " + bytes_text + " on " +
                   std::to_string(u.group_size) + " ranks";
    target.positions = {u.position};
    target.measured_s = u.mean_ns * 1e-9;
    if (sop.empty()) {
      ds.note += (ds.note.empty() ? "" : "; ") + target.label + ": the simulator has no model of this op";
      continue;
    }
    if (u.group_size > gpus) {
      ds.note += (ds.note.empty() ? "" : "; ") + target.label + ": " + machine.name + " has only " + std::to_string(gpus) + " GPUs";
      continue;
    }
    const int ti = static_cast<int>(ds.targets.size());
    ds.targets.push_back(target);
    const std::vector<std::pair<std::string, std::string>> base = {
        {"gpus", std::to_string(u.group_size)},
        {"bytes", std::to_string(std::max<uint64_t>(u.input_bytes, 16))},
        {"dtype_bytes", std::to_string(std::max<uint32_t>(u.dtype_bytes, 1))}};
    auto add = [&](Design d) {
      d.target = ti;
      ds.designs.push_back(std::move(d));
    };
    {  // NCCL's ring as modelled (the measured NCCL profile where the machine has one)
      Design d;
      d.label = "NCCL ring (model of the reference)";
      d.algorithm = "ring";
      d.mechanism = "ldst";
      d.overlap = "unfused";
      d.nccl_model = true;
      d.request = {sop, base};
      d.request.knobs.push_back({"algorithm", "ring"});
      add(d);
    }
    const std::vector<std::string> algos = u.op == CollectiveOp::kAllReduce ? std::vector<std::string>{"one_shot", "two_shot"}
                                                                           : std::vector<std::string>{"one_shot"};
    // the direct kernels move one message per block (no chunks: the simulator's direct model and
    // kernels/collectives/collectives.cu alike); their choices are the mechanism and the SMs
    for (const std::string& algo : algos)
      for (const char* mech : {"ce", "tma", "ldst", "ldst_pull", "tma_pull"}) {
        const bool ce = std::string(mech) == "ce";
        for (int sms : kSmChoices) {
          if (ce && sms != kSmChoices[0]) continue;
          Design d;
          d.algorithm = algo;
          d.mechanism = mech;
          d.overlap = "unfused";
          d.sms = ce ? 0 : sms;
          d.label = algo + " " + mech + (ce ? "" : ", " + std::to_string(sms) + " SMs");
          d.request = {sop, base};
          d.request.knobs.push_back({"algorithm", algo});
          d.request.knobs.push_back({"mechanism", mech});
          if (!ce) d.request.knobs.push_back({"channels", std::to_string(sms)});
          add(d);
        }
      }
    // fusion with the neighbouring GEMM
    const int g = neighbour_gemm(ops, u);
    if (g >= 0) {
      const IterationOp& gemm = ops.ops[static_cast<size_t>(g)];
      const OpShape& sh = *gemm.shape;
      DesignTarget ft;
      ft.label = op_label(u.op) + " #" + std::to_string(u.order + 1) + " + GEMM " + std::to_string(sh.m) + "x" +
                 std::to_string(sh.n) + "x" + std::to_string(sh.k);
      ft.positions = {u.position, g};
      ft.measured_s = (u.mean_ns + gemm.mean_ns) * 1e-9;
      const int fi = static_cast<int>(ds.targets.size());
      ds.targets.push_back(ft);
      const bool ag = u.op == CollectiveOp::kAllGather;
      const int n = u.group_size;
      // the fused model splits one GEMM of m x n x k over the ranks (per rank 1/n of its FLOPs):
      // all-gather + GEMM, where every rank multiplies the gathered input: n_model = n x N;
      // GEMM + reduce-scatter over the partial product of a K/n slice: k_model = n x K
      const int64_t gm = sh.m, gn = ag ? sh.n * n : sh.n, gk = ag ? sh.k : sh.k * n;
      double eff = 1;
      const double peak = [&] {
        for (const TopoNode& nd : machine.nodes)
          if (nd.gpu) return nd.gpu->bf16_flops;
        return 0.0;
      }();
      if (peak > 0 && gemm.mean_ns > 0) eff = std::clamp(sh.flops / (gemm.mean_ns * 1e-9) / peak, 0.01, 1.0);
      char eff_text[32];
      std::snprintf(eff_text, sizeof eff_text, "%.4f", eff);
      // the fused kernel pipelines the transfer in chunks against the GEMM's tiles: chunk size is
      // its granularity of overlap
      for (const char* mech : {"ce", "tma", "ldst"})
        for (const char* overlap : {"inter_sm", "intra_sm"})
          for (int sms : kFusedSmChoices) {
            const bool inter = std::string(overlap) == "inter_sm";
            if (!inter && sms != kFusedSmChoices[1]) continue;  // intra-SM holds no SMs: one SM count
            for (int64_t chunk : kFusedChunkChoices) {
              Design d;
              d.target = fi;
              d.fused = true;
              d.algorithm = "fused";
              d.mechanism = mech;
              d.overlap = overlap;
              d.sms = sms;
              d.chunk_bytes = chunk;
              d.label = std::string("fused ") + (ag ? "all-gather + GEMM" : "GEMM + reduce-scatter") + ", " + mech + ", " +
                        (inter ? std::to_string(sms) + " comm SMs" : "intra-SM") + ", " + chunk_text(chunk) + " chunks";
              d.request.op = ag ? "allgather_gemm" : "gemm_reducescatter";
              d.request.knobs = {{"gpus", std::to_string(n)},          {"gemm_m", std::to_string(gm)},
                                 {"gemm_n", std::to_string(gn)},       {"gemm_k", std::to_string(gk)},
                                 {"dtype_bytes", std::to_string(std::max<uint32_t>(u.dtype_bytes, 1))},
                                 {"mechanism", mech},                  {"overlap", overlap},
                                 {"num_comm_sms", std::to_string(sms)}, {"chunk_bytes", std::to_string(chunk)},
                                 {"gemm_efficiency", eff_text}};
              ds.designs.push_back(std::move(d));
            }
          }
    } else if (u.op == CollectiveOp::kAllReduce) {
      ds.note += (ds.note.empty() ? "" : "; ") + target.label + ": no fused GEMM + all-reduce model (overlap not explored)";
    }
  }
  if (ops.collectives.empty() || ds.targets.empty()) {
    if (ds.note.empty())
      ds.note = ops.world < 2 ? "one rank: nothing crosses a link, no communication to design" : "no collective to design";
    ds.reference_s = reference_s;
    ds.best_task_s = reference_s;
    ds.best_speedup = reference_s > 0 ? 1 : 0;
    return ds;
  }
  for (Design& d : ds.designs) {
    const SimAnswer a = simulate_step(machine, d.request);
    d.ok = a.ok;
    d.error = a.error;
    d.predicted_s = a.seconds;
  }
  // A one-GPU recording (record --world) ran no collective: its stand-in kernels take no time.
  // There the reference's communication is NCCL's as modelled, added to the measured time, and
  // the host floor is left out (the stand-in's Python calls are slower than NCCL's enqueue).
  bool standin = false;
  std::vector<double> nccl_of_position(ops.ops.size(), 0);
  for (size_t ti = 0; ti < ds.targets.size(); ++ti) {
    const DesignTarget& t = ds.targets[ti];
    if (t.positions.size() != 1) continue;
    const IterationOp& o = ops.ops[static_cast<size_t>(t.positions[0])];
    if (o.name.rfind("stand-in ", 0) != 0) continue;
    standin = true;
    for (const Design& d : ds.designs)
      if (d.target == static_cast<int>(ti) && d.nccl_model && d.ok) nccl_of_position[static_cast<size_t>(t.positions[0])] = d.predicted_s;
  }
  double reference = reference_s;
  if (standin) {
    host_s = 0;
    for (DesignTarget& t : ds.targets)
      for (int p : t.positions) t.measured_s += nccl_of_position[static_cast<size_t>(p)];
    for (double x : nccl_of_position) reference += x;
    ds.note += std::string(ds.note.empty() ? "" : "; ") +
               "one-GPU recording: collectives not run; the reference's are NCCL's as modelled (" + fmt_time(reference - reference_s) +
               " added to the measured " + fmt_time(reference_s) + ")";
  }
  ds.reference_s = reference;
  for (Design& d : ds.designs) {
    const DesignTarget& t = ds.targets[static_cast<size_t>(d.target)];
    if (d.ok) {
      d.task_s = std::max(host_s, std::max(0.0, reference - t.measured_s) + d.predicted_s);
      d.speedup = d.task_s > 0 ? reference / d.task_s : 0;
    }
  }
  // the best per target; targets that share an op (a collective and its fused form) take the
  // better of the two
  for (size_t i = 0; i < ds.designs.size(); ++i) {
    const Design& d = ds.designs[i];
    DesignTarget& t = ds.targets[static_cast<size_t>(d.target)];
    if (d.nccl_model) t.nccl = static_cast<int>(i);
    if (!d.ok) continue;
    if (t.best < 0 || d.task_s < ds.designs[static_cast<size_t>(t.best)].task_s) t.best = static_cast<int>(i);
  }
  std::vector<bool> chosen(ds.targets.size(), true);
  for (size_t a = 0; a < ds.targets.size(); ++a)
    for (size_t b = 0; b < ds.targets.size(); ++b) {
      if (a == b || !chosen[a] || !chosen[b]) continue;
      const auto& pa = ds.targets[a].positions;
      bool shares = false;
      for (int p : ds.targets[b].positions) shares = shares || std::find(pa.begin(), pa.end(), p) != pa.end();
      if (!shares) continue;
      const auto saving = [&](size_t x) {
        const DesignTarget& t = ds.targets[x];
        return t.best < 0 ? 0.0 : t.measured_s - ds.designs[static_cast<size_t>(t.best)].predicted_s;
      };
      chosen[saving(a) >= saving(b) ? b : a] = false;
    }
  double task = reference;
  std::string label, reason;
  for (size_t i = 0; i < ds.targets.size(); ++i) {
    const DesignTarget& t = ds.targets[i];
    if (!chosen[i] || t.best < 0) continue;
    const Design& d = ds.designs[static_cast<size_t>(t.best)];
    if (d.predicted_s >= t.measured_s) continue;  // the reference's own is better: keep it
    task -= t.measured_s - d.predicted_s;
    label += (label.empty() ? "" : "; ") + t.label + ": " + d.label;
    std::string why = t.label + ": " + fmt_time(d.predicted_s) + " predicted against " + fmt_time(t.measured_s) + " measured";
    if (t.nccl >= 0 && ds.designs[static_cast<size_t>(t.nccl)].ok)
      why += " (NCCL modelled at " + fmt_time(ds.designs[static_cast<size_t>(t.nccl)].predicted_s) + ")";
    if (latency_floor_s > 0 && d.predicted_s < 3 * latency_floor_s)
      why += "; latency-bound: one kernel and one cross-GPU signal (" + fmt_time(latency_floor_s) + ") are most of it";
    else if (d.fused)
      why += "; the transfer hides under the GEMM";
    else
      why += "; bandwidth-bound at this size";
    reason += (reason.empty() ? "" : "; ") + why;
  }
  if (task < host_s) {
    task = host_s;
    reason += (reason.empty() ? "" : "; ") + std::string("host-bound: the host takes ") + fmt_time(host_s) +
              " per iteration, which no kernel change shortens";
  }
  ds.best_task_s = task;
  ds.best_speedup = task > 0 ? reference / task : 0;
  ds.best_label = label.empty() ? "the reference as it is" : label;
  ds.reason = reason.empty() ? "no simulated design beats what the reference measured" : reason;
  return ds;
}

}  // namespace parascope::pkb
