// One benchmark row (an operation × variant × size, its timing and its correctness check) and
// the two ways every subcommand reports rows: a JSON document (schema_version 1, rewritten after
// every row so a crash later in the run loses nothing before it) and a fixed-width text table.
// Targets from issue #5 are rows of their own: measured value, target, comparison, met or not.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "host/stats.h"
#include "trace/core/json.h"

namespace parascope::bench {

struct ResultRow {
  std::string op;         // all_reduce, all_gather, p2p, ag_gemm, ...
  std::string variant;    // oneshot_push, twoshot_tma, ce, nccl, fused_tma, ...
  std::string mechanism;  // ce | tma | ldst_push | ldst_pull | nccl | cublas ...
  std::string direction;  // uni | bi (P2P), empty otherwise
  std::string dtype;      // fp32 | bf16 | bytes
  uint64_t bytes = 0;     // per-rank message (stats.h convention)
  int nranks = 0;
  int sms = 0;            // SMs (blocks) the variant uses for communication; 0 = none / library
  int threads = 0;        // threads per block; 0 = n/a
  int ops_per_graph = 0;  // K: ops per timed CUDA graph
  std::string timing;     // "graphs" (one graph per GPU), "stream" (fallback), "" if not timed
  Summary ns;             // per-op nanoseconds
  double algbw_gbps = 0, busbw_gbps = 0;
  bool checked = false, ok = false;
  double rel_l2 = 0;
  uint64_t mismatches = 0;
  std::string problem;    // why the check or the run failed
  std::string kernels;    // distinct kernels in the timed graph of the first GPU ("a, b"), when known
  std::string protocol;   // NCCL rows run with NCCL_PROTO forced (simple | ll | ll128); empty: NCCL's choice
  std::map<std::string, double> extra;  // variant-specific numbers (t_gemm_ns, num_comm_sms, ...)
};

struct TargetCheck {
  std::string name;       // "all_reduce busbw vs NCCL at 1 GiB bf16"
  double measured = 0;
  double target = 0;
  std::string unit;       // "x NCCL", "GB/s", "us"
  bool higher_is_better = true;
  std::string detail;     // what was compared
  bool available = true;  // false: a needed row is missing or failed
  bool met() const { return available && (higher_is_better ? measured >= target : measured <= target); }
};

class ResultSet {
 public:
  ResultSet(std::string subcommand, std::string command_line);
  void set_meta(const std::string& key, JsonValue v) { meta_.set(key, std::move(v)); }
  void add(ResultRow row) { rows_.push_back(std::move(row)); }
  void add_target(TargetCheck t) { targets_.push_back(std::move(t)); }
  const std::vector<ResultRow>& rows() const { return rows_; }
  const std::vector<TargetCheck>& targets() const { return targets_; }

  JsonValue to_json() const;
  // Writes atomically (temporary file, then rename); throws std::runtime_error naming the path.
  void write_json(const std::string& path) const;

 private:
  JsonValue meta_;
  std::vector<ResultRow> rows_;
  std::vector<TargetCheck> targets_;
};

JsonValue row_to_json(const ResultRow& r);
// Fixed-width table, one line per row: op, variant, dtype, size, SMs, median/p10/p90 µs,
// algbw/busbw GB/s, check.
std::string format_table(const std::vector<ResultRow>& rows);
std::string format_targets(const std::vector<TargetCheck>& targets);
// Writes text to a file atomically.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace parascope::bench
