// An operation the harness can check and time: it enqueues one instance of itself on every
// participating GPU's main stream (forking to that GPU's helper streams and joining back inside
// the call), with every cross-GPU dependency inside its kernels or sync kernels — never a host
// wait — so one CUDA graph per GPU can hold K instances and replay them.
#pragma once

#include <string>
#include <vector>

namespace parascope::bench {

class Op {
 public:
  virtual ~Op() = default;
  virtual std::string name() const = 0;
  // GPUs that run work (others idle); default: all.
  virtual std::vector<int> devices() const = 0;
  // One instance on every participating GPU; NCCL ops group their calls here.
  virtual void enqueue() = 0;
  // Runs before capture/timing: loads kernels, picks GEMM algorithms, warms libraries.
  virtual void prepare() {}
};

}  // namespace parascope::bench
