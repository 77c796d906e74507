// The N-rank graph of a run recorded on one GPU (`record --world N --rank r`): the processes the
// trace recorded as ranks of a larger world (Trace::worlds) stay, every rank that was not
// recorded is a copy of a recorded one (the nearest recorded rank at or below it, cyclically),
// and the stand-in collectives become communication groups over the ranks the program named,
// sized from what each call asked for, so the replay simulates them on the chosen machine.
// What stays true:
//   - a copy of rank t as rank r takes t's measured compute, host calls, streams and their
//     dependencies unchanged; its groups are t's groups shifted by r - t (mod N) where the
//     program created that group, else the created group of that size holding r; its
//     point-to-point peers keep their offset in the group;
//   - collectives are matched by (group, per-group sequence) - groups of the same ranks (the
//     world and a new_group of all of it) stay apart - and point-to-point by the k-th send from
//     a to b with the k-th receive on b from a, as NCCL orders them;
//   - each recorded process is shifted so that its first operation starts with rank 0's (they
//     were recorded one after another); topology GPU = rank;
//   - every choice (which rank repeats which, groups that could not be mapped) is a line in
//     diagnostics.warnings, never silent.
#pragma once

#include "sim/whatif/dep_graph.h"
#include "trace/core/trace.h"

namespace parascope::whatif {

// Nothing happens when the trace holds no recorded world. Called by build_dep_graph.
void expand_world(DepGraph& g, const Trace& trace);

}  // namespace parascope::whatif
