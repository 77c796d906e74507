// `parascope-cli record [options] -- CMD [ARGS...]`: runs an unmodified program with the CUPTI
// collector injected (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, NCCL_PROFILER_PLUGIN all name
// libparascope_cupti.so) and writes DIR/<host>-<pid>-r<rank>.pstrace per traced process plus
// DIR/manifest.json (schema in docs/collector.md). Launchers (torchrun, mpirun) pass the
// environment to their workers, so every rank writes its own file. Exits with the program's status.
// `--world N [--rank r,...]` runs a torch.distributed program as those ranks of a world of N on
// this one machine under the stand-in process group (record_plan.h); `--no-collector` records the
// stand-in's calls only (no CUDA needed). `--op-shapes` turns on PyTorch's NVTX op ranges with input
// shapes in every Python process (trace/collector/python/parascope_op_shapes.py): the roofline's
// FLOP counts for the program's kernels.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "cli/cli_args.h"
#include "cli/record_plan.h"
#include "cli/verbs.h"
#include "trace/collector/capture_summary.h"
#include "trace/collector/collector_config.h"
#include "trace/collector/standin_capture.h"
#include "trace/core/json.h"
#include "trace/io/collector/standin_records.h"

extern char** environ;

namespace parascope::cli {

namespace {

namespace fs = std::filesystem;
using collector::CaptureSummary;

constexpr int kManifestSchemaVersion = 1;

const std::vector<OptionSpec> kOptions = {
    {"--output", true, false, "directory for the traces and manifest.json (default parascope-YYYYmmdd-HHMMSS)", "-o"},
    {"--kinds", true, false, "what to record: comma list of kinds, sets (default, all, minimal), -kind removes "
                             "(see --list-kinds)", ""},
    {"--flush-ms", true, false, "flush period in ms (10..60000, default 1000): the most a SIGKILL can lose", ""},
    {"--nvlink-sample-us", true, false, "sample NVLink tx/rx bytes with CUPTI PM sampling every N us (default off)", ""},
    {"--nvlink-metrics", true, false, "PM-sampling metric names instead of nvlrx__bytes.sum,nvltx__bytes.sum", ""},
    {"--start", true, false, "now (default) or api: record only between parascope_collector_start/stop", ""},
    {"--no-nccl", false, false, "do not load the NCCL profiler plugin", ""},
    {"--no-cupti-guard", false, false, "do not preload the guard that notices another CUPTI client (torch.profiler) "
                                       "in the program", ""},
    {"--world", true, false, "run a torch.distributed program as rank(s) of a world of N on this machine: a stand-in "
                             "process group records every collective, no data moves", ""},
    {"--rank", true, true, "with --world: the ranks to run, one after another (comma list or repeated; default 0)", ""},
    {"--no-collector", false, false, "with --world: record the stand-in's calls only (no CUDA, no GPU timing)", ""},
    {"--op-shapes", false, false, "PyTorch programs: NVTX op ranges with input shapes from `import torch` on "
                                  "(emit_nvtx(record_shapes=True)), so roofline counts FLOPs; adds host time per op", ""},
    {"--lib", true, false, "the collector library (default: next to this program or the build tree)", ""},
    {"--list-kinds", false, false, "list the kinds and exit", ""},
    {"--json", false, false, "print the manifest as JSON instead of the summary", ""},
    {"--quiet", false, false, "no summary", "-q"},
    {"--help", false, false, "this help", "-h"},
};

std::string exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

std::string find_library(const std::optional<std::string>& flag, std::string* tried) {
  std::vector<std::string> candidates;
  if (flag) candidates.push_back(*flag);
  if (const char* e = std::getenv("PARASCOPE_COLLECTOR_LIB"); e && *e) candidates.push_back(e);
  const std::string dir = exe_dir();
  candidates.push_back(dir + "/libparascope_cupti.so");
  candidates.push_back(dir + "/../lib/libparascope_cupti.so");
  candidates.push_back(dir + "/../../trace/collector/libparascope_cupti.so");  // build tree: app/cli → trace/collector
#ifdef PARASCOPE_COLLECTOR_LIB_PATH
  candidates.push_back(PARASCOPE_COLLECTOR_LIB_PATH);
#endif
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return fs::canonical(c, ec).string();
    *tried += "\n  " + c;
    if (flag && c == *flag) break;  // an explicit --lib that does not exist is not silently replaced
  }
  return {};
}

std::string default_dir() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "parascope-%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::string session_id() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) {
    if (!s.empty()) s += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos;
    s += plain ? a : "'" + a + "'";
  }
  return s;
}

