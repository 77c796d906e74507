// json_import_bench: Kineto/Chrome JSON import throughput and peak memory, side by side with
// Python's json.load on the same files in the same run.
//
//   json_import_bench [--json OUT] [--no-python] [--min-seconds S] CASE...
//
// A CASE is a file or a directory (all its traces load as one multi-rank trace), or several joined
// with '+'. Each measurement runs in a forked child so its peak RSS (VmHWM, whole process) is its
// own: "parse" (tokenizer only), "import" (load_trace: parse + model + finish), "python"
// (python3 -c 'import json; json.load(open(F))' for every file, gzip.open for .gz; its wall time
// is json.load's own, timed inside Python, without interpreter start-up). MB/s are of
// uncompressed JSON, per second of wall time and per second of CPU time (the import is
// single-threaded, inflate included). Small cases repeat until --min-seconds (best run counts).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/core/json.h"
#include "trace/core/summary.h"
#include "trace/io/json/byte_source.h"
#include "trace/io/json/chrome_json_parser.h"
#include "trace/io/load_trace.h"

using namespace parascope;

namespace {

struct Result {
  double wall_s = 0;       // best run
  double cpu_s = 0;        // of the best run
  uint64_t json_bytes = 0;
  uint64_t file_bytes = 0;
  int64_t peak_rss_kb = 0;
  int64_t events = 0;
  int64_t slices = 0;
  int64_t flows = 0;
  int64_t kernels_memcpys = 0;
  double model_bytes_per_gpu_op = 0;  // columns + detail record per kernel/memcpy (names excluded)
  uint64_t model_bytes = 0;           // Trace::memory_bytes()
  uint64_t arg_sets = 0;
  uint64_t strings_bytes = 0, args_bytes = 0, columns_bytes = 0, flows_bytes = 0;
  double startup_s = 0;    // python: interpreter start-up, not in wall_s
  int runs = 0;
  bool ok = false;
  char error[512] = {};
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}
int64_t vm_hwm_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

// Runs `fn` in a child; the child's Result comes back through a pipe.
template <class Fn>
Result in_child(Fn fn) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Result r;
    try {
      r = fn();
      r.ok = true;
    } catch (const std::exception& e) {
      std::snprintf(r.error, sizeof r.error, "%s", e.what());
    }
    r.peak_rss_kb = vm_hwm_kb();
    [[maybe_unused]] ssize_t w = write(fds[1], &r, sizeof r);
    _exit(0);
  }
  close(fds[1]);
  Result r;
  const ssize_t got = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != static_cast<ssize_t>(sizeof r)) std::snprintf(r.error, sizeof r.error, "child died (status %d)", status);
  return r;
}

std::vector<std::string> split_case(const std::string& c) {
  std::vector<std::string> out;
  std::stringstream ss(c);
  std::string part;
  while (std::getline(ss, part, '+')) out.push_back(part);
  return out;
}

uint64_t file_bytes(const std::vector<std::string>& files) {
  uint64_t n = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary | std::ios::ate);
    n += static_cast<uint64_t>(in.tellg());
  }
  return n;
}

struct NullHandler : ChromeJsonHandler {
  int64_t n = 0;
  void on_event(const RawEvent&) override { ++n; }
  void on_metadata(std::string_view, const JsonValue&) override {}
};

Result run_parse(const std::vector<std::string>& files, double min_s) {
  return in_child([&] {
    Result r;
    r.file_bytes = file_bytes(files);
    r.wall_s = 1e30;
    const double t_end = now_s() + min_s;
    do {
      const double w0 = now_s(), c0 = cpu_s();
      uint64_t bytes = 0;
      int64_t events = 0;
      for (const auto& f : files) {
        auto src = open_byte_source(f);
        NullHandler h;
        const ChromeJsonStats st = parse_chrome_json(*src, h);
        bytes += st.json_bytes;
        events += st.events;
      }
      const double w = now_s() - w0, c = cpu_s() - c0;
      if (w < r.wall_s) {
        r.wall_s = w;
        r.cpu_s = c;
      }
      r.json_bytes = bytes;
      r.events = events;
      ++r.runs;
    } while (now_s() < t_end);
    return r;
  });
}

