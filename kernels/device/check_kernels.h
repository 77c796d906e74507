// Correctness checks on the GPU: fill inputs with test_data.h values for a fresh seed, poison
// outputs (all bits set: NaN in fp32 and bf16), and verify outputs against the reference values —
// on the device for any size, and additionally on the host (a copy of the output, checked by the
// CI-tested code in host/reference_check.cpp) for outputs up to kHostCheckMaxBytes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "host/reference_check.h"

namespace parascope::bench {

inline constexpr uint64_t kHostCheckMaxBytes = 4ull << 20;

// A seed never used before in this process (random_device mixed with a counter).
uint64_t fresh_seed();

// Enqueues: buf[i] = value(seed, stream_id, i) for i < count, stored as `t`.
void enqueue_fill(void* buf, DType t, uint64_t seed, uint32_t stream_id, uint64_t count, cudaStream_t s);
// Enqueues the poison pattern over `bytes`.
void enqueue_poison(void* buf, uint64_t bytes, cudaStream_t s);

struct CheckSpec {
  CheckKind kind = CheckKind::kAllReduce;
  DType dtype = DType::kF32;
  uint64_t seed = 0;
  int rank = 0, nranks = 1;
  uint64_t c = 0;  // per-rank / per-pair count as CheckKind defines
  int aux = 0;     // source rank of kCopyFrom
  uint64_t count = 0;  // output elements to check
};

// Verifies `out` (on the current device) on the device; synchronises. When the output is at most
// kHostCheckMaxBytes, also copies it back and checks it on the host; the verdict is the worse one.
CheckVerdict verify_output(const void* out, const CheckSpec& spec, cudaStream_t s);

void preload_check_kernels();

}  // namespace parascope::bench
