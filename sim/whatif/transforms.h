// Graph transforms: what-if changes to a dependency graph before it is replayed. Each is a small
// function that edits lanes, edges, groups and node work, keeps the graph replayable (no dangling
// edge, every lane in execution order, removed nodes flagged and out of every lane) and returns
// one line saying what it changed ("" when nothing matched). They compose: run_whatif applies
// them in a fixed order (stream moves, merge, split, fuse, kernel speed, scale-out).
// Communication parameters (channels, chunk size, mechanism, algorithm) are not graph edits: they
// go to the interconnect model through the knobs (comm_model.h), restricted by comm_select.
#pragma once

#include <string>
#include <string_view>

#include "sim/whatif/dep_graph.h"

namespace parascope::whatif {

// Which collectives a schedule change applies to (knob comm_select).
struct CommSelector {
  CollectiveOp op = CollectiveOp::kUnknown;  // kUnknown: every collective
  bool matches(const CommGroup& g) const;
  static CommSelector from_knob(std::string_view value);  // "all", "allreduce", ...
};

// Kernel classes by name (knob kernel_class).
enum class KernelClass : uint8_t { kAll, kGemm, kAttention, kElementwise, kReduction, kMemory, kOther };
KernelClass kernel_class_from_knob(std::string_view value);
KernelClass kernel_class_of(std::string_view kernel_name);  // kGemm ... kOther (never kAll / kMemory)

enum class Parallelism : uint8_t { kData, kTensor, kPipeline, kExpert };
Parallelism parallelism_from_knob(std::string_view value);

// Moves each selected collective member off a stream that also runs compute onto a side stream of
// its device: it waits (event) for the op before it, the rest of its step runs on, and the
// step's next op on the old stream (first op of a later step) and the step's host syncs wait for it.
std::string move_collectives_to_side_stream(DepGraph& g, const CommSelector& sel);

// What holds a selected collective on a side stream back (knob comm_deps): kStream the waits it
// has (moved: the op before it on its old stream; traced: its event waits), kLaunch only its launch
// and its side stream's order, kStep nothing in its step (it starts with the step's first GPU op).
enum class CommDeps : uint8_t { kStream, kLaunch, kStep };
CommDeps comm_deps_from_knob(std::string_view value);  // "stream", "launch", "step"

// One selected collective member on a side stream and the dependencies it kept, for the report.
struct KeptDependency {
  uint32_t node = 0;
  std::string kept;  // "launch (cudaLaunchKernel); event wait on nvjet_tnt...; stream order after ncclDevKernel..."
};

// Applies `deps` to each selected collective member on a stream without compute kernels (moved
// there by move_collectives_to_side_stream, or traced so): kStream changes nothing; kLaunch drops
// its waits on GPU ops (event waits, joins, dispatch); kStep drops its launch too and adds a
// start-to-start edge from the first GPU op of its step on its device (when there is none, the
// launch stays). `kept` (optional) gets one entry per such member, in node order. Returns the
// change line ("" when nothing changed).
std::string set_collective_deps(DepGraph& g, const CommSelector& sel, CommDeps deps, std::vector<KeptDependency>* kept);

// Moves each selected collective member from a communication-only stream onto its device's compute
// stream (the one with the most compute kernels), in launch order; waits it had with that stream
// become plain stream order.
std::string serialize_collectives(DepGraph& g, const CommSelector& sel);

// Splits each selected collective into `parts` equal ones, back to back on the same stream and
// launched by the same host call: bytes / parts each, measured duration / parts each.
std::string split_collectives(DepGraph& g, const CommSelector& sel, int parts);

// Merges runs of up to `count` selected collectives that are consecutive on their stream on every
// rank (same op, GPUs and step) into one of the summed size, at the last one's place.
std::string merge_collectives(DepGraph& g, const CommSelector& sel, int count);

// Sets the host time of each call that launches a selected communication operation (a collective
// member or a peer copy: its kLaunch predecessor) to `work`: what the backend's own enqueue costs on
// the host (knob comm_call_us). A stand-in recording (record --world) holds the stand-in's cost there,
// 1-2 us for the compiled one, not the real backend's. Its gap after the thread's previous call stays.
// `standin_only`: only the calls that launch the stand-in's collectives (their lanes are stand-in
// streams), as what_if does by default with the machine's HostProfile.
std::string set_comm_call_time(DepGraph& g, const CommSelector& sel, TimeNs work, bool standin_only = false);

// Multiplies the work of compute kernels of a class (kMemory: copies and memsets) by `factor`.
std::string scale_kernels(DepGraph& g, KernelClass cls, double factor);

// Fuses an all-gather with the GEMM right after it on its stream (ag_gemm) and/or a GEMM with the
// reduce-scatter right after it (gemm_rs), on every rank of the group, into one kFused node timed
// by the simulator's fused model. GEMM dimensions are chosen so that the model's unfused GEMM on a
// GPU of `bf16_flops` lasts what the trace measured and the collective moves what it moved.
std::string fuse_gemm_collectives(DepGraph& g, bool ag_gemm, bool gemm_rs, double bf16_flops, int dtype_bytes);

// Runs the traced ranks as `gpus` ranks (a multiple of the traced GPU count): the traced ranks are
// copied; data-parallel: same work per rank, collectives over every rank (all-gather shards shrink);
// tensor-parallel: compute work and all-gather shards shrink by traced/target, collectives over
// every rank; pipeline: compute per stage shrinks, each copy keeps its own collectives and P2P;
// expert-parallel: all-to-alls over every rank, work unchanged. Throws std::invalid_argument when
// `gpus` is not a multiple of the traced GPUs.
std::string scale_out(DepGraph& g, int gpus, Parallelism p);

// Removes `victim` (a node in a lane) and gives its edges to `keeper`; keeps lanes consistent.
// Edges between the two become self-loops, which replay and break_cycles ignore.
void absorb_node(DepGraph& g, uint32_t victim, uint32_t keeper);

}  // namespace parascope::whatif
