// Point-to-point transfer mechanisms between two GPUs, the building blocks every collective and
// fused kernel uses and the data the simulator is calibrated with:
//   ce        cudaMemcpyPeerAsync (copy engine, no SMs)
//   tma       bulk copies (cp.async.bulk): local global → shared → peer global, one thread per
//             block, 8 stages of 16 KiB, 4 loads ahead
//   tma_pull  the same pipeline run by the receiving GPU: peer global → shared → local global
//   ldst_push 16-byte loads of local memory, 16-byte stores to the peer (1024 threads/block unless
//             the config asks for fewer: the collectives run 512)
//   ldst_pull 16-byte loads of peer memory (through L2 only), 16-byte stores to local memory
// uni: data flows a → b; bi: a → b and b → a at once. SM mechanisms use `sms` blocks with one
// block per SM guaranteed (shared memory reserved beyond half an SM's).
#pragma once

#include <cstdint>
#include <string>

#include "device/gpu_context.h"
#include "device/op.h"
#include "trace/core/probe_record.h"

namespace parascope::bench {

enum class P2PMech { kCe, kTma, kLdstPush, kLdstPull, kTmaPull };
const char* p2p_mech_name(P2PMech m);  // "ce", "tma", "ldst_push", "ldst_pull", "tma_pull"

inline constexpr int kLdstThreads = 1024;
inline constexpr int kTmaThreads = 32;
inline constexpr uint32_t kTmaTile = 16 * 1024;
inline constexpr int kTmaStages = 8;
inline constexpr int kTmaAhead = 4;
// Dynamic shared memory that leaves room for one block per SM only (H100/H200: 228 KiB per SM).
inline constexpr int kOneBlockPerSmSmem = 116 * 1024;

// Device-side copy launchers (also used by the fused kernels' communication).
void launch_ldst_copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t s,
                      ProbeBufferHeader* probe = nullptr, uint32_t tag = 0, int threads = kLdstThreads);
void launch_tma_copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t s,
                     ProbeBufferHeader* probe = nullptr, uint32_t tag = 0);

struct P2PConfig {
  P2PMech mech = P2PMech::kCe;
  bool bidirectional = false;
  uint64_t bytes = 0;
  int sms = 0;  // ignored for ce
  int threads = 0;  // LD/ST threads per block (32..1024, a multiple of 32); 0: kLdstThreads
};

class P2POp : public Op {
 public:
  // src/dst: symmetric buffers of at least cfg.bytes; GPUs a and b.
  P2POp(GpuContext& ctx, const SymBuffer& src, const SymBuffer& dst, P2PConfig cfg, int a = 0, int b = 1);
  std::string name() const override;
  std::vector<int> devices() const override;
  void enqueue() override;
  int threads() const;
  void set_probe(ProbeBufferHeader* on_a, ProbeBufferHeader* on_b) { probe_a_ = on_a, probe_b_ = on_b; }
  const P2PConfig& config() const { return cfg_; }

 private:
  void one_way(int from, int to, ProbeBufferHeader* probe);
  GpuContext& ctx_;
  SymBuffer src_, dst_;
  P2PConfig cfg_;
  int a_, b_;
  ProbeBufferHeader* probe_a_ = nullptr;
  ProbeBufferHeader* probe_b_ = nullptr;
};

// Loads the kernels and raises their shared-memory limits on the current device.
void preload_p2p_kernels();

}  // namespace parascope::bench
