#include "sim/workload.h"

namespace parascope::sim {

uint64_t Workload::messages() const {
  uint64_t n = 0;
  for (const Actor& a : actors) {
    auto count = [](const std::vector<Op>& ops) {
      uint64_t k = 0;
      for (const Op& op : ops) k += op.kind == OpKind::kSend || op.kind == OpKind::kPut;
      return k;
    };
    const Program& p = programs.at(a.program);
    n += count(p.prologue) + (count(p.head) + count(p.steps) * p.step_repeat + count(p.tail)) * p.iterations +
         count(p.epilogue);
  }
  return n;
}


}  // namespace parascope::sim
