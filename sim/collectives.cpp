#include "sim/collectives.h"

#include "sim/collective_params.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace parascope::sim {

namespace {

// SM cost of NCCL's ring primitives with intermediate FIFO buffers, in copy units (one 16-byte load
// plus one 16-byte store) per byte a rank sends. From the primitives a rank runs per chunk:
//   all-reduce: send (ld+st), n-2 x recvReduceSend (3), recvReduceCopySend (4), n-2 x recvCopySend
//               (3), recv (2)  -> (6n-4) ops per 2(n-1) chunks sent
//   reduce-scatter: send (2), n-2 x recvReduceSend (3), recvReduceCopy (3) -> (3n-1) per n-1
//   all-gather: copySend (3), n-2 x recvCopySend (3), recv (2)            -> (3n-1) per n-1
double ring_weight(CollectiveOp op, int n) {
  if (n < 2) return 1.0;
  const double m = n - 1;
  if (op == CollectiveOp::kAllReduce) return (6.0 * n - 4) / (2 * m) / 2;
  return (3.0 * n - 1) / m / 2;
}


// LL: 8 payload bytes per 16-byte line (data + flag words), written as 16-byte stores the link
// carries at half the efficiency of full lines: 4 bytes of link and mechanism capacity per payload
// byte, the factor NCCL's own tuning model gives LL (bus bandwidth / 4). Our LL all-reduce at 256 KiB
// (docs/accuracy.md) is 6.1 us measured, 6.3 us with 4, 3.8 us with 2.
constexpr double kLlWire = 4.0;

// NCCL's P2P chunk over NVLink (NCCL_P2P_NVL_CHUNKSIZE's default): a send's pipeline step.
constexpr double kNcclP2pChunkBytes = 512.0 * 1024;

// The NCCL profile's curve an op runs on: a one-direction send on send/recv's (the block that an
// exchange splits between its two sides, measured on exchanges).
std::string_view profile_op(WorkloadOp op) { return op == WorkloadOp::kSend ? to_string(WorkloadOp::kSendRecv) : to_string(op); }

TimePs ns_to_ps_round(double ns) { return static_cast<TimePs>(std::llround(ns * kPsPerNs)); }

Op send(uint32_t conn, double bytes = kChunkBytes) { return Op{OpKind::kSend, conn, bytes, 0, 0, 0}; }
Op recv(uint32_t conn) { return Op{OpKind::kRecv, conn, 0, 0, 0, 0}; }
Op put(uint32_t p, double bytes = kChunkBytes) { return Op{OpKind::kPut, p, bytes, 0, 0, 0}; }
Op signal(uint32_t counter) { return Op{OpKind::kSignal, counter, 0, 0, 0, 0}; }
Op wait(uint32_t counter, int64_t offset, int64_t per_iteration) { return Op{OpKind::kWait, counter, 0, per_iteration, offset, 0}; }
Op compute(int64_t ps) { return Op{OpKind::kCompute, 0, 0, ps, 0, 0}; }
Op wait_all() { return Op{OpKind::kWaitAll, 0, 0, 0, 0, 0}; }

class Builder {
 public:
  explicit Builder(const Platform& p) : p_(p) {}

  void add(const WorkloadStep& step, size_t index);
  Workload finish() { return std::move(w_); }

 private:
  // One step while it is built: its typed parameters and what was derived from them.
  struct StepCtx {
    CollectiveParams p;
    std::string where;                 // "step 2 (allreduce)" for errors
    uint32_t collective = 0;
    std::vector<int32_t> gpus;
    int n = 0;
    uint32_t channels = 1;             // this repetition's (a fused kernel caps them at its SMs)
    double payload = 0;                // per-rank bytes the summary reports
    double bytes = 0;                  // what the wire carries: payload x the protocol's overhead
    Protocol protocol = Protocol::kSimple;  // auto resolved
    bool ll = false;
    double kernel_sms = 0;             // SMs the step's kernel holds on each GPU (saturation curve)
    const NcclProfile* nccl = nullptr; // NCCL's measured behaviour drives this step
    bool nccl_ll = false;              // NCCL's logged choice: LL at this size (the profile's LL knots)
    uint32_t nccl_channels = 0;        // NCCL's own channel count at this size
    double nccl_step_bytes = 0;
    double nccl_rate = 0;              // its per-channel rate at this step's size (agent bytes/s)
    std::map<int32_t, uint32_t> group_of;  // GPU -> kernel group
    std::vector<uint32_t> actors;      // created by this step
  };

  // Builder::add's steps, in order.
  StepCtx resolve(const WorkloadStep& step, size_t index) const;
  void use_nccl_profile(StepCtx& s) const;
  void choose_protocol(StepCtx& s) const;
  CollectiveSpec collective_spec(const StepCtx& s, uint32_t stream) const;
  void begin_repeat(StepCtx& s);
  void generate(StepCtx& s, CollectiveSpec& spec);
  void order_on_stream(StepCtx& s, uint32_t stream);

  [[noreturn]] void fail(const StepCtx& s, const std::string& problem) const { throw KnobError(s.where + ": " + problem); }
  uint32_t chunks_for(const StepCtx& s, double slice) const {
    if (s.p.step_granularity || slice <= s.p.chunk_bytes) return 1;
    return static_cast<uint32_t>(std::ceil(slice / s.p.chunk_bytes));
  }
  double agent_capacity(const StepCtx& s, int32_t gpu, double sms) const;
  uint32_t comm_actor(StepCtx& s, int rank, uint32_t channel, double sms_equiv, uint32_t held_sms);
  uint32_t compute_actor(StepCtx& s, int rank, uint32_t sms);
  uint32_t connect(StepCtx& s, uint32_t a, uint32_t b, double send_w, double recv_w);
  uint32_t flag_connection(StepCtx& s, uint32_t a, uint32_t b);
  uint32_t local_pass(StepCtx& s, uint32_t actor, bool reduce, int inputs, bool fused = false);
  uint32_t counter() { return w_.counters++; }
  Program& prog(uint32_t actor) {
    if (progs_.size() <= actor) progs_.resize(actor + 1);
    return progs_[actor];
  }
  // The actor's slot for a connection / put / counter id (ops name targets by slot).
  uint32_t slot(uint32_t actor, uint32_t id) {
    auto& slots = w_.actors[actor].slots;
    for (uint32_t i = 0; i < slots.size(); ++i)
      if (slots[i] == id) return i;
    slots.push_back(id);
    return static_cast<uint32_t>(slots.size() - 1);
  }
  void intern_programs(const std::vector<uint32_t>& actors);
  void set_chunks(uint32_t actor, uint32_t chunks, double slice) {
    Program& p = prog(actor);
    p.iterations = chunks;
    p.chunk_bytes = slice / chunks;
    p.last_chunk_bytes = slice / chunks;
  }
  std::vector<int32_t> ring_order(const StepCtx& s, uint32_t channel) const;
  int64_t gemm_ps(const StepCtx& s, int32_t gpu, double flops) const;

