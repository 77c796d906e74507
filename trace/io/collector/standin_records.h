// The kStandInRecords chunk: what the stand-in process group (trace/collector/python/parascope_world,
// `record --world N`) saw of a torch.distributed program — one JSON object per line, UTF-8. This
// header is the schema's reference (schema 1); unknown keys are ignored, a line of an unknown "k"
// is skipped, so later writers may add both. Times are CLOCK_REALTIME ns (the collector's CUPTI
// clock on Linux); streams are cudaStream_t handles plus, where the collector could map it, the
// CUPTI stream id; devices are CUDA ordinals, -1 for CPU tensors.
//   world  rank world_size pid host asked_backend torch standin (compiled | python) standin_why t0
//          (once, at init_process_group)
//   group  id ranks (global, in group-rank order) rank (-1: not a member) name desc asked_backend
//   op     id op group seq (per group, collectives only; -1 for send/recv) dtype elem_bytes
//          in_elems out_elems (per rank; bytes with elem_bytes 1 when dtypes differ) tensors
//          device stream stream_id tid t0 t1 (the call) [root peer peer_global tag reduce
//          in_splits out_splits (elements per peer) coalesced peer_guessed]
//   wait   ops how (wait | future | backward_end) device stream stream_id tid t0 t1 blocking
// A malformed line is an InputError naming the file, the chunk and the line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/events.h"

namespace parascope::standin {

inline constexpr int kSchemaVersion = 1;

struct World {
  int32_t rank = -1, world_size = 0;
  int64_t pid = 0;
  std::string host, asked_backend, torch;
};

struct Group {
  int32_t id = -1;
  std::vector<int32_t> ranks;
  int32_t rank = -1;  // this process's rank in it; -1: not a member
  std::string name, desc, asked_backend;
};

struct Op {
  int64_t id = 0;
  std::string op;               // all_reduce, all_gather_into_tensor, send, ... (standin.py)
  int32_t group = -1;
  int64_t seq = -1;
  std::string dtype;
  uint32_t elem_bytes = 0;
  uint64_t in_elems = 0, out_elems = 0;
  uint32_t tensors = 0;
  int32_t device = -1;
  uint64_t stream = 0;          // cudaStream_t handle, 0: none known
  int64_t stream_id = -1;       // CUPTI stream id, -1: not mapped
  uint32_t tid = 0;
  int64_t t0 = 0, t1 = 0;
  int32_t root = -1, peer = -1, peer_global = -1;
  bool peer_guessed = false;
  std::string reduce;
  std::vector<uint64_t> in_splits, out_splits;
  int64_t coalesced = -1;
};

struct Wait {
  std::vector<int64_t> ops;
  std::string how;
  int32_t device = -1;
  uint64_t stream = 0;
  int64_t stream_id = -1;
  uint32_t tid = 0;
  int64_t t0 = 0, t1 = 0;
  bool blocking = false;
};

struct Records {
  std::optional<World> world;
  std::vector<Group> groups;
  std::vector<Op> ops;
  std::vector<Wait> waits;
};

// Appends the records of `text` (one chunk's payload) to `out`.
void parse_records(std::string_view text, const std::string& file, Records& out);

// The model's op for a stand-in op name (kUnknown for names it does not know).
CollectiveOp op_kind(std::string_view op);
bool is_point_to_point(std::string_view op);

}  // namespace parascope::standin
