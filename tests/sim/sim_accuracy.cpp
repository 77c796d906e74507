// The accuracy table of docs/accuracy.md, recomputed in one run from the JSON files (no GPU): every
// row of the 2 x H200 harness files simulated on the calibrated preset, marked fit / validation /
// not modelled, with the validation median and worst against issue #4's targets (median <= 5 %,
// worst <= 15 %, 64 KiB - 1 GiB). Validation, not held out: every set here was measured before the
// model it is scored on was frozen and model choices saw its scores (docs/accuracy.md). Prints the
// table (text, or --markdown for the docs) and writes JSON. Two more sections score batch 2 (batch2/:
// its NCCL bf16 rows are fit rows, its kernel rows validation) and batch 3 (batch3/: sizes off both
// fit grids, no fit reads them) the same way, batch 2's 32 KiB rows apart (below issue #4's range).
// Exit status 1 when a target is missed.
//   sim_accuracy [--topology PATH] [--json FILE] [--markdown]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "h200x2_harness.h"
#include "sim/accuracy.h"
#include "sim/knobs.h"
#include "test_paths.h"
#include "trace/core/topology_json.h"

using namespace parascope;
using namespace parascope::sim;

namespace {

constexpr double kMedianTarget = 0.05, kWorstTarget = 0.15;

std::string us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ns / 1000);
  return b;
}

std::vector<HarnessRow> load_rows(const std::vector<std::string>& files) {
  std::vector<HarnessRow> rows;
  for (const std::string& f : files)
    for (auto& r : load_harness_rows(test::source_path(f))) rows.push_back(std::move(r));
  return unique_rows(rows);
}

void print_rows(const AccuracyReport& rep, const FitSplit& split, bool markdown, bool below_range) {
  auto shown = [&](const AccuracyRow& a) {
    if (a.role == RowRole::kNotModelled) return false;
    if (a.role != RowRole::kOutOfRange) return true;
    return below_range && a.row.bytes < split.min_bytes;
  };
  auto set_name = [&](const AccuracyRow& a) {
    return a.role == RowRole::kOutOfRange ? std::string("below range (not scored)") : std::string(to_string(a.role));
  };
  if (markdown) {
    std::printf("| op | variant | dtype | bytes | SMs | measured µs | simulated µs | error | set |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const AccuracyRow& a : rep.rows) {
      if (!shown(a)) continue;
      std::printf("| %s | %s | %s | %s | %d | %s | %s | %+.1f %% | %s |\n", a.row.op.c_str(), a.row.variant.c_str(), a.row.dtype.c_str(),
                  format_bytes(static_cast<int64_t>(a.row.bytes)).c_str(), a.row.sms, us(a.row.median_ns).c_str(),
                  us(a.simulated_ns).c_str(), 100 * a.error, set_name(a).c_str());
    }
    std::printf("\nNot modelled:\n\n");
    for (const AccuracyRow& a : rep.rows)
      if (a.role == RowRole::kNotModelled && a.row.bytes >= split.min_bytes && a.row.bytes <= split.max_bytes)
        std::printf("- %s %s %s %s: %s\n", a.row.op.c_str(), a.row.variant.c_str(), a.row.dtype.c_str(),
                    format_bytes(static_cast<int64_t>(a.row.bytes)).c_str(), a.why.c_str());
  } else {
    std::printf("%-14s %-14s %-5s %8s %4s %11s %11s %8s  %s\n", "op", "variant", "dtype", "bytes", "SMs", "measured", "simulated", "error",
                "set");
    for (const AccuracyRow& a : rep.rows) {
      if (a.role == RowRole::kNotModelled) {
        if (a.row.bytes >= split.min_bytes && a.row.bytes <= split.max_bytes)
          std::printf("%-14s %-14s %-5s %8s %4d %8s us %11s %8s  not modelled: %s\n", a.row.op.c_str(), a.row.variant.c_str(),
                      a.row.dtype.c_str(), format_bytes(static_cast<int64_t>(a.row.bytes)).c_str(), a.row.sms, us(a.row.median_ns).c_str(),
                      "-", "-", a.why.c_str());
        continue;
      }
      if (!shown(a)) continue;
      std::printf("%-14s %-14s %-5s %8s %4d %8s us %8s us %+7.1f%%  %s\n", a.row.op.c_str(), a.row.variant.c_str(), a.row.dtype.c_str(),
                  format_bytes(static_cast<int64_t>(a.row.bytes)).c_str(), a.row.sms, us(a.row.median_ns).c_str(),
                  us(a.simulated_ns).c_str(), 100 * a.error, set_name(a).c_str());
    }
  }
}

