// PyTorch's NVTX op ranges, read from their names. torch.autograd.profiler.emit_nvtx (also behind
// `nsys --pytorch=autograd-nvtx|autograd-shapes-nvtx` and `parascope-cli record --op-shapes`) pushes
// one range per op on the thread that runs it. The name formats, by PyTorch version:
//   since 1.12 (torch/csrc/profiler/util.cpp getNvtxStr, called by standalone/nvtx_observer.cpp):
//     "aten::mm, seq = 3, op_id = 7, sizes = [[512, 768], [768, 3072]], input_op_ids = [(5,0), (6,0)]"
//     each field only when known: seq ≥ 0, op_id > 0, sizes with record_shapes (one entry per input:
//     a tensor's sizes, [] for anything else, tensor lists flattened), input_op_ids with sizes;
//   1.4–1.11 (torch/csrc/autograd/profiler_legacy.cpp): "aten::mm, seq = 3, sizes = [[...], []]", and
//     ", sizes = [...]" with no name when seq < 0;
//   1.0 (torch/csrc/autograd/profiler.cpp): "aten::mm, seq=3", backward nodes "MmBackward, stashed seq=3".
// A name is an op range when one of these fields follows the op name; anything else is not.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace parascope {

struct NvtxOpName {
  std::string_view op;                     // "aten::mm"; empty in the legacy form without a name
  int64_t seq = -1;                        // seq or stashed seq; -1: none
  bool stashed_seq = false;                // a 1.0 backward node's "stashed seq="
  uint64_t op_id = 0;                      // 0: none
  bool has_sizes = false;                  // false: recorded without shapes (or the name was cut in them)
  std::vector<std::vector<int64_t>> sizes; // per input, as listed
  std::vector<std::pair<uint64_t, int32_t>> input_op_ids;  // (producer op_id, its output index); (0, -1): none
  bool cut = false;                        // the name ends inside a field (NVTX names may be truncated)
};

// nullopt when the name is not a PyTorch op range; `op` views `name`.
std::optional<NvtxOpName> parse_nvtx_op_name(std::string_view name);

}  // namespace parascope