Result run_import(const std::vector<std::string>& inputs, double min_s) {
  return in_child([&] {
    Result r;
    r.file_bytes = file_bytes(expand_inputs(inputs));
    r.wall_s = 1e30;
    const double t_end = now_s() + min_s;
    do {
      const double w0 = now_s(), c0 = cpu_s();
      LoadReport report;
      const Trace t = load_trace(inputs, {}, &report);
      const double w = now_s() - w0, c = cpu_s() - c0;
      if (w < r.wall_s) {
        r.wall_s = w;
        r.cpu_s = c;
      }
      r.json_bytes = 0;
      r.events = 0;
      for (const auto& f : report.files) {
        r.json_bytes += f.json_bytes;
        r.events += f.events;
      }
      r.slices = static_cast<int64_t>(t.slice_count());
      r.flows = static_cast<int64_t>(t.flows.size());
      r.model_bytes = t.memory_bytes();
      r.arg_sets = t.args.set_count();
      r.strings_bytes = t.strings.memory_bytes();
      r.args_bytes = t.args.memory_bytes();
      r.flows_bytes = t.flows.capacity() * sizeof(Flow);
      r.columns_bytes = 0;
      for (const Track& tr : t.tracks) {
        const auto& s = tr.slices;
        r.columns_bytes += s.start.capacity() * 8 + s.dur.capacity() * 8 + s.name.capacity() * 4 + s.ref.capacity() * 4 +
                           s.depth.capacity() + s.args.capacity() * 4 + tr.counter.time.capacity() * 16;
      }
      // Model cost of a kernel/memcpy: its column entries plus its detail record (names excluded).
      uint64_t bytes = 0;
      int64_t n = 0;
      for (const Track& tr : t.tracks) {
        const auto& s = tr.slices;
        const uint64_t row = sizeof(TimeNs) * 2 + sizeof(StringId) + sizeof(SliceRef) + (s.depth.empty() ? 0 : 1) +
                             (s.args.empty() ? 0 : sizeof(uint32_t));
        for (size_t i = 0; i < s.size(); ++i) {
          const SliceKind k = s.ref[i].kind();
          if (k == SliceKind::kKernel) bytes += row + sizeof(KernelInfo);
          else if (k == SliceKind::kMemcpy) bytes += row + sizeof(MemcpyInfo);
          else continue;
          ++n;
        }
      }
      r.kernels_memcpys = n;
      r.model_bytes_per_gpu_op = n ? static_cast<double>(bytes) / static_cast<double>(n) : 0;
      ++r.runs;
    } while (now_s() < t_end);
    return r;
  });
}

Result run_python(const std::vector<std::string>& files, double min_s) {
  Result r;
  r.file_bytes = file_bytes(files);
  // Times json.load inside Python too, so interpreter start-up can be told apart.
  const std::string script =
      "import json, gzip, sys, time\n"
      "t, c = time.perf_counter(), time.process_time()\n"
      "for f in sys.argv[1:]:\n"
      "    json.load(gzip.open(f) if f.endswith('.gz') else open(f))\n"
      "print(time.perf_counter() - t, time.process_time() - c)\n";
  r.wall_s = 1e30;
  const double t_end = now_s() + min_s;
  do {
    const double w0 = now_s();
    int fds[2];
    if (pipe(fds) != 0) return r;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], 1);
      std::vector<char*> argv = {const_cast<char*>("python3"), const_cast<char*>("-c"), const_cast<char*>(script.c_str())};
      for (const auto& f : files) argv.push_back(const_cast<char*>(f.c_str()));
      argv.push_back(nullptr);
      execvp("python3", argv.data());
      _exit(127);
    }
    close(fds[1]);
    char text[64] = {};
    ssize_t got = 0;
    for (ssize_t n; (n = read(fds[0], text + got, sizeof text - 1 - static_cast<size_t>(got))) > 0;) got += n;  // to EOF
    close(fds[0]);
    int status = 0;
    rusage ru{};  // ru_maxrss: the child's peak RSS in KiB
    wait4(pid, &status, 0, &ru);
    const double w = now_s() - w0;
    double load_s = 0, load_cpu_s = 0;
    if (got > 0) std::sscanf(text, "%lf %lf", &load_s, &load_cpu_s);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::snprintf(r.error, sizeof r.error, "python3 failed (status %d)", status);
      return r;
    }
    if (load_s > 0 && load_s < r.wall_s) {
      r.wall_s = load_s;
      r.startup_s = w - load_s;
      r.cpu_s = load_cpu_s;
    }
    r.peak_rss_kb = std::max<int64_t>(r.peak_rss_kb, ru.ru_maxrss);
    ++r.runs;
  } while (now_s() < t_end);
  r.ok = true;
  return r;
}

