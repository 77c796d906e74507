// `parascope-cli diff A B`: two traces (two runs, or a run and a simulation) aligned by step
// (ProfilerStep#N, else --step REGEX, else the whole trace), with per-step host time, GPU span and
// exposed communication, per-GPU-op (kernels, copies, memsets), per-collective and per-stream deltas (trace_diff.h) — what the GUI's
// diff dock shows. A and B are each a trace file or a directory of per-rank files; with --set, B is
// A's what-if prediction made in memory (as the What-if dock's "Open in Diff"), so simulated link
// loads and ranks need no file round trip.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "cli/cli_args.h"
#include "cli/knob_options.h"
#include "cli/load_inputs.h"
#include "cli/machine_option.h"
#include "cli/table_output.h"
#include "cli/verbs.h"
#include "sim/whatif/compare.h"
#include "trace/core/analysis/trace_diff.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--set", true, true, "knob=value (repeatable): B is A's what-if prediction with these knobs (then give only A)", ""},
    {"--machine", true, false, "with --set: the machine to replay on: auto (default: the preset matching the GPUs), trace, NAME or FILE", ""},
    {"--step", true, false, "regular expression for step ranges when the traces have no ProfilerStep#N (e.g. '^iter \\d+')", ""},
    {"--rank-map", true, false, "A:B,... pairs A's rank A with B's rank B (streams, links); default: single-rank traces pair by position", ""},
    {"--top", true, false, "GPU op rows (kernels, memcpys, memsets) in text output (default 15; --json and --csv have all)", ""},
    {"--csv", true, false, "write diff_steps.csv, diff_kernels.csv, diff_collectives.csv, diff_tracks.csv and diff_links.csv into this folder", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

// 2: the kernels table holds memcpys and memsets too (column "GPU op"); the tracks table counts "ops"
// "3:1,0:2" → {(3, 1), (0, 2)}
std::vector<std::pair<int32_t, int32_t>> parse_rank_map(const std::string& text) {
  std::vector<std::pair<int32_t, int32_t>> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    int32_t ra = -1, rb = -1;
    const size_t colon = item.find(':');
    auto number = [](const std::string& s, int32_t& v) {
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      return ec == std::errc() && end == s.data() + s.size() && v >= 0;
    };
    if (colon == std::string::npos || !number(item.substr(0, colon), ra) || !number(item.substr(colon + 1), rb))
      throw UsageError("--rank-map '" + text + "': '" + item + "' is not A:B (two ranks, e.g. 3:1)");
    out.emplace_back(ra, rb);
    at = comma + 1;
  }
  return out;
}

constexpr int kDiffSchemaVersion = 2;

}  // namespace

