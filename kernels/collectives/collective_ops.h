// Every collective variant as an Op the harness can check and time, ours and NCCL's, on shared
// buffers sized once for the largest message. Variants (bytes: stats.h convention):
//   all_reduce     oneshot_ll, oneshot_ll_pdl (≤ 256 KiB), oneshot_push (≤ 1 MiB), oneshot_pull,
//                  twoshot_ldst, twoshot_tma, ce, ce_push, ce_ldst, nccl, nccl_symm, nccl_dev
//   all_gather     ldst, tma, ce, nccl, nccl_symm
//   reduce_scatter ldst, tma, pull, ce, ce_push, nccl, nccl_symm
//   all_to_all     ldst, ce, nccl
//   sendrecv       nccl (rank r sends to r+1, receives from r-1)
// Copy-engine variants: a barrier kernel, cudaMemcpyPeerAsync on helper streams (pipelined in
// pieces with the local reduction kernel for reductions), a barrier kernel. `ce` pulls the peers'
// pieces; `ce_push` pushes mine into the peers' scratch and signals each piece (signal kernels on a
// third helper stream, wait kernels before each reduction), all-reduce results pushed back by the
// copy engine; `ce_ldst` is ce_push whose reduction kernel stores the result to the peers itself.
// Library baselines: `nccl` (host calls on ordinary buffers), `nccl_symm` and `nccl_dev` (NCCL's
// symmetric-memory kernels and its device API, collectives/nccl_symmetric.h): the last two need the
// resources of with_nccl_symmetric(), whose input and output are NCCL windows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/nccl_symmetric.h"
#include "device/check_kernels.h"
#include "device/gpu_context.h"
#include "device/op.h"
#include "device/probe_session.h"
#include "host/stats.h"

namespace parascope::bench {

struct CollResources {
  SymBuffer in, out, scratch, small, ll;
  uint64_t max_bytes = 0;
  std::shared_ptr<NcclSymmetric> symm;  // set by with_nccl_symmetric: in/out are its windows
};
// Buffers for messages up to max_bytes on ctx's GPUs.
CollResources alloc_coll_resources(GpuContext& ctx, uint64_t max_bytes);
// `base` with input and output replaced by NCCL symmetric windows of the same size (scratch
// shared). When NCCL refuses, in/out stay base's and symm->problem() says why.
CollResources with_nccl_symmetric(GpuContext& ctx, const CollResources& base);
// nccl_symm and nccl_dev run on with_nccl_symmetric's resources.
bool needs_nccl_symmetric(const std::string& variant);

struct CollConfig {
  Collective op = Collective::kAllReduce;
  std::string variant;  // see the list above
  DType dtype = DType::kBF16;
  uint64_t bytes = 0;
  int ldst_sms = 132;   // block limit of LD/ST variants
  int tma_sms = kDefaultTmaSms;
};

std::vector<std::string> collective_variants(Collective op);  // ours first, NCCL's last
Collective parse_collective(const std::string& name);         // throws UsageError

class CollectiveOp : public Op {
 public:
  CollectiveOp(GpuContext& ctx, CollResources& res, CollConfig cfg);
  std::string name() const override;
  std::vector<int> devices() const override;
  void enqueue() override;
  void prepare() override;

  // Empty when the variant can run this size on this many GPUs, else why not.
  std::string unusable_reason() const;
  std::string mechanism() const;  // ldst_push, ldst_pull, tma, ce, nccl
  int sms_used() const;           // blocks our kernels use (0: copy engine / library)
  int threads() const;
  uint64_t input_elems() const;   // per rank
  uint64_t output_bytes() const;  // per rank
  CheckSpec check_spec(int rank, uint64_t seed) const;
  void set_probe(ProbeSession* s) { probe_ = s; }
  const CollConfig& config() const { return cfg_; }

 private:
  CollBuffers buffers() const;
  void enqueue_ours(int r);
  void enqueue_ce(int r);
  void enqueue_ce_push(int r);
  void enqueue_nccl();
  ProbeBufferHeader* probe(int r) const { return probe_ ? probe_->buffer(r, name()) : nullptr; }

  GpuContext& ctx_;
  CollResources& res_;
  CollConfig cfg_;
  ProbeSession* probe_ = nullptr;
};

}  // namespace parascope::bench
