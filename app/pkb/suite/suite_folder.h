// The suite folder `pkb run` fills and `pkb report`, the GUI and `pkb eval` read:
//   SUITE/suite.json                    what was run (schema_version 1, PKB checkout, world, sizes)
//   SUITE/tasks/<stem>/task.json        one task's outcome (status ok | failed, reason, times)
//   SUITE/tasks/<stem>/perf/            PKB's rank_<r>_perf.json, as its worker wrote them
//   SUITE/tasks/<stem>/trace.pstrace    the collector's trace cut to the first call + timed loop
//   SUITE/tasks/<stem>/record/          the whole `record` output (kept when no cut was possible)
//   SUITE/tasks/<stem>/run.log          the end of what the run printed
//   SUITE/solutions/<stem>.json         `pkb eval`: PKB's eval of a Parascope solution
// A task with a task.json is finished; `pkb run` resumes with the others. Folders of two runs of
// the same configuration merge by copying their tasks/ side by side. Layout and fields: docs/pkb.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parascope::pkb {

inline constexpr int kSuiteSchemaVersion = 1;

struct SuiteInfo {
  std::string pkb_root;
  int world = 1;
  bool one_gpu = false;
  int m = 1024, n = 1024;
  std::string dtype = "bfloat16";
  std::string tool_version = "0.1.0";
  uint64_t created_unix_ns = 0;
};

enum class TaskStatus : uint8_t { kOk, kFailed };
std::string_view to_string(TaskStatus s);

// Where PKB's timed loop was found in the trace (task_window.h), as stored after the run.
struct StoredWindow {
  bool found = false;
  int iterations = 0;
  int64_t gpu_ns = 0;            // GPU span of the timed loop
  std::string note;              // why not found, or what was approximated
};

struct TaskRecord {
  int id = 0;
  std::string stem;
  TaskStatus status = TaskStatus::kFailed;
  std::string reason;            // one line for failed tasks
  int exit_code = 0;
  bool timed_out = false;
  double wall_s = 0;
  uint64_t started_unix_ns = 0, ended_unix_ns = 0;
  std::vector<std::string> command;
  StoredWindow window;
  std::string trace;             // relative to the task folder: "trace.pstrace", "record", or ""
  std::vector<std::string> warnings;
};

struct SuitePaths {
  std::string root;
  std::string suite_json() const { return root + "/suite.json"; }
  std::string task_dir(const std::string& stem) const { return root + "/tasks/" + stem; }
  std::string task_json(const std::string& stem) const { return task_dir(stem) + "/task.json"; }
  std::string perf_dir(const std::string& stem) const { return task_dir(stem) + "/perf"; }
  std::string solutions_dir() const { return root + "/solutions"; }
};

void write_suite_info(const SuitePaths& p, const SuiteInfo& s);
// nullopt when the folder has no suite.json; InputError (file, field) when it is malformed.
std::optional<SuiteInfo> read_suite_info(const SuitePaths& p);

void write_task_record(const SuitePaths& p, const TaskRecord& t);
TaskRecord read_task_record(const std::string& task_json_path);
// Every task folder with a task.json, by id then stem.
std::vector<TaskRecord> read_task_records(const SuitePaths& p);

// Writes `text` to `path` through a temporary file and a rename.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace parascope::pkb
