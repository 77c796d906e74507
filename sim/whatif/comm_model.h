// How long a communication operation of the replay takes, and which links it loads: each distinct
// (operation, size, GPU group, knobs) is simulated once on its own by the interconnect simulator
// (collectives.h + Simulator on the sealed platform) and remembered. The cache is shared by the
// variants of a sweep (thread-safe); its key holds everything that changes the answer (the step's
// typed knob values, never their text), so two variants never see each other's numbers by mistake.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/knobs.h"
#include "sim/platform.h"
#include "sim/whatif/dep_graph.h"

namespace parascope::sim {
struct WorkloadStep;  // sim/collectives.h (kept out of this header: the GUI includes it beside Qt's `slots`)
}

namespace parascope::whatif {

struct CommTiming {
  TimeNs duration = 0;                                 // all ranks present -> last rank done
  uint32_t sms = 0;                                    // SMs it holds on each GPU while it runs
  std::vector<std::pair<uint32_t, double>> resource_bytes;  // platform resource -> bytes moved
  std::string description;                             // "allreduce ring ll128 64MiB on 2 GPUs, 16 channels"
  std::string error;                                   // why it could not be simulated (then duration = 0)
};

class CommCache {
 public:
  std::shared_ptr<const CommTiming> find(const std::string& key);
  void put(const std::string& key, std::shared_ptr<const CommTiming> t);
  size_t size();

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CommTiming>> map_;
};

// The simulator's workload step for a spec: its op, the GPUs in rank order and typed knobs (the
// user's win over the trace's values). Empty op when the spec cannot be simulated (unknown op or
// size, a traced value the simulator lacks); `why` then says so. Exposed for tests.
sim::WorkloadStep workload_step_for(const CommSpec& spec, const sim::KnobSettings& knobs, std::string* why);

class CommModel {
 public:
  // `platform_key` identifies the topology and the knobs that shaped the platform.
  CommModel(const sim::Platform& platform, std::string platform_key, const sim::KnobSettings& knobs,
            std::shared_ptr<CommCache> cache);
  std::shared_ptr<const CommTiming> timing(const CommSpec& spec);
  const sim::Platform& platform() const { return platform_; }
  uint64_t simulations() const { return simulations_; }

 private:
  const sim::Platform& platform_;
  std::string platform_key_;
  const sim::KnobSettings& knobs_;
  std::shared_ptr<CommCache> cache_;
  uint64_t simulations_ = 0;
};

}  // namespace parascope::whatif