  void ring(StepCtx& s, CollectiveOp op, double slice, const std::vector<uint32_t>* arrival_counters = nullptr,
            const std::vector<uint32_t>* tile_counters = nullptr, double sms_per_channel = 1, uint32_t held = 1);
  void tree_allreduce(StepCtx& s, double bytes);
  enum class DirectKind { kOneShot, kTwoShot, kAllGather, kReduceScatter, kAllToAll };
  void direct(StepCtx& s, DirectKind kind, double bytes, bool ll);
  void nvls(StepCtx& s, double bytes);
  void sendrecv(StepCtx& s, double bytes);
  void send_one_way(StepCtx& s, double bytes);
  void alltoall(StepCtx& s, double bytes);
  void fused(StepCtx& s, bool allgather_first);
  void gemm(StepCtx& s);

  const Platform& p_;
  Workload w_;
  // (gpu, stream) -> the previous step's completion counter on that GPU and how many signals it needs
  std::map<std::pair<int32_t, uint32_t>, std::pair<uint32_t, int64_t>> last_;
  std::vector<uint32_t> next_comm_sm_;  // per GPU: SM lanes handed out to comm actors (from the top)
  std::vector<Program> progs_;          // per actor while its step is being built
  std::map<std::string, uint32_t> program_ids_;
};

void Builder::intern_programs(const std::vector<uint32_t>& actors) {
  auto bytes_of = [](std::string& key, const std::vector<Op>& ops) {
    key += static_cast<char>(ops.size() & 0xff);
    key += static_cast<char>((ops.size() >> 8) & 0xff);
    for (const Op& op : ops) {
      key.append(reinterpret_cast<const char*>(&op.kind), sizeof op.kind);
      key.append(reinterpret_cast<const char*>(&op.target), sizeof op.target);
      key.append(reinterpret_cast<const char*>(&op.bytes), sizeof op.bytes);
      key.append(reinterpret_cast<const char*>(&op.amount), sizeof op.amount);
      key.append(reinterpret_cast<const char*>(&op.offset), sizeof op.offset);
      key.append(reinterpret_cast<const char*>(&op.per_step), sizeof op.per_step);
    }
  };
  for (uint32_t a : actors) {
    Program& p = progs_[a];
    std::string key;
    for (const auto* ops : {&p.prologue, &p.head, &p.steps, &p.tail, &p.epilogue}) bytes_of(key, *ops);
    key.append(reinterpret_cast<const char*>(&p.iterations), sizeof p.iterations);
    key.append(reinterpret_cast<const char*>(&p.step_repeat), sizeof p.step_repeat);
    key.append(reinterpret_cast<const char*>(&p.chunk_bytes), sizeof p.chunk_bytes);
    key.append(reinterpret_cast<const char*>(&p.last_chunk_bytes), sizeof p.last_chunk_bytes);
    auto [it, inserted] = program_ids_.try_emplace(key, static_cast<uint32_t>(w_.programs.size()));
    if (inserted) w_.programs.push_back(std::move(p));
    w_.actors[a].program = it->second;
    p = Program{};
  }
}

// An actor's SMs: with NCCL's profile, the measured per-channel rate; otherwise the mechanism's
// per-SM rate (linear in SMs; the kernel group carries the saturation).
double Builder::agent_capacity(const StepCtx& s, int32_t gpu, double sms) const {
  if (s.nccl) return s.nccl_rate * sms;
  const SmTransferModel* m = sm_transfer_model(p_.gpu(gpu), s.p.mechanism, s.p.pull);
  if (!m || m->per_sm_bytes_per_s <= 0 || sms <= 0) return 0;
  SmTransferModel linear = *m;
  linear.cap_bytes_per_s = 0;
  return sm_model_rate(linear, sms, s.p.threads_per_channel);
}

uint32_t Builder::comm_actor(StepCtx& s, int rank, uint32_t channel, double sms_equiv, uint32_t held_sms) {
  Actor a;
  a.gpu = s.gpus[rank];
  a.role = ActorRole::kCommunication;
  a.sms = held_sms;
  a.agent_capacity = agent_capacity(s, a.gpu, sms_equiv);
  a.collective = s.collective;
  a.channel = channel;
  // The kernel's SMs on this GPU move at most the mechanism's saturation curve at their count.
  if (!s.nccl && s.kernel_sms > 0 && a.agent_capacity > 0) {
    const SmTransferModel* m = sm_transfer_model(p_.gpu(a.gpu), s.p.mechanism, s.p.pull);
    const double cap = m ? sm_model_rate(*m, s.kernel_sms, s.p.threads_per_channel) : 0;
    if (cap > 0 && m->cap_bytes_per_s > 0) {
      auto [it, inserted] = s.group_of.try_emplace(a.gpu, static_cast<uint32_t>(w_.group_capacity.size()));
      if (inserted) w_.group_capacity.push_back(cap);
      a.group = it->second;
    }
  }
  const uint32_t total = p_.gpu(a.gpu).sm_count;
  uint32_t& next = next_comm_sm_[a.gpu];
  a.first_sm = total - 1 - (next % total);  // lanes from the top, like small grids land on real GPUs
  next += std::max<uint32_t>(1, held_sms);
  a.window = s.p.window;
  w_.actors.push_back(std::move(a));
  s.actors.push_back(static_cast<uint32_t>(w_.actors.size() - 1));
  return s.actors.back();
}

uint32_t Builder::compute_actor(StepCtx& s, int rank, uint32_t sms) {
  Actor a;
  a.gpu = s.gpus[rank];
  a.role = ActorRole::kCompute;
  a.sms = sms;
  a.collective = s.collective;
  a.first_sm = 0;
  w_.actors.push_back(std::move(a));
  s.actors.push_back(static_cast<uint32_t>(w_.actors.size() - 1));
  return s.actors.back();
}

uint32_t Builder::connect(StepCtx& s, uint32_t a, uint32_t b, double send_w, double recv_w) {
  Connection c;
  c.src = a;
  c.dst = b;
  c.mechanism = s.p.mechanism;
  c.pull = s.p.pull;
  c.window = s.p.window;
  c.send_weight = send_w;
  c.recv_weight = recv_w;
  if (s.nccl) c.latency_ns = s.nccl->step_latency_ns;
  w_.connections.push_back(c);
  return static_cast<uint32_t>(w_.connections.size() - 1);
}

// A barrier flag from a to b: no bytes; arrives after the route's latency plus the GPU's signal
// latency (fence, remote flag store, poll).
uint32_t Builder::flag_connection(StepCtx& s, uint32_t a, uint32_t b) {
  Connection c;
  c.src = a;
  c.dst = b;
  c.mechanism = s.p.mechanism;
  c.window = s.p.window;
  c.send_weight = 0;
  c.recv_weight = 0;
  const int32_t ga = w_.actors[a].gpu, gb = w_.actors[b].gpu;
  const double route_ns = ga == gb ? 0.0 : static_cast<double>(p_.route(ga, gb).latency) / kPsPerNs;
  c.latency_ns = route_ns + p_.gpu(ga).signal_latency_ns;
  w_.connections.push_back(c);
  return static_cast<uint32_t>(w_.connections.size() - 1);
}

// A pass inside the actor's GPU over its chunk: a copy (1 input) or a reduction of `inputs` buffers.
// SMs: a copy costs one unit (a load and a store), a reduction (inputs + 1) / 2; one SM of 1024
// threads does local_copy_per_sm units per second, fewer threads proportionally less. A TMA kernel's
// copies are bulk copies (its TMA unit, like its pushes: one unit of the mechanism). HBM: every read
// and the write, a reduction's traffic counted reduce_cost times (interleaved streams). `fused`: the
// pass rides along the actor's peer loads (the reduce-scatter pull): HBM traffic only.
uint32_t Builder::local_pass(StepCtx& s, uint32_t actor, bool reduce, int inputs, bool fused) {
  const int32_t g = w_.actors[actor].gpu;
  const GpuSpec& spec = p_.gpu(g);
  PutSpec put;
  put.actor = actor;
  put.mechanism = s.p.mechanism;
  put.sources = {g};
  put.destinations = {g};
  put.local = true;
  put.hbm_weight = reduce ? (inputs + 1.0) * spec.reduce_cost : 2.0;
  put.weight = 0;
  const Actor& a = w_.actors[actor];
  const double agent_per_sm = a.agent_capacity / std::max<uint32_t>(1, a.sms);
  const double local_rate = spec.local_copy_bytes_per_s * std::min(1.0, s.p.threads_per_channel / 1024.0);
  if (fused) put.weight = 0;
  else if (!reduce && s.p.mechanism == Mechanism::kTma) put.weight = a.agent_capacity > 0 ? 1.0 : 0.0;
  else if (local_rate > 0 && a.agent_capacity > 0) put.weight = agent_per_sm / local_rate * (reduce ? (inputs + 1) / 2.0 : 1.0);
  w_.puts.push_back(put);
  return static_cast<uint32_t>(w_.puts.size() - 1);
}

std::vector<int32_t> Builder::ring_order(const StepCtx& s, uint32_t channel) const {
  // One host: rank order. Several hosts with the same GPU count each: a rail-aligned ring. Host k's
  // chain starts at local index (channel + (m-1)k) mod m, so it leaves the host from the GPU with the
  // same local index (same NIC rail) as the one the next host's chain starts from.
  std::vector<int32_t> hosts;
  std::map<int32_t, std::vector<int32_t>> by_host;
  for (int32_t g : s.gpus) {
    const int32_t h = p_.gpu_host(g);
    if (!by_host.count(h)) hosts.push_back(h);
    by_host[h].push_back(g);
  }
  if (hosts.size() < 2) return s.gpus;
  const size_t m = by_host[hosts[0]].size();
  for (int32_t h : hosts)
    if (by_host[h].size() != m) return s.gpus;
  std::vector<int32_t> order;
  order.reserve(s.gpus.size());
  for (size_t k = 0; k < hosts.size(); ++k) {
    const auto& local = by_host[hosts[k]];
    const size_t start = (channel + (m - 1) * k) % m;
    for (size_t i = 0; i < m; ++i) order.push_back(local[(start + i) % m]);
  }
  return order;
}

int64_t Builder::gemm_ps(const StepCtx& s, int32_t gpu, double flops) const {
  const GpuSpec& g = p_.gpu(gpu);
  if (!(g.bf16_flops > 0)) fail(s, "GPU " + std::to_string(gpu) + " has no bf16_TFLOPs in the topology: cannot time a GEMM");
  const double seconds = flops / (g.bf16_flops * s.p.gemm_efficiency) * s.p.compute_scale;
  return static_cast<int64_t>(std::llround(seconds * 1e12));
}

// Ring: per channel, rank r sends to ring successor. Chunk-major like NCCL's ring primitives: chunk c
// of step s goes out as soon as chunk c of step s-1 came in. Optional hooks for fused kernels: a
// counter signalled after each receive (all-gather arrivals) and a counter waited on before each
// send (GEMM tiles ready for reduce-scatter).
void Builder::ring(StepCtx& s, CollectiveOp op, double slice, const std::vector<uint32_t>* arrival_counters,
                   const std::vector<uint32_t>* tile_counters, double sms_per_channel, uint32_t held) {
  const int n = s.n;
  const int steps = op == CollectiveOp::kAllReduce ? 2 * (n - 1) : n - 1;
  const uint32_t chunks = chunks_for(s, slice);
  const double weight = ring_weight(op, n);
  // Actors and connections are laid out rank-major (rank r, channel c at r * C + c): the flows of one
  // rank pair share a path, so the messages completing together touch neighbouring state.
  std::vector<std::vector<int>> pos_of(s.channels, std::vector<int>(n));  // [ch][rank] -> ring position
  std::vector<std::vector<int>> rank_at(s.channels, std::vector<int>(n)); // [ch][position] -> rank
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    const std::vector<int32_t> order = ring_order(s, ch);
    std::map<int32_t, int> rank_of_gpu;
    for (int r = 0; r < n; ++r) rank_of_gpu[s.gpus[r]] = r;
    for (int i = 0; i < n; ++i) {
      rank_at[ch][i] = rank_of_gpu.at(order[i]);
      pos_of[ch][rank_at[ch][i]] = i;
    }
  }
  std::vector<uint32_t> actor_rc(static_cast<size_t>(n) * s.channels);
  for (int r = 0; r < n; ++r)
    for (uint32_t ch = 0; ch < s.channels; ++ch) actor_rc[r * s.channels + ch] = comm_actor(s, r, ch, sms_per_channel, held);
  std::vector<uint32_t> out_rc(actor_rc.size());
  for (int r = 0; r < n; ++r)
    for (uint32_t ch = 0; ch < s.channels; ++ch) {
      const int next = rank_at[ch][(pos_of[ch][r] + 1) % n];
      out_rc[r * s.channels + ch] = connect(s, actor_rc[r * s.channels + ch], actor_rc[next * s.channels + ch], weight, 0);
    }
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    std::vector<uint32_t> actor_of(n), out(n);
    std::vector<int> rank_of_gpu_pos(n);
    for (int i = 0; i < n; ++i) {
      rank_of_gpu_pos[i] = rank_at[ch][i];
      actor_of[i] = actor_rc[rank_at[ch][i] * s.channels + ch];
      out[i] = out_rc[rank_at[ch][i] * s.channels + ch];
    }
    for (int i = 0; i < n; ++i) {
      const uint32_t me = actor_of[i];
      Program& p = prog(me);
      const uint32_t to = slot(me, out[i]);
      const uint32_t in = slot(me, out[(i + n - 1) % n]);
      const int rank = rank_of_gpu_pos[i];
      // GEMM+RS: step st sends the tile computed st-th in chunk c: counter >= st + 1 + c * n
      auto tile_wait = [&](std::vector<Op>& ops, int64_t offset, int64_t per_step) {
        if (tile_counters) ops.push_back(Op{OpKind::kWait, slot(me, (*tile_counters)[rank]), 0, n, offset, per_step});
      };
      auto arrived = [&](std::vector<Op>& ops) {
        if (arrival_counters) ops.push_back(signal(slot(me, (*arrival_counters)[rank * s.channels + ch])));
      };
      tile_wait(p.head, 1, 0);
      p.head.push_back(send(to));
      if (steps > 1) {
        p.steps.push_back(recv(in));
        arrived(p.steps);
        tile_wait(p.steps, 2, 1);
        p.steps.push_back(send(to));
        p.step_repeat = static_cast<uint64_t>(steps - 1);
      }
      if (steps > 0) {
        tile_wait(p.tail, steps + 1, 0);
        p.tail.push_back(recv(in));
        arrived(p.tail);
      } else {
        p.head.clear();
      }
      set_chunks(actor_of[i], chunks, slice);
    }
  }
}