uint64_t now_unix_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

pid_t g_child = 0;
void forward_signal(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "signal";
  }
}

JsonValue num(int64_t v) { return JsonValue::number(v); }
JsonValue unum(uint64_t v) { return JsonValue::number(std::to_string(v)); }
int64_t to_int(const std::string& s, int64_t def) {
  try {
    return s.empty() ? def : std::stoll(s);
  } catch (...) {
    return def;
  }
}


// --- one run's pieces ---------------------------------------------------------------------------

struct ChildStatus {
  int code = 0;
  std::string signal;  // "" when it exited
};

// fork + exec + wait. Ctrl-C reaches the program through the terminal; we stay to write the
// manifest. A SIGTERM sent to us (a batch system) is passed on.
ChildStatus run_child(const std::vector<std::string>& cmd, std::vector<std::string> env) {
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> cmd_copy = cmd;
  std::vector<char*> cargv;
  for (auto& s : cmd_copy) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::execvpe(cargv[0], cargv.data(), envp.data());
    std::fprintf(stderr, "parascope-cli record: cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  g_child = child;
  struct sigaction ign {}, fwd {}, old_int {}, old_quit {}, old_term {};
  ign.sa_handler = SIG_IGN;
  fwd.sa_handler = forward_signal;
  ::sigaction(SIGINT, &ign, &old_int);
  ::sigaction(SIGQUIT, &ign, &old_quit);
  ::sigaction(SIGTERM, &fwd, &old_term);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  g_child = 0;
  ChildStatus st;
  if (WIFSIGNALED(status)) {
    st.code = 128 + WTERMSIG(status);
    st.signal = signal_name(WTERMSIG(status));
  } else {
    st.code = WEXITSTATUS(status);
  }
  return st;
}

// The child's environment: ours (name=value) first, then the caller's minus what we set.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& ours_kv,
                                           const std::set<std::string>& also_drop) {
  std::vector<std::string> env;
  std::set<std::string> ours = also_drop;
  for (const auto& [k, v] : ours_kv) {
    env.push_back(k + "=" + v);
    ours.insert(k);
  }
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (!ours.count(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  return env;
}

std::vector<std::pair<std::string, std::string>> collector_env(const RecordPlan& plan, const std::string& lib, uint32_t kinds,
                                                                const std::string& dir, const std::string& session) {
  std::vector<std::pair<std::string, std::string>> kv;
  if (!lib.empty()) {
    kv.emplace_back("CUDA_INJECTION64_PATH", lib);
    kv.emplace_back("NVTX_INJECTION64_PATH", lib);
    if (kinds & collector::kKindNccl) kv.emplace_back("NCCL_PROFILER_PLUGIN", lib);
    kv.emplace_back("PARASCOPE_COLLECTOR_LIB", lib);
  }
  kv.emplace_back("PARASCOPE_OUTPUT_DIR", dir);
  kv.emplace_back("PARASCOPE_KINDS", collector::kinds_to_string(kinds));
  kv.emplace_back("PARASCOPE_FLUSH_MS", std::to_string(plan.flush_ms));
  kv.emplace_back("PARASCOPE_START", plan.start);
  kv.emplace_back("PARASCOPE_NVLINK_SAMPLE_US", std::to_string(plan.nvlink_sample_us));
  if (!plan.nvlink_metrics.empty()) kv.emplace_back("PARASCOPE_NVLINK_METRICS", plan.nvlink_metrics);
  kv.emplace_back("PARASCOPE_SESSION", session);
  kv.emplace_back("PARASCOPE_COMMAND", shell_join(plan.command));
  return kv;
}

// What torchrun would set for rank r of a world of n on one node, and the stand-in's switches.
std::vector<std::pair<std::string, std::string>> world_env(const RecordPlan& plan, int32_t rank, const std::string& log) {
  std::vector<std::pair<std::string, std::string>> kv;
  const std::string n = std::to_string(plan.world_size), r = std::to_string(rank);
  kv.emplace_back("RANK", r);
  kv.emplace_back("WORLD_SIZE", n);
  kv.emplace_back("LOCAL_RANK", "0");        // one GPU: every rank's device is this machine's first
  kv.emplace_back("LOCAL_WORLD_SIZE", "1");
  kv.emplace_back("GROUP_RANK", "0");
  kv.emplace_back("MASTER_ADDR", "127.0.0.1");
  kv.emplace_back("MASTER_PORT", "29500");    // never connected to: the stand-in uses an in-process store
  kv.emplace_back("PARASCOPE_WORLD_SIZE", n);
  kv.emplace_back("PARASCOPE_WORLD_RANK", r);
  kv.emplace_back("PARASCOPE_WORLD_LOG", log);
  return kv;
}

// Our sitecustomize first on PYTHONPATH (stand-in world, op shapes), and the op-shapes switch.
std::vector<std::pair<std::string, std::string>> python_env(const RecordPlan& plan, const std::string& python_dir) {
  std::vector<std::pair<std::string, std::string>> kv;
  if (python_dir.empty()) return kv;
  const char* pp = std::getenv("PYTHONPATH");
  kv.emplace_back("PYTHONPATH", python_dir + (pp && *pp ? ":" + std::string(pp) : std::string()));
  if (plan.op_shapes) kv.emplace_back("PARASCOPE_OP_SHAPES", "1");
  return kv;
}

// A rank whose records never reached the collector (no collector, or no CUDA in that process):
// its log becomes a .pstrace of its own.
std::string write_log_capture(const fs::path& dir, const std::string& log, int32_t rank, const RecordPlan& plan,
                              const std::string& session) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return {};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::error_code ec;
  fs::remove(log, ec);
  if (text.empty()) return {};
  standin::Records records;
  standin::parse_records(text, log, records);
  const int64_t pid = records.world ? records.world->pid : 0;
  const std::string host = records.world && !records.world->host.empty() ? records.world->host : host_name();
  collector::Metadata meta = {{"tool", "parascope-cli record"},
                              {"tool_version", "0.1.0"},
                              {"source_format", "parascope-standin"},
                              {"clock", "cupti"},  // CLOCK_REALTIME ns, as the collector's
                              {"host", host},
                              {"pid", std::to_string(pid)},
                              {"rank", std::to_string(rank)},
                              {"local_rank", "0"},
                              {"world_size", std::to_string(plan.world_size)},
                              {"rank_source", "record --world"},
                              {"session", session},
                              {"command", shell_join(plan.command)},
                              {"process_command", shell_join(plan.command)},
                              {"status", "standin"},
                              {"end_reason", "exit"}};
  const fs::path path = dir / (host + "-" + std::to_string(pid) + "-r" + std::to_string(rank) + ".pstrace");
  collector::write_standin_capture(path.string(), meta, text);
  return path.string();
}

JsonValue file_entry(const CaptureSummary& s, const fs::path& dir) {
  JsonValue devices = JsonValue::array();
  uint64_t kernels = 0;
  for (const auto& [id, d] : s.devices) {
    devices.push(JsonValue::object({{"device", unum(id)},
                                    {"pci_bus_id", JsonValue::string(d.pci_bus_id)},
                                    {"uuid", JsonValue::string(d.uuid)},
                                    {"name", JsonValue::string(d.name)},
                                    {"kernels", unum(d.kernels)}}));
    kernels += d.kernels;
  }
  uint64_t records = 0;
  for (const auto& [k, n] : s.records_by_kind) records += n;
  JsonValue other_clients = JsonValue::array();
  for (const auto& c : s.other_cupti_calls) other_clients.push(collector::to_json_value(c));
  return JsonValue::object({{"path", JsonValue::string(fs::relative(s.path, dir).string())},
                            {"host", JsonValue::string(s.meta("host"))},
                            {"pid", num(to_int(s.meta("pid"), 0))},
                            {"rank", num(to_int(s.meta("rank"), -1))},
                            {"local_rank", num(to_int(s.meta("local_rank"), -1))},
                            {"world_size", num(to_int(s.meta("world_size"), -1))},
                            {"rank_source", JsonValue::string(s.meta("rank_source"))},
                            {"rank_name", JsonValue::string(s.meta("rank_name"))},
                            {"status", JsonValue::string(s.meta("status").empty() ? "unfinished" : s.meta("status"))},
                            {"end_reason", JsonValue::string(s.meta("end_reason"))},
                            {"complete", JsonValue::boolean(s.complete)},
                            {"bytes", unum(s.file_bytes)},
                            {"records", unum(records)},
                            {"kernels", unum(kernels)},
                            {"dropped_records", unum(s.dropped)},
                            {"warnings", unum(s.warnings.size())},
                            {"notes", unum(s.notes.size())},
                            {"start_time_unix_ns", unum(static_cast<uint64_t>(to_int(s.meta("start_time_unix_ns"), 0)))},
                            {"process_command", JsonValue::string(s.meta("process_command"))},
                            {"devices", std::move(devices)},
                            {"other_cupti_clients", std::move(other_clients)}});
}

// This session's traces in the directory (sorted by name); older ones are listed as others.
void collect_files(const fs::path& dir, const std::string& session, RecordOutcome& out, JsonValue& files) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".pstrace") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    CaptureSummary s;
    try {
      s = collector::summarize_capture(p);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-cli record: %s\n", e.what());
      continue;
    }
    if (s.meta("session") != session) {
      out.other_files.push_back(fs::relative(p, dir).string());
      continue;
    }
    files.push(file_entry(s, dir));
    out.summaries.push_back(std::move(s));
  }
}

