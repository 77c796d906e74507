// Two traces side by side — two runs, or a run and its simulation — aligned by step: PyTorch's
// ProfilerStep#N ranges, else ranges matching a pattern (NVTX "iter 3", ...), else the whole trace
// as one step; steps pair by name when both traces name them alike, else by order. Per step: the
// slowest rank's host time, its GPU span, and communication exposed on the worst GPU (device
// comm − compute, as exposed_communication.h). GPU ops are kernels, copies and memsets. Per op name
// and per collective (op, size, ranks): counts and summed op time inside the aligned steps, B − A.
// An op belongs to the step whose range holds its launch call (else its own start) on its process;
// ops launched before the trace began have a row of their own, "before the first step".
// Per GPU stream: the same op time, so a timeline can mark the tracks that changed.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/core/analysis/intervals.h"
#include "trace/core/analysis/link_stats.h"
#include "trace/core/classify.h"
#include "trace/core/data_table.h"
#include "trace/core/trace.h"

namespace parascope {

struct TraceSteps {
  std::string source;  // "ProfilerStep#N", "pattern 'iter \d+'", "whole trace"
  struct Step {
    std::string name;
    std::vector<std::pair<uint32_t, Interval>> ranges;  // (process, host range), by process
    Interval span;                                      // union over processes
  };
  std::vector<Step> steps;  // by first start
};

// `pattern`: an ECMAScript regular expression for step ranges when there is no ProfilerStep#N;
// empty: the whole trace is one step. Throws std::regex_error for a bad pattern.
TraceSteps find_steps(const Trace& trace, const std::string& pattern = "");

struct StepDiff {
  std::string name_a, name_b;
  // The row "before the first step" (first when present): GPU ops launched before the trace began
  // (no launch call in the file, correlation ids below every launched op's), which ran at its
  // start. No host range; the kernel, collective and stream tables leave these ops out.
  bool before_first = false;
  TimeNs host_a = 0, host_b = 0;         // the slowest process's host range
  TimeNs gpu_a = 0, gpu_b = 0;           // first GPU op start .. last op end, the widest device
  TimeNs exposed_a = 0, exposed_b = 0;   // communication not under compute, the worst device
  TimeNs start_a = 0, start_b = 0;       // span starts: B's timeline sits at start_b − start_a
  TimeNs end_a = 0, end_b = 0;           // span ends (the union of the processes' ranges)
};

struct KernelDiff {  // one GPU op name: a kernel, "Memcpy DtoD (Device -> Device)", "Memset (Device)"
  std::string name;
  SliceKind kind = SliceKind::kKernel;   // kKernel, kMemcpy or kMemset
  Category category = Category::kCompute;
  int64_t count_a = 0, count_b = 0;
  TimeNs total_a = 0, total_b = 0;
  EventRef example_a, example_b;         // the first instance in a paired step (invalid: none)
  TimeNs delta() const { return total_b - total_a; }
};

struct CollectiveDiff {
  CollectiveOp op = CollectiveOp::kUnknown;
  uint64_t bytes = 0;       // S (collective_bandwidth.h)
  int32_t ranks = 0;
  int64_t count_a = 0, count_b = 0;
  TimeNs total_a = 0, total_b = 0;      // kernel time
  double busbw_a = 0, busbw_b = 0;      // time-weighted: sum(S × factor) / sum(t)
  EventRef example_a, example_b;
};

// One GPU stream, matched across the traces by (device ordinal, stream id) when each ordinal
// belongs to one process in both traces, else by (rank, else process index; ordinal; stream id),
// B's paired ranks and ordinals taken as A's (DiffOptions::rank_map):
// GPU op time inside the paired steps. A prediction keeps its measurement's ranks, ordinals and
// stream ids, so its tracks pair one to one.
struct TrackDiff {
  std::string label;                    // "rank 0 GPU 0 stream 7"
  int64_t track_a = -1, track_b = -1;   // Trace::tracks index, -1: not in that trace
  int64_t count_a = 0, count_b = 0;
  TimeNs busy_a = 0, busy_b = 0;        // summed op durations (kernels, copies, memsets)
};

// A --rank-map naming a rank a trace lacks.
struct DiffError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TraceDiff {
  std::string steps_a, steps_b;          // how each side's steps were found
  std::string paired_by;                 // "name", "order"
  std::vector<StepDiff> steps;
  int64_t unpaired_a = 0, unpaired_b = 0;
  int64_t before_a = 0, before_b = 0;    // GPU ops launched before the trace began (the row "before the first step")
  std::vector<KernelDiff> kernels;       // GPU ops by name, by |delta|, largest first, then name
  std::vector<CollectiveDiff> collectives;  // by op, bytes, ranks
  std::vector<TrackDiff> tracks;         // by label
  // How ranks were paired when not by their own numbers: "by position (one rank on each side): A's
  // rank 3 with B's rank 1", "by --rank-map: ..."; empty: by rank (or GPU ordinal).
  std::string ranks_paired;
  // When A and B differ in how many processes ran GPU work (a 2-rank run against one of its
  // files): "A has 2 ranks with GPU work (0, 1), B has 1 (0): ..." naming the ranks one side
  // lacks; the op totals then sum different numbers of ranks. Empty: as many on both sides.
  std::string rank_mismatch;
  std::map<int32_t, int32_t> ordinal_b_to_a;  // B's GPU ordinals standing for A's (paired ranks)
  // B's timeline sits at A's + offset(): the first paired step's starts
  TimeNs offset() const {
    for (const StepDiff& s : steps)
      if (!s.before_first) return s.start_b - s.start_a;
    return 0;
  }
  size_t paired_steps() const { return steps.size() - (!steps.empty() && steps.front().before_first ? 1 : 0); }
};

struct DiffOptions {
  std::string step_pattern;  // as find_steps
  // (A rank, B rank): B's rank stands for A's in the stream and link tables, its GPUs A's GPUs by
  // position. Empty: when each trace has one process with GPU work and they differ in rank or GPU
  // ordinal (single-rank traces of different ranks), those two pair by position. Within a paired
  // rank, streams of the same id pair, and the ones left over pair in id order when each side has
  // as many. DiffError for a rank a trace lacks.
  std::vector<std::pair<int32_t, int32_t>> rank_map;
};

TraceDiff diff_traces(const Trace& a, const Trace& b, const DiffOptions& options = {});

DataTable diff_steps_table(const TraceDiff& d);
DataTable diff_kernels_table(const TraceDiff& d);
DataTable diff_collectives_table(const TraceDiff& d);
DataTable diff_tracks_table(const TraceDiff& d);
// Per link direction, matched by (GPU ordinal, direction, medium): mean and peak load and
// utilization over the paired steps (first step start .. last step end) of A and of B. Each side
// uses its best series: measured counters, else simulated (a prediction), else the estimate from
// collective sizes and peer copies (link_traffic.h).
DataTable diff_links_table(const Trace& a, const Trace& b, const TraceDiff& d);

}  // namespace parascope
