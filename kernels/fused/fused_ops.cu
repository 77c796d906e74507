#include "fused/fused_ops.h"

#include <cuda_bf16.h>
#include <nccl.h>

#include <algorithm>
#include <vector>

#include "collectives/collectives.h"
#include "device/check_kernels.h"
#include "device/cuda_check.h"
#include "device/sync_ops.h"
#include "device/tma_pipe.cuh"
#include "host/gemm_reference.h"
#include "host/partition.h"
#include "p2p/p2p.h"
#include "parascope/probe.cuh"

namespace parascope::bench {

namespace {

constexpr uint64_t kEsz = 2;  // bf16

// Communication kernels of the fused ops: copy `bytes` from src to every dst, then each block
// counts itself on every destination rank's counters[slot][me] (so the consumer waits for
// gridDim.x signals per push).
struct PushArgs {
  SyncView sv;
  const char* src;
  char* dst[kMaxRanks];
  int dst_rank[kMaxRanks];
  int ndst;
  uint64_t bytes;
  int slot;
  ProbeBufferHeader* probe;
  uint32_t tag;
};

__device__ __forceinline__ void signal_all(const PushArgs& a) {
  __threadfence_system();
  for (int d = 0; d < a.ndst; ++d) atomicAdd_system(&a.sv.peer[a.dst_rank[d]]->counters[a.slot][a.sv.rank], 1u);
}

__global__ void __launch_bounds__(kLdstThreads, 1) ldst_push_signal_kernel(const __grid_constant__ PushArgs a) {
  const ProbeSpan span;
  const int4* src = reinterpret_cast<const int4*>(a.src);
  const uint64_t nvec = a.bytes / 16;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  constexpr int kU = 4;
  uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  for (; i + (kU - 1) * stride < nvec; i += kU * stride) {
    int4 v[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) v[u] = src[i + u * stride];
    for (int d = 0; d < a.ndst; ++d) {
      int4* dst = reinterpret_cast<int4*>(a.dst[d]);
#pragma unroll
      for (int u = 0; u < kU; ++u) dst[i + u * stride] = v[u];
    }
  }
  for (; i < nvec; i += stride) {
    const int4 v = src[i];
    for (int d = 0; d < a.ndst; ++d) reinterpret_cast<int4*>(a.dst[d])[i] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    signal_all(a);
    span.end(a.probe, ProbeRole::kCommunicate, a.tag);
  }
}

__global__ void __launch_bounds__(kTmaThreads) tma_push_signal_kernel(const __grid_constant__ PushArgs a) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[kTmaStages];
  if (threadIdx.x != 0) return;
  const ProbeSpan span;
  TmaPipe pipe{smem, bar, kTmaTile, 0};
  tma_pipe_init<kTmaStages>(pipe);
  const uint64_t tiles = (a.bytes + kTmaTile - 1) / kTmaTile;
  const uint64_t mine = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  tma_pipe_run<kTmaStages, kTmaAhead>(pipe, mine, [&](uint64_t i) {
    const uint64_t off = (blockIdx.x + i * gridDim.x) * static_cast<uint64_t>(kTmaTile);
    TmaJob j;
    j.src = a.src + off;
    j.ndst = a.ndst;
    for (int d = 0; d < a.ndst; ++d) j.dst[d] = a.dst[d] + off;
    j.bytes = static_cast<uint32_t>(a.bytes - off < kTmaTile ? a.bytes - off : kTmaTile);
    return j;
  });
  tma_drain_stores();
  signal_all(a);
  span.end(a.probe, ProbeRole::kCommunicate, a.tag);
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

void preload_fused_kernels() {
  PS_CUDA(cudaFuncSetAttribute(ldst_push_signal_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneBlockPerSmSmem));
  PS_CUDA(cudaFuncSetAttribute(tma_push_signal_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kTmaStages * kTmaTile));
}

const char* fused_kind_name(FusedKind k) { return k == FusedKind::kAgGemm ? "ag_gemm" : "gemm_rs"; }

std::string FusedShape::label() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::vector<std::string> fused_variants(FusedKind k) {
  std::vector<std::string> v = {"gemm_only", "gemm_sm",   "nccl_comm", "seq_nccl",  "comm_ce",  "comm_ldst",
                                "comm_tma",  "fused_ce", "fused_ldst", "fused_tma"};
  if (k == FusedKind::kGemmRs) v.push_back("fused_epilogue");
  return v;
}

FusedResources::FusedResources(GpuContext& ctx, FusedKind kind_, FusedShape shape_)
    : kind(kind_), shape(shape_), nranks(ctx.n()) {
  ms = shape.m / nranks;
  n_local = shape.n / nranks;
  k_local = shape.k / nranks;
  const uint64_t m = static_cast<uint64_t>(shape.m), n = static_cast<uint64_t>(shape.n), k = static_cast<uint64_t>(shape.k);
  if (kind == FusedKind::kAgGemm) {
    a = ctx.alloc(static_cast<uint64_t>(ms) * k * kEsz);
    w = ctx.alloc(static_cast<uint64_t>(n_local) * k * kEsz);
    gather = ctx.alloc(m * k * kEsz);
    c = ctx.alloc(m * static_cast<uint64_t>(n_local) * kEsz);
  } else {
    a = ctx.alloc(m * static_cast<uint64_t>(k_local) * kEsz);
    w = ctx.alloc(n * static_cast<uint64_t>(k_local) * kEsz);
    part = ctx.alloc(m * n * kEsz);
    recv = ctx.alloc(static_cast<uint64_t>(nranks) * static_cast<uint64_t>(ms) * n * kEsz);
    out = ctx.alloc(static_cast<uint64_t>(ms) * n * kEsz);
  }
  for (int r = 0; r < nranks; ++r) gemm.push_back(std::make_unique<GemmRunner>(r));
}

FusedOp::FusedOp(GpuContext& ctx, FusedResources& res, FusedConfig cfg) : ctx_(ctx), res_(res), cfg_(std::move(cfg)) {}

std::string FusedOp::name() const {
  std::string s = std::string(fused_kind_name(cfg_.kind)) + "_" + cfg_.variant;
  if (cfg_.variant == "gemm_sm" || starts_with(cfg_.variant, "comm_l") || starts_with(cfg_.variant, "comm_t") ||
      starts_with(cfg_.variant, "fused_l") || starts_with(cfg_.variant, "fused_t"))
    s += "_" + std::to_string(cfg_.comm_sms) + "sm";
  return s + "_" + cfg_.shape.label();
}

std::vector<int> FusedOp::devices() const {
  std::vector<int> d;
  for (int r = 0; r < ctx_.n(); ++r) d.push_back(r);
  return d;
}

std::string FusedOp::unusable_reason() const {
  const int n = ctx_.n();
  const auto& s = cfg_.shape;
  if (n < 2) return "needs at least 2 GPUs";
  if (s.m % (n * static_cast<int>(kGemmRowAlign))) return "M must be a multiple of 128 x GPUs";
  if (cfg_.kind == FusedKind::kAgGemm && (s.n % (8 * n) || s.k % 8)) return "N must be a multiple of 8 x GPUs, K of 8";
  if (cfg_.kind == FusedKind::kGemmRs && (s.k % (8 * n) || s.n % 8)) return "K must be a multiple of 8 x GPUs, N of 8";
  const bool sm_variant = cfg_.variant == "gemm_sm" || cfg_.variant.find("ldst") != std::string::npos ||
                          cfg_.variant.find("tma") != std::string::npos;
  if (sm_variant && (cfg_.comm_sms < 1 || cfg_.comm_sms >= ctx_.sms())) return "comm_sms must be in [1, SMs)";
  if (cfg_.chunks < 1 || cfg_.chunks > 16) return "chunks must be 1..16";
  if (cfg_.variant == "fused_epilogue" && cfg_.kind != FusedKind::kGemmRs) return "fused_epilogue is GEMM + reduce-scatter only";
  const auto v = fused_variants(cfg_.kind);
  if (std::find(v.begin(), v.end(), cfg_.variant) == v.end()) return "unknown variant " + cfg_.variant;
  return {};
}

std::string FusedOp::mechanism() const {
  const std::string& v = cfg_.variant;
  if (starts_with(v, "gemm")) return "cublas";
  if (v == "nccl_comm" || v == "seq_nccl") return "nccl";
  if (v == "fused_epilogue") return "cublas_epilogue";
  if (v.find("ldst") != std::string::npos) return "ldst_push";
  if (v.find("tma") != std::string::npos) return "tma";
  return "ce";
}

bool FusedOp::is_comm_only() const { return cfg_.variant == "nccl_comm" || starts_with(cfg_.variant, "comm_"); }

double FusedOp::flops() const {
  const double m = cfg_.shape.m, n = cfg_.shape.n, k = cfg_.shape.k;
  return 2.0 * m * n * k / ctx_.n();
}

uint64_t FusedOp::comm_bytes() const {
  const uint64_t n = static_cast<uint64_t>(ctx_.n());
  const auto& s = cfg_.shape;
  if (cfg_.kind == FusedKind::kAgGemm) return static_cast<uint64_t>(s.m) / n * static_cast<uint64_t>(s.k) * kEsz * (n - 1);
  return static_cast<uint64_t>(s.m) / n * static_cast<uint64_t>(s.n) * kEsz * (n - 1);
}

uint32_t FusedOp::signals_per_push() const {
  return cfg_.variant.find("ce") != std::string::npos ? 1u : static_cast<uint32_t>(cfg_.comm_sms);
}

int FusedOp::gemm_sm_target() const {
  const std::string& v = cfg_.variant;
  if (v == "gemm_sm" || v == "fused_ldst" || v == "fused_tma") return ctx_.sms() - cfg_.comm_sms;
  return 0;
}

ProbeBufferHeader* FusedOp::probe(int r, const char* what) const {
  return probe_ ? probe_->buffer(r, name() + "/" + what) : nullptr;
}

namespace {
// What enqueue() does with GEMMs: run them (normal), only choose algorithms (plan), or run just
// the GEMMs once each so cuBLAS's kernels are loaded before any kernel spins on a peer (warm).
enum class Mode { kRun, kPlan, kWarm };
thread_local Mode g_mode = Mode::kRun;
}  // namespace

void FusedOp::push(int r, const void* src, const std::vector<void*>& dst, const std::vector<int>& dst_rank, uint64_t bytes,
                   int slot, uint32_t tag) {
  if (g_mode != Mode::kRun) return;
  const cudaStream_t c = ctx_.aux(r, 0);
  const SyncView sv = ctx_.sync_view(r, kChSignal);
  const std::string& v = cfg_.variant;
  if (v.find("ce") != std::string::npos) {
    for (size_t i = 0; i < dst.size(); ++i) {
      PS_CUDA(cudaMemcpyPeerAsync(dst[i], dst_rank[i], src, r, bytes, c));
      launch_signal(sv, c, slot, dst_rank[i]);
    }
    return;
  }
  PushArgs a{};
  a.sv = sv;
  a.src = static_cast<const char*>(src);
  a.ndst = static_cast<int>(dst.size());
  for (size_t i = 0; i < dst.size(); ++i) {
    a.dst[i] = static_cast<char*>(dst[i]);
    a.dst_rank[i] = dst_rank[i];
  }
  a.bytes = bytes;
  a.slot = slot;
  a.probe = probe(r, "push");
  a.tag = tag;
  if (v.find("tma") != std::string::npos)
    tma_push_signal_kernel<<<cfg_.comm_sms, kTmaThreads, kTmaStages * kTmaTile, c>>>(a);
  else
    ldst_push_signal_kernel<<<cfg_.comm_sms, kLdstThreads, kOneBlockPerSmSmem, c>>>(a);
  PS_LAUNCH();
}

void FusedOp::prepare() {
  const bool nccl = cfg_.variant == "nccl_comm" || cfg_.variant == "seq_nccl";
  if (nccl) ctx_.nccl(0);
  if (probe_)
    for (int r = 0; r < ctx_.n(); ++r) {
      probe(r, "push");
      probe(r, "wait");
      probe(r, "barrier");
    }
  try {
    for (Mode mode : {Mode::kPlan, Mode::kWarm}) {
      g_mode = mode;
      if (nccl) {
        if (cfg_.variant == "seq_nccl") baseline_gemms();
        continue;
      }
      for (int r = 0; r < ctx_.n(); ++r) {
        ctx_.set(r);
        cfg_.kind == FusedKind::kAgGemm ? enqueue_ag(r) : enqueue_rs(r);
      }
    }
  } catch (...) {
    g_mode = Mode::kRun;
    throw;
  }
  g_mode = Mode::kRun;
  ctx_.sync_all();
}

// The GEMM of the cuBLAS + NCCL baseline: the full local GEMM on all SMs.
void FusedOp::baseline_gemms() {
  const auto& s = cfg_.shape;
  for (int r = 0; r < ctx_.n(); ++r) {
    ctx_.set(r);
    if (cfg_.kind == FusedKind::kAgGemm) {
      if (g_mode == Mode::kPlan) res_.gemm[r]->prepare(s.m, res_.n_local, s.k, res_.n_local, false, 0);
      else res_.gemm[r]->run(ctx_.stream(r), res_.gather.at(r), res_.w.at(r), res_.c.at(r), nullptr, s.m, res_.n_local, s.k,
                             res_.n_local, false, 0);
    } else {
      if (g_mode == Mode::kPlan) res_.gemm[r]->prepare(s.m, s.n, res_.k_local, s.n, false, 0);
      else res_.gemm[r]->run(ctx_.stream(r), res_.a.at(r), res_.w.at(r), res_.part.at(r), nullptr, s.m, s.n, res_.k_local,
                             s.n, false, 0);
    }
  }
}

void FusedOp::enqueue() {
  const std::string& v = cfg_.variant;
  if (v == "nccl_comm" || v == "seq_nccl") {
    enqueue_nccl_group(v == "seq_nccl");
    return;
  }
  for (int r = 0; r < ctx_.n(); ++r) {
    ctx_.set(r);
    cfg_.kind == FusedKind::kAgGemm ? enqueue_ag(r) : enqueue_rs(r);
  }
}

void FusedOp::enqueue_nccl_group(bool gemm) {
  const int n = ctx_.n();
  const auto& s = cfg_.shape;
  // the baseline's GEMM comes first for GEMM + reduce-scatter, last for all-gather + GEMM
  if (gemm && cfg_.kind == FusedKind::kGemmRs) baseline_gemms();
  for (int r = 0; r < n; ++r) ctx_.nccl(r);
  PS_NCCL(ncclGroupStart());
  for (int r = 0; r < n; ++r) {
    ctx_.set(r);
    if (cfg_.kind == FusedKind::kAgGemm)
      PS_NCCL(ncclAllGather(res_.a.at(r), res_.gather.at(r), static_cast<size_t>(res_.ms) * s.k, ncclBfloat16,
                            ctx_.nccl(r), ctx_.stream(r)));
    else
      PS_NCCL(ncclReduceScatter(res_.part.at(r), res_.out.at(r), static_cast<size_t>(res_.ms) * s.n, ncclBfloat16, ncclSum,
                                ctx_.nccl(r), ctx_.stream(r)));
  }
  PS_NCCL(ncclGroupEnd());
  if (gemm && cfg_.kind == FusedKind::kAgGemm) baseline_gemms();
}

void FusedOp::enqueue_ag(int r) {
  const int n = ctx_.n();
  const auto& sh = cfg_.shape;
  const std::string& v = cfg_.variant;
  const uint64_t row_bytes = static_cast<uint64_t>(sh.k) * kEsz;
  const uint64_t c_row_bytes = static_cast<uint64_t>(res_.n_local) * kEsz;
  const cudaStream_t s = ctx_.stream(r), c = ctx_.aux(r, 0);
  const int target = gemm_sm_target();
  auto gemm = [&](const void* a, uint64_t row0, uint64_t rows) {
    char* d = res_.c.at<char>(r) + row0 * c_row_bytes;
    if (g_mode == Mode::kPlan) res_.gemm[r]->prepare(static_cast<int>(rows), res_.n_local, sh.k, res_.n_local, false, target);
    else res_.gemm[r]->run(s, a, res_.w.at(r), d, nullptr, static_cast<int>(rows), res_.n_local, sh.k, res_.n_local, false, target);
  };
  if (v == "gemm_only" || v == "gemm_sm") {
    gemm(res_.gather.at(r), 0, static_cast<uint64_t>(sh.m));
    return;
  }
  const bool fused = starts_with(v, "fused_");
  const Range own = rank_chunk(static_cast<uint64_t>(sh.m), n, r, kGemmRowAlign);
  if (g_mode == Mode::kRun) {
    PS_CUDA(cudaEventRecord(ctx_.event(r, 0), s));
    PS_CUDA(cudaStreamWaitEvent(c, ctx_.event(r, 0), 0));
    // every rank has finished its previous GEMMs (so its gather buffer is free) before any push
    launch_barrier(ctx_.sync_view(r, kChFusedBarrier), c, probe(r, "barrier"), 0);
    const auto pieces = split_pieces(own, cfg_.chunks, kGemmRowAlign);
    for (size_t j = 0; j < pieces.size(); ++j) {
      std::vector<void*> dst;
      std::vector<int> ranks;
      for (int p : peer_order(r, n)) {
        dst.push_back(res_.gather.at<char>(p) + pieces[j].begin * row_bytes);
        ranks.push_back(p);
      }
      push(r, res_.a.at<char>(r) + (pieces[j].begin - own.begin) * row_bytes, dst, ranks, pieces[j].size() * row_bytes,
           static_cast<int>(j), static_cast<uint32_t>(j));
    }
  }
  if (fused) gemm(res_.a.at(r), own.begin, own.size());
  const auto steps = ag_gemm_schedule(static_cast<uint64_t>(sh.m), n, r, cfg_.chunks, kGemmRowAlign);
  for (size_t i = 1; i < steps.size(); ++i) {
    const GemmStep& st = steps[i];
    if (g_mode == Mode::kRun)
      launch_wait(ctx_.sync_view(r, kChSignal), s, st.chunk, st.owner, signals_per_push(), probe(r, "wait"),
                  static_cast<uint32_t>(st.chunk) | static_cast<uint32_t>(st.owner) << 8);
    if (fused) gemm(res_.gather.at<char>(r) + st.rows.begin * row_bytes, st.rows.begin, st.rows.size());
  }
  if (g_mode == Mode::kRun) {
    PS_CUDA(cudaEventRecord(ctx_.event(r, 1), c));
    PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, 1), 0));
  }
}

