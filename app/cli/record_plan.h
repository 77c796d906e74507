// One `record` run as data: what `parascope-cli record` parses its options into, and what other
// verbs (e.g. a ParallelKernelBench runner recording each reference on one GPU) build themselves
// and hand to record_program(). A plan with world_size > 0 runs the command once per rank in
// `ranks`, one after another on this machine, each as that rank of a world of world_size under
// the stand-in process group (trace/collector/python/parascope_world): the program sees
// RANK / WORLD_SIZE / LOCAL_RANK=0 / MASTER_ADDR / MASTER_PORT as torchrun would set them, no
// data moves, every collective is recorded into that rank's .pstrace. Without the collector
// (collector = false: no GPU timing, e.g. CI) each rank's file holds the stand-in's records only.
// op_shapes puts the same Python folder first on PYTHONPATH with PARASCOPE_OP_SHAPES=1: every Python
// process turns on PyTorch's NVTX op ranges with input shapes at `import torch`
// (parascope_op_shapes.py) and says so in its trace's notes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/collector/capture_summary.h"
#include "trace/core/json.h"

namespace parascope::cli {

struct RecordPlan {
  std::vector<std::string> command;   // the program and its arguments
  std::string output_dir;             // made when missing
  bool collector = true;              // inject libparascope_cupti.so
  bool cupti_guard = true;            // preload libparascope_cupti_guard.so (notices torch.profiler)
  std::string collector_lib;          // "": next to the CLI, $PARASCOPE_COLLECTOR_LIB, the build tree
  uint32_t kinds = 0;                 // collector::parse_kinds value; 0: the default kinds
  int64_t flush_ms = 1000, nvlink_sample_us = 0;
  std::string start = "now";          // now | api
  std::string nvlink_metrics;
  int32_t world_size = 0;             // > 0: the stand-in world's size
  std::vector<int32_t> ranks;         // ranks to run (default {0}); each in 0..world_size-1
  std::string python_dir;             // parascope_world's and parascope_op_shapes's folder; "": found (record_python_dir)
  bool op_shapes = false;             // PyTorch's NVTX op ranges with input shapes on in every Python process
};

struct RecordOutcome {
  int exit_code = 0;                  // the first non-zero exit of the runs (128 + signal when killed)
  std::string signal;                 // "SIGKILL" when a run was killed, else ""
  std::string manifest_path;
  JsonValue manifest;
  std::vector<collector::CaptureSummary> summaries;  // this session's files
  std::vector<std::string> other_files;              // older .pstrace files in the directory
};

// Runs the plan and writes DIR/manifest.json; std::runtime_error when it cannot start.
RecordOutcome record_program(const RecordPlan& plan);

// Where parascope_world is: $PARASCOPE_PYTHON_DIR, next to the CLI (python/, ../share/parascope/python),
// the source tree it was built from; "" when none holds it.
std::string record_python_dir();

}  // namespace parascope::cli
