// `parascope-cli record [options] -- CMD [ARGS...]`: runs an unmodified program with the CUPTI
// collector injected (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, NCCL_PROFILER_PLUGIN all name
// libparascope_cupti.so) and writes DIR/<host>-<pid>-r<rank>.pstrace per traced process plus
// DIR/manifest.json (schema in docs/collector.md). Launchers (torchrun, mpirun) pass the
// environment to their workers, so every rank writes its own file. Exits with the program's status.
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
#include "cli/verbs.h"
#include "trace/collector/capture_summary.h"
#include "trace/collector/collector_config.h"
#include "trace/core/json.h"

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

}  // namespace

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
  const std::vector<std::string>& cmd = args.rest();
  if (cmd.empty()) throw UsageError("no command given (parascope-cli record [options] -- CMD [ARGS...])");

  uint32_t kinds = collector::kDefaultKinds;
  if (auto k = args.value("--kinds")) {
    try {
      kinds = collector::parse_kinds(*k);
    } catch (const collector::ConfigError& e) {
      throw UsageError(std::string("--kinds: ") + e.what());
    }
  }
  if (args.flag("--no-nccl")) kinds &= ~collector::kKindNccl;
  auto int_option = [&](const char* name, int64_t def, int64_t lo, int64_t hi) {
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
    if (x < lo || x > hi)
      throw UsageError(std::string(name) + " " + *v + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
  };
  const int64_t flush_ms = int_option("--flush-ms", 1000, 10, 60000);
  const int64_t nvlink_us = int_option("--nvlink-sample-us", 0, 0, 10'000'000);
  const std::string start = args.value("--start").value_or("now");
  if (start != "now" && start != "api") throw UsageError("--start must be 'now' or 'api'");

  std::string tried;
  const std::string lib = find_library(args.value("--lib"), &tried);
  if (lib.empty())
    throw std::runtime_error("the collector library libparascope_cupti.so was not found (it is built on machines with "
                             "CUDA: cmake --preset gpu); tried:" + tried);

  const fs::path dir = fs::absolute(args.value("--output").value_or(default_dir()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create: " + ec.message());

  // what another tool may have set: we replace it, and say so
  for (const char* var : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "NCCL_PROFILER_PLUGIN"}) {
    const char* v = std::getenv(var);
    if (v && *v && lib != v)
      std::fprintf(stderr,
                   "parascope-cli record: %s was set to %s (another tool, e.g. Nsight Systems?); it is replaced by the "
                   "collector for this run, so that tool will not trace the program\n",
                   var, v);
  }
  const std::string session = session_id();
  std::vector<std::string> env_strings;
  auto setenv_child = [&](const std::string& k, const std::string& v) { env_strings.push_back(k + "=" + v); };
  setenv_child("CUDA_INJECTION64_PATH", lib);
  setenv_child("NVTX_INJECTION64_PATH", lib);
  if (kinds & collector::kKindNccl) setenv_child("NCCL_PROFILER_PLUGIN", lib);
  // the CUPTI guard, beside the collector: notices another CUPTI client in the program (cupti_guard.h)
  std::string guard = (fs::path(lib).parent_path() / "libparascope_cupti_guard.so").string();
  if (args.flag("--no-cupti-guard") || !fs::is_regular_file(guard, ec)) {
    if (!args.flag("--no-cupti-guard"))
      std::fprintf(stderr, "parascope-cli record: %s not found: another CUPTI client in the program (torch.profiler) "
                           "will not be noticed\n", guard.c_str());
    guard.clear();
  } else {
    const char* pre = std::getenv("LD_PRELOAD");
    setenv_child("LD_PRELOAD", pre && *pre ? guard + ":" + pre : guard);
  }
  setenv_child("PARASCOPE_COLLECTOR_LIB", lib);
  setenv_child("PARASCOPE_OUTPUT_DIR", dir.string());
  setenv_child("PARASCOPE_KINDS", collector::kinds_to_string(kinds));
  setenv_child("PARASCOPE_FLUSH_MS", std::to_string(flush_ms));
  setenv_child("PARASCOPE_START", start);
  setenv_child("PARASCOPE_NVLINK_SAMPLE_US", std::to_string(nvlink_us));
  if (auto m = args.value("--nvlink-metrics")) setenv_child("PARASCOPE_NVLINK_METRICS", *m);
  setenv_child("PARASCOPE_SESSION", session);
  setenv_child("PARASCOPE_COMMAND", shell_join(cmd));
  std::set<std::string> ours;
  for (const auto& kv : env_strings) ours.insert(kv.substr(0, kv.find('=')));
  ours.insert("PARASCOPE_OUTPUT");  // one exact file for every process would interleave them
  ours.insert("NCCL_PROFILER_PLUGIN");
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (!ours.count(kv.substr(0, kv.find('=')))) env_strings.push_back(kv);
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> cmd_copy = cmd;
  std::vector<char*> cargv;
  for (auto& s : cmd_copy) cargv.push_back(s.data());
  cargv.push_back(nullptr);

  const uint64_t started = now_unix_ns();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::execvpe(cargv[0], cargv.data(), envp.data());
    std::fprintf(stderr, "parascope-cli record: cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  g_child = child;
  // Ctrl-C reaches the program through the terminal; we stay to write the manifest. A SIGTERM sent
  // to us (a batch system) is passed on.
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
  const uint64_t ended = now_unix_ns();
  const bool signaled = WIFSIGNALED(status);
  const int code = signaled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

  // the traces of this session
  std::vector<std::string> paths, others;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".pstrace") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<CaptureSummary> summaries;
  JsonValue files = JsonValue::array();
  std::set<std::string> seen_hosts;
  size_t conflicts = 0;  // files whose process ran another CUPTI client
  for (const auto& p : paths) {
    CaptureSummary s;
    try {
      s = collector::summarize_capture(p);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-cli record: %s\n", e.what());
      continue;
    }
    if (s.meta("session") != session) {
      others.push_back(fs::relative(p, dir).string());
      continue;
    }
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
    seen_hosts.insert(s.meta("host"));
    files.push(JsonValue::object({{"path", JsonValue::string(fs::relative(p, dir).string())},
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
                                  {"start_time_unix_ns", unum(static_cast<uint64_t>(to_int(s.meta("start_time_unix_ns"), 0)))},
                                  {"process_command", JsonValue::string(s.meta("process_command"))},
                                  {"devices", std::move(devices)},
                                  {"other_cupti_clients", std::move(other_clients)}}));
    conflicts += !s.other_cupti_calls.empty();
    summaries.push_back(std::move(s));
  }
  JsonValue argv_json = JsonValue::array();
  for (const auto& a : cmd) argv_json.push(JsonValue::string(a));
  JsonValue other_json = JsonValue::array();
  for (const auto& o : others) other_json.push(JsonValue::string(o));
  JsonValue manifest = JsonValue::object(
      {{"schema_version", num(kManifestSchemaVersion)},
       {"kind", JsonValue::string("parascope-record")},
       {"tool_version", JsonValue::string("0.1.0")},
       {"session", JsonValue::string(session)},
       {"command", std::move(argv_json)},
       {"host", JsonValue::string(host_name())},
       {"started_unix_ns", unum(started)},
       {"ended_unix_ns", unum(ended)},
       {"exit", JsonValue::object({{"code", signaled ? JsonValue::null() : num(code)},
                                   {"signal", signaled ? JsonValue::string(signal_name(WTERMSIG(status))) : JsonValue::null()}})},
       {"options", JsonValue::object({{"kinds", JsonValue::string(collector::kinds_to_string(kinds))},
                                      {"flush_ms", num(flush_ms)},
                                      {"nvlink_sample_us", num(nvlink_us)},
                                      {"start", JsonValue::string(start)},
                                      {"nccl", JsonValue::boolean((kinds & collector::kKindNccl) != 0)}})},
       {"collector_library", JsonValue::string(lib)},
       {"cupti_guard", guard.empty() ? JsonValue::null() : JsonValue::string(guard)},
       {"processes_with_other_cupti_client", num(static_cast<int64_t>(conflicts))},
       {"clock", JsonValue::string("cupti")},
       {"files", std::move(files)},
       {"other_files", std::move(other_json)}});
  const fs::path manifest_path = dir / "manifest.json";
  {
    const fs::path tmp = dir / ("manifest.json.tmp-" + std::to_string(::getpid()));
    std::ofstream out(tmp);
    out << to_json(manifest, 2) << "\n";
    out.close();
    if (!out || std::rename(tmp.c_str(), manifest_path.c_str()) != 0) {
      fs::remove(tmp, ec);  // never leave a temporary behind (ec: the one declared above)
      throw std::runtime_error(manifest_path.string() + ": cannot write");
    }
  }
  if (args.flag("--json")) {
    std::printf("%s\n", to_json(manifest, 2).c_str());
  } else if (!args.flag("--quiet")) {
    std::fprintf(stderr, "\nparascope-cli record: %s %s, %zu trace file%s in %s\n", shell_join(cmd).c_str(),
                 signaled ? (std::string("killed by ") + signal_name(WTERMSIG(status))).c_str()
                          : ("exited " + std::to_string(code)).c_str(),
                 summaries.size(), summaries.size() == 1 ? "" : "s", dir.c_str());
    for (const auto& s : summaries) std::fprintf(stderr, "%s", collector::format_summary(s).c_str());
    if (summaries.empty())
      std::fprintf(stderr, "  no process initialised CUDA under the collector (is the program a CUDA program?)\n");
    if (conflicts)
      std::fprintf(stderr, "  %zu process%s ran another CUPTI client beside the collector; %s\n", conflicts,
                   conflicts == 1 ? "" : "es", collector::both_views_advice().c_str());
    if (!others.empty()) std::fprintf(stderr, "  (%zu older trace files in the directory are not part of this run)\n", others.size());
    std::fprintf(stderr, "  manifest: %s\n", manifest_path.c_str());
  }
  return code;
}

}  // namespace parascope::cli
