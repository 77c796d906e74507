// `parascope-bench nccl`: NCCL's all-reduce, all-gather, reduce-scatter and send/recv timed inside
// per-GPU CUDA graphs (≥ 100 ops per graph for small messages), checked on fresh random data before
// and after timing. Clean small-message NCCL data for the simulator: the torch.distributed capture
// (resources/captures/h200x2_2026-11-30) is launch-bound below ~4 MiB. `--proto` forces NCCL's protocol
// (NCCL_PROTO, set before NCCL starts) and labels the rows with it: the simulator's calibration takes
// Simple's curve below NCCL's own LL limit from such rows.
#include <cctype>
#include <cstdlib>

#include "bench/collective_row.h"
#include "bench/commands.h"
#include "bench/report.h"
#include "bench/row_runner.h"
#include "collectives/collective_ops.h"
#include "host/size_spec.h"

namespace parascope::bench {

int cmd_nccl(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"--ops", true, "LIST    all_reduce,all_gather,reduce_scatter,sendrecv (default all)"},
      {"--sizes", true, "LIST  bytes per rank buffer (default 4KiB:1GiB:x4)"},
      {"--dtypes", true, "LIST bf16,fp32 (default both)"},
      {"--gpus", true, "N       GPUs (default all)"},
      {"--proto", true, "NAME   force NCCL's protocol: Simple, LL or LL128 (NCCL_PROTO; default NCCL's choice)"},
      {"--json", true, "FILE    result rows"},
      {"--table", true, "FILE   readable table"},
  };
  return run_subcommand("nccl", args, specs, 2, [&](const Options& o) {
    std::vector<Collective> ops;
    for (const auto& s : split_list(o.get("--ops", "all_reduce,all_gather,reduce_scatter,sendrecv"), ',')) ops.push_back(parse_collective(s));
    const auto sizes = parse_size_list(o.get("--sizes", "4KiB:1GiB:x4"));
    std::vector<DType> dtypes;
    for (const auto& s : split_list(o.get("--dtypes", "bf16,fp32"), ',')) dtypes.push_back(parse_dtype(s));
    std::string proto = o.get("--proto", "");
    for (char& c : proto) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!proto.empty() && proto != "simple" && proto != "ll" && proto != "ll128")
      throw UsageError("--proto must be Simple, LL or LL128");
    if (!proto.empty()) setenv("NCCL_PROTO", o.get("--proto", "").c_str(), 1);  // read by NCCL's first init
    const int n = o.get_int("--gpus", GpuContext::available_gpus());
    if (n < 2 || n > kMaxRanks) throw UsageError("--gpus must be 2.." + std::to_string(kMaxRanks));

    GpuContext ctx(n);
    preload_all_kernels(ctx);
    Report report("nccl", join_args("nccl", args), o.get("--json", ""), o.get("--table", ""));
    add_machine_meta(report.set(), ctx);
    CollResources res = alloc_coll_resources(ctx, *std::max_element(sizes.begin(), sizes.end()));
    for (DType t : dtypes)
      for (Collective op : ops)
        for (uint64_t bytes : sizes) {
          CollConfig cfg;
          cfg.op = op;
          cfg.variant = "nccl";
          cfg.dtype = t;
          cfg.bytes = bytes;
          ResultRow row = collective_row(ctx, res, cfg);
          if (row.problem.rfind("skipped", 0) == 0) continue;
          row.protocol = proto;
          report.add(row);
        }
    report.finish("NCCL inside CUDA graphs on " + ctx.describe());
    return report.any_failed() ? kExitFailed : 0;
  });
}

}  // namespace parascope::bench