size_t processes_with_other_cupti_client(const RecordOutcome& out) {
  size_t n = 0;
  for (const auto& s : out.summaries) n += !s.other_cupti_calls.empty();
  return n;
}

// The CUPTI guard beside the collector (cupti_guard.h), "" when not to be preloaded or missing (said).
std::string find_cupti_guard(const RecordPlan& plan, const std::string& lib) {
  if (!plan.cupti_guard || lib.empty()) return {};
  const std::string guard = (fs::path(lib).parent_path() / "libparascope_cupti_guard.so").string();
  std::error_code ec;
  if (fs::is_regular_file(guard, ec)) return guard;
  std::fprintf(stderr, "parascope-cli record: %s not found: another CUPTI client in the program (torch.profiler) will "
                       "not be noticed\n", guard.c_str());
  return {};
}

void write_manifest(const fs::path& path, const JsonValue& manifest) {
  const fs::path tmp = path.parent_path() / ("manifest.json.tmp-" + std::to_string(::getpid()));
  std::ofstream out(tmp);
  out << to_json(manifest, 2) << "\n";
  out.close();
  if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);  // never leave a temporary behind
    throw std::runtime_error(path.string() + ": cannot write");
  }
}

void warn_replaced_tools(const std::string& lib) {
  for (const char* var : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "NCCL_PROFILER_PLUGIN"}) {
    const char* v = std::getenv(var);
    if (v && *v && lib != v)
      std::fprintf(stderr,
                   "parascope-cli record: %s was set to %s (another tool, e.g. Nsight Systems?); it is replaced by the "
                   "collector for this run, so that tool will not trace the program\n",
                   var, v);
  }
}

