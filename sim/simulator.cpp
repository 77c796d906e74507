#include "sim/simulator.h"

#include "sim/sim_clock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace parascope::sim {

namespace {

enum EventKind : uint32_t { kEvStart = 1, kEvComputeDone = 2, kEvDelayDone = 3 };

// Transfer tags: 2 bits kind, 30 bits connection/actor, 32 bits sequence.
constexpr uint64_t kTagMessage = 0, kTagPut = 1;
constexpr uint64_t kSeqBits = 32, kIdBits = 30;
constexpr uint64_t kSeqMask = (uint64_t{1} << kSeqBits) - 1;
constexpr uint64_t kIdMask = (uint64_t{1} << kIdBits) - 1;
uint64_t make_tag(uint64_t kind, uint64_t id, uint64_t seq) { return (kind << 62) | (id << kSeqBits) | (seq & kSeqMask); }

TimePs ns_ps(double ns) { return static_cast<TimePs>(std::llround(ns * kPsPerNs)); }

}  // namespace

// Hot per-connection state in one cache line: message counters (32 bits: 4 G messages per
// connection at most, checked), done flags as bits (inline for windows up to 31, else in
// done_bits_), bytes of posted-but-unmatched sends in pending_bytes_ (at most W of them).
struct alignas(64) Simulator::ConnState {
  uint32_t puts = 0;      // sends posted
  uint32_t started = 0;   // transfers started = matched pairs
  uint32_t acked = 0;     // sends the sender has seen complete
  uint32_t consumed = 0;  // receives the receiver has consumed
  uint64_t done_word = 0; // done flags when the ring is 64 messages
  uint32_t path = 0;
  uint32_t window = 1;
  uint32_t src = 0, dst = 0;
  uint32_t done_base = 0; // first word in done_bits_ (rings above 64)
  uint32_t bytes_base = 0;// first entry in pending_bytes_
  uint16_t done_mask = 0; // done-ring size - 1
  uint16_t bytes_mask = 0;// pending-bytes ring size - 1 (a power of two >= window)
  bool receiving = false; // receiver started: `window` receives are posted ahead of `consumed`
  uint32_t gets() const { return receiving ? consumed + window : 0; }
  // done_mask >= 63, so a message's bit in its word is i & 63
  uint64_t& word(uint32_t i, std::vector<uint64_t>& bits) {
    return done_mask == 63 ? done_word : bits[done_base + ((i & done_mask) >> 6)];
  }
  bool done(uint32_t i, std::vector<uint64_t>& bits) { return (word(i, bits) >> (i & 63)) & 1; }
  void set_done(uint32_t i, bool v, std::vector<uint64_t>& bits) {
    uint64_t& w = word(i, bits);
    const uint64_t bit = uint64_t{1} << (i & 63);
    w = v ? (w | bit) : (w & ~bit);
  }
};

struct alignas(64) Simulator::ActorState {  // hot: touched by every op
  const Op* op = nullptr;   // next op of the current section
  const Op* end = nullptr;  // end of the current section
  const Program* prog = nullptr;
  uint32_t hot_slot[2] = {0, 0};  // slots 0 and 1 (a ring's out and in connections) inline
  uint32_t iter = 0;
  uint32_t rep = 0;
  uint32_t sends_pending = 0;
  uint32_t block_on = 0;
  uint32_t puts_out = 0;
  uint8_t phase = 0;      // see next_section
  Block block = Block::kNone;
};

struct Simulator::ActorCold {  // touched at start, end and by compute ops
  std::vector<uint32_t> in_conns;
  uint64_t put_seq = 0;
  double work_left = 0;   // ps of whole-GPU work
  double rate = 0;        // whole-GPU work per ps
  TimePs since = 0, compute_start = 0;
  EventId event = 0;
};

struct Simulator::GpuState {
  uint32_t comm_sms = 0;
  uint32_t comm_active = 0;
  std::vector<uint32_t> computing;  // actors with a compute op running
};

