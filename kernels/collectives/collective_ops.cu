#include "collectives/collective_ops.h"

#include <nccl.h>

#include <algorithm>

#include "device/cuda_check.h"
#include "device/sync_ops.h"
#include "host/partition.h"
#include "host/size_spec.h"
#include "p2p/p2p.h"

namespace parascope::bench {

namespace {

constexpr uint64_t kCeMinPiece = 4ull << 20;  // copy-engine pipeline pieces: ≥ 4 MiB, ≤ 16 of them
constexpr int kCeMaxPieces = 16;
static_assert(kCeMaxPieces <= kSyncCounterSlots, "one signal slot per copy-engine piece");
// Event pool layout of the copy-engine variants (per GPU).
constexpr int kEvFork = 0, kEvIn = 1, kEvReduced = 1 + kCeMaxPieces, kEvJoin0 = 1 + 2 * kCeMaxPieces,
              kEvJoin1 = kEvJoin0 + 1, kEvJoin2 = kEvJoin0 + 2;

char* at(const SymBuffer& b, int r, uint64_t off = 0) { return b.at<char>(r) + off; }

ncclDataType_t nccl_type(DType t) { return t == DType::kF32 ? ncclFloat32 : ncclBfloat16; }

}  // namespace

CollResources alloc_coll_resources(GpuContext& ctx, uint64_t max_bytes) {
  CollResources r;
  r.max_bytes = max_bytes;
  r.in = ctx.alloc(max_bytes);
  r.out = ctx.alloc(max_bytes);
  r.scratch = ctx.alloc(max_bytes);
  r.small = ctx.alloc(oneshot_push_scratch_bytes(ctx.n()));
  r.ll = ctx.alloc(ll_scratch_bytes(ctx.n()));
  return r;
}

CollResources with_nccl_symmetric(GpuContext& ctx, const CollResources& base) {
  CollResources r = base;
  r.symm = std::make_shared<NcclSymmetric>(ctx, base.max_bytes);
  if (r.symm->problem().empty()) {
    r.in = r.symm->in();
    r.out = r.symm->out();
  }
  return r;
}

bool needs_nccl_symmetric(const std::string& variant) { return variant == "nccl_symm" || variant == "nccl_dev"; }

std::vector<std::string> collective_variants(Collective op) {
  switch (op) {
    case Collective::kAllReduce:
      return {"oneshot_ll", "oneshot_ll_pdl", "oneshot_push", "oneshot_pull", "twoshot_ldst", "twoshot_tma", "ce",
              "ce_push", "ce_ldst", "nccl", "nccl_symm", "nccl_dev"};
    case Collective::kAllGather: return {"ldst", "tma", "ce", "nccl", "nccl_symm"};
    case Collective::kReduceScatter: return {"ldst", "tma", "pull", "ce", "ce_push", "nccl", "nccl_symm"};
    case Collective::kAllToAll: return {"ldst", "ce", "nccl"};
    case Collective::kSendRecv: return {"nccl"};
    case Collective::kCopy: return {};
  }
  return {};
}

Collective parse_collective(const std::string& name) {
  for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll,
                       Collective::kSendRecv})
    if (collective_name(c) == name) return c;
  throw UsageError("unknown collective '" + name + "' (all_reduce, all_gather, reduce_scatter, all_to_all, sendrecv)");
}

CollectiveOp::CollectiveOp(GpuContext& ctx, CollResources& res, CollConfig cfg) : ctx_(ctx), res_(res), cfg_(std::move(cfg)) {}

std::string CollectiveOp::name() const {
  return std::string(collective_name(cfg_.op)) + "_" + cfg_.variant + "_" + dtype_name(cfg_.dtype) + "_" + format_bytes(cfg_.bytes);
}

std::vector<int> CollectiveOp::devices() const {
  std::vector<int> d;
  for (int r = 0; r < ctx_.n(); ++r) d.push_back(r);
  return d;
}

