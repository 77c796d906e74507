#include "sim/accuracy.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace parascope::sim {

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  std::vector<double> a;
  for (double e : errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  s.count = a.size();
  if (a.empty()) return s;
  s.max_abs = a.back();
  s.median_abs = a.size() % 2 ? a[a.size() / 2] : (a[a.size() / 2 - 1] + a[a.size() / 2]) / 2;
  return s;
}

std::string_view to_string(RowRole r) {
  switch (r) {
    case RowRole::kNcclFit: return "fit (NCCL profile)";
    case RowRole::kKernelFit: return "fit (kernels)";
    case RowRole::kFitOtherDtype: return "fit twin (other dtype)";
    case RowRole::kValidation: return "validation";
    case RowRole::kValidationExtra: return "validation (extra)";
    case RowRole::kOutOfRange: return "out of range";
    case RowRole::kNotModelled: return "not modelled";
  }
  return "?";
}

RowRole row_role(const HarnessRow& row, const FitSplit& split) {
  if (!harness_workload(row).modelled) return RowRole::kNotModelled;
  if (row.dtype != split.fit_dtype) {
    HarnessRow twin = row;
    twin.dtype = split.fit_dtype;
    const RowRole r = row_role(twin, split);
    if (r == RowRole::kNcclFit || r == RowRole::kKernelFit) return RowRole::kFitOtherDtype;
  }
  // Fit rows at every size (the small ones pin the fixed costs); only validation rows need the range.
  if (row.dtype == split.fit_dtype) {
    const bool size_ok = split.fit_bytes.empty() ||
                         std::find(split.fit_bytes.begin(), split.fit_bytes.end(), row.bytes) != split.fit_bytes.end();
    if (row.variant == "nccl" && size_ok &&
        std::find(split.nccl_fit_ops.begin(), split.nccl_fit_ops.end(), row.op) != split.nccl_fit_ops.end())
      return RowRole::kNcclFit;
    for (const auto& [op, variant] : split.kernel_fit_variants)
      if (row.op == op && row.variant == variant) return RowRole::kKernelFit;
  }
  if (row.bytes < split.min_bytes || row.bytes > split.max_bytes) return RowRole::kOutOfRange;
  if (row.variant == "nccl" &&
      std::find(split.nccl_scored_ops.begin(), split.nccl_scored_ops.end(), row.op) == split.nccl_scored_ops.end())
    return RowRole::kValidationExtra;
  return RowRole::kValidation;
}

FitSplit unfitted_batch_split() {
  FitSplit s;
  s.nccl_fit_ops.clear();
  s.kernel_fit_variants.clear();
  return s;
}

FitSplit nccl_fitted_batch_split() {
  FitSplit s;
  s.kernel_fit_variants.clear();
  return s;
}

std::vector<HarnessRow> unique_rows(const std::vector<HarnessRow>& rows) {
  std::set<std::tuple<std::string, std::string, std::string, double, int32_t, int32_t, std::string>> seen;
  std::vector<HarnessRow> out;
  for (const HarnessRow& r : rows)
    if (seen.insert({r.op, r.variant, r.dtype, r.bytes, r.sms, r.threads, r.protocol}).second) out.push_back(r);
  return out;
}

AccuracyReport evaluate_accuracy(const Topology& topo, const std::vector<HarnessRow>& rows, const FitSplit& split) {
  AccuracyReport rep;
  std::vector<double> fit, twin, valid, valid_nccl, valid_kernels, extra, below, below_nccl, below_kernels;
  for (const HarnessRow& r : rows) {
    AccuracyRow a;
    a.row = r;
    a.role = row_role(r, split);
    const HarnessWorkload w = harness_workload(r);
    a.spec = w.spec;
    a.why = w.why;
    if (w.modelled) {
      a.simulated_ns = simulate_harness_row(topo, r);
      a.error = a.simulated_ns / r.median_ns - 1;
    }
    if (a.role == RowRole::kNcclFit || a.role == RowRole::kKernelFit) fit.push_back(a.error);
    if (a.role == RowRole::kFitOtherDtype) twin.push_back(a.error);
    if (a.role == RowRole::kValidation) {
      valid.push_back(a.error);
      (r.variant == "nccl" ? valid_nccl : valid_kernels).push_back(a.error);
    }
    if (a.role == RowRole::kValidationExtra) extra.push_back(a.error);
    const bool scored_op = r.variant != "nccl" || std::find(split.nccl_scored_ops.begin(), split.nccl_scored_ops.end(), r.op) !=
                                                      split.nccl_scored_ops.end();
    if (a.role == RowRole::kOutOfRange && r.bytes < split.min_bytes && scored_op) {
      below.push_back(a.error);
      (r.variant == "nccl" ? below_nccl : below_kernels).push_back(a.error);
    }
    rep.rows.push_back(std::move(a));
  }
  rep.fit = error_stats(fit);
  rep.fit_other_dtype = error_stats(twin);
  rep.validation = error_stats(valid);
  rep.validation_nccl = error_stats(valid_nccl);
  rep.validation_kernels = error_stats(valid_kernels);
  rep.validation_extra = error_stats(extra);
  rep.below_range = error_stats(below);
  rep.below_range_nccl = error_stats(below_nccl);
  rep.below_range_kernels = error_stats(below_kernels);
  return rep;
}

JsonValue accuracy_json(const AccuracyReport& rep) {
  auto stats = [](const ErrorStats& s) {
    return JsonValue::object({{"rows", JsonValue::number(static_cast<int64_t>(s.count))},
                              {"median_abs_error", JsonValue::number(s.median_abs)},
                              {"max_abs_error", JsonValue::number(s.max_abs)}});
  };
  JsonValue rows = JsonValue::array();
  for (const AccuracyRow& a : rep.rows) {
    JsonValue v = JsonValue::object({{"op", JsonValue::string(a.row.op)},
                                     {"variant", JsonValue::string(a.row.variant)},
                                     {"dtype", JsonValue::string(a.row.dtype)},
                                     {"bytes", JsonValue::number(a.row.bytes)},
                                     {"sms", JsonValue::number(static_cast<int64_t>(a.row.sms))},
                                     {"measured_ns", JsonValue::number(a.row.median_ns)},
                                     {"role", JsonValue::string(std::string(to_string(a.role)))}});
    if (a.role == RowRole::kNotModelled) {
      v.set("why", JsonValue::string(a.why));
    } else {
      v.set("workload", JsonValue::string(a.spec));
      v.set("simulated_ns", JsonValue::number(a.simulated_ns));
      v.set("error", JsonValue::number(a.error));
    }
    rows.push(std::move(v));
  }
  return JsonValue::object({{"fit", stats(rep.fit)},
                            {"fit_other_dtype", stats(rep.fit_other_dtype)},
                            {"validation", stats(rep.validation)},
                            {"validation_nccl", stats(rep.validation_nccl)},
                            {"validation_kernels", stats(rep.validation_kernels)},
                            {"validation_extra", stats(rep.validation_extra)},
                            {"below_range", stats(rep.below_range)},
                            {"rows", std::move(rows)}});
}

}  // namespace parascope::sim
