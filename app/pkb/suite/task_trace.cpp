#include "pkb/suite/task_trace.h"

#include <filesystem>

#include "pkb/task/task_window.h"
#include "trace/core/trace_cut.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/pstrace_writer.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

TaskTraceResult finish_task_trace(const std::string& task_dir, int iterations, bool keep_record) {
  TaskTraceResult r;
  const fs::path record = fs::path(task_dir) / "record";
  std::error_code ec;
  bool any = false;
  for (const auto& e : fs::directory_iterator(record, ec))
    if (e.path().extension() == ".pstrace") any = true;
  if (!any) {
    r.window.note = "no trace files (no process initialised CUDA under the collector)";
    return r;
  }
  r.trace = "record";
  Trace trace;
  try {
    trace = load_trace({record.string()});
  } catch (const std::exception& e) {
    r.warnings.push_back(std::string("trace not readable: ") + e.what());
    return r;
  }
  const std::vector<TaskWindow> windows = find_task_windows(trace, iterations);
  bool all = !windows.empty();
  for (const TaskWindow& w : windows) {
    if (!w.note.empty()) r.warnings.push_back("timed loop: " + w.note);
    all = all && w.found;
  }
  if (windows.empty()) r.window.note = "no process launched GPU work";
  for (const TaskWindow& w : windows)
    if (w.found) {
      r.window.found = true;
      r.window.iterations = static_cast<int>(w.iterations.size());
      r.window.gpu_ns = std::max<int64_t>(r.window.gpu_ns, w.gpu_ns());
      r.window.note = w.note;
      break;
    } else if (r.window.note.empty()) {
      r.window.note = w.note;
    }
  if (!all) return r;  // keep the whole record
  const auto ranges = kept_ranges(trace, windows);
  const Trace cut = cut_trace(std::move(trace), ranges);
  const std::string out = (fs::path(task_dir) / "trace.pstrace").string();
  try {
    write_pstrace(cut, out);
  } catch (const std::exception& e) {
    r.warnings.push_back(std::string("cut trace not written: ") + e.what());
    return r;
  }
  r.trace = "trace.pstrace";
  if (!keep_record) fs::remove_all(record, ec);
  return r;
}

std::string task_trace_path(const std::string& task_dir, const TaskRecord& t) {
  std::error_code ec;
  if (!t.trace.empty() && fs::exists(fs::path(task_dir) / t.trace, ec)) return (fs::path(task_dir) / t.trace).string();
  for (const char* c : {"trace.pstrace", "record"})
    if (fs::exists(fs::path(task_dir) / c, ec)) return (fs::path(task_dir) / c).string();
  return {};
}

}  // namespace parascope::pkb