std::string CollectiveOp::unusable_reason() const {
  const int n = ctx_.n();
  if (n < 2) return "needs at least 2 GPUs";
  if (cfg_.bytes > res_.max_bytes) return "larger than the allocated buffers";
  const auto variants = collective_variants(cfg_.op);
  if (std::find(variants.begin(), variants.end(), cfg_.variant) == variants.end())
    return "no variant '" + cfg_.variant + "' for " + std::string(collective_name(cfg_.op));
  if (cfg_.op != Collective::kSendRecv)
    if (auto p = collective_size_problem(cfg_.bytes, dtype_size(cfg_.dtype), n)) return *p;
  if (cfg_.variant == "oneshot_push" && cfg_.bytes > kOneShotPushMaxBytes) return "oneshot_push is for messages up to 1 MiB";
  if (cfg_.variant.rfind("oneshot_ll", 0) == 0 && cfg_.bytes > kLlMaxBytes) return "oneshot_ll is for messages up to 256 KiB";
  if (needs_nccl_symmetric(cfg_.variant)) {
    if (!res_.symm) return cfg_.variant + " needs NCCL symmetric windows (with_nccl_symmetric)";
    if (!res_.symm->problem().empty()) return "NCCL symmetric windows unavailable: " + res_.symm->problem();
    if (cfg_.variant == "nccl_dev" && !res_.symm->device_problem().empty())
      return "NCCL device API unavailable: " + res_.symm->device_problem();
    if (cfg_.variant == "nccl_dev" && cfg_.bytes % (16ull * static_cast<uint64_t>(n)) != 0)
      return "nccl_dev needs a multiple of 16 x N bytes";
  }
  return {};
}

std::string CollectiveOp::mechanism() const {
  const std::string& v = cfg_.variant;
  if (v.rfind("nccl", 0) == 0) return "nccl";
  if (v == "ce" || v == "ce_push") return "ce";
  if (v == "ce_ldst") return "ce";  // copy engine out, SM stores back
  if (v == "oneshot_pull" || v == "pull") return "ldst_pull";
  if (v.rfind("oneshot_ll", 0) == 0) return "ldst_push";
  if (v.find("tma") != std::string::npos) return "tma";
  return "ldst_push";
}

int CollectiveOp::sms_used() const {
  const int n = ctx_.n();
  const uint64_t per_rank = cfg_.bytes / static_cast<uint64_t>(n);
  const std::string& v = cfg_.variant;
  if (v == "oneshot_push") return kOneShotPushBlocks;
  if (v == "nccl_dev") return NcclSymmetric::blocks(cfg_.bytes, n);
  if (v.rfind("oneshot_ll", 0) == 0) return ll_blocks(cfg_.bytes);
  if (v == "pull") return coll_blocks_pull(per_rank / 16, cfg_.ldst_sms);
  if (v == "oneshot_pull") return coll_blocks_ldst(cfg_.bytes / 16, cfg_.ldst_sms);
  if (v == "twoshot_ldst" || v == "ldst") return coll_blocks_ldst(per_rank / 16, cfg_.ldst_sms);
  if (v == "twoshot_tma" || (v == "tma" && cfg_.op == Collective::kReduceScatter))
    return coll_blocks_tma(per_rank, kCollTile, cfg_.tma_sms);
  if (v == "tma") return coll_blocks_tma(per_rank, kTmaTile, cfg_.tma_sms);
  return 0;
}

int CollectiveOp::threads() const {
  const std::string& v = cfg_.variant;
  if (v == "nccl_dev") return kNcclDevThreads;
  if (v.rfind("nccl", 0) == 0 || v == "ce" || v == "ce_push" || v == "ce_ldst") return 0;
  if (v.rfind("oneshot_ll", 0) == 0) return kLlThreads;
  if (v == "twoshot_tma" || (v == "tma" && cfg_.op == Collective::kReduceScatter)) return kCollTmaThreads;
  if (v == "tma") return kTmaThreads;
  return kCollThreads;
}

uint64_t CollectiveOp::input_elems() const {
  const uint64_t elems = cfg_.bytes / static_cast<uint64_t>(dtype_size(cfg_.dtype));
  return cfg_.op == Collective::kAllGather ? elems / static_cast<uint64_t>(ctx_.n()) : elems;
}

uint64_t CollectiveOp::output_bytes() const {
  return cfg_.op == Collective::kReduceScatter ? cfg_.bytes / static_cast<uint64_t>(ctx_.n()) : cfg_.bytes;
}

