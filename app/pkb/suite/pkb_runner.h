// `pkb run`: each selected PKB task's reference through PKB's own harness (run_local.py --mode
// dryrun --solution reference --measure-perf --download) under the collector (`parascope-cli
// record`), one task at a time, into a suite folder (suite_folder.h). A task that is already in the
// folder is skipped, so a run cut short (its deadline, a lost machine) resumes; one that fails gets
// a one-line reason (failure_reason.h). Each run is bounded by a timeout that ends its whole process
// tree (torchrun starts its workers in a session of their own). The shape hook
// (resources/pkb/python/sitecustomize.py) is put on PYTHONPATH so the worker's first call records
// its op shapes as NVTX ranges.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pkb/suite/pkb_checkout.h"
#include "pkb/suite/suite_folder.h"

namespace parascope::pkb {

// How a task's worker starts: through PKB's launcher (run_local.py -> torchrun -> worker.py), or
// (world 1 only) PKB's worker.py started directly with the environment torchrun would give it
// (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT, OMP_NUM_THREADS=1): the same measurement
// (utils/performance.py), without torchrun's own start-up of a few seconds per task.
enum class Launcher : uint8_t { kRunLocal, kDirect };

struct RunOptions {
  PkbCheckout checkout;
  std::vector<PkbTask> tasks;
  std::string suite_dir;
  int world = 1;
  bool one_gpu = false;       // rank 0 of a world of `world` on this GPU (record --world N --rank 0):
                              // compute measured, collectives recorded by the stand-in, none run
  int m = 1024, n = 1024;
  std::string dtype = "bfloat16";
  std::string python = "python3";
  std::string cli;            // this program (runs `record`)
  std::string hook_dir;       // folder holding the shape hook's sitecustomize.py ("" : no shapes)
  double timeout_s = 60;      // per task
  double deadline_s = 0;      // 0: none; else no task starts unless it can finish within it
  bool retry_failed = false;
  bool keep_record = false;
  std::vector<std::string> record_args;  // extra `record` options ("--kinds", ...)
  Launcher launcher = Launcher::kRunLocal;
};

struct RunEvents {
  std::function<void(size_t i, size_t n, const PkbTask&)> started;
  std::function<void(size_t i, size_t n, const TaskRecord&)> finished;
  std::function<void(size_t i, size_t n, const PkbTask&)> skipped;  // already in the folder
};

struct RunSummary {
  int ok = 0, failed = 0, skipped = 0, not_run = 0;
  std::vector<std::string> not_run_stems;  // left by the deadline
};

RunSummary run_suite(const RunOptions& o, const RunEvents& ev);

// The command line of one task (shown in task.json and docs) and the environment it adds.
std::vector<std::string> task_command(const RunOptions& o, const PkbTask& t, const std::string& task_dir);
std::vector<std::string> task_environment(const RunOptions& o, const PkbTask& t, int port);

}  // namespace parascope::pkb
