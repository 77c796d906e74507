#include "host/targets.h"

#include <algorithm>
#include <set>

#include "host/size_spec.h"

namespace parascope::bench {

namespace {
bool usable(const ResultRow& r) { return r.checked && r.ok && r.ns.n > 0 && r.ns.median > 0; }

const ResultRow* best_p2p(const std::vector<ResultRow>& rows, const std::string& mech, const std::string& dir,
                          int max_sms, int exact_sms) {
  const ResultRow* best = nullptr;
  for (const auto& r : rows) {
    if (r.op != "p2p" || r.variant != mech || r.direction != dir || !usable(r)) continue;
    if (max_sms >= 0 && r.sms > max_sms) continue;
    if (exact_sms >= 0 && r.sms != exact_sms) continue;
    if (!best || r.algbw_gbps > best->algbw_gbps) best = &r;
  }
  return best;
}

TargetCheck p2p_check(const std::string& name, const ResultRow* r, double target, const std::string& detail) {
  TargetCheck t;
  t.name = name;
  t.target = target;
  t.unit = "GB/s";
  t.available = r != nullptr;
  t.measured = r ? r->algbw_gbps : 0;
  t.detail = detail + (r ? " (best at " + format_bytes(r->bytes) + ", " + std::to_string(r->sms) + " SMs)" : "");
  return t;
}

std::set<std::pair<std::string, uint64_t>> sizes_of(const std::vector<ResultRow>& rows, const std::string& op) {
  std::set<std::pair<std::string, uint64_t>> out;
  for (const auto& r : rows)
    if (r.op == op) out.insert({r.dtype, r.bytes});
  return out;
}
}  // namespace

const ResultRow* find_row(const std::vector<ResultRow>& rows, const std::string& op, const std::string& variant,
                          const std::string& dtype, uint64_t bytes) {
  for (const auto& r : rows)
    if (r.op == op && r.variant == variant && r.dtype == dtype && r.bytes == bytes) return &r;
  return nullptr;
}

const ResultRow* best_ours(const std::vector<ResultRow>& rows, const std::string& op, const std::string& dtype,
                           uint64_t bytes) {
  const ResultRow* best = nullptr;
  for (const auto& r : rows) {
    if (r.op != op || r.dtype != dtype || r.bytes != bytes || is_library_variant(r.variant) || !usable(r)) continue;
    if (!best || r.ns.median < best->ns.median) best = &r;
  }
  return best;
}

bool is_library_variant(const std::string& variant) { return variant.rfind("nccl", 0) == 0; }

const ResultRow* best_library(const std::vector<ResultRow>& rows, const std::string& op, const std::string& dtype,
                              uint64_t bytes) {
  const ResultRow* best = nullptr;
  for (const auto& r : rows) {
    if (r.op != op || r.dtype != dtype || r.bytes != bytes || !is_library_variant(r.variant) || !usable(r)) continue;
    if (!best || r.ns.median < best->ns.median) best = &r;
  }
  return best;
}

std::vector<TargetCheck> p2p_targets(const std::vector<ResultRow>& rows) {
  std::vector<TargetCheck> out;
  out.push_back(p2p_check("p2p copy engine, uni, peak", best_p2p(rows, "ce", "uni", -1, -1), 0.97 * kProbeCeUniGBps,
                          "within 3 % of the probe's 397 GB/s"));
  out.push_back(p2p_check("p2p LD/ST push, uni, 132 SMs", best_p2p(rows, "ldst_push", "uni", -1, 132),
                          0.97 * kProbeLdstPushGBps, "within 3 % of the probe's 369 GB/s"));
  out.push_back(p2p_check("p2p LD/ST pull, uni, 132 SMs", best_p2p(rows, "ldst_pull", "uni", -1, 132),
                          0.97 * kProbeLdstPullGBps, "within 3 % of the probe's 373 GB/s"));
  // TMA: bulk copies issued by the sending GPU (tma) or by the receiving one (tma_pull)
  const ResultRow* push = best_p2p(rows, "tma", "uni", 16, -1);
  const ResultRow* pull = best_p2p(rows, "tma_pull", "uni", 16, -1);
  const ResultRow* tma = !pull || (push && push->algbw_gbps >= pull->algbw_gbps) ? push : pull;
  out.push_back(p2p_check("p2p TMA, uni, <= 16 SMs", tma, kTargetTmaGBps,
                          std::string("TMA >= 370 GB/s with at most 16 SMs") + (tma ? ", " + tma->variant : std::string())));
  return out;
}

std::vector<TargetCheck> allreduce_targets(const std::vector<ResultRow>& rows) {
  std::vector<TargetCheck> out;
  for (const auto& [dtype, bytes] : sizes_of(rows, "all_reduce")) {
    const bool large = bytes >= (64ull << 20), small = bytes <= (64ull << 10);
    if (!large && !small) continue;
    const ResultRow* nccl = best_library(rows, "all_reduce", dtype, bytes);
    const ResultRow* ours = best_ours(rows, "all_reduce", dtype, bytes);
    TargetCheck t;
    t.available = ours && nccl && usable(*nccl);
    if (large) {
      t.name = "all_reduce " + dtype + " " + format_bytes(bytes) + " busbw vs NCCL";
      t.target = bytes >= (256ull << 20) ? 1.10 : 1.0;
      t.unit = "x NCCL";
      if (t.available) {
        // the best by busbw is the best by time at one size
        t.measured = ours->busbw_gbps / nccl->busbw_gbps;
        t.detail = ours->variant + " " + std::to_string(static_cast<int>(ours->busbw_gbps)) + " GB/s vs " +
                   nccl->variant + " " + std::to_string(static_cast<int>(nccl->busbw_gbps)) + " GB/s";
        const ResultRow* plain = find_row(rows, "all_reduce", "nccl", dtype, bytes);
        if (plain && plain != nccl && usable(*plain)) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "; %.2f x plain nccl", ours->busbw_gbps / plain->busbw_gbps);
          t.detail += buf;
        }
      }
    } else {
      t.name = "all_reduce " + dtype + " " + format_bytes(bytes) + " time vs NCCL (graphs)";
      t.target = 0.5;
      t.unit = "x NCCL";
      t.higher_is_better = false;
      if (t.available) {
        t.measured = ours->ns.median / nccl->ns.median;
        char buf[128];
        std::snprintf(buf, sizeof buf, "%s %.2f us vs %s %.2f us", ours->variant.c_str(), ours->ns.median / 1e3,
                      nccl->variant.c_str(), nccl->ns.median / 1e3);
        t.detail = buf;
        const ResultRow* plain = find_row(rows, "all_reduce", "nccl", dtype, bytes);
        if (plain && plain != nccl && usable(*plain)) {
          std::snprintf(buf, sizeof buf, "; %.3f x plain nccl", ours->ns.median / plain->ns.median);
          t.detail += buf;
        }
      }
    }
    if (!t.available) t.detail = !nccl || !usable(*nccl) ? "no passing NCCL row" : "no passing variant of ours";
    out.push_back(t);
  }
  return out;
}

