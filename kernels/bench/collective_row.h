// The harness's row of one collective variant: its check plan (every rank's input filled, every
// rank's output verified) and the checked, timed ResultRow. Defined in collectives_bench.cu; the
// nccl and selftest subcommands use them too.
#pragma once

#include "bench/row_runner.h"
#include "collectives/collective_ops.h"

namespace parascope::bench {

// The check plan of a collective row: every rank's input filled, every rank's output verified.
CheckPlanFn collective_check_plan(const CollectiveOp& op, const CollResources& res, int n);
// One checked and timed row (a "skipped: ..." problem when the variant does not apply).
ResultRow collective_row(GpuContext& ctx, CollResources& res, const CollConfig& cfg);

}  // namespace parascope::bench