// --- the options ---------------------------------------------------------------------------------

int64_t int_option(const Args& args, const char* name, int64_t def, int64_t lo, int64_t hi) {
  auto v = args.value(name);
  if (!v) return def;
  int64_t x = 0;
  try {
    size_t used = 0;
    x = std::stoll(*v, &used);
    if (used != v->size()) throw std::invalid_argument(*v);
  } catch (...) {
    throw UsageError(std::string(name) + " '" + *v + "' is not an integer");
  }
  if (x < lo || x > hi) throw UsageError(std::string(name) + " " + *v + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

RecordPlan plan_from_args(const Args& args) {
  RecordPlan plan;
  plan.command = args.rest();
  plan.kinds = collector::kDefaultKinds;
  if (auto k = args.value("--kinds")) {
    try {
      plan.kinds = collector::parse_kinds(*k);
    } catch (const collector::ConfigError& e) {
      throw UsageError(std::string("--kinds: ") + e.what());
    }
  }
  if (args.flag("--no-nccl")) plan.kinds &= ~collector::kKindNccl;
  plan.flush_ms = int_option(args, "--flush-ms", 1000, 10, 60000);
  plan.nvlink_sample_us = int_option(args, "--nvlink-sample-us", 0, 0, 10'000'000);
  plan.start = args.value("--start").value_or("now");
  if (plan.start != "now" && plan.start != "api") throw UsageError("--start must be 'now' or 'api'");
  plan.nvlink_metrics = args.value("--nvlink-metrics").value_or("");
  plan.collector_lib = args.value("--lib").value_or("");
  plan.output_dir = args.value("--output").value_or(default_dir());
  plan.world_size = static_cast<int32_t>(int_option(args, "--world", 0, 1, 1 << 20));
  plan.collector = !args.flag("--no-collector");
  plan.cupti_guard = !args.flag("--no-cupti-guard");
  plan.op_shapes = args.flag("--op-shapes");
  if (plan.op_shapes && !plan.collector) throw UsageError("--op-shapes needs the collector (it records the NVTX ranges)");
  if (plan.op_shapes && !(plan.kinds & collector::kKindNvtx))
    throw UsageError("--op-shapes needs the nvtx kind (--kinds without nvtx records no NVTX ranges)");
  if (!plan.world_size && (args.flag("--no-collector") || !args.values("--rank").empty()))
    throw UsageError("--rank and --no-collector go with --world N");
  for (const std::string& list : args.values("--rank")) {
    size_t at = 0;
    while (at <= list.size()) {
      const size_t comma = std::min(list.find(',', at), list.size());
      const std::string one = list.substr(at, comma - at);
      int64_t r = -1;
      try {
        size_t used = 0;
        r = std::stoll(one, &used);
        if (used != one.size()) r = -1;
      } catch (...) {
      }
      if (r < 0 || r >= plan.world_size) throw UsageError("--rank '" + one + "' is not a rank of a world of " + std::to_string(plan.world_size));
      plan.ranks.push_back(static_cast<int32_t>(r));
      at = comma + 1;
    }
  }
  return plan;
}

void print_summary(const RecordPlan& plan, const RecordOutcome& out, const fs::path& dir) {
  std::fprintf(stderr, "\nparascope-cli record: %s %s, %zu trace file%s in %s\n", shell_join(plan.command).c_str(),
               !out.signal.empty() ? ("killed by " + out.signal).c_str() : ("exited " + std::to_string(out.exit_code)).c_str(),
               out.summaries.size(), out.summaries.size() == 1 ? "" : "s", dir.c_str());
  if (plan.world_size > 0)
    std::fprintf(stderr, "  stand-in world of %d: recorded rank%s %s (no data moved; communication is simulated by whatif)\n",
                 plan.world_size, plan.ranks.size() == 1 ? "" : "s", [&] {
                   std::string s;
                   for (int32_t r : plan.ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
                   return s;
                 }().c_str());
  for (const auto& s : out.summaries) std::fprintf(stderr, "%s", collector::format_summary(s).c_str());
  if (out.summaries.empty())
    std::fprintf(stderr, plan.world_size ? "  no process recorded anything (did the program call init_process_group?)\n"
                                         : "  no process initialised CUDA under the collector (is the program a CUDA program?)\n");
  const size_t conflicts = processes_with_other_cupti_client(out);
  if (conflicts)
    std::fprintf(stderr, "  %zu process%s ran another CUPTI client beside the collector; %s\n", conflicts,
                 conflicts == 1 ? "" : "es", collector::both_views_advice().c_str());
  if (!out.other_files.empty())
    std::fprintf(stderr, "  (%zu older trace files in the directory are not part of this run)\n", out.other_files.size());
  std::fprintf(stderr, "  manifest: %s\n", out.manifest_path.c_str());
}

}  // namespace

std::string record_python_dir() {
  std::vector<std::string> candidates;
  if (const char* e = std::getenv("PARASCOPE_PYTHON_DIR"); e && *e) candidates.push_back(e);
  const std::string dir = exe_dir();
  candidates.push_back(dir + "/python");
  candidates.push_back(dir + "/../share/parascope/python");
#ifdef PARASCOPE_PYTHON_SOURCE_DIR
  candidates.push_back(PARASCOPE_PYTHON_SOURCE_DIR);
#endif
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(c) / "parascope_world" / "__init__.py", ec)) return fs::canonical(c, ec).string();
  }
  return {};
}

