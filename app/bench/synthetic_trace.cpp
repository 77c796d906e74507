#include "bench/synthetic_trace.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "trace/core/trace_builder.h"

namespace parascope::bench {

namespace {

// Shape of one training step of one rank (times in ns).
constexpr TimeNs kOrigin = 1'764'500'000'000'000'000;  // an epoch-like clock, as Kineto's baseTimeNanoseconds gives
constexpr TimeNs kStepNs = 10'000'000;
constexpr TimeNs kSampleNs = 20'000;   // NVLink counter period
constexpr int kLayers = 8;
constexpr int kElementwisePerLayer = 3;
constexpr int kOptimizerKernels = 24;
constexpr int kTilesPerSm = 6;
constexpr int kNcclChunks = 10;
constexpr int kAllReducesPerStep = kLayers / 2;
constexpr TimeNs kOpNs = 22'000;       // CPU time per aten op (op + its launch)
constexpr TimeNs kGemmNs = 300'000;
constexpr TimeNs kElementwiseNs = 8'000;
constexpr TimeNs kNcclNs = 450'000;

int comm_sms(const SyntheticOptions& o) { return std::max(1, std::min(16, o.sms / 4)); }
int channel_sms(const SyntheticOptions& o) { return std::max(1, std::min(24, o.sms / 4)); }

uint64_t mix(uint64_t x) {  // splitmix64: deterministic jitter independent of generation order
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// A value in [1 - spread, 1 + spread).
double jitter(uint64_t seed, uint64_t a, uint64_t b, uint64_t c, double spread) {
  const uint64_t h = mix(seed ^ mix(a ^ mix(b ^ mix(c))));
  return 1.0 + spread * (2.0 * static_cast<double>(h >> 11) / 9007199254740992.0 - 1.0);
}

// SM spans one rank adds per step on SM `sm`.
int64_t sm_spans_per_step(const SyntheticOptions& o, int sm) {
  const bool comm = sm >= o.sms - comm_sms(o);
  const bool channel = sm >= o.sms - channel_sms(o);
  int64_t n = 2 * kLayers * kTilesPerSm;                     // forward GEMM + dgrad GEMM
  n += kLayers * kTilesPerSm * (comm ? 2 : 1);               // fused wgrad GEMM + reduce-scatter
  n += channel ? kAllReducesPerStep * kNcclChunks * 2 : 0;   // NCCL all-reduce chunks
  return n;
}

int64_t cpu_slices_per_step() {
  const int kernels = kLayers * (1 + kElementwisePerLayer) + kLayers * (2 + kElementwisePerLayer) + kOptimizerKernels;
  return 1 + 3 + 2 * (kernels + kAllReducesPerStep) + 2 * 2;  // step, phases, op+launch per kernel and per copy
}
int64_t gpu_slices_per_step() {
  return kLayers * (1 + kElementwisePerLayer) + kLayers * (2 + kElementwisePerLayer) + kOptimizerKernels +
         kAllReducesPerStep + 2;
}

struct Span {
  TimeNs start, dur;
  SmRole role;
  uint32_t block;
  uint32_t tag;
  EventRef kernel;
};

class Generator {
 public:
  explicit Generator(const SyntheticOptions& o, int steps) : o_(o), steps_(steps) {}

  Trace run() {
    setup();
    for (int step = 0; step < steps_; ++step)
      for (int r = 0; r < o_.ranks; ++r) rank_step(r, step);
    return b_.finish();
  }

 private:
  struct Rank {
    uint32_t process = 0, device = 0;
    uint32_t cpu = 0, compute = 0, nccl = 0, copy = 0, nvtx = 0, tx = 0, rx = 0;
    std::vector<uint32_t> sm;
    uint64_t external = 1;
    uint32_t correlation = 1;
    std::vector<EventRef> nccl_kernels;   // this step's, for cross-rank flows
    EventRef send_copy;
  };

  void reserve_track(uint32_t t, int64_t n) {
    auto& s = b_.trace().tracks[t].slices;
    const auto u = static_cast<size_t>(n);
    s.start.reserve(u);
    s.dur.reserve(u);
    s.name.reserve(u);
    s.ref.reserve(u);
  }

  void setup() {
    Trace& tr = b_.trace();
    tr.source_format = "synthetic";
    tr.source_files.push_back("synthetic:" + std::to_string(o_.ranks) + "gpu");
    n_gemm_ = b_.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas");
    n_fused_ = b_.intern("ps_fused_gemm_reduce_scatter_bf16_ws");
    n_elem_[0] = b_.intern("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>");
    n_elem_[1] = b_.intern("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>");
    n_elem_[2] = b_.intern("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>");
    n_opt_ = b_.intern("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>");
    n_nccl_ = b_.intern("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    n_p2p_ = b_.intern("Memcpy PtoP (Device -> Device)");
    n_d2h_ = b_.intern("Memcpy DtoH (Device -> Pinned)");
    n_launch_ = b_.intern("cudaLaunchKernel");
    n_memcpy_api_ = b_.intern("cudaMemcpyAsync");
    n_mm_ = b_.intern("aten::mm");
    n_ops_[0] = b_.intern("aten::gelu");
    n_ops_[1] = b_.intern("aten::add");
    n_ops_[2] = b_.intern("aten::layer_norm");
    n_adam_ = b_.intern("Optimizer.step#FusedAdam.step");
    n_allreduce_ = b_.intern("c10d::allreduce_");
    n_copy_op_ = b_.intern("aten::copy_");
    n_phase_[0] = b_.intern("forward");
    n_phase_[1] = b_.intern("backward");
    n_phase_[2] = b_.intern("optimizer");
    n_tile_ = b_.intern("tile");
    n_put_ = b_.intern("nvlink put");
    n_wait_ = b_.intern("wait flag");
    a_occupancy_ = b_.intern("est. achieved occupancy %");
    domain_ = b_.intern("parascope");
    cfg_gemm_ = b_.add_launch_config(LaunchConfig{{static_cast<uint32_t>(o_.sms), 1, 1}, {384, 1, 1}, 168, 0, 232448});
    cfg_elem_ = b_.add_launch_config(LaunchConfig{{4096, 1, 1}, {128, 1, 1}, 32, 0, 0});
    cfg_nccl_ = b_.add_launch_config(LaunchConfig{{static_cast<uint32_t>(channel_sms(o_)), 1, 1}, {640, 1, 1}, 96, 0, 0});

    const auto steps = static_cast<size_t>(steps_);
    const auto ranks = static_cast<size_t>(o_.ranks);
    if (o_.reserve) {
      int64_t spans = 0;
      for (int sm = 0; sm < o_.sms; ++sm) spans += sm_spans_per_step(o_, sm);
      tr.sm_spans.reserve(static_cast<size_t>(spans) * steps * ranks);
      tr.kernels.reserve(static_cast<size_t>(gpu_slices_per_step()) * steps * ranks);
      tr.memcpys.reserve(2 * steps * ranks);
      tr.api_calls.reserve(static_cast<size_t>(gpu_slices_per_step()) * steps * ranks);
      tr.cpu_ops.reserve(static_cast<size_t>(cpu_slices_per_step()) * steps * ranks);
      tr.nvtx.reserve(4 * steps * ranks);
      tr.flows.reserve((static_cast<size_t>(gpu_slices_per_step()) + kAllReducesPerStep + 1) * steps * ranks);
      tr.collectives.reserve(kAllReducesPerStep * steps * ranks);
    }
    const std::string group_ranks = [&] {
      std::string s = "[";
      for (int r = 0; r < o_.ranks; ++r) s += (r ? ", " : "") + std::to_string(r);
      return s + "]";
    }();
    group_ranks_ = b_.intern(group_ranks);
    for (int r = 0; r < o_.ranks; ++r) {
      Rank k;
      Process p;
      p.rank = r;
      p.pid = 4000 + r;
      p.host = "node0";
      p.name = "python3";
      p.source = "synthetic rank " + std::to_string(r);
      p.clock_offset_ns = 1'234 * r;
      p.clock_offset_reason = "sync event";
      k.process = b_.add_process(p);
      Device d;
      d.process = k.process;
      d.ordinal = r;
      d.name = "NVIDIA H200";
      d.sm_count = static_cast<uint32_t>(o_.sms);
      d.compute_major = 9;
      d.memory_bytes = 150'000'000'000ull;
      k.device = b_.add_device(d);
      const auto dev = static_cast<int32_t>(k.device);
      k.cpu = b_.track({TrackKind::kCpuThread, k.process, -1, 4000 + r}, "thread " + std::to_string(4000 + r) + " (python3)");
      k.compute = b_.track({TrackKind::kGpuStream, k.process, dev, 7}, "stream 7");
      k.nccl = b_.track({TrackKind::kGpuStream, k.process, dev, 17}, "stream 17 (NCCL)");
      k.copy = b_.track({TrackKind::kGpuStream, k.process, dev, 21}, "stream 21 (copies)");
      k.nvtx = b_.track({TrackKind::kNvtx, k.process, -1, domain_}, "NVTX parascope");
      const uint32_t ltx = b_.add_link(Link{static_cast<uint16_t>(k.device), kNoDevice, LinkDirection::kTx, Medium::kNvLink, -1, 450e9});
      const uint32_t lrx = b_.add_link(Link{static_cast<uint16_t>(k.device), kNoDevice, LinkDirection::kRx, Medium::kNvLink, -1, 450e9});
      k.tx = b_.track({TrackKind::kLink, k.process, dev, ltx}, "NVLink tx");
      k.rx = b_.track({TrackKind::kLink, k.process, dev, lrx}, "NVLink rx");
      for (uint32_t t : {k.tx, k.rx}) {
        Track& lt = tr.tracks[t];
        lt.unit = b_.intern("bytes/s");
        lt.counter_source = r == 0 ? CounterSource::kMeasured : CounterSource::kEstimated;
        const auto n = steps * static_cast<size_t>(kStepNs / kSampleNs);
        lt.counter.time.reserve(n);
        lt.counter.value.reserve(n);
      }
      for (int sm = 0; sm < o_.sms; ++sm) {
        k.sm.push_back(b_.track({TrackKind::kSmLane, k.process, dev, sm}, "SM " + std::to_string(sm)));
        reserve_track(k.sm.back(), sm_spans_per_step(o_, sm) * steps_);
      }
      reserve_track(k.cpu, cpu_slices_per_step() * steps_);
      reserve_track(k.compute, gpu_slices_per_step() * steps_);
      ranks_.push_back(std::move(k));
    }
    sm_buf_.resize(static_cast<size_t>(o_.sms));
  }

  EventRef cpu_slice(Rank& k, TimeNs s, TimeNs d, StringId name, bool with_external) {
    CpuOpInfo c;
    if (with_external) c.external_id = U64Split(k.external++);
    return b_.add_slice(k.cpu, s, d, name, b_.add_cpu_op(c));
  }

  // An aten op on the CPU launching one kernel; returns the kernel's ref.
  EventRef launch(Rank& k, int step, TimeNs& cpu, TimeNs& gpu, uint32_t stream, StringId op, StringId kernel,
                  uint32_t config, TimeNs dur, uint64_t salt) {
    cpu_slice(k, cpu, kOpNs - 4'000, op, true);
    ApiInfo a;
    a.correlation = k.correlation++;
    const EventRef api = b_.add_slice(k.cpu, cpu + 4'000, 8'000, n_launch_, b_.add_api_call(a));
    const TimeNs start = std::max(gpu, cpu + 15'000);
    const auto d = static_cast<TimeNs>(static_cast<double>(dur) *
                                       jitter(o_.seed, static_cast<uint64_t>(k.process), static_cast<uint64_t>(step), salt, 0.05));
    KernelInfo ki;
    ki.launch_config = config;
    ki.correlation = a.correlation;
    const Arg occ{a_occupancy_, ArgValue::of_int(config == cfg_gemm_ ? 100 : 84)};
    const EventRef kr = b_.add_slice(stream, start, d, kernel, b_.add_kernel(ki), std::span<const Arg>(&occ, 1));
    b_.add_flow(api, kr, FlowKind::kLaunch);
    cpu += kOpNs;
    gpu = start + d + 1'500;
    return kr;
  }

  void gemm_spans(TimeNs ks, TimeNs kd, EventRef kernel, bool fused) {
    const int first_comm = o_.sms - comm_sms(o_);
    const TimeNs tile = kd / kTilesPerSm;
    for (int sm = 0; sm < o_.sms; ++sm) {
      auto& buf = sm_buf_[static_cast<size_t>(sm)];
      for (int i = 0; i < kTilesPerSm; ++i) {
        const TimeNs s = ks + i * tile + (sm % 7) * 40;
        const auto block = static_cast<uint32_t>(i * o_.sms + sm);
        if (fused && sm >= first_comm) {
          buf.push_back({s, tile * 6 / 10, SmRole::kCommunicate, block, 1, kernel});
          buf.push_back({s + tile * 6 / 10, tile * 3 / 10, SmRole::kWait, block, 2, kernel});
        } else {
          buf.push_back({s, tile - 300 - (sm % 7) * 40, SmRole::kCompute, block, 0, kernel});
        }
      }
    }
  }

  void nccl_spans(TimeNs ks, TimeNs kd, EventRef kernel) {
    const TimeNs chunk = kd / kNcclChunks;
    for (int c = 0; c < channel_sms(o_); ++c) {
      const int sm = o_.sms - channel_sms(o_) + c;
      auto& buf = sm_buf_[static_cast<size_t>(sm)];
      for (int i = 0; i < kNcclChunks; ++i) {
        const TimeNs s = ks + i * chunk + 200;
        buf.push_back({s, chunk * 7 / 10, SmRole::kCommunicate, static_cast<uint32_t>(c), 3, kernel});
        buf.push_back({s + chunk * 7 / 10, chunk / 4, SmRole::kWait, static_cast<uint32_t>(c), 4, kernel});
      }
    }
  }

  void flush_sm_spans(Rank& k) {
    for (size_t sm = 0; sm < sm_buf_.size(); ++sm) {
      auto& buf = sm_buf_[sm];
      std::sort(buf.begin(), buf.end(), [](const Span& a, const Span& b) {
        return a.start != b.start ? a.start < b.start : a.dur > b.dur;
      });
      for (const Span& s : buf) {
        SmSpanInfo info;
        info.block = s.block;
        info.tag = s.tag;
        info.launch_id = static_cast<uint32_t>(s.kernel.index);
        info.kernel = s.kernel;
        info.role = s.role;
        const StringId name = s.role == SmRole::kCompute ? n_tile_ : s.role == SmRole::kCommunicate ? n_put_ : n_wait_;
        b_.add_slice(k.sm[sm], s.start, s.dur, name, b_.add_sm_span(info));
      }
      buf.clear();
    }
  }

  void rank_step(int r, int step) {
    Rank& k = ranks_[static_cast<size_t>(r)];
    const TimeNs t0 = kOrigin + step * kStepNs + r * 3'000;
    const int fwd_ops = kLayers * (1 + kElementwisePerLayer);
    const int bwd_ops = kLayers * (2 + kElementwisePerLayer) + kAllReducesPerStep;
    const TimeNs fwd_start = t0 + 20'000;
    const TimeNs bwd_start = fwd_start + fwd_ops * kOpNs + 10'000;
    const TimeNs opt_start = bwd_start + bwd_ops * kOpNs + 10'000;
    const TimeNs copy_start = opt_start + kOptimizerKernels * kOpNs + 10'000;
    const TimeNs phase_starts[3] = {fwd_start, bwd_start, opt_start};
    const TimeNs phase_durs[3] = {fwd_ops * kOpNs, bwd_ops * kOpNs, kOptimizerKernels * kOpNs};

    cpu_slice(k, t0, kStepNs - 100'000, b_.intern("ProfilerStep#" + std::to_string(step)), false);
    const EventRef nv_step = b_.add_slice(k.nvtx, t0, kStepNs - 100'000, b_.intern("step " + std::to_string(step)),
                                          b_.add_nvtx(NvtxInfo{domain_, kEmptyString, 0xff4c78a8u, {}, 0, {}}));
    (void)nv_step;
    for (int p = 0; p < 3; ++p)
      b_.add_slice(k.nvtx, phase_starts[p], phase_durs[p], n_phase_[p],
                   b_.add_nvtx(NvtxInfo{domain_, kEmptyString, 0, {}, 0, {}}));

    k.nccl_kernels.clear();
    TimeNs gpu = t0 + 60'000;
    TimeNs nccl_gpu = gpu;
    std::vector<std::pair<TimeNs, TimeNs>> busy_links;  // this step's NVLink activity, for the counters
    uint64_t salt = 0;

    // forward
    TimeNs cpu = fwd_start;
    cpu_slice(k, fwd_start, phase_durs[0], n_phase_[0], false);
    for (int l = 0; l < kLayers; ++l) {
      const EventRef g = launch(k, step, cpu, gpu, k.compute, n_mm_, n_gemm_, cfg_gemm_, kGemmNs, ++salt);
      gemm_spans(last_start(k.compute), last_dur(k.compute), g, false);
      for (int e = 0; e < kElementwisePerLayer; ++e)
        launch(k, step, cpu, gpu, k.compute, n_ops_[e], n_elem_[e], cfg_elem_, kElementwiseNs, ++salt);
    }
    // backward: dgrad GEMM, fused wgrad GEMM + reduce-scatter, elementwise; an all-reduce every two layers
    cpu = bwd_start;
    cpu_slice(k, bwd_start, phase_durs[1], n_phase_[1], false);
    for (int l = 0; l < kLayers; ++l) {
      const EventRef dg = launch(k, step, cpu, gpu, k.compute, n_mm_, n_gemm_, cfg_gemm_, kGemmNs, ++salt);
      gemm_spans(last_start(k.compute), last_dur(k.compute), dg, false);
      const EventRef wg = launch(k, step, cpu, gpu, k.compute, n_mm_, n_fused_, cfg_gemm_, kGemmNs, ++salt);
      gemm_spans(last_start(k.compute), last_dur(k.compute), wg, true);
      busy_links.emplace_back(last_start(k.compute), last_start(k.compute) + last_dur(k.compute));
      for (int e = 0; e < kElementwisePerLayer; ++e)
        launch(k, step, cpu, gpu, k.compute, n_ops_[e], n_elem_[e], cfg_elem_, kElementwiseNs, ++salt);
      if (l % 2 == 1) {
        nccl_gpu = std::max(nccl_gpu, gpu - 200'000);
        const EventRef nk = launch(k, step, cpu, nccl_gpu, k.nccl, n_allreduce_, n_nccl_, cfg_nccl_, kNcclNs, ++salt);
        nccl_spans(last_start(k.nccl), last_dur(k.nccl), nk);
        busy_links.emplace_back(last_start(k.nccl), last_start(k.nccl) + last_dur(k.nccl));
        CollectiveInfo c;
        c.op = CollectiveOp::kAllReduce;
        c.dtype_bytes = 2;
        c.channels = static_cast<uint16_t>(channel_sms(o_));
        c.rank = r;
        c.group_size = o_.ranks;
        c.dtype = b_.intern("BFloat16");
        c.group = b_.intern("0");
        c.group_ranks = group_ranks_;
        c.algorithm = b_.intern("RING");
        c.protocol = b_.intern("LL");
        c.sequence = static_cast<int64_t>(step) * kAllReducesPerStep + l / 2;
        c.in_elements = c.out_elements = 16u << 20;
        c.kernel = nk;
        b_.add_collective(c);
        k.nccl_kernels.push_back(nk);
      }
    }
    // optimizer
    cpu = opt_start;
    cpu_slice(k, opt_start, phase_durs[2], n_phase_[2], false);
    for (int e = 0; e < kOptimizerKernels; ++e)
      launch(k, step, cpu, gpu, k.compute, n_adam_, n_opt_, cfg_elem_, 2 * kElementwiseNs, ++salt);
    // copies: a 4 MiB send to the next rank and a device → pinned host copy
    cpu = copy_start;
    TimeNs copy_gpu = gpu;
    for (int c = 0; c < 2; ++c) {
      cpu_slice(k, cpu, kOpNs - 4'000, n_copy_op_, true);
      ApiInfo a;
      a.correlation = k.correlation++;
      const EventRef api = b_.add_slice(k.cpu, cpu + 4'000, 8'000, n_memcpy_api_, b_.add_api_call(a));
      MemcpyInfo m;
      m.bytes = U64Split(4u << 20);
      m.correlation = a.correlation;
      m.src_device = static_cast<uint16_t>(k.device);
      m.dst_device = c == 0 ? static_cast<uint16_t>(ranks_[static_cast<size_t>((r + 1) % o_.ranks)].device) : kNoDevice;
      m.copy_kind = c == 0 ? CopyKind::kPtoP : CopyKind::kDtoH;
      m.dst_memory = c == 0 ? MemoryKind::kDevice : MemoryKind::kPinned;
      const TimeNs s = std::max(copy_gpu, cpu + 15'000);
      const TimeNs d = c == 0 ? 11'000 : 160'000;
      const EventRef cr = b_.add_slice(k.copy, s, d, c == 0 ? n_p2p_ : n_d2h_, b_.add_memcpy(m));
      b_.add_flow(api, cr, FlowKind::kLaunch);
      if (c == 0) {
        k.send_copy = cr;
        busy_links.emplace_back(s, s + d);
      }
      copy_gpu = s + d + 2'000;
      cpu += kOpNs;
    }
    flush_sm_spans(k);

    // NVLink counters: bytes/s held until the next sample
    for (TimeNs t = t0; t < t0 + kStepNs; t += kSampleNs) {
      double active = 0;
      for (const auto& [a, b] : busy_links)
        if (t >= a && t < b) active = 1;
      const double j = jitter(o_.seed, k.process, static_cast<uint64_t>(t), 7, 0.1);
      const double tx = active ? 310e9 * j : 1.5e9 * j;
      b_.add_counter_sample(k.tx, t, tx);
      b_.add_counter_sample(k.rx, t, active ? 0.97 * tx : 1.2e9 * j);
    }

    // cross-rank flows once the last rank has this step
    if (r == o_.ranks - 1 && o_.ranks > 1) {
      for (int q = 0; q < o_.ranks; ++q) {
        Rank& from = ranks_[static_cast<size_t>(q)];
        Rank& to = ranks_[static_cast<size_t>((q + 1) % o_.ranks)];
        for (size_t i = 0; i < from.nccl_kernels.size() && i < to.nccl_kernels.size(); ++i)
          b_.add_flow(from.nccl_kernels[i], to.nccl_kernels[i], FlowKind::kCollective);
        b_.add_flow(from.send_copy, to.send_copy, FlowKind::kSendRecv);
      }
    }
  }

  TimeNs last_start(uint32_t t) { return b_.trace().tracks[t].slices.start.back(); }
  TimeNs last_dur(uint32_t t) { return b_.trace().tracks[t].slices.dur.back(); }

  const SyntheticOptions& o_;
  int steps_;
  TraceBuilder b_;
  std::vector<Rank> ranks_;
  std::vector<std::vector<Span>> sm_buf_;
  StringId n_gemm_ = 0, n_fused_ = 0, n_opt_ = 0, n_nccl_ = 0, n_p2p_ = 0, n_d2h_ = 0, n_launch_ = 0, n_memcpy_api_ = 0;
  StringId n_mm_ = 0, n_adam_ = 0, n_allreduce_ = 0, n_copy_op_ = 0, n_tile_ = 0, n_put_ = 0, n_wait_ = 0;
  StringId a_occupancy_ = 0, domain_ = 0, group_ranks_ = 0;
  std::array<StringId, 3> n_elem_{}, n_ops_{}, n_phase_{};
  uint32_t cfg_gemm_ = 0, cfg_elem_ = 0, cfg_nccl_ = 0;
};

}  // namespace

int64_t synthetic_events_per_step(const SyntheticOptions& o) {
  int64_t per_rank = cpu_slices_per_step() + gpu_slices_per_step() + 4 /* NVTX */ + 2 * (kStepNs / kSampleNs);
  for (int sm = 0; sm < o.sms; ++sm) per_rank += sm_spans_per_step(o, sm);
  return per_rank * o.ranks;
}

Trace make_synthetic_trace(const SyntheticOptions& o, SyntheticStats* stats) {
  const int steps = o.steps > 0 ? o.steps
                                : static_cast<int>(std::max<int64_t>(1, (o.target_events + synthetic_events_per_step(o) / 2) /
                                                                            synthetic_events_per_step(o)));
  Trace t = Generator(o, steps).run();
  if (stats) {
    *stats = {};
    stats->steps = steps;
    for (const Track& tr : t.tracks) {
      stats->slices += static_cast<int64_t>(tr.slices.size());
      stats->counter_samples += static_cast<int64_t>(tr.counter.size());
    }
    stats->kernels = static_cast<int64_t>(t.kernels.size());
    stats->sm_spans = static_cast<int64_t>(t.sm_spans.size());
    stats->flows = static_cast<int64_t>(t.flows.size());
  }
  return t;
}

}  // namespace parascope::bench
