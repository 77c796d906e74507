// A suite folder written by the tests around the hand-built PKB loop (pkb_loop_trace.h): task
// 1_allreduce ok (PKB's perf file says 0.030075 ms over 4 timed iterations, the loop's trace as
// trace.pstrace) and task 61 failed on a missing package, as `pkb run` writes them.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "pkb/suite/suite_folder.h"
#include "pkb_loop_trace.h"
#include "trace/io/export/trace_writer.h"  // not pstrace_writer.h: its emit() clashes with Qt's macro in GUI tests

namespace parascope::test {

// rank_0_perf.json as PKB's worker writes it (json.dump(metrics, indent=2) of
// utils/performance.py's measure_solution_performance)
inline const char* kPkbPerfJson = R"({
  "wall_time_ms": 0.030075,
  "wall_time_total_ms": 0.1203,
  "wall_time_std_ms": 0.0012,
  "min_time_ms": 0.029,
  "max_time_ms": 0.034,
  "iterations": 4,
  "warmup_iterations": 500,
  "num_input_groups": 76.0,
  "l2_cache_size_bytes": 52428800.0,
  "timed_tensor_bytes": 2097152.0
})";

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

inline void make_pkb_suite(const std::string& root) {
  const pkb::SuitePaths p{root};
  pkb::SuiteInfo info;
  info.pkb_root = "/pkb";
  info.created_unix_ns = 1796037811705784842ull;
  pkb::write_suite_info(p, info);
  pkb::TaskRecord ok;
  ok.id = 1;
  ok.stem = "1_allreduce";
  ok.status = pkb::TaskStatus::kOk;
  ok.trace = "trace.pstrace";
  ok.command = {"parascope-cli", "record"};
  ok.window = {true, 4, 120300, ""};
  pkb::write_task_record(p, ok);
  write_text(std::filesystem::path(p.perf_dir(ok.stem)) / "rank_0_perf.json", kPkbPerfJson);
  write_trace(make_pkb_loop_trace().trace, p.task_dir(ok.stem) + "/trace.pstrace");
  pkb::TaskRecord bad;
  bad.id = 61;
  bad.stem = "61_gsplat_3d_gaussian_splatting";
  bad.reason = "missing Python package 'gsplat' (No module named 'gsplat')";
  bad.exit_code = 1;
  pkb::write_task_record(p, bad);
}

}  // namespace parascope::test