RecordOutcome record_program(const RecordPlan& plan_in) {
  RecordPlan plan = plan_in;
  if (plan.command.empty()) throw std::invalid_argument("record: no command");
  if (!plan.kinds) plan.kinds = collector::kDefaultKinds;
  if (plan.world_size > 0 && plan.ranks.empty()) plan.ranks = {0};
  std::string lib;
  if (plan.collector) {
    std::string tried;
    lib = find_library(plan.collector_lib.empty() ? std::nullopt : std::optional<std::string>(plan.collector_lib), &tried);
    if (lib.empty())
      throw std::runtime_error("the collector library libparascope_cupti.so was not found (it is built on machines with "
                               "CUDA: cmake --preset gpu" + std::string(plan.world_size ? "; --no-collector records the stand-in's calls only" : "") +
                               "); tried:" + tried);
  }
  std::string python_dir;
  if (plan.world_size > 0 || plan.op_shapes) {
    python_dir = plan.python_dir.empty() ? record_python_dir() : plan.python_dir;
    if (python_dir.empty())
      throw std::runtime_error(std::string(plan.world_size > 0 ? "the stand-in process group (parascope_world)"
                                                               : "the op-shapes hook (parascope_op_shapes.py)") +
                               " was not found: set PARASCOPE_PYTHON_DIR to the folder holding parascope_world/ and "
                               "parascope_op_shapes.py (trace/collector/python in the source tree)");
    std::error_code ec;
    if (plan.op_shapes && !fs::is_regular_file(fs::path(python_dir) / "parascope_op_shapes.py", ec))
      throw std::runtime_error(python_dir + " has no parascope_op_shapes.py (an older install?): --op-shapes cannot start");
  }
  const fs::path dir = fs::absolute(plan.output_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create: " + ec.message());
  if (!lib.empty()) warn_replaced_tools(lib);

  const std::string session = session_id();
  auto base_env = collector_env(plan, lib, plan.kinds, dir.string(), session);
  for (auto& p : python_env(plan, python_dir)) base_env.push_back(std::move(p));
  const std::string guard = find_cupti_guard(plan, lib);
  if (!guard.empty()) {  // ahead of what the program preloads itself
    const char* pre = std::getenv("LD_PRELOAD");
    base_env.emplace_back("LD_PRELOAD", pre && *pre ? guard + ":" + pre : guard);
  }
  // one exact file for every process would interleave them; a plugin we do not load is not inherited
  const std::set<std::string> drop = {"PARASCOPE_OUTPUT", "NCCL_PROFILER_PLUGIN"};
  RecordOutcome out;
  const uint64_t started = now_unix_ns();
  const std::vector<int32_t> runs = plan.world_size > 0 ? plan.ranks : std::vector<int32_t>{-1};
  for (int32_t rank : runs) {
    auto kv = base_env;
    std::string log;
    if (rank >= 0) {
      log = (dir / ("standin-r" + std::to_string(rank) + "-" + session + ".jsonl")).string();
      fs::remove(log, ec);
      for (auto& p : world_env(plan, rank, log)) kv.push_back(std::move(p));
    }
    const ChildStatus st = run_child(plan.command, child_environment(kv, drop));
    if (st.code != 0 && out.exit_code == 0) {
      out.exit_code = st.code;
      out.signal = st.signal;
    }
    if (rank >= 0) {
      try {
        write_log_capture(dir, log, rank, plan, session);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "parascope-cli record: rank %d: %s\n", rank, e.what());
      }
    }
  }
  const uint64_t ended = now_unix_ns();

  JsonValue files = JsonValue::array();
  collect_files(dir, session, out, files);
  JsonValue argv_json = JsonValue::array();
  for (const auto& a : plan.command) argv_json.push(JsonValue::string(a));
  JsonValue other_json = JsonValue::array();
  for (const auto& o : out.other_files) other_json.push(JsonValue::string(o));
  JsonValue options = JsonValue::object({{"kinds", JsonValue::string(collector::kinds_to_string(plan.kinds))},
                                         {"flush_ms", num(plan.flush_ms)},
                                         {"nvlink_sample_us", num(plan.nvlink_sample_us)},
                                         {"start", JsonValue::string(plan.start)},
                                         {"nccl", JsonValue::boolean((plan.kinds & collector::kKindNccl) != 0)},
                                         {"collector", JsonValue::boolean(plan.collector)},
                                         {"op_shapes", JsonValue::boolean(plan.op_shapes)}});
  if (plan.world_size > 0) {
    JsonValue ranks = JsonValue::array();
    for (int32_t r : plan.ranks) ranks.push(num(r));
    options.set("world", JsonValue::object({{"size", num(plan.world_size)}, {"ranks", std::move(ranks)}}));
  }
  out.manifest = JsonValue::object(
      {{"schema_version", num(kManifestSchemaVersion)},
       {"kind", JsonValue::string("parascope-record")},
       {"tool_version", JsonValue::string("0.1.0")},
       {"session", JsonValue::string(session)},
       {"command", std::move(argv_json)},
       {"host", JsonValue::string(host_name())},
       {"started_unix_ns", unum(started)},
       {"ended_unix_ns", unum(ended)},
       {"exit", JsonValue::object({{"code", !out.signal.empty() ? JsonValue::null() : num(out.exit_code)},
                                   {"signal", !out.signal.empty() ? JsonValue::string(out.signal) : JsonValue::null()}})},
       {"options", std::move(options)},
       {"collector_library", JsonValue::string(lib)},
       {"cupti_guard", guard.empty() ? JsonValue::null() : JsonValue::string(guard)},
       {"processes_with_other_cupti_client", num(static_cast<int64_t>(processes_with_other_cupti_client(out)))},
       {"clock", JsonValue::string("cupti")},
       {"files", std::move(files)},
       {"other_files", std::move(other_json)}});
  const fs::path manifest_path = dir / "manifest.json";
  write_manifest(manifest_path, out.manifest);
  out.manifest_path = manifest_path.string();
  return out;
}

int run_record(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli record [options] -- CMD [ARGS...]\n%s", options_help(kOptions).c_str());
    return 0;
  }
  if (args.flag("--list-kinds")) {
    for (const auto& k : collector::kind_names()) std::printf("  %-10s %s\n", std::string(k.name).c_str(), std::string(k.help).c_str());
    return 0;
  }
  if (!args.inputs().empty()) throw UsageError("unexpected argument '" + args.inputs().front() + "' (the command goes after --)");
  if (args.rest().empty()) throw UsageError("no command given (parascope-cli record [options] -- CMD [ARGS...])");
  const RecordPlan plan = plan_from_args(args);
  const RecordOutcome out = record_program(plan);
  if (args.flag("--json")) std::printf("%s\n", to_json(out.manifest, 2).c_str());
  else if (!args.flag("--quiet")) print_summary(plan, out, fs::absolute(plan.output_dir));
  return out.exit_code;
}

}  // namespace parascope::cli