int run_diff(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli diff [options] A B\n       parascope-cli diff [options] A --set knob=value ...\n"
                "  A, B: a trace file or a directory of per-rank files each\n%s",
                options_help(kOptions).c_str());
    return 0;
  }
  const std::vector<std::string> sets = args.values("--set");
  const size_t want = sets.empty() ? 2 : 1;
  if (args.inputs().size() != want)
    throw UsageError(sets.empty() ? "diff takes two inputs, A and B (got " + std::to_string(args.inputs().size()) + ")"
                                  : "with --set, diff takes one input, A (B is its prediction)");
  const auto top = static_cast<size_t>(args.integer("--top", 15));
  const sim::KnobSettings knobs = knob_options(args, "--set");
  const Trace a = load_inputs(args, {args.inputs()[0]});
  std::optional<Trace> predicted;
  std::string b_name;
  if (!sets.empty()) {
    for (const std::string& kv : sets) b_name += (b_name.empty() ? "what-if " : " ") + kv;
    const whatif::DepGraph graph = whatif::build_dep_graph(a);
    whatif::WhatIfInput in;
    in.measured = &a;
    in.graph = &graph;
    try {
      in.topology = whatif::whatif_machine(a, graph, &cli_presets(), args.value("--machine").value_or("auto")).topology;
    } catch (const MachineError& e) {
      throw UsageError(e.what());
    }
    in.knobs = knobs;
    in.want_trace = true;
    predicted = std::move(*whatif::run_whatif(in).trace);
  }
  const Trace b = predicted ? std::move(*predicted) : load_inputs(args, {args.inputs()[1]});
  if (b_name.empty()) b_name = args.inputs()[1];
  DiffOptions o;
  o.step_pattern = args.value("--step").value_or("");
  if (const auto map = args.value("--rank-map")) o.rank_map = parse_rank_map(*map);
  TraceDiff d;
  try {
    d = diff_traces(a, b, o);
  } catch (const std::regex_error& e) {
    throw UsageError("--step '" + o.step_pattern + "' is not a valid regular expression");
  } catch (const DiffError& e) {
    throw UsageError(std::string("--rank-map: ") + e.what());
  }
  const DataTable steps = diff_steps_table(d), kernels = diff_kernels_table(d), colls = diff_collectives_table(d),
                  tracks = diff_tracks_table(d), links = diff_links_table(a, b, d);
  if (const auto dir = args.value("--csv")) {
    std::filesystem::create_directories(*dir);
    for (const DataTable* t : {&steps, &kernels, &colls, &tracks, &links}) write_csv(*t, (std::filesystem::path(*dir) / (t->id + ".csv")).string());
  }
  if (args.flag("--json")) {
    JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{kDiffSchemaVersion})},
                                       {"a", JsonValue::string(args.inputs()[0])},
                                       {"b", JsonValue::string(b_name)},
                                       {"steps_a", JsonValue::string(d.steps_a)},
                                       {"steps_b", JsonValue::string(d.steps_b)},
                                       {"paired_by", JsonValue::string(d.paired_by)},
                                       {"ranks_paired", JsonValue::string(d.ranks_paired)},
                                       {"rank_mismatch", JsonValue::string(d.rank_mismatch)},
                                       {"unpaired_a", JsonValue::number(d.unpaired_a)},
                                       {"unpaired_b", JsonValue::number(d.unpaired_b)},
                                       {"before_first_step_a", JsonValue::number(d.before_a)},
                                       {"before_first_step_b", JsonValue::number(d.before_b)},
                                       {"offset_ns", JsonValue::number(d.offset())},
                                       {"steps", table_json(steps)},
                                       {"kernels", table_json(kernels)},
                                       {"collectives", table_json(colls)},
                                       {"tracks", table_json(tracks)},
                                       {"links", table_json(links)}});
    std::printf("%s\n", to_json(doc, 1).c_str());
    return 0;
  }
  std::printf("A %s\nB %s\n%zu steps paired by %s", args.inputs()[0].c_str(), b_name.c_str(), d.paired_steps(), d.paired_by.c_str());
  if (d.unpaired_a || d.unpaired_b) std::printf(" (%lld of A and %lld of B without a partner)", static_cast<long long>(d.unpaired_a),
                                               static_cast<long long>(d.unpaired_b));
  if (!d.ranks_paired.empty()) std::printf("\nranks paired %s", d.ranks_paired.c_str());
  if (!d.rank_mismatch.empty()) std::printf("\nthe rank counts differ: %s", d.rank_mismatch.c_str());
  if (d.before_a || d.before_b)
    std::printf("\nGPU ops launched before the trace began (A %lld, B %lld): the row 'before the first step', in no step's totals",
                static_cast<long long>(d.before_a), static_cast<long long>(d.before_b));
  std::printf("\n\n%s\n", render_text(steps).c_str());
  DataTable shown = kernels;
  if (shown.rows.size() > top) shown.rows.resize(top);
  std::printf("%s", render_text(shown, 60).c_str());
  if (kernels.rows.size() > top) std::printf("  (%zu more; --json or --csv lists all)\n", kernels.rows.size() - top);
  std::printf("\n%s", render_text(colls).c_str());
  std::printf("\n%s", render_text(tracks).c_str());
  std::printf("\n%s", render_text(links).c_str());
  return 0;
}

}  // namespace parascope::cli