CheckSpec CollectiveOp::check_spec(int rank, uint64_t seed) const {
  CheckSpec s;
  s.dtype = cfg_.dtype;
  s.seed = seed;
  s.rank = rank;
  s.nranks = ctx_.n();
  const uint64_t elems = cfg_.bytes / static_cast<uint64_t>(dtype_size(cfg_.dtype));
  const uint64_t per = elems / static_cast<uint64_t>(ctx_.n());
  switch (cfg_.op) {
    case Collective::kAllReduce: s.kind = CheckKind::kAllReduce; s.count = elems; break;
    case Collective::kAllGather: s.kind = CheckKind::kAllGather; s.c = per; s.count = elems; break;
    case Collective::kReduceScatter: s.kind = CheckKind::kReduceScatter; s.c = per; s.count = per; break;
    case Collective::kAllToAll: s.kind = CheckKind::kAllToAll; s.c = per; s.count = elems; break;
    case Collective::kSendRecv: s.kind = CheckKind::kSendRecv; s.count = elems; break;
    case Collective::kCopy: break;
  }
  return s;
}

CollBuffers CollectiveOp::buffers() const {
  CollBuffers b{};
  for (int r = 0; r < ctx_.n(); ++r) {
    b.in[r] = res_.in.at(r);
    b.out[r] = res_.out.at(r);
    b.scratch[r] = res_.scratch.at(r);
    b.small[r] = res_.small.at(r);
    b.ll[r] = res_.ll.at(r);
  }
  return b;
}

void CollectiveOp::prepare() {
  if (cfg_.variant.rfind("nccl", 0) == 0) ctx_.nccl(0);
  if (cfg_.variant.rfind("oneshot_ll", 0) == 0) {
    // LL flags are epochs, which reset_sync() sets back to 0: clear every flag so that no line of
    // an earlier sequence can match a new epoch (epochs only grow from here on).
    for (int r = 0; r < ctx_.n(); ++r) {
      ctx_.set(r);
      PS_CUDA(cudaMemset(res_.ll.at(r), 0, res_.ll.bytes));
    }
    ctx_.sync_all();
  }
  if (probe_)
    for (int r = 0; r < ctx_.n(); ++r) probe(r);
}

void CollectiveOp::enqueue() {
  if (cfg_.variant == "nccl" || cfg_.variant == "nccl_symm") {  // nccl_symm: the same calls on windows
    enqueue_nccl();
    return;
  }
  if (cfg_.variant == "nccl_dev") {
    for (int r = 0; r < ctx_.n(); ++r) {
      ctx_.set(r);
      res_.symm->launch_all_reduce(r, cfg_.dtype, cfg_.bytes, ctx_.stream(r));
    }
    return;
  }
  for (int r = 0; r < ctx_.n(); ++r) {
    ctx_.set(r);
    if (cfg_.variant == "ce") enqueue_ce(r);
    else if (cfg_.variant == "ce_push" || cfg_.variant == "ce_ldst") enqueue_ce_push(r);
    else enqueue_ours(r);
  }
}

