// How the simulator asks "when does this transfer finish?". A transfer (flow) crosses a path of
// directional resources (link directions, crossbars, NIC directions, HBM, mechanism ports, SM
// groups): it first waits its latency, then shares bandwidth with the other active flows. The engine
// calls start() as transfers are posted, next_time()/advance() to step through time, and resolve()
// once per timestamp batch. FlowModel (max-min, flow level) implements it; a packet-level backend
// (e.g. ns-3) can come later behind the same interface. Times are integer picoseconds.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "trace/core/time.h"

namespace parascope::sim {

inline constexpr TimePs kNever = std::numeric_limits<TimePs>::max();

struct PathUse {
  uint32_t resource = 0;
  double weight = 1.0;  // capacity units consumed per byte moved (1 for links)
};

struct ResourceUsage {
  double bytes = 0;     // bytes (x weight) that crossed the resource
  double peak = 0;      // highest load seen, bytes/s
};

struct LoadSample {
  TimePs time = 0;
  double load = 0;      // bytes/s from `time` until the next sample
};

class BandwidthModel {
 public:
  virtual ~BandwidthModel() = default;

  virtual uint32_t add_resource(double capacity) = 0;
  virtual size_t resource_count() const = 0;
  virtual double capacity(uint32_t resource) const = 0;
  // A path: the resources it crosses and a per-flow cap (kUnbounded for none). Interned: the same
  // uses and bound give the same id. Flows on one path are interchangeable.
  virtual uint32_t intern_path(std::span<const PathUse> uses, double bound) = 0;
  // Starts a transfer at `now`: after `latency` it shares bandwidth until `bytes` have moved.
  virtual void start(TimePs now, uint32_t path, double bytes, TimePs latency, uint64_t tag) = 0;
  // Earliest time a latency ends or a transfer completes; kNever when nothing is pending.
  virtual TimePs next_time() = 0;
  // Processes everything due at `t` (== next_time()); appends tags of completed transfers.
  virtual void advance(TimePs t, std::vector<uint64_t>& completed) = 0;
  // Recomputes rates where flows joined or left since the last call (once per timestamp batch).
  virtual void resolve(TimePs now) = 0;

  virtual const ResourceUsage& usage(uint32_t resource) const = 0;
  // Opt-in load history of a resource (for counter tracks); off by default to save memory.
  virtual void record_samples(uint32_t resource) = 0;
  virtual const std::vector<LoadSample>& samples(uint32_t resource) const = 0;
  virtual size_t active_flows() const = 0;
};

}  // namespace parascope::sim
