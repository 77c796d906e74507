#include "pkb/suite/pkb_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "pkb/suite/child_process.h"
#include "pkb/suite/failure_reason.h"
#include "pkb/suite/pkb_perf.h"
#include "pkb/suite/task_trace.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

namespace {

uint64_t now_unix_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

bool finished_before(const SuitePaths& p, const PkbTask& t, bool retry_failed) {
  std::error_code ec;
  if (!fs::exists(p.task_json(t.stem), ec)) return false;
  try {
    const TaskRecord r = read_task_record(p.task_json(t.stem));
    return r.status == TaskStatus::kOk || !retry_failed;
  } catch (const std::exception&) {
    return false;  // a damaged record is run again
  }
}

}  // namespace

namespace {
// worker.py's argv exactly as run_local.py hands it to torchrun (run_local_job)
std::vector<std::string> worker_argv(const RunOptions& o, const PkbTask& t, const std::string& task_dir) {
  return {o.python, "-u", o.checkout.root + "/scripts/worker.py", "--backend", "reference", "--problem_py", t.reference,
          "--logs_dir", task_dir + "/pkb_logs/problem_" + t.stem + "/reference", "--rows", std::to_string(o.m), "--cols",
          std::to_string(o.n), "--dtype", o.dtype, "--problem_id", std::to_string(t.id), "--measure_perf",
          "--measure-warmup-iters", "500", "--measure-profiling-iters", "100", "--trial", "0"};
}
}  // namespace

std::vector<std::string> task_command(const RunOptions& o, const PkbTask& t, const std::string& task_dir) {
  std::vector<std::string> cmd = {o.cli, "record", "-q", "-o", task_dir + "/record"};
  // --one-gpu: rank 0 of a world of N under record --world's stand-in process group (compute on
  // this GPU, every collective recorded, none run)
  if (o.one_gpu) cmd.insert(cmd.end(), {"--world", std::to_string(o.world), "--rank", "0"});
  for (const auto& a : o.record_args) cmd.push_back(a);
  cmd.push_back("--");
  if (o.one_gpu || o.launcher == Launcher::kDirect) {
    const auto w = worker_argv(o, t, task_dir);
    cmd.insert(cmd.end(), w.begin(), w.end());
    return cmd;
  }
  cmd.insert(cmd.end(), {o.python, o.checkout.root + "/run_local.py", "--nproc-per-node", std::to_string(o.world),
                         "--mode", "dryrun", "--problem", t.stem, "--solution", "reference", "--measure-perf",
                         "--download", "--logs-dir", task_dir + "/pkb_logs", "--m", std::to_string(o.m), "--n",
                         std::to_string(o.n), "--dtype", o.dtype});
  return cmd;
}

std::vector<std::string> task_environment(const RunOptions& o, const PkbTask&, int port) {
  std::vector<std::string> env = {"PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1", "PARASCOPE_PKB_SHAPES=1"};
  if (!o.hook_dir.empty()) {
    const char* pp = std::getenv("PYTHONPATH");
    env.push_back("PYTHONPATH=" + o.hook_dir + (pp && *pp ? ":" + std::string(pp) : ""));
  }
  // record --world sets RANK, WORLD_SIZE, MASTER_* itself (and runs this hook after its own)
  if (o.launcher == Launcher::kDirect && !o.one_gpu) {
    for (const char* kv : {"RANK=0", "LOCAL_RANK=0", "WORLD_SIZE=1", "LOCAL_WORLD_SIZE=1", "GROUP_RANK=0",
                           "MASTER_ADDR=127.0.0.1", "OMP_NUM_THREADS=1"})
      env.push_back(kv);
    env.push_back("MASTER_PORT=" + std::to_string(port));
  }
  if (o.one_gpu) env.push_back("OMP_NUM_THREADS=1");
  return env;
}