// NCCL-style binary tree all-reduce: reduce up, broadcast down, chunk by chunk. Odd channels use the
// mirrored tree so leaves of one are inner nodes of the other (the double binary tree idea).
void Builder::tree_allreduce(StepCtx& s, double bytes) {
  const int n = s.n;
  const double slice = bytes / s.channels;
  const uint32_t chunks = chunks_for(s, slice);
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    auto rank_at = [&](int pos) { return ch % 2 ? n - 1 - pos : pos; };
    std::vector<uint32_t> actor(n);
    for (int pos = 0; pos < n; ++pos) actor[pos] = comm_actor(s, rank_at(pos), ch, 1, 1);
    std::vector<uint32_t> up(n, 0), down(n, 0);
    for (int pos = 1; pos < n; ++pos) {
      const int parent = (pos - 1) / 2;
      up[pos] = connect(s, actor[pos], actor[parent], 1.5, 0);   // ld fifo + ld input + st peer
      down[pos] = connect(s, actor[parent], actor[pos], 1.0, 0);  // ld + st (copy to output rides along)
    }
    for (int pos = 0; pos < n; ++pos) {
      const uint32_t me = actor[pos];
      Program& p = prog(me);
      std::vector<int> kids;
      for (int c : {2 * pos + 1, 2 * pos + 2})
        if (c < n) kids.push_back(c);
      for (int c : kids) p.head.push_back(recv(slot(me, up[c])));
      if (pos > 0) p.head.push_back(send(slot(me, up[pos])));
      if (pos > 0) p.head.push_back(recv(slot(me, down[pos])));
      for (int c : kids) p.head.push_back(send(slot(me, down[c])));
      set_chunks(actor[pos], chunks, slice);
    }
  }
}