Simulator::Simulator(const Platform& platform, const Workload& workload, SimOptions opt)
    : platform_(platform), w_(workload), opt_(opt) {
  for (const PlatformResource& r : platform_.resources()) {
    const uint32_t id = flows_.add_resource(r.capacity);
    if (opt_.record_link_samples && r.kind != ResourceKind::kMechanismPort) flows_.record_samples(id);
  }
  const auto n_gpus = static_cast<int32_t>(platform_.gpu_count());
  for (size_t a = 0; a < w_.actors.size(); ++a) {
    const Actor& actor = w_.actors[a];
    if (actor.gpu < 0 || actor.gpu >= n_gpus)
      throw std::invalid_argument("actor " + std::to_string(a) + " runs on GPU " + std::to_string(actor.gpu) +
                                  " but the topology has " + std::to_string(n_gpus));
    agent_res_.push_back(actor.agent_capacity > 0 ? static_cast<int32_t>(flows_.add_resource(actor.agent_capacity)) : -1);
  }
  for (double cap : w_.group_capacity) {
    if (!(cap > 0)) throw std::invalid_argument("a kernel group needs a capacity > 0");
    group_res_.push_back(flows_.add_resource(cap));
  }
  for (size_t a = 0; a < w_.actors.size(); ++a)
    if (w_.actors[a].group != kNoGroup && w_.actors[a].group >= group_res_.size())
      throw std::invalid_argument("actor " + std::to_string(a) + " names an unknown kernel group");
  if (w_.connections.size() > kIdMask || w_.actors.size() > kIdMask) throw std::invalid_argument("workload too large");
  actors_.resize(w_.actors.size());
  cold_.resize(w_.actors.size());
  for (size_t a = 0; a < w_.actors.size(); ++a) {
    const Actor& actor = w_.actors[a];
    if (actor.program >= w_.programs.size()) throw std::invalid_argument("actor " + std::to_string(a) + " names an unknown program");
    actors_[a].prog = &w_.programs[actor.program];
    const std::vector<Op>& prologue = actors_[a].prog->prologue;
    actors_[a].op = prologue.data();
    actors_[a].end = prologue.data() + prologue.size();
    for (size_t i = 0; i < 2 && i < actor.slots.size(); ++i) actors_[a].hot_slot[i] = actor.slots[i];
  }
  gpus_.resize(platform_.gpu_count());
  conns_.resize(w_.connections.size());
  counters_.assign(w_.counters, 0);
  counter_waiters_.resize(w_.counters);
  build_paths();
}

Simulator::~Simulator() = default;