RunSummary run_suite(const RunOptions& o, const RunEvents& ev) {
  if (o.launcher == Launcher::kDirect && o.world != 1 && !o.one_gpu)
    throw std::invalid_argument("the direct launcher starts one worker: world 1 only (use run_local.py for --world " +
                                std::to_string(o.world) + ")");
  const SuitePaths p{o.suite_dir};
  std::error_code ec;
  fs::create_directories(o.suite_dir + "/tasks", ec);
  if (ec) throw std::runtime_error(o.suite_dir + ": cannot create: " + ec.message());
  if (auto old = read_suite_info(p)) {
    if (old->world != o.world || old->m != o.m || old->n != o.n || old->dtype != o.dtype || old->one_gpu != o.one_gpu)
      throw std::runtime_error(o.suite_dir + " holds a suite of another configuration (world " + std::to_string(old->world) +
                               ", " + std::to_string(old->m) + "x" + std::to_string(old->n) + " " + old->dtype +
                               "); use another folder");
  } else {
    SuiteInfo s;
    s.pkb_root = o.checkout.root;
    s.world = o.world;
    s.one_gpu = o.one_gpu;
    s.m = o.m;
    s.n = o.n;
    s.dtype = o.dtype;
    s.created_unix_ns = now_unix_ns();
    write_suite_info(p, s);
  }
  RunSummary sum;
  const auto t_start = std::chrono::steady_clock::now();
  double longest = 0;
  for (size_t i = 0; i < o.tasks.size(); ++i) {
    const PkbTask& t = o.tasks[i];
    if (finished_before(p, t, o.retry_failed)) {
      ++sum.skipped;
      if (ev.skipped) ev.skipped(i, o.tasks.size(), t);
      continue;
    }
    if (o.deadline_s > 0) {
      const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      // a task may take as long as the longest so far, and no more than its timeout
      const double need = std::min(o.timeout_s, std::max(longest, 15.0));
      if (used + need > o.deadline_s) {
        for (size_t j = i; j < o.tasks.size(); ++j)
          if (!finished_before(p, o.tasks[j], o.retry_failed)) sum.not_run_stems.push_back(o.tasks[j].stem);
        sum.not_run = static_cast<int>(sum.not_run_stems.size());
        break;
      }
    }
    if (ev.started) ev.started(i, o.tasks.size(), t);
    const std::string dir = p.task_dir(t.stem);
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    TaskRecord rec;
    rec.id = t.id;
    rec.stem = t.stem;
    rec.command = task_command(o, t, dir);
    const std::vector<std::string> env = task_environment(o, t, 29500 + static_cast<int>((::getpid() + i * 7919) % 10000));
    rec.started_unix_ns = now_unix_ns();
    const std::string out = dir + "/run.out", err = dir + "/run.err";
    const ChildResult cr = run_bounded(rec.command, env, o.checkout.root, out, err, o.timeout_s);
    rec.ended_unix_ns = now_unix_ns();
    rec.wall_s = cr.wall_s;
    rec.exit_code = cr.exit_code;
    rec.timed_out = cr.timed_out;
    longest = std::max(longest, cr.wall_s);
    // PKB's perf files: <logs>/problem_<stem>/reference/rank_<r>_perf.json
    const fs::path got = fs::path(dir) / "pkb_logs" / ("problem_" + t.stem) / "reference";
    fs::create_directories(p.perf_dir(t.stem), ec);
    int iterations = 0;
    for (const auto& e : fs::directory_iterator(got, ec)) {
      const std::string base = e.path().filename().string();
      if (base.rfind("rank_", 0) == 0 && base.find("_perf.json") != std::string::npos)
        fs::copy_file(e.path(), fs::path(p.perf_dir(t.stem)) / base, fs::copy_options::overwrite_existing, ec);
    }
    fs::remove_all(fs::path(dir) / "pkb_logs", ec);  // the output tensors (rank_<r>.pt) are not kept
    PerfSummary perf;
    try {
      perf = read_perf_dir(p.perf_dir(t.stem));
      iterations = perf.iterations;
    } catch (const std::exception& e) {
      rec.warnings.push_back(e.what());
    }
    const std::string out_text = tail_of(out, 64 * 1024), err_text = tail_of(err, 64 * 1024);
    write_text_file(dir + "/run.log", "--- stdout (end) ---\n" + out_text + "\n--- stderr (end) ---\n" + err_text);
    fs::remove(out, ec);
    fs::remove(err, ec);
    if (cr.exit_code == 0 && !perf.empty()) {
      rec.status = TaskStatus::kOk;
    } else {
      rec.status = TaskStatus::kFailed;
      RunOutcome oc{cr.exit_code, cr.timed_out, o.timeout_s, out_text, err_text};
      rec.reason = cr.exit_code == 0 ? "PKB wrote no rank_*_perf.json" : failure_reason(oc);
    }
    const TaskTraceResult tt = finish_task_trace(dir, iterations, o.keep_record);
    rec.trace = tt.trace;
    rec.window = tt.window;
    for (const auto& w : tt.warnings) rec.warnings.push_back(w);
    write_task_record(p, rec);
    if (rec.status == TaskStatus::kOk) ++sum.ok;
    else ++sum.failed;
    if (ev.finished) ev.finished(i, o.tasks.size(), rec);
  }
  return sum;
}

}  // namespace parascope::pkb
