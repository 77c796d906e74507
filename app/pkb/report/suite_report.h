// The suite report: every task of a suite folder analysed on one machine (task_report.h), the
// tasks ordered by gap (reference ÷ bound, largest first; failed and unanalysed tasks last), and
// the forms people and tools read: aligned text, CSV tables, and JSON (schema_version 1, fields
// documented in docs/pkb.md). The GUI's suite view shows these same tables.
#pragma once

#include <atomic>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "pkb/report/task_report.h"
#include "trace/core/data_table.h"
#include "trace/core/json.h"

namespace parascope::pkb {

inline constexpr int kReportSchemaVersion = 1;

struct SuiteReport {
  std::string suite_dir;
  SuiteInfo suite;
  std::string machine;            // topology name
  RooflineCeilings ceilings;
  double latency_floor_s = 0;
  std::vector<TaskReport> tasks;  // by gap, largest first
  int ok = 0, failed = 0;
};

struct ReportOptions {
  std::string machine = "auto";   // a preset, a topology file, or auto: the preset with the traces' GPUs
  std::string preset_dir;
  bool explore = true;
  std::set<int> only;             // task ids (empty: all)
  std::function<void(size_t done, size_t total, const std::string& stem)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// InputError when the folder is not a suite.
SuiteReport build_suite_report(const std::string& suite_dir, const ReportOptions& o);

// The machine `auto` picks for a trace (choose_machine, trace/core/machine_choice.h): a preset with
// its GPU model and at least `world` GPUs (a one-GPU recording of rank 0 of N needs N), h200x2
// when no trace can be read.
Topology report_machine(const std::string& choice, const std::string& preset_dir, const std::string& sample_trace,
                        int32_t world = 0);

DataTable suite_table(const SuiteReport& r);
DataTable operations_table(const TaskReport& t);
DataTable breakdown_table(const TaskReport& t);
DataTable designs_table(const TaskReport& t);

JsonValue suite_report_json(const SuiteReport& r);
JsonValue task_report_json(const TaskReport& t);

}  // namespace parascope::pkb
