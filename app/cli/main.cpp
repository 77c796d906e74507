// parascope-cli VERB [options] INPUT... — see `parascope-cli help`.
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/knobs.h"
#include "trace/core/error.h"

namespace {

struct VerbEntry {
  const char* name;
  const char* summary;
  int (*run)(const parascope::cli::VerbArgs&);
};

constexpr VerbEntry kVerbs[] = {
    {"info", "ranks, devices, streams, event counts and time span of a trace", parascope::cli::run_info},
    {"convert", "write a trace as .json[.gz], .pftrace, .sqlite or .csv (format from -o's extension)", parascope::cli::run_convert},
    {"stats", "busy/idle, overlap, exposed communication, kernel stats, collectives, link traffic", parascope::cli::run_stats},
    {"record", "run a program with the CUPTI collector injected: one .pstrace per process + manifest.json",
     parascope::cli::run_record},
    {"simulate", "simulate a workload on a topology: time, algbw/busbw, link utilization", parascope::cli::run_simulate},
    {"calibrate", "fit transfer-mechanism models from a raw P2P calibration sweep", parascope::cli::run_calibrate},
    {"knobs", "list the simulator's knobs (name, type, range, default, what each does)", parascope::cli::run_knobs},
    {"window", "what a time range holds, per-GPU exposed communication and SM role shares in it; --find by name",
     parascope::cli::run_window},
    {"whatif", "replay a trace on the interconnect model, change it (--set, --sweep) and predict step times",
     parascope::cli::run_whatif},
    {"links", "bytes/s per link and direction: peak, mean, percentiles, utilization (measured, simulated, estimated)",
     parascope::cli::run_links},
    {"roofline", "kernels against the machine's compute, HBM and link ceilings (FLOPs from args, PyTorch ops, NVTX)",
     parascope::cli::run_roofline},
    {"report", "an HTML or PDF report: timelines, overlap, links, roofline, kernels, what-if (Qt build); CSV of every table",
     parascope::cli::run_report},
    {"diff", "two traces (runs, or a run and a simulation) aligned by step: step, kernel and collective deltas",
     parascope::cli::run_diff},
    {"pkb", "ParallelKernelBench as a workload suite: run, report (bound, best design), solutions, eval",
     parascope::cli::run_pkb},
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: parascope-cli VERB [options] INPUT...\n"
               "  INPUT: trace files (Kineto/Chrome .json[.gz], .pstrace, Nsight .sqlite) or directories of them\n\n"
               "verbs:\n");
  for (const auto& v : kVerbs) std::fprintf(out, "  %-10s %s\n", v.name, v.summary);
  std::fprintf(out, "\n`parascope-cli VERB --help` describes a verb's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  // A write past the file size limit (RLIMIT_FSIZE) must fail with EFBIG and an error naming the
  // file, not kill us silently (SIGXFSZ's default). A handler, not SIG_IGN: handlers are reset by
  // exec, so the programs `record` launches keep the default.
  ::signal(SIGXFSZ, [](int) {});
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("parascope-cli 0.1.0\n");
    return 0;
  }
  const std::string verb = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& v : kVerbs) {
    if (verb != v.name) continue;
    try {
      return v.run(args);
    } catch (const parascope::InputError& e) {
      std::fprintf(stderr, "parascope-cli %s: %s\n", v.name, e.what());
      return 1;
    } catch (const parascope::cli::UsageError& e) {
      std::fprintf(stderr, "parascope-cli %s: %s (see `parascope-cli %s --help`)\n", v.name, e.what(), v.name);
      return 2;
    } catch (const parascope::sim::KnobError& e) {
      std::fprintf(stderr, "parascope-cli %s: %s\n", v.name, e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-cli %s: error: %s\n", v.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "parascope-cli: unknown verb '%s'\n\n", verb.c_str());
  usage(stderr);
  return 2;
}