void Simulator::build_paths() {
  std::vector<PathUse> uses;
  // SM-driven mechanisms charge the driving SMs (the actor's agent) and the GPU's aggregate SM copy
  // throughput by the primitive's weight; every mechanism with a measured cap charges its port, and
  // the other end's port by the mechanism's reverse_weight (both directions at once slow each other).
  auto add_sm = [&](int32_t gpu, Mechanism m, bool pull, int32_t agent, double weight) {
    if (sm_transfer_model(platform_.gpu(gpu), m, pull) == nullptr || !(weight > 0)) return;
    if (agent >= 0) uses.push_back({static_cast<uint32_t>(agent), weight});
    if (int32_t pipe = platform_.sm_copy(gpu); pipe >= 0) uses.push_back({static_cast<uint32_t>(pipe), weight});
  };
  auto add_ports = [&](int32_t driver, int32_t other, Mechanism m, bool pull) {
    if (int32_t port = platform_.mechanism_port(driver, m, pull); port >= 0) uses.push_back({static_cast<uint32_t>(port), 1.0});
    if (other < 0 || other == driver) return;
    const double rw = reverse_weight(platform_.gpu(other), m, pull);
    if (int32_t port = platform_.mechanism_port(other, m, pull); port >= 0 && rw > 0) uses.push_back({static_cast<uint32_t>(port), rw});
  };
  auto add_group = [&](uint32_t actor) {
    if (const uint32_t g = w_.actors[actor].group; g != kNoGroup) uses.push_back({group_res_[g], 1.0});
  };
  auto add_hbm = [&](int32_t gpu, double weight) {
    if (int32_t h = platform_.hbm(gpu); h >= 0 && weight > 0) uses.push_back({static_cast<uint32_t>(h), weight});
  };
  auto add_route = [&](const Route& r) {
    for (uint32_t res : r.resources) uses.push_back({res, 1.0});
  };
  auto mechanism_terms = [&](int32_t gpu, Mechanism m, bool pull, double& bound, TimePs& latency) {
    const GpuSpec& g = platform_.gpu(gpu);
    bound = kUnbounded;
    if (m == Mechanism::kCopyEngine) {
      if (g.copy_engine.rate_bytes_per_s > 0) bound = g.copy_engine.rate_bytes_per_s;
      latency += ns_ps(g.copy_engine.setup_ns);
    } else if (const SmTransferModel* sm = sm_transfer_model(g, m, pull)) {
      latency += ns_ps(sm->setup_ns);
    }
  };
  auto finish = [&](double bound) {
    // A copy inside one GPU with nothing modelled would be instantaneous: give it the HBM rate.
    if (uses.empty() && !std::isfinite(bound)) bound = 1e15;
    return flows_.intern_path(uses, bound);
  };
  auto set_latency = [&](uint32_t path, TimePs latency) {
    if (path_latency_.size() <= path) path_latency_.resize(path + 1, 0);
    path_latency_[path] = latency;
  };

  for (size_t ci = 0; ci < w_.connections.size(); ++ci) {
    const Connection& c = w_.connections[ci];
    if (c.src >= w_.actors.size() || c.dst >= w_.actors.size())
      throw std::invalid_argument("connection " + std::to_string(ci) + " names an unknown actor");
    const int32_t sg = w_.actors[c.src].gpu, dg = w_.actors[c.dst].gpu;
    const int32_t driver = c.pull ? dg : sg;
    uses.clear();
    add_sm(sg, c.mechanism, c.pull, agent_res_[c.src], c.send_weight);
    add_sm(dg, c.mechanism, c.pull, agent_res_[c.dst], c.recv_weight);
    add_ports(driver, c.pull ? sg : dg, c.mechanism, c.pull);
    add_group(c.pull ? c.dst : c.src);
    TimePs latency = 0;
    if (sg != dg) {
      const Route& r = platform_.route(sg, dg);
      add_route(r);
      latency = r.latency;
    }
    add_hbm(sg, 1.0);
    add_hbm(dg, 1.0);
    double bound;
    mechanism_terms(driver, c.mechanism, c.pull, bound, latency);
    if (c.latency_ns >= 0) latency = ns_ps(c.latency_ns);
    ConnState& s = conns_[ci];
    s.path = finish(bound);
    set_latency(s.path, latency);
    if (c.window < 1 || c.window > 16384) throw std::invalid_argument("connection window must be 1..16384");
    s.window = c.window;
    s.src = c.src;
    s.dst = c.dst;
    uint32_t cap = 64;
    while (cap < 2 * s.window + 2) cap <<= 1;
    s.done_mask = static_cast<uint16_t>(cap - 1);
    if (cap > 64) {
      s.done_base = static_cast<uint32_t>(done_bits_.size());
      done_bits_.resize(done_bits_.size() + cap / 64, 0);
    }
    uint32_t bytes_cap = 1;
    while (bytes_cap < s.window) bytes_cap <<= 1;
    s.bytes_mask = static_cast<uint16_t>(bytes_cap - 1);
    s.bytes_base = static_cast<uint32_t>(pending_bytes_.size());
    pending_bytes_.resize(pending_bytes_.size() + bytes_cap, 0.0);
    cold_[c.dst].in_conns.push_back(static_cast<uint32_t>(ci));
  }

  for (size_t pi = 0; pi < w_.puts.size(); ++pi) {
    const PutSpec& p = w_.puts[pi];
    if (p.actor >= w_.actors.size()) throw std::invalid_argument("put " + std::to_string(pi) + " names an unknown actor");
    if (p.sources.empty() || p.destinations.empty())
      throw std::invalid_argument("put " + std::to_string(pi) + " needs a source and a destination");
    const int32_t g = w_.actors[p.actor].gpu;
    uses.clear();
    if (p.local) {
      if (p.sources != std::vector<int32_t>{g} || p.destinations != std::vector<int32_t>{g})
        throw std::invalid_argument("put " + std::to_string(pi) + ": a local pass reads and writes its own GPU only");
      if (agent_res_[p.actor] >= 0 && p.weight > 0) uses.push_back({static_cast<uint32_t>(agent_res_[p.actor]), p.weight});
      add_hbm(g, p.hbm_weight);
      put_path_.push_back(finish(kUnbounded));
      set_latency(put_path_.back(), 0);
      continue;
    }
    add_sm(g, p.mechanism, p.pull, agent_res_[p.actor], p.weight);
    add_group(p.actor);
    TimePs latency = 0;
    int32_t other = -1;
    if (p.via_switch) {
      add_ports(g, -1, p.mechanism, p.pull);
      const int32_t sw = platform_.nvswitch_of(g);
      if (sw < 0) throw std::invalid_argument("NVLS transfer on GPU " + std::to_string(g) + ": it has no NVSwitch");
      TimePs up = 0, down = 0;
      for (int32_t s : p.sources) {
        const Route& r = platform_.route_to_node(s, static_cast<uint32_t>(sw));
        add_route(r);
        up = std::max(up, r.latency);
      }
      for (int32_t d : p.destinations) {
        const Route& r = platform_.route_from_node(static_cast<uint32_t>(sw), d);
        add_route(r);
        down = std::max(down, r.latency);
      }
      latency = up + down;
    } else {
      if (p.sources.size() != 1 || p.destinations.size() != 1)
        throw std::invalid_argument("put " + std::to_string(pi) + ": several sources or destinations need via_switch");
      other = p.sources[0] == g ? p.destinations[0] : p.sources[0];
      add_ports(g, other, p.mechanism, p.pull);
      if (p.sources[0] != p.destinations[0]) {
        const Route& r = platform_.route(p.sources[0], p.destinations[0]);
        add_route(r);
        latency = r.latency;
      }
    }
    for (int32_t s : p.sources) add_hbm(s, 1.0);
    for (int32_t d : p.destinations) add_hbm(d, 1.0);
    double bound;
    mechanism_terms(g, p.mechanism, p.pull, bound, latency);
    put_path_.push_back(finish(bound));
    set_latency(put_path_.back(), latency);
  }
}

