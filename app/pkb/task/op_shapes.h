// Op shapes from PyTorch's NVTX op ranges (torch.autograd.profiler.emit_nvtx(record_shapes=True),
// turned on for a task's first call by the shape hook): a range is named
//   "aten::mm, seq = 3, op_id = 7, sizes = [[1024, 512], [512, 1024]], input_op_ids = [...]"
// (torch/csrc/profiler/standalone/nvtx_observer.cpp), read by the roofline's parser
// (trace/core/analysis/nvtx_op_name.h). The names carry no dtypes, so element sizes are the run's
// --dtype. Work comes from the roofline's op formulas (op_shape_work → op_flops.h: GEMMs,
// attention); any other op is counted as reading its inputs once, a lower bound on its HBM traffic.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace parascope::pkb {

struct OpShape {
  std::string op;        // "aten::mm"
  std::string sizes;     // "[[1024, 512], [512, 1024]]"
  double flops = 0;
  double hbm_bytes = 0;  // GEMMs: inputs + output; others: inputs (lower bound)
  bool gemm = false;     // a 2-D GEMM with m, n, k
  int64_t m = 0, n = 0, k = 0;
  std::string work_source;  // "op shapes" (GEMM formula), "rows gathered" (index, embedding, gather) or "inputs read once"
};

// The op name and sizes of an NVTX op range; nullopt when the name has no whole "sizes = [...]".
std::optional<OpShape> parse_nvtx_op(std::string_view range_name);

// Fills flops / hbm_bytes / gemm dims; `dtype` is PKB's --dtype ("bfloat16", "float32", ...).
void compute_op_work(OpShape& s, const std::string& dtype);

// Bytes per element of PKB's --dtype names (0 when unknown).
double dtype_bytes(const std::string& dtype);

}  // namespace parascope::pkb