// The project's direct kernels (docs/kernels.md), one block per SM and channel, each block owning its
// share of the data on every rank; blocks meet their peers through per-block barriers (a fence, a
// flag to every peer, a wait for theirs):
//   one-shot all-reduce, push: push my input to every peer's scratch, barrier, reduce locally
//     (LL: lines carry their flags, twice the bytes on the wire, no barrier); pull: barrier, read
//     every peer's input and reduce, barrier
//   two-shot all-reduce: push piece p to rank p, barrier, reduce my piece and push it to every
//     rank, barrier
//   all-gather: barrier, push my block to every rank (and my own output), barrier
//   reduce-scatter: push piece p to rank p, barrier, reduce mine, barrier (the two-shot kernel's
//     first half; pull: barrier, read and reduce, barrier, with my own input's loads in flight
//     beside the peers', so the reduction takes HBM traffic but no SM time of its own)
//   all-to-all: barrier, push piece p to rank p, copy my own piece, barrier
// `bytes` is the per-rank buffer (all-gather: the per-rank input).
void Builder::direct(StepCtx& s, DirectKind kind, double bytes, bool ll) {
  const int n = s.n;
  const double ch = s.channels;
  const double piece = (kind == DirectKind::kOneShot || kind == DirectKind::kAllGather) ? bytes / ch : bytes / n / ch;
  const double wire = ll ? kLlWire : 1.0;
  for (uint32_t c = 0; c < s.channels; ++c) {
    std::vector<uint32_t> actor(n);
    for (int r = 0; r < n; ++r) actor[r] = comm_actor(s, r, c, 1, 1);
    // data[r][p]: the connection carrying r's data to p (pull: driven by p); flag[r][p] likewise.
    std::vector<std::vector<uint32_t>> data(n, std::vector<uint32_t>(n, 0)), flag = data;
    for (int r = 0; r < n; ++r)
      for (int p = 0; p < n; ++p) {
        if (p == r) continue;
        data[r][p] = s.p.pull ? connect(s, actor[r], actor[p], 0.0, 1.0) : connect(s, actor[r], actor[p], 1.0, 0.0);
        flag[r][p] = flag_connection(s, actor[r], actor[p]);
      }
    for (int r = 0; r < n; ++r) {
      const uint32_t me = actor[r];
      std::vector<Op>& ops = prog(me).head;
      auto peers = [&](auto fn) {
        for (int d = 1; d < n; ++d) fn((r + d) % n);
      };
      auto barrier = [&] {
        ops.push_back(wait_all());
        peers([&](int p) { ops.push_back(send(slot(me, flag[r][p]), 0)); });
        peers([&](int p) { ops.push_back(recv(slot(me, flag[p][r]))); });
      };
      auto send_all = [&](double b) { peers([&](int p) { ops.push_back(send(slot(me, data[r][p]), b)); }); };
      auto recv_all = [&] { peers([&](int p) { ops.push_back(recv(slot(me, data[p][r]))); }); };
      auto local = [&](bool reduce, int inputs, double b, bool fused = false) {
        ops.push_back(put(slot(me, local_pass(s, me, reduce, inputs, fused)), b));
      };
      switch (kind) {
        case DirectKind::kOneShot:
          if (s.p.pull) {
            barrier();
            send_all(piece);
            local(true, n, piece);
            recv_all();
            barrier();
          } else if (ll) {
            send_all(piece * wire);
            recv_all();
            local(true, n, piece);
          } else {
            send_all(piece);
            barrier();
            recv_all();
            local(true, n, piece);
          }
          break;
        case DirectKind::kTwoShot:
          send_all(piece);
          barrier();
          recv_all();
          local(true, n, piece);
          send_all(piece);
          barrier();
          recv_all();
          break;
        case DirectKind::kAllGather:
          barrier();
          send_all(piece * wire);
          local(false, 1, piece);
          barrier();
          recv_all();
          break;
        case DirectKind::kReduceScatter:
          if (s.p.pull) {
            barrier();
            send_all(piece);
            local(true, n, piece, true);
            recv_all();
            barrier();
          } else {
            send_all(piece * wire);
            barrier();
            recv_all();
            local(true, n, piece);
            barrier();
          }
          break;
        case DirectKind::kAllToAll:
          barrier();
          send_all(piece * wire);
          ops.push_back(wait_all());
          local(false, 1, piece);
          barrier();
          recv_all();
          break;
      }
      ops.push_back(wait_all());
      prog(me).iterations = 1;
    }
  }
}