inline void Simulator::make_ready(uint32_t a) {
  ActorState& s = actors_[a];
  if (s.block == Block::kReady || s.block == Block::kDone) return;
  s.block = Block::kReady;
  ready_.push_back(a);
}

bool Simulator::all_done(uint32_t a) const { return actors_[a].sends_pending == 0 && actors_[a].puts_out == 0; }

inline void Simulator::try_match(uint32_t ci, TimePs now) {
  ConnState& c = conns_[ci];
  const uint32_t limit = std::min(c.puts, c.gets());
  while (c.started < limit) {
    const uint32_t idx = c.started++;
    flows_.start(now, c.path, pending_bytes_[c.bytes_base + (idx & c.bytes_mask)], path_latency_[c.path],
                 make_tag(kTagMessage, ci, idx));
    ++result_.messages;
  }
}

double Simulator::compute_rate(uint32_t a) const {
  const Actor& actor = w_.actors[a];
  const GpuSpec& g = platform_.gpu(actor.gpu);
  const GpuState& gs = gpus_[actor.gpu];
  const uint32_t total = g.sm_count;
  const uint32_t want = actor.sms ? actor.sms : total;
  const uint32_t free = gs.comm_sms < total ? total - gs.comm_sms : 1;
  const uint32_t sms = std::max<uint32_t>(1, std::min(want, free));
  double rate = static_cast<double>(sms) / total;
  if (gs.comm_active) rate /= 1.0 + g.comm_interference;
  return rate;
}