void CollectiveOp::enqueue_ours(int r) {
  const CollBuffers b = buffers();
  const cudaStream_t s = ctx_.stream(r);
  const std::string& v = cfg_.variant;
  const DType t = cfg_.dtype;
  switch (cfg_.op) {
    case Collective::kAllReduce:
      if (v == "oneshot_ll" || v == "oneshot_ll_pdl")
        launch_ar_oneshot_ll(ctx_.sync_view(r, kChOneShotLl), b, t, cfg_.bytes, v == "oneshot_ll_pdl", s, probe(r));
      else if (v == "oneshot_push") launch_ar_oneshot_push(ctx_.sync_view(r, kChOneShotPush), b, t, cfg_.bytes, s, probe(r));
      else if (v == "oneshot_pull") launch_ar_oneshot_pull(ctx_.sync_view(r, kChOneShotPull), b, t, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      else if (v == "twoshot_ldst") launch_twoshot_ldst(ctx_.sync_view(r, kChTwoShotLdst), b, t, true, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      else if (v == "twoshot_tma") launch_twoshot_tma(ctx_.sync_view(r, kChTwoShotTma), b, t, true, cfg_.bytes, cfg_.tma_sms, s, probe(r));
      break;
    case Collective::kAllGather:
      if (v == "ldst") launch_ag_ldst(ctx_.sync_view(r, kChAllGatherLdst), b, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      else if (v == "tma") launch_ag_tma(ctx_.sync_view(r, kChAllGatherTma), b, cfg_.bytes, cfg_.tma_sms, s, probe(r));
      break;
    case Collective::kReduceScatter:
      if (v == "ldst") launch_twoshot_ldst(ctx_.sync_view(r, kChReduceScatterLdst), b, t, false, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      else if (v == "tma") launch_twoshot_tma(ctx_.sync_view(r, kChReduceScatterTma), b, t, false, cfg_.bytes, cfg_.tma_sms, s, probe(r));
      else if (v == "pull") launch_rs_pull(ctx_.sync_view(r, kChReduceScatterPull), b, t, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      break;
    case Collective::kAllToAll:
      if (v == "ldst") launch_a2a_ldst(ctx_.sync_view(r, kChAllToAllLdst), b, cfg_.bytes, cfg_.ldst_sms, s, probe(r));
      break;
    default:
      throw CudaError("no kernel variant for " + name());
  }
}

// Copy-engine variants (rank r, current device r). Cross-GPU order comes from the barrier kernels
// at both ends: the first says every rank's input is ready and its output free, the last that
// every copy into and out of this rank has finished.
void CollectiveOp::enqueue_ce(int r) {
  const int n = ctx_.n();
  const cudaStream_t s = ctx_.stream(r), a0 = ctx_.aux(r, 0), a1 = ctx_.aux(r, 1);
  const SyncView sv = ctx_.sync_view(r, kChBarrier);
  const uint64_t esz = static_cast<uint64_t>(dtype_size(cfg_.dtype));
  const uint64_t cb = cfg_.bytes / static_cast<uint64_t>(n);  // per rank (or per pair) bytes
  auto fork = [&] {
    PS_CUDA(cudaEventRecord(ctx_.event(r, kEvFork), s));
    PS_CUDA(cudaStreamWaitEvent(a0, ctx_.event(r, kEvFork), 0));
    PS_CUDA(cudaStreamWaitEvent(a1, ctx_.event(r, kEvFork), 0));
  };
  auto join = [&] {
    PS_CUDA(cudaEventRecord(ctx_.event(r, kEvJoin0), a0));
    PS_CUDA(cudaEventRecord(ctx_.event(r, kEvJoin1), a1));
    PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, kEvJoin0), 0));
    PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, kEvJoin1), 0));
  };
  launch_barrier(sv, s, probe(r), 0);
  fork();
  switch (cfg_.op) {
    case Collective::kAllReduce:
    case Collective::kReduceScatter: {
      const bool ar = cfg_.op == Collective::kAllReduce;
      // pull chunk r of every peer's input into scratch slot p, reduce, (all-reduce) push back
      const auto pieces = split_pieces({0, cb}, pipeline_pieces(cb, kCeMinPiece, kCeMaxPieces), 16);
      for (size_t i = 0; i < pieces.size(); ++i) {
        const Range pc = pieces[i];
        for (int p : peer_order(r, n))
          PS_CUDA(cudaMemcpyPeerAsync(at(res_.scratch, r, p * cb + pc.begin), r, at(res_.in, p, r * cb + pc.begin), p,
                                      pc.size(), a0));
        PS_CUDA(cudaEventRecord(ctx_.event(r, kEvIn + static_cast<int>(i)), a0));
        PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, kEvIn + static_cast<int>(i)), 0));
        const void* srcs[kMaxRanks];
        int k = 0;
        for (int p = 0; p < n; ++p)
          srcs[k++] = p == r ? static_cast<const void*>(at(res_.in, r, r * cb + pc.begin))
                             : static_cast<const void*>(at(res_.scratch, r, p * cb + pc.begin));
        char* dst = ar ? at(res_.out, r, r * cb + pc.begin) : at(res_.out, r, pc.begin);
        launch_local_reduce(cfg_.dtype, dst, srcs, n, pc.size() / esz, s);
        if (ar) {
          PS_CUDA(cudaEventRecord(ctx_.event(r, kEvReduced + static_cast<int>(i)), s));
          PS_CUDA(cudaStreamWaitEvent(a1, ctx_.event(r, kEvReduced + static_cast<int>(i)), 0));
          for (int p : peer_order(r, n))
            PS_CUDA(cudaMemcpyPeerAsync(at(res_.out, p, r * cb + pc.begin), p, dst, r, pc.size(), a1));
        }
      }
      break;
    }
    case Collective::kAllGather:
      for (int p : peer_order(r, n)) PS_CUDA(cudaMemcpyPeerAsync(at(res_.out, r, p * cb), r, at(res_.in, p), p, cb, a0));
      PS_CUDA(cudaMemcpyAsync(at(res_.out, r, r * cb), at(res_.in, r), cb, cudaMemcpyDeviceToDevice, a1));
      break;
    case Collective::kAllToAll:
      for (int p : peer_order(r, n))
        PS_CUDA(cudaMemcpyPeerAsync(at(res_.out, r, p * cb), r, at(res_.in, p, r * cb), p, cb, a0));
      PS_CUDA(cudaMemcpyAsync(at(res_.out, r, r * cb), at(res_.in, r, r * cb), cb, cudaMemcpyDeviceToDevice, a1));
      break;
    default:
      throw CudaError("no copy-engine variant for " + name());
  }
  join();
  launch_barrier(sv, s, probe(r), 1);
}

