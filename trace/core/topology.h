// The machine a trace ran on, or a machine the simulator models: nodes (GPUs, switches, NICs, host
// bridges) and links with per-direction bandwidth and latency. Plain data in trace core, so traces
// carry it and the simulator reads it; the simulator builds its sealed platform from it.
// Units: bytes/s for bandwidth, nanoseconds for latency. `calibration` says whether the numbers
// were measured on the machine or taken from datasheets, and every preset states which.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parascope {

enum class Calibration : uint8_t { kDatasheet, kMeasured };
std::string_view to_string(Calibration c);

enum class NodeKind : uint8_t { kGpu, kNvSwitch, kPcieSwitch, kHostBridge, kNic, kNetworkSwitch };
std::string_view to_string(NodeKind k);

enum class Medium : uint8_t { kNvLink, kPcie, kInfiniBand, kEthernet, kHostLink, kInternal };
std::string_view to_string(Medium m);

// Copy-engine model: a transfer of b bytes takes setup_ns + b / rate (fitted on measured curves).
// The GPU's copy engines together move at most `rate` to peers; traffic the other way (both
// directions at once) costs reverse_weight per byte of that budget (the bidirectional penalty).
struct CopyEngineModel {
  uint32_t count = 0;               // copy engines usable for peer traffic
  double setup_ns = 0;              // fixed cost per copy (launch + DMA setup)
  double rate_bytes_per_s = 0;      // asymptotic per-copy rate
  double reverse_weight = 0;        // bytes/s of the peer's budget one byte/s costs (0: no penalty)
};

// SM-driven transfer models (per SM, saturating at the link): a kernel on k SMs moves
// rate(k) = smooth_min(k * per_sm, cap; sharpness) = m * (1 + (m / M)^s)^(-1/s) with m, M the smaller
// and larger of the two (s = 0: the hard min(k * per_sm, cap)). Transfers in the other direction at
// the same time cost reverse_weight per byte of the cap (requests, acknowledgements).
struct SmTransferModel {
  double per_sm_bytes_per_s = 0;
  double cap_bytes_per_s = 0;       // 0: only the link limits it
  double setup_ns = 0;              // per message, beyond the kernel launch (issue + completion)
  uint32_t per_sm_threads = 1024;   // threads per block at which per_sm saturates; fewer move less,
                                    // linearly (calibrate fits it from rows at several block sizes)
  double sharpness = 0;             // s of the smooth min; 0: hard min
  double reverse_weight = 0;        // bidirectional penalty, as in CopyEngineModel
};
// rate(k) of an SM model in bytes/s for k SMs of `threads` threads (threads 0: per_sm_threads).
double sm_model_rate(const SmTransferModel& m, double sms, double threads = 0);

struct GpuSpec {
  std::string model;                 // "NVIDIA H200"
  uint32_t sm_count = 0;
  double hbm_bytes_per_s = 0;
  double bf16_flops = 0;             // dense matrix peak, FLOP/s
  double fp32_flops = 0;
  uint64_t memory_bytes = 0;
  CopyEngineModel copy_engine;
  SmTransferModel tma;               // cp.async.bulk to peer memory (push: the sender's SMs)
  SmTransferModel ldst;              // 16-byte vector stores to peer memory (push)
  SmTransferModel tma_pull;          // bulk loads of peer memory by the receiver's SMs
  SmTransferModel ldst_pull;         // 16-byte loads of peer memory by the receiver's SMs
  SmTransferModel multimem;          // multimem.st / ld_reduce through an NVSwitch
  double comm_interference = 0;      // fractional slow-down of compute while communication runs
  // Fractional slow-down of communication while compute runs on its GPU: the machine's a-priori
  // value (the what-if replay's default), measured once on data other than the traces it replays;
  // where it came from in comm_slowdown_source ("": not measured, 0).
  double comm_slowdown = 0;
  std::string comm_slowdown_source;
  // Bytes/s all SMs together can copy with loads + stores (0: not modelled). SM-driven transfers
  // charge it by their primitive's memory operations (a reduce-and-forward costs more than a copy).
  double sm_copy_bytes_per_s = 0;
  double kernel_latency_ns = 0;      // a communication kernel's fixed cost before its first transfer
  double signal_latency_ns = 0;      // a cross-GPU flag (fence + remote flag store + poll) beyond the route
  double block_latency_ns = 0;       // a direct kernel's fixed cost per block beyond the first (launch, completion)
  double local_copy_bytes_per_s = 0; // per SM of 1024 threads: bytes/s it copies inside its GPU (0: not SM-limited)
  double reduce_cost = 1;            // a local reduction's HBM traffic counts this many times (interleaved streams)
};