void Simulator::start_compute(uint32_t a, int64_t work_ps, TimePs now) {
  ActorCold& s = cold_[a];
  s.work_left = static_cast<double>(work_ps);
  s.rate = compute_rate(a);
  s.since = now;
  s.compute_start = now;
  s.event = queue_.schedule(deadline_after(now, s.work_left / s.rate, "a compute phase"), kEvComputeDone, a);
  gpus_[w_.actors[a].gpu].computing.push_back(a);
}

void Simulator::rerate_computes(int32_t gpu, TimePs now) {
  for (uint32_t a : gpus_[gpu].computing) {
    ActorCold& s = cold_[a];
    const double rate = compute_rate(a);
    if (rate == s.rate) continue;
    s.work_left = std::max(0.0, s.work_left - s.rate * static_cast<double>(now - s.since));
    s.since = now;
    s.rate = rate;
    queue_.cancel(s.event);
    s.event = queue_.schedule(deadline_after(now, s.work_left / s.rate, "a compute phase"), kEvComputeDone, a);
  }
}

void Simulator::start_actor(uint32_t a, TimePs now) {
  const Actor& actor = w_.actors[a];
  result_.actors[a].start = now;
  if (actor.role == ActorRole::kCommunication) {
    GpuState& g = gpus_[actor.gpu];
    g.comm_sms += actor.sms;
    if (g.comm_active++ == 0 || actor.sms) rerate_computes(actor.gpu, now);
  }
  for (uint32_t ci : cold_[a].in_conns) {  // pre-post `window` receives
    conns_[ci].receiving = true;
    try_match(ci, now);
  }
  make_ready(a);
}

void Simulator::finish_actor(uint32_t a, TimePs now) {
  const Actor& actor = w_.actors[a];
  actors_[a].block = Block::kDone;
  result_.actors[a].end = now;
  if (actor.role == ActorRole::kCommunication) {
    GpuState& g = gpus_[actor.gpu];
    g.comm_sms -= actor.sms;
    --g.comm_active;
    rerate_computes(actor.gpu, now);
  }
}

// Moves to the next non-empty section: phases 0 prologue, 1 head, 2 steps (x step_repeat), 3 tail
// (1-3 repeat `iterations` times), 4 epilogue, 5 end. False at the end.
bool Simulator::next_section(ActorState& s) {
  const Program& p = *s.prog;
  auto enter = [&](const std::vector<Op>& ops) {
    s.op = ops.data();
    s.end = ops.data() + ops.size();
  };
  for (;;) {
    switch (s.phase) {
      case 0:  // prologue done
        s.iter = 0;
        s.phase = p.iterations ? 1 : 4;
        (s.phase == 1 ? enter(p.head) : enter(p.epilogue));
        break;
      case 1:
        s.rep = 0;
        s.phase = 2;
        enter(p.steps);
        if (p.step_repeat == 0) s.op = s.end;
        break;
      case 2:
        if (++s.rep < p.step_repeat && !p.steps.empty()) {
          enter(p.steps);
          break;
        }
        s.phase = 3;
        enter(p.tail);
        break;
      case 3:
        if (++s.iter < p.iterations) {
          s.phase = 1;
          enter(p.head);
        } else {
          s.phase = 4;
          enter(p.epilogue);
        }
        break;
      default:
        s.phase = 5;
        return false;
    }
    if (s.op != s.end) return true;
  }
}

uint32_t Simulator::slot(uint32_t a, const ActorState& s, uint32_t i) const {
  return i < 2 ? s.hot_slot[i] : w_.actors[a].slots[i];
}