// NVLS all-reduce: each rank owns 1/n of the buffer; per chunk it pulls the switch-reduced sum of
// that piece from every GPU (multimem.ld_reduce), then multicasts the result (multimem.st).
void Builder::nvls(StepCtx& s, double bytes) {
  const int n = s.n;
  for (int32_t g : s.gpus) {
    const int32_t sw = p_.nvswitch_of(g);
    if (sw < 0) fail(s, "algorithm=nvls needs GPUs on an NVSwitch; GPU " + std::to_string(g) + " has none");
    const auto& spec = p_.topology().nodes[static_cast<size_t>(sw)].sw;
    if (!spec || !spec->multicast || !spec->in_switch_reduction) {
      const std::string warning = "NVLS simulated on " + p_.topology().nodes[static_cast<size_t>(sw)].name +
                                  " although the topology has its multicast/in-switch reduction off";
      if (std::find(w_.warnings.begin(), w_.warnings.end(), warning) == w_.warnings.end()) w_.warnings.push_back(warning);
    }
  }
  const double slice = bytes / n / s.channels;
  const uint32_t chunks = chunks_for(s, slice);
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    for (int r = 0; r < n; ++r) {
      const uint32_t a = comm_actor(s, r, ch, 1, 1);
      PutSpec reduce{a, s.p.mechanism, s.gpus, {s.gpus[r]}, true, 1.0};
      PutSpec bcast{a, s.p.mechanism, {s.gpus[r]}, s.gpus, true, 1.0};
      w_.puts.push_back(reduce);
      const auto pr = static_cast<uint32_t>(w_.puts.size() - 1);
      w_.puts.push_back(bcast);
      const auto pb = static_cast<uint32_t>(w_.puts.size() - 1);
      Program& p = prog(a);
      p.head = {put(slot(a, pr)), wait_all(), put(slot(a, pb))};
      set_chunks(a, chunks, slice);
    }
  }
}

// Send/recv: rank r sends `bytes` to r+1 and receives from r-1 (with 2 GPUs: an exchange, both
// directions at once). The sender's block copies into the peer's FIFO, the receiver's copies out.
void Builder::sendrecv(StepCtx& s, double bytes) {
  const int n = s.n;
  const double slice = bytes / s.channels;
  const uint32_t chunks = chunks_for(s, slice);
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    std::vector<uint32_t> actor(n);
    for (int r = 0; r < n; ++r) actor[r] = comm_actor(s, r, ch, 1, 1);
    std::vector<uint32_t> out(n);
    for (int r = 0; r < n; ++r) out[r] = connect(s, actor[r], actor[(r + 1) % n], 1.0, 1.0);
    for (int r = 0; r < n; ++r) {
      const uint32_t me = actor[r];
      Program& p = prog(me);
      p.head = {send(slot(me, out[r])), recv(slot(me, out[(r + n - 1) % n]))};
      set_chunks(actor[r], chunks, slice);
    }
  }
}

// Send, one direction: rank 2k sends `bytes` to rank 2k+1, which only receives (a pipeline stage
// handing on its activations). NCCL gives an exchange's block half its warps for each side
// (device/sendrecv.h) and a send or a receive alone the whole block, so here each side's agent
// carries only its own direction, at the per-channel rate the exchange rows fitted for the block;
// the links and the mechanism port, one direction loaded, bound the push. NCCL's P2P path over NVLink
// without registered buffers: the sender's block writes a chunk into the receiver's FIFO, the
// receiver's block copies it out once it has arrived, at the cost the exchange's fit charges the
// receive side (recv weight 1, HBM read and write), so the last chunk's copy-out is a tail.
void Builder::send_one_way(StepCtx& s, double bytes) {
  if (s.n % 2) fail(s, "send pairs rank 2k with rank 2k+1: needs an even number of GPUs, got " + std::to_string(s.n));
  const double slice = bytes / s.channels;
  // NCCL pipelines P2P in its own chunks (NCCL_P2P_NVL_CHUNKSIZE, 512 KiB), unless chunk_bytes is set.
  StepCtx chunked = s;
  if (s.nccl && !s.p.chunk_bytes_set) chunked.p.chunk_bytes = kNcclP2pChunkBytes;
  const uint32_t chunks = chunks_for(chunked, slice);
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    for (int r = 0; r + 1 < s.n; r += 2) {
      const uint32_t from = comm_actor(s, r, ch, 1, 1), to = comm_actor(s, r + 1, ch, 1, 1);
      const uint32_t c = connect(s, from, to, 1.0, 0.0);
      w_.connections[c].window = 1;  // the block writes its chunks one after another (FIFO slots are credits)
      const int32_t g = s.gpus[r + 1];
      PutSpec copy_out;
      copy_out.actor = to;
      copy_out.mechanism = s.p.mechanism;
      copy_out.sources = {g};
      copy_out.destinations = {g};
      copy_out.local = true;
      copy_out.hbm_weight = 2.0;
      copy_out.weight = 1.0;
      w_.puts.push_back(copy_out);
      const auto p = static_cast<uint32_t>(w_.puts.size() - 1);
      prog(from).head = {send(slot(from, c))};
      prog(to).head = {recv(slot(to, c)), put(slot(to, p))};
      set_chunks(from, chunks, slice);
      set_chunks(to, chunks, slice);
    }
  }
}

// All-to-all as NCCL runs it: grouped send/recv of piece p to rank p on every channel, the rank's own
// piece copied locally by the same kernel.
void Builder::alltoall(StepCtx& s, double bytes) {
  const int n = s.n;
  const double slice = bytes / n / s.channels;
  const uint32_t chunks = chunks_for(s, slice);
  for (uint32_t ch = 0; ch < s.channels; ++ch) {
    std::vector<uint32_t> actor(n);
    for (int r = 0; r < n; ++r) actor[r] = comm_actor(s, r, ch, 1, 1);
    std::vector<std::vector<uint32_t>> conn(n, std::vector<uint32_t>(n, 0));
    for (int r = 0; r < n; ++r)
      for (int d = 1; d < n; ++d) conn[r][(r + d) % n] = connect(s, actor[r], actor[(r + d) % n], 1.0, 1.0);
    for (int r = 0; r < n; ++r) {
      const uint32_t me = actor[r];
      Program& p = prog(me);
      for (int d = 1; d < n; ++d) p.head.push_back(send(slot(me, conn[r][(r + d) % n])));
      p.head.push_back(put(slot(me, local_pass(s, me, false, 1))));
      for (int d = 1; d < n; ++d) p.head.push_back(recv(slot(me, conn[(r + n - d) % n][r])));
      set_chunks(me, chunks, slice);
    }
  }
}