// How NCCL behaves on this machine (library behaviour, measured, not hardware): the fixed cost of its
// kernels and the rate one channel reaches as a function of the bytes a ring step moves per rank, its
// protocol and chunking choices folded in. Knots are interpolated log-log and clamped at the ends.
struct NcclProfile {
  double collective_latency_ns = 0;  // a collective kernel's fixed cost (launch, work setup)
  double p2p_latency_ns = 0;         // a grouped send/recv's fixed cost
  double step_latency_ns = 0;        // per message between ranks (hand-over of a chunk)
  uint32_t channels = 0;             // channels NCCL runs with (0: the knob decides)
  std::vector<std::pair<double, double>> channel_rate;  // (bytes per ring step, bytes/s per channel)
  // NCCL's own per-call choices (its tuning log, NCCL_DEBUG_SUBSYS=TUNING), structure rather than timing:
  // ring all-reduce / all-gather / reduce-scatter run LL while NCCL's per-rank count (all-reduce: the
  // buffer, all-gather: the input, reduce-scatter: the output) is <= ll_max_bytes, at ll_channel_rate
  // (0: one curve, channel_rate, for every size); and use buffer / channel_min_bytes channels when that
  // is below `channels` (buffer: all-reduce's, all-gather's output, reduce-scatter's input; 0: always
  // `channels`). Send/recv and all-to-all keep channel_rate and `channels`.
  double ll_max_bytes = 0;
  // All-gather and reduce-scatter instead run LL while their whole buffer (n x the per-rank count,
  // as NCCL sizes them) is <= this; 0: their per-rank count against ll_max_bytes. NCCL's crossover
  // differs by operation (its tuning table's LL and Simple latency and bandwidth per function).
  double ll_max_buffer_bytes = 0;
  std::vector<std::pair<double, double>> ll_channel_rate;
  double channel_min_bytes = 0;
  // Simple's fixed cost beyond LL's for a ring collective that runs Simple under ll_max_bytes: NCCL's
  // own latency model (src/graph/tuning.cc, printed in its tuning table) charges base + per ring step,
  // Simple minus LL (2.28, NVLink: 8.4 - 6.6 us base, 3.4 - 0.6 us per step). A priori, not fitted;
  // added to collective_latency_ns (LL's, as fitted). 0: one fixed cost for both protocols.
  double simple_extra_ns = 0;
  double simple_extra_per_step_ns = 0;
  // Send/recv and all-to-all run at channel_rate x this (NCCL's p2p path has its own chunking and
  // channels per peer; fitted with the protocol split, 1 otherwise).
  double p2p_rate_scale = 1;
  // Per-operation curves: NCCL tunes each function on its own (its tuning table has a bandwidth per
  // function and protocol), and on this machine all-gather and reduce-scatter cross over (reduce-scatter
  // 12 % faster at 2 MiB, 4 % slower from 32 MiB). Keys: allreduce, allgather, reducescatter, sendrecv
  // (all-to-all runs send/recv's). An op with an entry uses its knots (ll: its LL knots, else simple)
  // instead of channel_rate / ll_channel_rate, without p2p_rate_scale; below its first knot the first
  // segment's log-log slope carries on for one knot interval (factor 4), then the rate stays flat.
  struct Curves {
    std::vector<std::pair<double, double>> simple, ll;  // (bytes per ring step, bytes/s per channel)
  };
  std::map<std::string, Curves> op_channel_rate;
  // Per-channel rate for a step of `bytes` (0 without knots); `ll`: on the LL knots when there are.
  double rate_at(double bytes, bool ll = false) const;
  // The rate an operation (workload name: allreduce, allgather, reducescatter, sendrecv, alltoall) runs
  // at: its own curve when op_channel_rate has one, else rate_at (x p2p_rate_scale for send/recv and
  // all-to-all).
  double rate_for(std::string_view op, double bytes, bool ll) const;
  // Channels NCCL runs a ring collective on for a buffer of `buffer_bytes` (see channel_min_bytes).
  uint32_t channels_for(double buffer_bytes) const;
  // A ring collective's fixed cost: collective_latency_ns, plus Simple's extra when it runs Simple
  // (`ll` false) while ll_max_bytes splits the protocols; ring_steps: 2(n-1) all-reduce, n-1 AG/RS.
  double collective_cost_ns(bool ll, int ring_steps) const;
};

struct SwitchSpec {
  bool multicast = false;            // NVLS multicast objects
  bool in_switch_reduction = false;  // NVLS reductions (multimem.ld_reduce)
  double crossbar_bytes_per_s = 0;   // 0: non-blocking
};

struct TopoNode {
  std::string name;                  // unique: "gpu0", "nvswitch0", "node1/nic3"
  NodeKind kind = NodeKind::kGpu;
  int32_t host = 0;                  // machine (node) the element sits in
  int32_t gpu_index = -1;            // for GPUs: 0..N-1 across the whole topology
  std::optional<GpuSpec> gpu;        // set iff kind == kGpu
  std::optional<SwitchSpec> sw;      // set for switches
  double nic_bytes_per_s = 0;        // for NICs: line rate per direction
};

// A duplex link between two nodes; each direction has `bandwidth_bytes_per_s`.
struct TopoLink {
  uint32_t a = 0, b = 0;             // node indexes
  Medium medium = Medium::kNvLink;
  uint32_t lanes = 1;                // e.g. 18 NVLinks bonded; bandwidth is the total
  double bandwidth_bytes_per_s = 0;  // per direction, all lanes together
  double latency_ns = 0;             // per hop
  std::string name;                  // optional label
};

// The host side of the machine's communication backend, measured apart: what one call that launches
// a collective costs the calling thread (NCCL's enqueue: events, stream waits, its kernel launch).
// A recording made with the stand-in (record --world) lacks it; whatif gives it back to those calls.
struct HostProfile {
  double collective_call_ns = 0;  // 0: unknown
  std::string source;             // the command and capture it was measured with
};

struct Topology {
  std::string name;
  std::string description;
  Calibration calibration = Calibration::kDatasheet;
  std::string calibration_source;    // where the numbers come from (file, date, command)
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;
  std::optional<NcclProfile> nccl;   // measured NCCL behaviour (presets calibrated with NCCL timings)
  std::optional<HostProfile> host;   // the backend's host cost per call (JSON "host")

  size_t gpu_count() const;
  // Node index of the GPU with gpu_index i, or -1.
  int32_t gpu_node(int32_t gpu_index) const;
  int32_t find_node(std::string_view name) const;
  // Structural checks (indexes in range, names unique, GPUs numbered 0..N-1, positive bandwidth);
  // returns the problems, empty when valid.
  std::vector<std::string> validate() const;
};

}  // namespace parascope