void Simulator::run_actor(uint32_t a, TimePs now) {
  ActorState& s = actors_[a];
  const Program& p = *s.prog;
  s.block = Block::kNone;
  for (;;) {
    if (s.op == s.end) {
      if (s.phase == 2 && s.rep + 1 < p.step_repeat && !p.steps.empty()) {  // the next repetition of the steps
        ++s.rep;
        s.op = p.steps.data();
        s.end = s.op + p.steps.size();
      } else if (s.phase == 5 || !next_section(s)) {
        if (!all_done(a)) {
          s.block = Block::kAll;
          return;
        }
        finish_actor(a, now);
        return;
      }
    }
    const Op& op = *s.op;
    const bool in_body = s.phase >= 1 && s.phase <= 3;
    switch (op.kind) {
      case OpKind::kSend: {
        const uint32_t ci = slot(a, s, op.target);
        ConnState& c = conns_[ci];
        while (c.puts - c.acked >= c.window) {
          if (!c.done(c.acked, done_bits_)) {
            s.block = Block::kAck;
            s.block_on = ci;
            return;
          }
          ++c.acked;
        }
        if (c.puts == UINT32_MAX) throw std::length_error("more than 2^32 messages on one connection");
        const double bytes = op.bytes != kChunkBytes ? op.bytes
                             : (in_body && s.iter + 1 == p.iterations) ? p.last_chunk_bytes
                                                                        : p.chunk_bytes;
        c.set_done(c.puts, false, done_bits_);
        const uint32_t idx = c.puts++;
        ++s.sends_pending;
        if (c.started == idx && idx < c.gets()) {  // a receive is waiting: start now
          ++c.started;
          flows_.start(now, c.path, bytes, path_latency_[c.path], make_tag(kTagMessage, ci, idx));
          ++result_.messages;
        } else {
          pending_bytes_[c.bytes_base + (idx & c.bytes_mask)] = bytes;
        }
        break;
      }
      case OpKind::kRecv: {
        const uint32_t ci = slot(a, s, op.target);
        ConnState& c = conns_[ci];
        if (!(c.consumed < c.started && c.done(c.consumed, done_bits_))) {
          s.block = Block::kRecv;
          s.block_on = ci;
          return;
        }
        ++c.consumed;
        try_match(ci, now);
        break;
      }
      case OpKind::kPut: {
        if (s.puts_out >= w_.actors[a].window) {
          s.block = Block::kPutSlot;
          return;
        }
        const double bytes = op.bytes != kChunkBytes ? op.bytes
                             : (in_body && s.iter + 1 == p.iterations) ? p.last_chunk_bytes
                                                                        : p.chunk_bytes;
        const uint32_t put = slot(a, s, op.target);
        ++s.puts_out;
        flows_.start(now, put_path_.at(put), bytes, path_latency_[put_path_[put]], make_tag(kTagPut, a, cold_[a].put_seq++));
        ++result_.messages;
        break;
      }
      case OpKind::kWaitAll:
        if (!all_done(a)) {
          s.block = Block::kAll;
          return;
        }
        break;
      case OpKind::kCompute:
      case OpKind::kDelay:
        break;  // handled below: they block after advancing
      case OpKind::kSignal: {
        const uint32_t k = slot(a, s, op.target);
        ++counters_.at(k);
        auto& waiters = counter_waiters_[k];
        size_t keep = 0;
        for (uint32_t other : waiters) {
          ActorState& o = actors_[other];
          if (o.block == Block::kCounter && counters_[k] >= static_cast<int64_t>(o.block_on)) make_ready(other);
          else waiters[keep++] = other;
        }
        waiters.resize(keep);
        break;
      }
      case OpKind::kWait: {
        const int64_t need = op.offset + (in_body ? int64_t{s.iter} * op.amount : 0) +
                             (s.phase == 2 ? int64_t{s.rep} * op.per_step : 0);
        const uint32_t k = slot(a, s, op.target);
        if (counters_.at(k) < need) {
          s.block = Block::kCounter;
          s.block_on = static_cast<uint32_t>(need);
          counter_waiters_[k].push_back(a);
          return;
        }
        break;
      }
    }
    const OpKind kind = op.kind;
    const int64_t amount = op.amount;
    ++s.op;
    if (kind == OpKind::kCompute) {
      start_compute(a, amount, now);
      s.block = Block::kCompute;
      return;
    }
    if (kind == OpKind::kDelay && amount > 0) {
      queue_.schedule(now + amount, kEvDelayDone, a);
      s.block = Block::kDelay;
      return;
    }
  }
}