void FusedOp::enqueue_rs(int r) {
  const int n = ctx_.n();
  const auto& sh = cfg_.shape;
  const std::string& v = cfg_.variant;
  const uint64_t a_row = static_cast<uint64_t>(res_.k_local) * kEsz;
  const uint64_t p_row = static_cast<uint64_t>(sh.n) * kEsz;
  const uint64_t slot_bytes = static_cast<uint64_t>(res_.ms) * p_row;
  const cudaStream_t s = ctx_.stream(r), c = ctx_.aux(r, 0);
  const int target = gemm_sm_target();
  const SyncView sig = ctx_.sync_view(r, kChSignal);
  const Range own = rank_chunk(static_cast<uint64_t>(sh.m), n, r, kGemmRowAlign);
  const std::vector<int> peers = peer_order(r, n);
  // rows [row0, row0 + rows) of A_r · W_rᵀ into d (+ cin when accumulating); d may be remote
  auto gemm = [&](uint64_t row0, uint64_t rows, void* d, const void* cin, int tgt) {
    if (g_mode == Mode::kPlan) {
      res_.gemm[r]->prepare(static_cast<int>(rows), sh.n, res_.k_local, sh.n, cin != nullptr, tgt);
      return;
    }
    res_.gemm[r]->run(s, res_.a.at<char>(r) + row0 * a_row, res_.w.at(r), d, cin, static_cast<int>(rows), sh.n,
                      res_.k_local, sh.n, cin != nullptr, tgt);
  };
  auto recv_at = [&](int owner, int slot, uint64_t row) {  // rank owner's receive slot, global row
    const Range rows = rank_chunk(static_cast<uint64_t>(sh.m), n, owner, kGemmRowAlign);
    return res_.recv.at<char>(owner) + static_cast<uint64_t>(slot) * slot_bytes + (row - rows.begin) * p_row;
  };
  auto add_other_slots = [&](uint64_t row0, uint64_t rows) {  // out += the slots a beta = 1 GEMM did not add
    if (g_mode != Mode::kRun || n <= 2) return;
    char* o = res_.out.at<char>(r) + (row0 - own.begin) * p_row;
    std::vector<const void*> src = {o};
    for (size_t k = 1; k < peers.size(); ++k) src.push_back(recv_at(r, peers[k], row0));
    launch_local_reduce(DType::kBF16, o, src.data(), static_cast<int>(src.size()), rows * static_cast<uint64_t>(sh.n), s);
  };
  if (v == "gemm_only" || v == "gemm_sm") {
    gemm(0, static_cast<uint64_t>(sh.m), res_.part.at(r), nullptr, target);
    return;
  }
  if (g_mode == Mode::kRun) {
    // every rank has finished reading its receive slots (previous op) before anyone writes them
    launch_barrier(ctx_.sync_view(r, kChFusedBarrier), s, probe(r, "barrier"), 0);
    PS_CUDA(cudaEventRecord(ctx_.event(r, 0), s));
    PS_CUDA(cudaStreamWaitEvent(c, ctx_.event(r, 0), 0));
  }
  if (v == "fused_epilogue") {
    // intra-SM: the GEMM's epilogue stores each peer's rows straight into that peer's slot
    for (int p : peers) {
      const Range rows = rank_chunk(static_cast<uint64_t>(sh.m), n, p, kGemmRowAlign);
      gemm(rows.begin, rows.size(), recv_at(p, r, rows.begin), nullptr, 0);
    }
    if (g_mode == Mode::kRun) {
      for (int p : peers) launch_signal(sig, s, 0, p);
      for (int p : peers) launch_wait(sig, s, 0, p, 1, probe(r, "wait"), static_cast<uint32_t>(p) << 8);
    }
    gemm(own.begin, own.size(), res_.out.at(r), recv_at(r, peers[0], own.begin), 0);
    add_other_slots(own.begin, own.size());
  } else {
    const bool fused = starts_with(v, "fused_");
    const auto steps = gemm_rs_schedule(static_cast<uint64_t>(sh.m), n, r, cfg_.chunks, kGemmRowAlign);
    int ev = 2;
    for (const GemmStep& st : steps) {
      if (st.owner == r) continue;
      if (fused) gemm(st.rows.begin, st.rows.size(), res_.part.at<char>(r) + st.rows.begin * p_row, nullptr, target);
      if (g_mode != Mode::kRun) continue;
      PS_CUDA(cudaEventRecord(ctx_.event(r, ev), s));
      PS_CUDA(cudaStreamWaitEvent(c, ctx_.event(r, ev), 0));
      ++ev;
      push(r, res_.part.at<char>(r) + st.rows.begin * p_row, {recv_at(st.owner, r, st.rows.begin)}, {st.owner},
           st.rows.size() * p_row, st.chunk, static_cast<uint32_t>(st.chunk) | static_cast<uint32_t>(st.owner) << 8);
    }
    for (const GemmStep& st : steps) {
      if (st.owner != r) continue;
      if (g_mode == Mode::kRun)
        for (int p : peers)
          launch_wait(sig, s, st.chunk, p, signals_per_push(), probe(r, "wait"),
                      static_cast<uint32_t>(st.chunk) | static_cast<uint32_t>(p) << 8);
      char* o = res_.out.at<char>(r) + (st.rows.begin - own.begin) * p_row;
      if (fused) {
        gemm(st.rows.begin, st.rows.size(), o, recv_at(r, peers[0], st.rows.begin), target);
        add_other_slots(st.rows.begin, st.rows.size());
      } else if (g_mode == Mode::kRun) {  // communication alone: out = own partial + received partials
        std::vector<const void*> src = {res_.part.at<char>(r) + st.rows.begin * p_row};
        for (int p : peers) src.push_back(recv_at(r, p, st.rows.begin));
        launch_local_reduce(DType::kBF16, o, src.data(), static_cast<int>(src.size()),
                            st.rows.size() * static_cast<uint64_t>(sh.n), s);
      }
    }
  }
  if (g_mode == Mode::kRun) {
    PS_CUDA(cudaEventRecord(ctx_.event(r, 1), c));
    PS_CUDA(cudaStreamWaitEvent(s, ctx_.event(r, 1), 0));
  }
}