// Copy-engine push variants (all-reduce, reduce-scatter; rank r, current device r). Per piece i:
//   aux 0: my chunk p piece i → rank p's scratch slot r (copy engine, push); event
//   aux 2: waits for that event, then adds 1 to counters[i][r] on rank p (signal kernel)
//   main:  waits until every peer's piece i has been counted here (wait kernel), reduces piece i
//          in rank order; ce_ldst: the reduction kernel also stores the result to every peer;
//   aux 1: (ce_push all-reduce) waits for the reduction, pushes the result to every peer (copy engine).
// A barrier first (every peer finished its previous op: scratch and output free) and, for the
// all-reduce, a barrier last (every push into my output has finished).
void CollectiveOp::enqueue_ce_push(int r) {
  const int n = ctx_.n();
  const bool ar = cfg_.op == Collective::kAllReduce;
  const bool sm_back = cfg_.variant == "ce_ldst";
  if (!ar && cfg_.op != Collective::kReduceScatter) throw CudaError("no copy-engine push variant for " + name());
  if (sm_back && !ar) throw CudaError("ce_ldst is an all-reduce variant");
  const cudaStream_t s = ctx_.stream(r), a0 = ctx_.aux(r, 0), a1 = ctx_.aux(r, 1), a2 = ctx_.aux(r, 2);
  const SyncView bar = ctx_.sync_view(r, kChBarrier), sig = ctx_.sync_view(r, kChCeSignal);
  const uint64_t esz = static_cast<uint64_t>(dtype_size(cfg_.dtype));
  const uint64_t cb = cfg_.bytes / static_cast<uint64_t>(n);
  const auto pieces = split_pieces({0, cb}, pipeline_pieces(cb, kCeMinPiece, kCeMaxPieces), 16);
  launch_barrier(bar, s, probe(r), 0);
  PS_CUDA(cudaEventRecord(ctx_.event(r, kEvFork), s));
  for (cudaStream_t a : {a0, a1, a2}) PS_CUDA(cudaStreamWaitEvent(a, ctx_.event(r, kEvFork), 0));
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Range pc = pieces[i];
    const int slot = static_cast<int>(i);
    for (int p : peer_order(r, n))
      PS_CUDA(cudaMemcpyPeerAsync(at(res_.scratch, p, r * cb + pc.begin), p, at(res_.in, r, p * cb + pc.begin), r, pc.size(), a0));
    PS_CUDA(cudaEventRecord(ctx_.event(r, kEvIn + slot), a0));
    PS_CUDA(cudaStreamWaitEvent(a2, ctx_.event(r, kEvIn + slot), 0));
    for (int p : peer_order(r, n)) launch_signal(sig, a2, slot, p);
    for (int p : peer_order(r, n)) launch_wait(sig, s, slot, p, 1, probe(r), 2);
    const void* srcs[kMaxRanks];
    for (int p = 0; p < n; ++p)
      srcs[p] = p == r ? static_cast<const void*>(at(res_.in, r, r * cb + pc.begin))
                       : static_cast<const void*>(at(res_.scratch, r, p * cb + pc.begin));
    char* dst = ar ? at(res_.out, r, r * cb + pc.begin) : at(res_.out, r, pc.begin);
    if (sm_back) {
      void* remote[kMaxRanks];
      int k = 0;
      for (int p : peer_order(r, n)) remote[k++] = at(res_.out, p, r * cb + pc.begin);
      launch_reduce_push(cfg_.dtype, dst, remote, k, srcs, n, pc.size() / esz, s);
    } else {
      launch_local_reduce(cfg_.dtype, dst, srcs, n, pc.size() / esz, s);
      if (ar) {
        PS_CUDA(cudaEventRecord(ctx_.event(r, kEvReduced + slot), s));
        PS_CUDA(cudaStreamWaitEvent(a1, ctx_.event(r, kEvReduced + slot), 0));
        for (int p : peer_order(r, n)) PS_CUDA(cudaMemcpyPeerAsync(at(res_.out, p, r * cb + pc.begin), p, dst, r, pc.size(), a1));
      }
    }
  }
  PS_CUDA(cudaEventRecord(ctx_.event(r, kEvJoin0), a0));
  PS_CUDA(cudaEventRecord(ctx_.event(r, kEvJoin1), a1));
  PS_CUDA(cudaEventRecord(ctx_.event(r, kEvJoin2), a2));
  for (int j : {kEvJoin0, kEvJoin1, kEvJoin2}) PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, j), 0));
  if (ar) launch_barrier(bar, s, probe(r), 1);
}