inline void Simulator::on_transfer_done(uint64_t tag) {
  const uint64_t kind = tag >> 62;
  const auto id = static_cast<uint32_t>((tag >> kSeqBits) & kIdMask);
  if (kind == kTagPut) {
    ActorState& s = actors_[id];
    --s.puts_out;
    if (s.block == Block::kPutSlot || (s.block == Block::kAll && all_done(id))) make_ready(id);
    return;
  }
  ConnState& c = conns_[id];
  const auto idx = static_cast<uint32_t>(tag & kSeqMask);
  c.set_done(idx, true, done_bits_);
  ActorState& src = actors_[c.src];
  --src.sends_pending;
  if ((src.block == Block::kAck && src.block_on == id && idx == c.acked) || (src.block == Block::kAll && all_done(c.src)))
    make_ready(c.src);
  ActorState& dst = actors_[c.dst];
  if (dst.block == Block::kRecv && dst.block_on == id && idx == c.consumed) make_ready(c.dst);
}

SimResult Simulator::run() {
  result_ = SimResult{};
  result_.actors.assign(w_.actors.size(), ActorTimes{});
  for (size_t a = 0; a < w_.actors.size(); ++a) queue_.schedule(w_.actors[a].start, kEvStart, a);
  for (;;) {
    const TimePs tq = queue_.peek_time().value_or(kNever);
    const TimePs tf = flows_.next_time();
    const TimePs t = std::min(tq, tf);
    if (t == kNever) break;
    ++result_.batches;
    if (tf == t) {
      completed_.clear();
      flows_.advance(t, completed_);
      // Messages finishing together belong to many connections and actors: fetch ahead.
      // Run the actors a completion wakes right away, while their state is in cache.
      constexpr size_t kAhead = 4;
      for (size_t i = 0; i < completed_.size(); ++i) {
        if (i + kAhead < completed_.size() && (completed_[i + kAhead] >> 62) == kTagMessage)
          __builtin_prefetch(&conns_[(completed_[i + kAhead] >> kSeqBits) & kIdMask]);
        on_transfer_done(completed_[i]);
        for (; ready_head_ < ready_.size(); ++ready_head_) run_actor(ready_[ready_head_], t);
      }
    }
    while (true) {
      const auto pt = queue_.peek_time();
      if (!pt || *pt != t) break;
      const SimEvent e = *queue_.pop();
      const auto a = static_cast<uint32_t>(e.payload);
      if (e.kind == kEvStart) {
        start_actor(a, t);
      } else if (e.kind == kEvComputeDone) {
        ActorCold& s = cold_[a];
        auto& list = gpus_[w_.actors[a].gpu].computing;
        list.erase(std::find(list.begin(), list.end(), a));
        if (opt_.record_compute_spans) result_.compute_spans.push_back({a, s.compute_start, t});
        make_ready(a);
      } else {
        make_ready(a);
      }
    }
    for (; ready_head_ < ready_.size(); ++ready_head_) {
      if (ready_head_ + 2 < ready_.size()) __builtin_prefetch(&actors_[ready_[ready_head_ + 2]]);
      run_actor(ready_[ready_head_], t);
    }
    ready_.clear();
    ready_head_ = 0;
    flows_.resolve(t);
  }
  for (size_t a = 0; a < w_.actors.size(); ++a) {
    const ActorState& s = actors_[a];
    if (s.block != Block::kDone) {
      static constexpr const char* kWhy[] = {"not started", "ready", "a send credit", "a receive", "a put slot",
                                             "its transfers", "compute", "a counter", "a delay", "done"};
      throw std::runtime_error("simulation deadlock: actor " + std::to_string(a) + " on GPU " +
                               std::to_string(w_.actors[a].gpu) + " is waiting for " +
                               kWhy[static_cast<int>(s.block)] + " that never comes (workload inconsistent)");
    }
    result_.makespan = std::max(result_.makespan, result_.actors[a].end);
  }
  result_.flow_stats = flows_.stats();
  result_.warnings = w_.warnings;
  return result_;
}

}  // namespace parascope::sim