CheckVerdict FusedOp::check(uint64_t seed) {
  const int n = ctx_.n();
  const auto& sh = cfg_.shape;
  const std::string& v = cfg_.variant;
  const uint64_t m = static_cast<uint64_t>(sh.m);
  ctx_.sync_all();
  for (int r = 0; r < n; ++r) {
    ctx_.set(r);
    const cudaStream_t s = ctx_.stream(r);
    if (cfg_.kind == FusedKind::kAgGemm) {
      enqueue_fill(res_.a.at(r), DType::kBF16, seed, static_cast<uint32_t>(r), static_cast<uint64_t>(res_.ms) * sh.k, s);
      enqueue_fill(res_.w.at(r), DType::kBF16, seed, kWeightStream + r, static_cast<uint64_t>(res_.n_local) * sh.k, s);
      if (starts_with(v, "gemm")) {
        for (int p = 0; p < n; ++p)
          enqueue_fill(res_.gather.at<char>(r) + rank_chunk(m, n, p, kGemmRowAlign).begin * sh.k * kEsz, DType::kBF16, seed,
                       static_cast<uint32_t>(p), static_cast<uint64_t>(res_.ms) * sh.k, s);
      } else {
        enqueue_poison(res_.gather.at(r), m * sh.k * kEsz, s);
      }
      if (!is_comm_only()) enqueue_poison(res_.c.at(r), m * res_.n_local * kEsz, s);
    } else {
      enqueue_fill(res_.a.at(r), DType::kBF16, seed, static_cast<uint32_t>(r), m * res_.k_local, s);
      enqueue_fill(res_.w.at(r), DType::kBF16, seed, kWeightStream + r, static_cast<uint64_t>(sh.n) * res_.k_local, s);
      if (is_comm_only()) enqueue_fill(res_.part.at(r), DType::kBF16, seed, static_cast<uint32_t>(r), m * sh.n, s);
      else enqueue_poison(res_.part.at(r), m * sh.n * kEsz, s);
      enqueue_poison(res_.recv.at(r), static_cast<uint64_t>(n) * res_.ms * sh.n * kEsz, s);
      enqueue_poison(res_.out.at(r), static_cast<uint64_t>(res_.ms) * sh.n * kEsz, s);
    }
  }
  ctx_.sync_all();
  enqueue();
  ctx_.sync_all();
  CheckVerdict worst;
  worst.ok = true;
  const auto errors = ctx_.sync_errors();
  for (size_t r = 0; r < errors.size(); ++r)
    if (errors[r]) {
      worst.ok = false;
      worst.problem = "signal/barrier timeout on GPU " + std::to_string(r);
      return worst;
    }
  auto keep = [&](CheckVerdict cv, int r) {
    if (!cv.ok && worst.ok) {
      worst = cv;
      worst.problem = "GPU " + std::to_string(r) + ": " + cv.problem;
    }
    worst.rel_l2 = std::max(worst.rel_l2, cv.rel_l2);
  };
  for (int r = 0; r < n; ++r) {
    ctx_.set(r);
    const uint64_t cs = seed ^ (0x5EEDull * static_cast<uint64_t>(r + 1));
    if (cfg_.kind == FusedKind::kAgGemm) {
      if (is_comm_only()) {
        for (int p = 0; p < n; ++p) {
          if (p == r && v != "nccl_comm") continue;  // our variants never copy the rank's own rows
          CheckSpec spec;
          spec.kind = CheckKind::kCopyFrom;
          spec.dtype = DType::kBF16;
          spec.seed = seed;
          spec.rank = r;
          spec.nranks = n;
          spec.aux = p;
          spec.count = static_cast<uint64_t>(res_.ms) * sh.k;
          keep(verify_output(res_.gather.at<char>(r) + rank_chunk(m, n, p, kGemmRowAlign).begin * sh.k * kEsz, spec,
                             ctx_.stream(r)), r);
        }
      } else {
        std::vector<uint16_t> host(m * res_.n_local);
        PS_CUDA(cudaMemcpy(host.data(), res_.c.at(r), host.size() * kEsz, cudaMemcpyDeviceToHost));
        keep(check_gemm_samples(host.data(), sh.m, res_.n_local, res_.n_local, 0, 256, cs,
                                [&](int i, int j) { return ag_gemm_reference(seed, r, n, sh.m, res_.n_local, sh.k, i, j); }),
             r);
      }
    } else {
      const Range own = rank_chunk(m, n, r, kGemmRowAlign);
      if (is_comm_only()) {
        CheckSpec spec;
        spec.kind = CheckKind::kReduceScatter;
        spec.dtype = DType::kBF16;
        spec.seed = seed;
        spec.rank = r;
        spec.nranks = n;
        spec.c = static_cast<uint64_t>(res_.ms) * sh.n;
        spec.count = spec.c;
        keep(verify_output(res_.out.at(r), spec, ctx_.stream(r)), r);
      } else if (starts_with(v, "gemm")) {
        std::vector<uint16_t> host(m * sh.n);
        PS_CUDA(cudaMemcpy(host.data(), res_.part.at(r), host.size() * kEsz, cudaMemcpyDeviceToHost));
        keep(check_gemm_samples(host.data(), sh.m, sh.n, sh.n, 0, 256, cs,
                                [&](int i, int j) { return gemm_rs_reference(seed, n, sh.n, res_.k_local, i, j, r); }),
             r);
      } else {
        std::vector<uint16_t> host(static_cast<uint64_t>(res_.ms) * sh.n);
        PS_CUDA(cudaMemcpy(host.data(), res_.out.at(r), host.size() * kEsz, cudaMemcpyDeviceToHost));
        keep(check_gemm_samples(host.data(), res_.ms, sh.n, sh.n, static_cast<int>(own.begin), 256, cs,
                                [&](int i, int j) { return gemm_rs_reference(seed, n, sh.n, res_.k_local, i, j); }),
             r);
      }
    }
  }
  return worst;
}

}  // namespace parascope::bench