// Fused all-gather + GEMM (allgather_first) or GEMM + reduce-scatter on every rank: a compute actor
// runs the GEMM tile by tile while comm actors run the ring; they meet through counters. inter_sm:
// the comm actors hold num_comm_sms SMs and the GEMM runs on the rest; intra_sm: communication warps
// share every SM (nothing held), the GEMM keeps all SMs and both see the GPU's interference.
void Builder::fused(StepCtx& s, bool allgather_first) {
  const int n = s.n;
  const int64_t m = s.p.gemm_m, nn = s.p.gemm_n, kk = s.p.gemm_k;
  const int64_t dtype = s.p.dtype_bytes;
  const int64_t comm_sms = s.p.num_comm_sms;
  if (comm_sms < 1) fail(s, "num_comm_sms must be >= 1 for a fused kernel");
  const bool intra = s.p.intra_sm;
  s.channels = static_cast<uint32_t>(std::min<int64_t>(s.channels, comm_sms));
  const double sms_per_channel = static_cast<double>(comm_sms) / s.channels;
  const uint32_t held = intra ? 0 : static_cast<uint32_t>(std::max<int64_t>(1, comm_sms / s.channels));
  const double flops_total = 2.0 * static_cast<double>(m) * static_cast<double>(nn) * static_cast<double>(kk);
  if (allgather_first) {
    // A (m x k) is row-sharded: each rank holds m/n rows and gathers the rest; C = A B, whole.
    const double shard = static_cast<double>(m) / n * static_cast<double>(kk) * static_cast<double>(dtype);
    const double slice = shard / s.channels;
    const uint32_t chunks = chunks_for(s, slice);
    std::vector<uint32_t> arrivals(static_cast<size_t>(n) * s.channels);
    for (auto& c : arrivals) c = counter();
    ring(s, CollectiveOp::kAllGather, slice, &arrivals, nullptr, sms_per_channel, held);
    for (int r = 0; r < n; ++r) {
      const uint32_t total = p_.gpu(s.gpus[r]).sm_count;
      const uint32_t a = compute_actor(s, r, intra ? total : static_cast<uint32_t>(std::max<int64_t>(1, total - comm_sms)));
      Program& p = prog(a);
      const int64_t tile = gemm_ps(s, s.gpus[r], flops_total / n / chunks);
      p.prologue.push_back(compute(gemm_ps(s, s.gpus[r], flops_total / n)));  // the local shard first
      // step st (1..n-1) of chunk c arrived on every channel: counter >= st + c * (n - 1)
      for (uint32_t ch = 0; ch < s.channels; ++ch)
        p.steps.push_back(Op{OpKind::kWait, slot(a, arrivals[r * s.channels + ch]), 0, n - 1, 1, 1});
      p.steps.push_back(compute(tile));
      p.step_repeat = static_cast<uint64_t>(n - 1);
      p.iterations = chunks;
    }
  } else {
    // C partial (m x n) over the local k; reduce-scatter leaves each rank m/n rows of the sum.
    const double input = static_cast<double>(m) * static_cast<double>(nn) * static_cast<double>(dtype);
    const double slice = input / n / s.channels;
    const uint32_t chunks = chunks_for(s, slice);
    std::vector<uint32_t> tiles(n);
    for (auto& c : tiles) c = counter();
    for (int r = 0; r < n; ++r) {
      const uint32_t total = p_.gpu(s.gpus[r]).sm_count;
      const uint32_t a = compute_actor(s, r, intra ? total : static_cast<uint32_t>(std::max<int64_t>(1, total - comm_sms)));
      Program& p = prog(a);
      const int64_t tile = gemm_ps(s, s.gpus[r], flops_total / n / chunks);
      p.steps = {compute(tile), signal(slot(a, tiles[r]))};
      p.step_repeat = static_cast<uint64_t>(n);
      p.iterations = chunks;
    }
    ring(s, CollectiveOp::kReduceScatter, slice, nullptr, &tiles, sms_per_channel, held);
  }
}

void Builder::gemm(StepCtx& s) {
  const double flops = 2.0 * static_cast<double>(s.p.gemm_m) * static_cast<double>(s.p.gemm_n) * static_cast<double>(s.p.gemm_k);
  for (int r = 0; r < s.n; ++r) {
    const uint32_t a = compute_actor(s, r, p_.gpu(s.gpus[r]).sm_count);
    prog(a).prologue.push_back(compute(gemm_ps(s, s.gpus[r], flops)));
  }
}

void Builder::add(const WorkloadStep& step, size_t index) {
  StepCtx s = resolve(step, index);
  if (next_comm_sm_.empty()) next_comm_sm_.assign(p_.gpu_count(), 0);
  use_nccl_profile(s);
  choose_protocol(s);
  CollectiveSpec spec = collective_spec(s, step.stream);
  for (int64_t rep = 0; rep < s.p.repeat; ++rep) {
    begin_repeat(s);
    generate(s, spec);
    spec.channels = spec.compute ? 0 : s.channels;
    spec.busbw_factor = busbw_factor(spec.op, s.n);
    w_.collectives.push_back(spec);
    order_on_stream(s, step.stream);
    intern_programs(s.actors);
  }
}

// The step's knobs as typed parameters, its GPUs, and the combinations no generator has.
Builder::StepCtx Builder::resolve(const WorkloadStep& step, size_t index) const {
  StepCtx s;
  s.where = "workload step " + std::to_string(index) + " (" + step.op + ")";
  s.p = resolve_params(step.op, step.knobs, s.where);
  const CollectiveParams& p = s.p;
  const auto topo_gpus = static_cast<int64_t>(p_.gpu_count());
  const int64_t n = !step.gpu_list.empty() ? static_cast<int64_t>(step.gpu_list.size()) : p.gpus_set ? p.gpus : topo_gpus;
  if (n > topo_gpus)
    fail(s, "gpus=" + std::to_string(n) + " but topology " + p_.topology().name + " has " + std::to_string(topo_gpus));
  if (!step.gpu_list.empty()) {
    for (int32_t g : step.gpu_list)
      if (g < 0 || g >= topo_gpus || std::count(step.gpu_list.begin(), step.gpu_list.end(), g) != 1)
        fail(s, "GPU list names GPU " + std::to_string(g) + " (out of range or twice) on topology " + p_.topology().name);
    s.gpus = step.gpu_list;
  } else {
    for (int32_t g = 0; g < n; ++g) s.gpus.push_back(g);
  }
  s.n = static_cast<int>(n);
  s.channels = p.channels;
  s.payload = p.bytes;
  const std::string_view op = to_string(p.op), algo = to_string(p.algorithm);
  if (p.pull && !p.direct_kernel())
    fail(s, "mechanism=" + p.mechanism_name + " is for the direct kernels (algorithm=one_shot or two_shot)");
  if (p.pull && (p.op == WorkloadOp::kAllGather || p.op == WorkloadOp::kAllToAll || p.algorithm == Algorithm::kTwoShot))
    fail(s, "mechanism=" + p.mechanism_name + ": only the one-shot all-reduce and reduce-scatter pull");
  const bool allows_other_algos = p.op == WorkloadOp::kAllReduce || p.op == WorkloadOp::kAllGather ||
                                  p.op == WorkloadOp::kReduceScatter || p.op == WorkloadOp::kAllToAll;
  if (!allows_other_algos && p.algorithm != Algorithm::kRing && p.algorithm_set)
    fail(s, "algorithm=" + std::string(algo) + " does not apply to " + std::string(op));
  if ((p.op == WorkloadOp::kAllGather || p.op == WorkloadOp::kReduceScatter || p.op == WorkloadOp::kAllToAll) &&
      p.algorithm != Algorithm::kRing && p.algorithm != Algorithm::kOneShot)
    fail(s, "algorithm=" + std::string(algo) + " is not available for " + std::string(op) + " (ring or one_shot)");
  return s;
}