void CollectiveOp::enqueue_nccl() {
  const int n = ctx_.n();
  const uint64_t esz = static_cast<uint64_t>(dtype_size(cfg_.dtype));
  const uint64_t elems = cfg_.bytes / esz;
  const ncclDataType_t dt = nccl_type(cfg_.dtype);
  for (int r = 0; r < n; ++r) ctx_.nccl(r);
  if (cfg_.op == Collective::kAllToAll) {  // the block a rank keeps: a local copy, not a send to itself
    const uint64_t per_bytes = cfg_.bytes / static_cast<uint64_t>(n);
    for (int r = 0; r < n; ++r) {
      ctx_.set(r);
      PS_CUDA(cudaMemcpyAsync(at(res_.out, r, r * per_bytes), at(res_.in, r, r * per_bytes), per_bytes,
                              cudaMemcpyDeviceToDevice, ctx_.stream(r)));
    }
  }
  PS_NCCL(ncclGroupStart());
  for (int r = 0; r < n; ++r) {
    ctx_.set(r);
    const cudaStream_t s = ctx_.stream(r);
    ncclComm_t c = ctx_.nccl(r);
    switch (cfg_.op) {
      case Collective::kAllReduce:
        PS_NCCL(ncclAllReduce(res_.in.at(r), res_.out.at(r), elems, dt, ncclSum, c, s));
        break;
      case Collective::kAllGather:
        PS_NCCL(ncclAllGather(res_.in.at(r), res_.out.at(r), elems / static_cast<uint64_t>(n), dt, c, s));
        break;
      case Collective::kReduceScatter:
        PS_NCCL(ncclReduceScatter(res_.in.at(r), res_.out.at(r), elems / static_cast<uint64_t>(n), dt, ncclSum, c, s));
        break;
      case Collective::kAllToAll: {
        const uint64_t per = elems / static_cast<uint64_t>(n);
        for (int p = 0; p < n; ++p) {
          if (p == r) continue;
          PS_NCCL(ncclSend(at(res_.in, r, p * per * esz), per, dt, p, c, s));
          PS_NCCL(ncclRecv(at(res_.out, r, p * per * esz), per, dt, p, c, s));
        }
        break;
      }
      case Collective::kSendRecv:
        PS_NCCL(ncclSend(res_.in.at(r), elems, dt, (r + 1) % n, c, s));
        PS_NCCL(ncclRecv(res_.out.at(r), elems, dt, (r - 1 + n) % n, c, s));
        break;
      case Collective::kCopy:
        break;
    }
  }
  PS_NCCL(ncclGroupEnd());
}

}  // namespace parascope::bench