void stats_line(const char* what, const ErrorStats& s) {
  std::printf("%-44s %4zu rows  median |error| %5.1f %%  worst %5.1f %%\n", what, s.count, 100 * s.median_abs, 100 * s.max_abs);
}

// Per family (op, variant): fit rows and validation rows separately (and, when asked, the rows below the
// scored range). Returns the JSON of the table.
JsonValue family_table(const AccuracyReport& rep, const FitSplit& split, bool markdown, bool below_range) {
  struct Fam {
    std::vector<double> fit, validation, below;
  };
  std::map<std::string, Fam> families;
  for (const AccuracyRow& a : rep.rows) {
    const std::string fam = a.row.variant == "nccl" ? "NCCL " + a.row.op : a.row.op + " " + a.row.variant;
    if (a.role == RowRole::kNcclFit || a.role == RowRole::kKernelFit) families[fam].fit.push_back(a.error);
    if (a.role == RowRole::kValidation || a.role == RowRole::kValidationExtra) families[fam].validation.push_back(a.error);
    if (a.role == RowRole::kOutOfRange && a.row.bytes < split.min_bytes) families[fam].below.push_back(a.error);
  }
  const char* below_head = below_range ? " below-range rows | below-range median | below-range worst |" : "";
  const char* below_rule = below_range ? "---|---|---|" : "";
  if (markdown)
    std::printf("\n| family | fit rows | validation rows | validation median | validation worst |%s\n|---|---|---|---|---|%s\n", below_head, below_rule);
  else
    std::printf("\n%-28s %14s %16s %16s %16s%s\n", "family", "fit rows", "valid. rows", "valid. median", "valid. worst",
                below_range ? "   below range: rows, median, worst" : "");
  JsonValue fam_json = JsonValue::array();
  auto pct = [](char* out, size_t n, const ErrorStats& s, double v) {
    if (s.count) std::snprintf(out, n, "%.1f %%", 100 * v);
    else std::snprintf(out, n, "-");
  };
  for (const auto& [fam, errs] : families) {
    const ErrorStats f = error_stats(errs.fit), h = error_stats(errs.validation), b = error_stats(errs.below);
    if (!f.count && !h.count && !b.count) continue;
    char med[32], worst[32], bmed[32], bworst[32];
    pct(med, sizeof med, h, h.median_abs);
    pct(worst, sizeof worst, h, h.max_abs);
    pct(bmed, sizeof bmed, b, b.median_abs);
    pct(bworst, sizeof bworst, b, b.max_abs);
    if (markdown) {
      std::printf("| %s | %zu | %zu | %s | %s |", fam.c_str(), f.count, h.count, med, worst);
      if (below_range) std::printf(" %zu | %s | %s |", b.count, bmed, bworst);
      std::printf("\n");
    } else {
      std::printf("%-28s %14zu %16zu %16s %16s", fam.c_str(), f.count, h.count, med, worst);
      if (below_range) std::printf("   %2zu %8s %8s", b.count, bmed, bworst);
      std::printf("%s\n", h.count && (h.median_abs > kMedianTarget || h.max_abs > kWorstTarget) ? "   (misses the target)" : "");
    }
    JsonValue v = JsonValue::object({{"family", JsonValue::string(fam)},
                                     {"fit_rows", JsonValue::number(static_cast<int64_t>(f.count))},
                                     {"validation_rows", JsonValue::number(static_cast<int64_t>(h.count))},
                                     {"validation_median_abs_error", JsonValue::number(h.median_abs)},
                                     {"validation_max_abs_error", JsonValue::number(h.max_abs)}});
    if (below_range) {
      v.set("below_range_rows", JsonValue::number(static_cast<int64_t>(b.count)));
      v.set("below_range_median_abs_error", JsonValue::number(b.median_abs));
      v.set("below_range_max_abs_error", JsonValue::number(b.max_abs));
    }
    fam_json.push(std::move(v));
  }
  return fam_json;
}

bool target_met(const ErrorStats& s) { return s.median_abs <= kMedianTarget && s.max_abs <= kWorstTarget; }

}  // namespace

