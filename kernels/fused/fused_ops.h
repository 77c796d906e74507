// Compute + communication with a real GEMM (cuBLASLt, bf16), on N GPUs of one process.
//
// all-gather + GEMM (column-parallel linear): A [M, K] sharded on M, rank r holds rows
// rank_chunk(M, n, r); W_r [N/n, K]; C_r [M, N/n] = A · W_rᵀ. The fused variants GEMM the local
// rows at once while the rank's rows travel to every peer in `chunks` chunks; each peer chunk is
// GEMMed as soon as its signal arrives (inter-SM overlap: communication on `comm_sms` SMs that the
// GEMM is told to leave free, or on the copy engines).
//
// GEMM + reduce-scatter (row-parallel linear): A_r [M, K/n] (K sharded), W_r [N, K/n]; out_r =
// rows rank_chunk(M, n, r) of Σ_p A_p · W_pᵀ. The peers' row blocks are computed first and sent
// (inter-SM: chunk by chunk by push kernels or copy engines; intra-SM "fused_epilogue": the GEMM's
// own epilogue stores them straight into the peer's receive buffer); the own rows come last, with
// the received partial added by the GEMM (beta = 1).
//
// Variants: gemm_only (alone, all SMs), gemm_sm (alone, SM target SMs − comm_sms), nccl_comm,
// seq_nccl (NCCL + cuBLAS in sequence: the baseline), comm_{ce,ldst,tma} (our communication
// alone), fused_{ce,ldst,tma}, fused_epilogue (GEMM + reduce-scatter only).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/gpu_context.h"
#include "device/op.h"
#include "device/probe_session.h"
#include "gemm/gemm.h"
#include "host/reference_check.h"

namespace parascope::bench {

enum class FusedKind { kAgGemm, kGemmRs };
const char* fused_kind_name(FusedKind k);  // "ag_gemm", "gemm_rs"

struct FusedShape {
  int m = 8192, n = 8192, k = 8192;  // global
  std::string label() const;         // "8192x8192x8192"
};

struct FusedConfig {
  FusedKind kind = FusedKind::kAgGemm;
  FusedShape shape;
  std::string variant;
  int comm_sms = 0;  // num_comm_sms: blocks of the communication kernels (one per SM)
  int chunks = 4;    // chunks per rank block
};

std::vector<std::string> fused_variants(FusedKind k);

// Buffers and GEMM handles of one (kind, shape), shared by its variants.
class FusedResources {
 public:
  FusedResources(GpuContext& ctx, FusedKind kind, FusedShape shape);
  FusedKind kind;
  FusedShape shape;
  int nranks;
  int ms;       // rows per rank block (M / n)
  int n_local;  // AG: N / n
  int k_local;  // RS: K / n
  SymBuffer a, w;
  SymBuffer gather;  // AG: [M, K]
  SymBuffer c;       // AG: [M, N/n]
  SymBuffer part;    // RS: [M, N] partial products
  SymBuffer recv;    // RS: [n slots][ms, N]
  SymBuffer out;     // RS: [ms, N]
  std::vector<std::unique_ptr<GemmRunner>> gemm;
};

class FusedOp : public Op {
 public:
  FusedOp(GpuContext& ctx, FusedResources& res, FusedConfig cfg);
  std::string name() const override;
  std::vector<int> devices() const override;
  void prepare() override;
  void enqueue() override;

  std::string unusable_reason() const;
  std::string mechanism() const;  // cublas, nccl, ce, ldst_push, tma, cublas_epilogue
  bool is_comm_only() const;
  // Fills inputs for a fresh seed, poisons outputs, runs once and verifies (samples of the GEMM
  // output against fp64 host references; communication-only variants exactly).
  CheckVerdict check(uint64_t seed);
  void set_probe(ProbeSession* s) { probe_ = s; }
  const FusedConfig& config() const { return cfg_; }
  double flops() const;        // GEMM flops per rank
  uint64_t comm_bytes() const; // bytes each rank sends

 private:
  void enqueue_ag(int r);
  void enqueue_rs(int r);
  void enqueue_nccl_group(bool gemm_after);
  void baseline_gemms();
  // Sends `bytes` at src (rank r) to each dst (on rank dst_rank[i]) and signals `slot` there.
  void push(int r, const void* src, const std::vector<void*>& dst, const std::vector<int>& dst_rank, uint64_t bytes,
            int slot, uint32_t tag);
  uint32_t signals_per_push() const;
  int gemm_sm_target() const;
  ProbeBufferHeader* probe(int r, const char* what) const;

  GpuContext& ctx_;
  FusedResources& res_;
  FusedConfig cfg_;
  ProbeSession* probe_ = nullptr;
};

void preload_fused_kernels();

}  // namespace parascope::bench