double MechanismPeaks::of(const std::string& m) const {
  if (m == "ce") return ce;
  if (m == "tma") return tma;
  if (m == "ldst_push" || m == "ldst_pull" || m == "ldst") return ldst;
  return 0;
}

std::vector<TargetCheck> gather_scatter_targets(const std::vector<ResultRow>& rows, const MechanismPeaks& peaks) {
  std::vector<TargetCheck> out;
  for (const std::string op : {"all_gather", "reduce_scatter"}) {
    for (const auto& [dtype, bytes] : sizes_of(rows, op)) {
      if (bytes < (64ull << 20)) continue;
      const ResultRow* nccl = best_library(rows, op, dtype, bytes);
      const ResultRow* ours = best_ours(rows, op, dtype, bytes);
      TargetCheck t;
      t.name = op + " " + dtype + " " + format_bytes(bytes) + " busbw";
      t.unit = "GB/s";
      t.available = ours && nccl && usable(*nccl);
      if (!t.available) {
        t.detail = !nccl || !usable(*nccl) ? "no passing NCCL row" : "no passing variant of ours";
        out.push_back(t);
        continue;
      }
      const double peak = peaks.of(ours->mechanism);
      const double by_nccl = 1.1 * nccl->busbw_gbps;
      t.target = peak > 0 ? std::min(by_nccl, 0.95 * peak) : by_nccl;
      t.measured = ours->busbw_gbps;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s; %s %.0f GB/s; %s peak %s", ours->variant.c_str(), nccl->variant.c_str(), nccl->busbw_gbps,
                    ours->mechanism.c_str(), peak > 0 ? (std::to_string(static_cast<int>(peak)) + " GB/s").c_str() : "unknown");
      t.detail = buf;
      out.push_back(t);
    }
  }
  return out;
}

TargetCheck fused_overlap_target(const std::string& name, double t_fused, double t_gemm, double t_comm) {
  TargetCheck t;
  t.name = name;
  t.unit = "us";
  t.higher_is_better = false;
  t.available = t_fused > 0 && t_gemm > 0 && t_comm > 0;
  t.measured = t_fused / 1e3;
  t.target = (t_gemm + 0.3 * t_comm) / 1e3;
  char buf[160];
  std::snprintf(buf, sizeof buf, "t_gemm %.1f us + 0.3 x t_comm %.1f us; overlap gain achieved %.0f %%", t_gemm / 1e3,
                t_comm / 1e3, t_comm > 0 ? 100.0 * (t_gemm + t_comm - t_fused) / t_comm : 0.0);
  t.detail = buf;
  return t;
}

TargetCheck fused_speedup_target(const std::string& name, double t_fused, double t_sequential) {
  TargetCheck t;
  t.name = name;
  t.unit = "x";
  t.available = t_fused > 0 && t_sequential > 0;
  t.measured = t.available ? t_sequential / t_fused : 0;
  t.target = 1.2;
  char buf[160];
  std::snprintf(buf, sizeof buf, "cuBLAS + NCCL in sequence %.1f us, fused %.1f us", t_sequential / 1e3, t_fused / 1e3);
  t.detail = buf;
  return t;
}

}  // namespace parascope::bench