int main(int argc, char** argv) {
  std::string topo_path = test::source_path("resources/topologies/h200x2.json");
  std::string json_path = "sim_accuracy.json";
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--topology" && i + 1 < argc) topo_path = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--markdown") markdown = true;
    else {
      std::fprintf(stderr, "usage: %s [--topology PATH] [--json FILE] [--markdown]\n", argv[0]);
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Topology topo = load_topology_file(topo_path);
  const FitSplit split;
  const AccuracyReport rep = evaluate_accuracy(topo, load_rows(test::h200x2_harness_files()), split);
  const FitSplit batch_split = unfitted_batch_split(), batch2_split = nccl_fitted_batch_split();
  const AccuracyReport batch = evaluate_accuracy(topo, load_rows(test::h200x2_batch2_files()), batch2_split);
  const AccuracyReport batch3 = evaluate_accuracy(topo, load_rows(test::h200x2_batch3_files()), batch_split);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  print_rows(rep, split, markdown, false);
  std::printf("\n");
  stats_line("fit rows", rep.fit);
  stats_line("fit rows' twins in fp32 (not scored)", rep.fit_other_dtype);
  stats_line("validation: NCCL (AR, AG, RS, send/recv)", rep.validation_nccl);
  stats_line("validation: the project's kernels", rep.validation_kernels);
  stats_line("validation: all (issue #4's set)", rep.validation);
  stats_line("validation, extra: NCCL all-to-all", rep.validation_extra);
  JsonValue fam_json = family_table(rep, split, markdown, false);

  // A later batch: its rows, its statistics, its families.
  auto batch_section = [&](const AccuracyReport& b, const FitSplit& bsplit, const char* name, const char* title) {
    std::printf("\n== validation: %s ==\n\n", title);
    print_rows(b, bsplit, markdown, true);
    std::printf("\n");
    const std::string n = name;
    stats_line((n + ": NCCL (AR, AG, RS, send/recv)").c_str(), b.validation_nccl);
    stats_line((n + ": the project's kernels").c_str(), b.validation_kernels);
    stats_line((n + ": all (issue #4's set)").c_str(), b.validation);
    stats_line((n + ", extra: NCCL all-to-all").c_str(), b.validation_extra);
    if (b.below_range.count) {
      stats_line((n + ", 32 KiB (below range): NCCL").c_str(), b.below_range_nccl);
      stats_line((n + ", 32 KiB (below range): kernels").c_str(), b.below_range_kernels);
      stats_line((n + ", 32 KiB (below range): all").c_str(), b.below_range);
    }
    JsonValue fams = family_table(b, bsplit, markdown, true);
    JsonValue d = accuracy_json(b);
    d.set("target_met", JsonValue::boolean(target_met(b.validation)));
    d.set("families", std::move(fams));
    return d;
  };
  JsonValue batch_doc = batch_section(batch, batch2_split, "batch 2", "2026-11-30 batch 2 (batch2/: 32 KiB - 512 MiB, x2 off the first table; its NCCL bf16 rows fit NCCL's profile)");
  JsonValue batch3_doc = batch_section(batch3, batch_split, "batch 3", "new sizes, 2026-11-30 batch 3 (batch3/: 96 KiB - 768 MiB, measured after the batch-2 model changes; the LL limits and NCCL's per-operation curves came after it)");

  const bool met = target_met(rep.validation), batch_met = target_met(batch.validation), batch3_met = target_met(batch3.validation);
  std::printf("\ntarget (validation, 64 KiB - 1 GiB): median <= %.0f %%, worst <= %.0f %%: %s; batch 2: %s; batch 3: %s   (%s, %.2f s)\n",
              100 * kMedianTarget, 100 * kWorstTarget, met ? "MET" : "MISSED", batch_met ? "MET" : "MISSED",
              batch3_met ? "MET" : "MISSED", topo_path.c_str(), wall);
  JsonValue doc = accuracy_json(rep);
  doc.set("schema_version", JsonValue::number(int64_t{4}));
  doc.set("topology", JsonValue::string(topo_path));
  doc.set("target_met", JsonValue::boolean(met));
  doc.set("families", std::move(fam_json));
  doc.set("validation_batch2", std::move(batch_doc));
  doc.set("validation_batch3", std::move(batch3_doc));
  std::ofstream(json_path) << to_json(doc, 1) << "\n";
  return met && batch_met && batch3_met ? 0 : 1;
}
