// What a simulation runs, as plain data. Actors are SM groups (or a copy engine) on one GPU, each
// running a Program of ops; connections are FIFO message channels between two actors with NCCL-style
// credits (at most `window` sends in flight, `window` receives pre-posted); puts are one-sided
// transfers (copy-engine copies, NVLS reduce/multicast); counters let actors of a fused kernel or of
// consecutive kernels on a stream wait for each other. Generators (collectives.h) build it; the
// Simulator executes it. Programs are loops of ops naming connections by slot, so a collective of
// millions of messages is a few ops shared by all its actors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/events.h"
#include "trace/core/time.h"

namespace parascope::sim {

enum class OpKind : uint8_t {
  kSend,      // post a message on connection `target`; blocks while `window` are unacknowledged
  kRecv,      // wait for the next message on connection `target` (then re-post a receive)
  kPut,       // start one-sided transfer `target` (a PutSpec); at most `window` outstanding per actor
  kWaitAll,   // wait until every send and put this actor posted has completed
  kCompute,   // run `amount` ps of work (measured on the whole GPU) on the actor's SMs
  kSignal,    // add 1 to counter `target`
  kWait,      // wait until counter `target` >= offset + iteration * amount
  kDelay,     // let `amount` ps pass (kernel launch, protocol overhead)
};

inline constexpr double kChunkBytes = -1;  // Op::bytes: this iteration's chunk size

struct Op {
  OpKind kind = OpKind::kDelay;
  uint32_t target = 0;    // a slot of the running actor: Actor::slots[target] is the connection,
                          // put or counter, so actors of the same shape share one program
  double bytes = 0;       // kSend/kPut; kChunkBytes: the iteration's chunk
  int64_t amount = 0;     // kCompute/kDelay: ps; kWait: counter increase per body iteration
  int64_t offset = 0;     // kWait: counter value needed at iteration 0
  int64_t per_step = 0;   // kWait: counter increase per repetition of the body's `steps` ops
};

// prologue, then `iterations` x (head, steps x `step_repeat`, tail), then epilogue: a ring step
// loop of any length costs two ops.
struct Program {
  std::vector<Op> prologue, head, steps, tail, epilogue;
  uint64_t iterations = 0;
  uint64_t step_repeat = 0;
  double chunk_bytes = 0;       // body messages of every iteration but the last
  double last_chunk_bytes = 0;  // body messages of the last iteration
};

enum class ActorRole : uint8_t { kCommunication, kCompute };

struct Actor {
  int32_t gpu = 0;
  ActorRole role = ActorRole::kCommunication;
  uint32_t sms = 0;             // SMs it holds while running (compute: SMs its ops run on)
  double agent_capacity = 0;    // bytes/s its SMs can move (0: not SM-limited, e.g. a copy engine)
  uint32_t collective = 0;      // index in Workload::collectives
  uint32_t channel = 0;         // channel / SM group, for SM-lane tracks
  uint32_t first_sm = 0;        // SM lanes it occupies: [first_sm, first_sm + sms)
  uint32_t window = 8;          // outstanding puts
  TimePs start = 0;             // earliest start
  uint32_t program = 0;         // index in Workload::programs
  std::vector<uint32_t> slots;  // connection / put / counter ids its program's ops name by slot
};

struct Connection {
  uint32_t src = 0, dst = 0;    // actors
  Mechanism mechanism = Mechanism::kLdSt;
  uint32_t window = 8;          // sends in flight / receives pre-posted
  double send_weight = 1.0;     // agent capacity units the sender spends per byte
  double recv_weight = 0.0;     // ... and the receiver
};

// One-sided transfer: `actor` drives it; bytes are read on every source GPU and written on every
// destination GPU. With `via_switch` (NVLS) the sources' routes end at the switch and the
// destinations' routes start there: in-switch reduction (many sources) or multicast (many
// destinations). Otherwise one source and one destination, a plain copy.
struct PutSpec {
  uint32_t actor = 0;
  Mechanism mechanism = Mechanism::kCopyEngine;
  std::vector<int32_t> sources, destinations;
  bool via_switch = false;
  double weight = 1.0;          // agent units per byte
};

struct CollectiveSpec {
  std::string name;             // "allreduce", "gemm", "allgather_gemm"
  CollectiveOp op = CollectiveOp::kUnknown;
  std::string algorithm;        // "ring", "tree", ...
  std::string protocol;         // "simple", "ll128", "ll" (what protocol=auto chose)
  Mechanism mechanism = Mechanism::kLdSt;
  double bytes = 0;             // per-rank message size as NCCL reports it
  std::vector<int32_t> gpus;
  uint32_t channels = 0;
  double algbw_bytes = 0;       // bytes for algbw (NCCL: the collective's size)
  double busbw_factor = 1.0;    // busbw = algbw x factor (NCCL's formulas)
  uint32_t stream = 0;
  bool compute = false;         // a compute kernel, not a collective
};

struct Workload {
  std::vector<CollectiveSpec> collectives;
  std::vector<Program> programs;      // shared: a ring's 1024 x 16 actors run one program
  std::vector<Actor> actors;
  std::vector<Connection> connections;
  std::vector<PutSpec> puts;
  uint32_t counters = 0;
  std::vector<std::string> warnings;
  uint64_t messages() const;    // messages and puts the programs will post
};

}  // namespace parascope::sim
