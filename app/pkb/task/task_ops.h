// The operations of one timed iteration of a task: its GPU ops by position in the iteration (the
// same kernels in the same order every iteration, as PKB's references run), each with its measured
// mean time, its class (compute, communication, memory), its op shape and work from the first call
// (op_shapes.h), and its collective: op, bytes, group, order. Per-iteration totals of FLOPs and HBM
// bytes feed the bound (task_bound.h); collectives and GEMMs feed the design space (design_space.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkb/task/op_shapes.h"
#include "pkb/task/task_window.h"
#include "trace/core/classify.h"

namespace parascope::pkb {

struct CollectiveUse {
  CollectiveOp op = CollectiveOp::kUnknown;
  int position = -1;         // in TaskOps::ops
  int order = 0;             // 0, 1, ... among the iteration's collectives
  uint64_t in_elements = 0, out_elements = 0;
  uint32_t dtype_bytes = 0;
  uint64_t bytes = 0;        // NCCL's size S: max(in, out) elements x element size
  uint64_t input_bytes = 0;  // per-rank input: the simulator's `bytes` for every op
  uint64_t wire_bytes = 0;   // what one rank sends: S x busbw factor (collective_wire_bytes)
  int group_size = 0;
  std::string group, dtype, algorithm, protocol;
  int channels = 0;
  double mean_ns = 0;        // its kernel's mean time per iteration
};

struct IterationOp {
  std::string name;          // kernel name, "Memcpy DtoD (Device -> Device)", ...
  SliceKind kind = SliceKind::kKernel;
  Category category = Category::kCompute;
  int count = 0;             // instances over the iterations at this position
  double mean_ns = 0;
  std::optional<OpShape> shape;  // from the first call's NVTX op range
  int collective = -1;       // index into TaskOps::collectives
};

struct TaskOps {
  int iterations = 0;
  bool by_position = true;   // false: iterations differed, ops are grouped by name
  std::vector<IterationOp> ops;
  std::vector<CollectiveUse> collectives;
  int world = 1;             // largest collective group, else 1
  double flops = 0, hbm_bytes = 0;      // per iteration, from the shapes
  int with_shapes = 0, without_shapes = 0;  // ops (compute and memory) with / without work
  std::string note;
};

TaskOps task_ops(const Trace& trace, const TaskWindow& w, const SliceClassifier& classify, const std::string& dtype);

}  // namespace parascope::pkb
