// A process recorded as one rank of a larger world under the stand-in process group
// (`record --world N`, trace/io/standin_records.h): its rank, the world's size and every process
// group the program created (members or not, in creation order, which is the same on every
// rank). Its collectives are CollectiveInfo rows whose kernel is a zero-length slice on the
// group's stand-in stream; nothing in them was measured but what the program asked for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parascope {

struct RecordedGroup {
  std::vector<int32_t> ranks;  // global ranks in group-rank order
  int32_t rank = -1;           // this process's group rank, -1: not a member
  std::string name, desc;      // torch's group name ("0", "1", ...) and description
};

struct RecordedWorld {
  uint32_t process = 0;        // Trace::processes index
  int32_t rank = -1;
  int32_t world_size = 0;
  std::string asked_backend;   // what the program asked init_process_group for ("nccl")
  std::string torch_version;
  std::vector<RecordedGroup> groups;  // by the stand-in's group id
};

}  // namespace parascope