// NCCL's algorithms (ring, tree, send/recv, its all-to-all) follow the topology's measured NCCL
// profile when it has one: its per-channel rate at this step size, its fixed costs, its channels.
void Builder::use_nccl_profile(StepCtx& s) const {
  const CollectiveParams& p = s.p;
  const bool nccl_algo = !p.fused() && p.op != WorkloadOp::kGemm && (p.algorithm == Algorithm::kRing || p.algorithm == Algorithm::kTree);
  if (!nccl_algo || !p_.topology().nccl || !p.nccl_profile || p.mechanism != Mechanism::kLdSt || p.pull) return;
  s.nccl = &*p_.topology().nccl;
  const bool ring_coll = p.algorithm == Algorithm::kRing &&
                         (p.op == WorkloadOp::kAllReduce || p.op == WorkloadOp::kAllGather || p.op == WorkloadOp::kReduceScatter);
  const double count = p.op == WorkloadOp::kReduceScatter ? s.payload / s.n : s.payload;  // NCCL's per-rank count
  const double buffer = p.op == WorkloadOp::kAllGather ? s.payload * s.n : s.payload;
  s.nccl_ll = ring_coll && s.nccl->ll_max_bytes > 0 &&
              (p.op != WorkloadOp::kAllReduce && s.nccl->ll_max_buffer_bytes > 0 ? buffer <= s.nccl->ll_max_buffer_bytes
                                                                                : count <= s.nccl->ll_max_bytes);
  // protocol=simple / ll forces NCCL's protocol (NCCL_PROTO): that curve at any size.
  if (ring_coll && (p.protocol == Protocol::kSimple || p.protocol == Protocol::kLl)) s.nccl_ll = p.protocol == Protocol::kLl;
  s.nccl_channels = ring_coll ? s.nccl->channels_for(buffer) : s.nccl->channels;
  if (s.nccl_channels > 0 && !p.channels_set) s.channels = s.nccl_channels;
  s.nccl_step_bytes = (p.op == WorkloadOp::kAllGather || p.op == WorkloadOp::kSendRecv || p.op == WorkloadOp::kSend) ? s.payload : s.payload / s.n;
  s.nccl_rate = s.nccl->rate_for(profile_op(p.op), s.nccl_step_bytes, s.nccl_ll);
}

// Protocol: LL and LL128 carry flags inside every line, so the links and the SMs move more than the
// payload; the summary still reports the payload. The direct kernels use their own stores (simple
// unless protocol=ll); NCCL's measured profile has its protocols folded into its rates.
void Builder::choose_protocol(StepCtx& s) const {
  const CollectiveParams& p = s.p;
  s.protocol = p.protocol;
  if (s.protocol == Protocol::kAuto) {
    if (s.nccl) s.protocol = s.nccl_ll ? Protocol::kLl : Protocol::kSimple;  // a label: the profile's rates hold the protocol's cost
    else if (p.direct_kernel() || p.fused()) s.protocol = Protocol::kSimple;
    else
      s.protocol = s.payload <= p.ll_max_bytes      ? Protocol::kLl
                   : s.payload <= p.ll128_max_bytes ? Protocol::kLl128
                                                    : Protocol::kSimple;
  }
  const double wire = s.nccl || p.direct_kernel()        ? 1.0
                      : s.protocol == Protocol::kLl    ? kLlWire
                      : s.protocol == Protocol::kLl128 ? 128.0 / 120.0
                                                       : 1.0;
  s.ll = s.protocol == Protocol::kLl;
  s.bytes = s.payload * wire;
}

CollectiveSpec Builder::collective_spec(const StepCtx& s, uint32_t stream) const {
  CollectiveSpec spec;
  spec.name = std::string(to_string(s.p.op));
  spec.algorithm = std::string(to_string(s.p.algorithm));
  spec.mechanism = s.p.mechanism;
  spec.bytes = s.payload;
  spec.protocol = std::string(to_string(s.protocol));
  spec.gpus = s.gpus;
  spec.stream = stream;
  spec.algbw_bytes = s.payload;
  return spec;
}

// One repetition's channels: the knob's, or NCCL's own count at this size.
void Builder::begin_repeat(StepCtx& s) {
  s.actors.clear();
  s.group_of.clear();
  s.collective = static_cast<uint32_t>(w_.collectives.size());
  if (!s.nccl || s.p.channels_set || s.nccl_channels == 0) s.channels = s.p.channels;
  if (s.nccl && s.nccl_channels > 0 && s.channels != s.nccl_channels) {
    // The profile measured what NCCL's channels reach together at this step size with its own
    // channel count; another count splits that aggregate, no channel beyond what one SM moves
    // with LD/ST at the channel's threads (the mechanism's measured per-SM rate).
    const SmTransferModel& ldst = p_.gpu(s.gpus.front()).ldst;
    SmTransferModel linear = ldst;
    linear.cap_bytes_per_s = 0;
    const double per_sm = ldst.per_sm_bytes_per_s > 0 ? sm_model_rate(linear, 1, s.p.threads_per_channel) : 0;
    const double profile_rate = s.nccl->rate_for(profile_op(s.p.op), s.nccl_step_bytes, s.nccl_ll);
    double r = profile_rate * s.nccl_channels / s.channels;
    if (per_sm > 0) r = std::min(r, std::max(per_sm, profile_rate));
    s.nccl_rate = r;
  }
  s.kernel_sms = s.p.direct_kernel() ? s.channels : 0;
}