JsonValue to_json_value(const Result& r, uint64_t json_bytes) {
  const double mb = static_cast<double>(json_bytes) / 1e6;
  return JsonValue::object({{"ok", JsonValue::boolean(r.ok)},
                            {"error", JsonValue::string(r.error)},
                            {"runs", JsonValue::number(static_cast<int64_t>(r.runs))},
                            {"wall_s", JsonValue::number(r.wall_s)},
                            {"cpu_s", JsonValue::number(r.cpu_s)},
                            {"startup_s", JsonValue::number(r.startup_s)},
                            {"mb_per_s_wall", JsonValue::number(r.wall_s > 0 ? mb / r.wall_s : 0)},
                            {"mb_per_s_cpu", JsonValue::number(r.cpu_s > 0 ? mb / r.cpu_s : 0)},
                            {"peak_rss_bytes", JsonValue::number(r.peak_rss_kb * 1024)},
                            {"events", JsonValue::number(r.events)},
                            {"slices", JsonValue::number(r.slices)},
                            {"flows", JsonValue::number(r.flows)},
                            {"kernels_and_memcpys", JsonValue::number(r.kernels_memcpys)},
                            {"model_bytes_per_kernel_or_memcpy", JsonValue::number(r.model_bytes_per_gpu_op)},
                            {"model_bytes", JsonValue::number(static_cast<int64_t>(r.model_bytes))},
                            {"arg_sets", JsonValue::number(static_cast<int64_t>(r.arg_sets))},
                            {"model_strings_bytes", JsonValue::number(static_cast<int64_t>(r.strings_bytes))},
                            {"model_args_bytes", JsonValue::number(static_cast<int64_t>(r.args_bytes))},
                            {"model_columns_bytes", JsonValue::number(static_cast<int64_t>(r.columns_bytes))},
                            {"model_flows_bytes", JsonValue::number(static_cast<int64_t>(r.flows_bytes))}});
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_out;
  bool python = true;
  double min_s = 0;
  std::vector<std::string> cases;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json_out = argv[++i];
    else if (a == "--no-python") python = false;
    else if (a == "--min-seconds" && i + 1 < argc) min_s = std::stod(argv[++i]);
    else if (a == "-h" || a == "--help") {
      std::printf("usage: json_import_bench [--json OUT] [--no-python] [--min-seconds S] CASE...\n");
      return 0;
    } else cases.push_back(a);
  }
  if (cases.empty()) {
    std::fprintf(stderr, "json_import_bench: no input (a file, a directory, or several joined with '+')\n");
    return 2;
  }
  std::printf("%-44s %-7s %9s %8s %9s %9s %10s %7s %8s\n", "case", "what", "JSON MB", "wall s", "MB/s", "MB/s cpu",
              "peak RSS MB", "RSS/JSON", "B/kernel");
  JsonValue out = JsonValue::array();
  int failures = 0;
  for (const std::string& c : cases) {
    const std::vector<std::string> inputs = split_case(c);
    std::vector<std::string> files;
    try {
      files = expand_inputs(inputs);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    const Result parse = run_parse(files, min_s);
    const Result imp = run_import(inputs, min_s);
    const Result py = python ? run_python(files, min_s) : Result{};
    const uint64_t jb = imp.json_bytes ? imp.json_bytes : parse.json_bytes;
    const double mb = static_cast<double>(jb) / 1e6;
    auto row = [&](const char* what, const Result& r) {
      if (!r.ok) {
        std::printf("%-44.44s %-7s  failed: %s\n", c.c_str(), what, r.error);
        ++failures;
        return;
      }
      std::printf("%-44.44s %-7s %9.1f %8.3f %9.1f %9.1f %10.1f %7.3f", c.c_str(), what, mb, r.wall_s, mb / r.wall_s,
                  r.cpu_s > 0 ? mb / r.cpu_s : 0.0, static_cast<double>(r.peak_rss_kb) / 1024.0,
                  static_cast<double>(r.peak_rss_kb) * 1024.0 / static_cast<double>(jb));
      if (r.kernels_memcpys) std::printf(" %8.1f", r.model_bytes_per_gpu_op);
      std::printf("\n");
    };
    row("parse", parse);
    row("import", imp);
    if (python) {
      row("python", py);
      if (py.ok && imp.ok)
        std::printf("%-44.44s %-7s %9s import is %.1fx faster than python json.load (wall; python start-up %.2f s not counted)\n",
                    c.c_str(), "", "", py.wall_s / imp.wall_s, py.startup_s);
    }
    JsonValue entry = JsonValue::object({{"case", JsonValue::string(c)},
                                         {"files", JsonValue::number(static_cast<int64_t>(files.size()))},
                                         {"file_bytes", JsonValue::number(static_cast<int64_t>(imp.file_bytes))},
                                         {"json_bytes", JsonValue::number(static_cast<int64_t>(jb))},
                                         {"parse", to_json_value(parse, jb)},
                                         {"import", to_json_value(imp, jb)}});
    if (python) {
      entry.set("python", to_json_value(py, jb));
      entry.set("speedup_vs_python", JsonValue::number(py.ok && imp.ok ? py.wall_s / imp.wall_s : 0.0));
    }
    out.push(std::move(entry));
  }
  if (!json_out.empty()) {
    std::ofstream f(json_out);
    f << to_json(JsonValue::object({{"benchmark", JsonValue::string("json_import")}, {"cases", out}}), 2) << "\n";
  }
  return failures ? 1 : 0;
}
