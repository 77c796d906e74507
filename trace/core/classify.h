// Which Category a slice belongs to (compute, communication, memory, sync...). Structured data
// decides first: a collective annotation or a peer copy makes communication, a probe role says
// what an SM span was, sync is sync. Kernel names decide last (NCCL, symmetric-memory and the
// project's own communication kernels), cached per interned name. Build once per trace.
#pragma once

#include <string_view>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

// True for kernel names that are communication by convention: nccl*, ncclDevKernel_*,
// PyTorch symmetric-memory kernels (one/two-shot all-reduce, multimem), the project's own
// collectives (parascope_comm_*, ps_allreduce_*...).
bool is_communication_kernel_name(std::string_view name);

class SliceClassifier {
 public:
  explicit SliceClassifier(const Trace& trace);
  Category category(uint32_t track, uint32_t index) const;
  Category category(EventRef r) const { return category(r.track, r.index); }
  bool is_communication(uint32_t track, uint32_t index) const {
    return category(track, index) == Category::kCommunication;
  }

 private:
  const Trace& trace_;
  std::vector<uint8_t> kernel_comm_;   // per kernel detail index: 1 if annotated as a collective
  mutable std::vector<int8_t> name_comm_;  // per StringId: -1 unknown, 0 no, 1 yes
};

}  // namespace parascope