// The operation's actors, connections and programs, by op and algorithm.
void Builder::generate(StepCtx& s, CollectiveSpec& spec) {
  const CollectiveParams& p = s.p;
  switch (p.op) {
    case WorkloadOp::kAllReduce:
      spec.op = CollectiveOp::kAllReduce;
      switch (p.algorithm) {
        case Algorithm::kRing: ring(s, CollectiveOp::kAllReduce, s.bytes / s.n / s.channels); break;
        case Algorithm::kTree: tree_allreduce(s, s.bytes); break;
        case Algorithm::kOneShot: direct(s, DirectKind::kOneShot, s.payload, s.ll); break;
        case Algorithm::kTwoShot: direct(s, DirectKind::kTwoShot, s.payload, false); break;
        case Algorithm::kNvls: nvls(s, s.bytes); break;
      }
      break;
    case WorkloadOp::kAllGather:
      // bytes: the per-rank input; NCCL reports algbw on the gathered output
      spec.op = CollectiveOp::kAllGather;
      spec.algbw_bytes = s.payload * s.n;
      if (p.algorithm == Algorithm::kRing) ring(s, CollectiveOp::kAllGather, s.bytes / s.channels);
      else direct(s, DirectKind::kAllGather, s.payload, s.ll);
      break;
    case WorkloadOp::kReduceScatter:
      spec.op = CollectiveOp::kReduceScatter;
      if (p.algorithm == Algorithm::kRing) ring(s, CollectiveOp::kReduceScatter, s.bytes / s.n / s.channels);
      else direct(s, DirectKind::kReduceScatter, s.payload, s.ll);
      break;
    case WorkloadOp::kAllToAll:
      spec.op = CollectiveOp::kAllToAll;
      if (p.algorithm == Algorithm::kOneShot) direct(s, DirectKind::kAllToAll, s.payload, s.ll);
      else alltoall(s, s.bytes);
      break;
    case WorkloadOp::kSendRecv:
      spec.op = CollectiveOp::kSendRecv;
      sendrecv(s, s.bytes);
      break;
    case WorkloadOp::kSend:
      spec.op = CollectiveOp::kSendRecv;
      send_one_way(s, s.bytes);
      break;
    case WorkloadOp::kAllGatherGemm:
    case WorkloadOp::kGemmReduceScatter: {
      const bool ag = p.op == WorkloadOp::kAllGatherGemm;
      spec.op = ag ? CollectiveOp::kAllGather : CollectiveOp::kReduceScatter;
      const double dt = static_cast<double>(p.dtype_bytes);
      spec.bytes = ag ? static_cast<double>(p.gemm_m) / s.n * static_cast<double>(p.gemm_k) * dt
                      : static_cast<double>(p.gemm_m) * static_cast<double>(p.gemm_n) * dt;
      spec.algbw_bytes = ag ? spec.bytes * s.n : spec.bytes;
      spec.algorithm = "ring";
      spec.protocol = "simple";  // a fused kernel's own stores, not an NCCL protocol
      fused(s, ag);
      break;
    }
    case WorkloadOp::kGemm:
      spec.compute = true;
      spec.algorithm.clear();
      spec.protocol.clear();
      spec.bytes = 0;
      spec.algbw_bytes = 0;
      gemm(s);
      break;
  }
}

// Stream order and fixed kernel cost: every actor of this step on GPU g first waits for the
// previous step on (g, stream), communication actors then pay the GPU's kernel latency; at the
// end each waits for its transfers and signals this step's counter on g.
void Builder::order_on_stream(StepCtx& s, uint32_t stream) {
  const CollectiveParams& p = s.p;
  std::map<int32_t, std::vector<uint32_t>> on_gpu;
  for (uint32_t a : s.actors) on_gpu[w_.actors[a].gpu].push_back(a);
  for (auto& [g, actors] : on_gpu) {
    const uint32_t done = counter();
    const auto key = std::make_pair(g, stream);
    const auto prev = last_.find(key);
    for (uint32_t a : actors) {
      Program& prog_a = prog(a);
      std::vector<Op> pre;
      if (prev != last_.end()) pre.push_back(wait(slot(a, prev->second.first), prev->second.second, 0));
      const double latency = !s.nccl ? p_.gpu(g).kernel_latency_ns + (p.direct_kernel() ? p_.gpu(g).block_latency_ns * (s.channels - 1.0) : 0.0)
                             : (p.op == WorkloadOp::kSendRecv || p.op == WorkloadOp::kSend || p.op == WorkloadOp::kAllToAll) ? s.nccl->p2p_latency_ns
                             : p.algorithm == Algorithm::kRing
                                 ? s.nccl->collective_cost_ns(s.nccl_ll, p.op == WorkloadOp::kAllReduce ? 2 * (s.n - 1) : s.n - 1)
                                 : s.nccl->collective_latency_ns;
      if (w_.actors[a].role == ActorRole::kCommunication && latency > 0)
        pre.push_back(Op{OpKind::kDelay, 0, 0, ns_to_ps_round(latency), 0, 0});
      prog_a.prologue.insert(prog_a.prologue.begin(), pre.begin(), pre.end());
      prog_a.epilogue.push_back(wait_all());
      prog_a.epilogue.push_back(signal(slot(a, done)));
    }
    last_[key] = {done, static_cast<int64_t>(actors.size())};
  }
}

}  // namespace

const std::vector<std::string>& workload_ops() {
  static const std::vector<std::string> ops = {"allreduce", "allgather",      "reducescatter",      "alltoall", "sendrecv",
                                               "send",      "allgather_gemm", "gemm_reducescatter", "gemm"};
  return ops;
}

std::string canonical_op(std::string_view name) {
  std::string s;
  for (char c : name)
    if (c != '_' && c != '-' && c != '+') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, std::string> aliases = {
      {"allreduce", "allreduce"},       {"allgather", "allgather"},          {"reducescatter", "reducescatter"},
      {"alltoall", "alltoall"},         {"sendrecv", "sendrecv"},            {"send", "send"},
      {"p2p", "sendrecv"},              {"allgathergemm", "allgather_gemm"}, {"aggemm", "allgather_gemm"},
      {"gemmreducescatter", "gemm_reducescatter"}, {"gemmrs", "gemm_reducescatter"}, {"gemm", "gemm"},
      {"matmul", "gemm"}};
  auto it = aliases.find(s);
  return it == aliases.end() ? std::string() : it->second;
}

double busbw_factor(CollectiveOp op, int n) {
  if (n < 2) return 1.0;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll: return static_cast<double>(n - 1) / n;
    default: return 1.0;
  }
}

PlatformOptions platform_options(const KnobSettings& knobs) {
  PlatformOptions po;
  po.link_bandwidth_scale = knobs.get_double("link_bandwidth_scale");
  po.hbm = knobs.get_bool("hbm");
  return po;
}

Workload build_workload(const Platform& platform, const std::vector<WorkloadStep>& steps) {
  Builder b(platform);
  for (size_t i = 0; i < steps.size(); ++i) b.add(steps[i], i);
  return b.finish();
}

}  // namespace parascope::sim
