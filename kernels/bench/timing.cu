#include "bench/timing.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>

#include "bench/nvtx.h"
#include "device/cuda_check.h"

namespace parascope::bench {

namespace {

// Owns the per-GPU graph executables and the timing events of one time_op call.
struct TimingResources {
  GpuContext& ctx;
  std::vector<cudaGraphExec_t> exec;
  std::vector<cudaEvent_t> start, end;
  int lead = 0;
  explicit TimingResources(GpuContext& c) : ctx(c), exec(static_cast<size_t>(c.n()), nullptr) {}
  ~TimingResources() {
    for (size_t d = 0; d < exec.size(); ++d)
      if (exec[d]) {
        cudaSetDevice(static_cast<int>(d));
        cudaGraphExecDestroy(exec[d]);
      }
    cudaSetDevice(lead);
    for (auto e : start) cudaEventDestroy(e);
    for (auto e : end) cudaEventDestroy(e);
  }
};

// Driver entry points through the runtime (cudaGetDriverEntryPointByVersion): the binary does not
// link libcuda, so it still starts (and the selftest skips) on machines without a driver.
template <class F>
F driver_fn(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult st{};
  if (cudaGetDriverEntryPointByVersion(name, &p, CUDA_VERSION, cudaEnableDefault, &st) != cudaSuccess ||
      st != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F>(p);
}

// The distinct kernels of a captured graph, in first-seen order ("a, b"): through the driver API,
// which also names kernels that libraries launched with cuLaunchKernel (NCCL's).
std::string graph_kernel_names(cudaGraph_t g) {
  using GetParams = CUresult (*)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS*);
  using FuncName = CUresult (*)(const char**, CUfunction);
  using KernelName = CUresult (*)(const char**, CUkernel);
  static const auto get_params = driver_fn<GetParams>("cuGraphKernelNodeGetParams");
  static const auto func_name = driver_fn<FuncName>("cuFuncGetName");
  static const auto kernel_name = driver_fn<KernelName>("cuKernelGetName");
  if (!get_params || !func_name) return {};
  size_t count = 0;
  if (cudaGraphGetNodes(g, nullptr, &count) != cudaSuccess || count == 0) return {};
  std::vector<cudaGraphNode_t> nodes(count);
  if (cudaGraphGetNodes(g, nodes.data(), &count) != cudaSuccess) return {};
  std::vector<std::string> names;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    if (cudaGraphNodeGetType(node, &type) != cudaSuccess || type != cudaGraphNodeTypeKernel) continue;
    CUDA_KERNEL_NODE_PARAMS p{};
    if (get_params(reinterpret_cast<CUgraphNode>(node), &p) != CUDA_SUCCESS) continue;
    const char* name = nullptr;
    if (p.func) func_name(&name, p.func);
    if (!name && p.kern && kernel_name) kernel_name(&name, p.kern);
    if (!name) continue;
    std::string s(name);
    if (s.size() > 96) s = s.substr(0, 96) + "...";
    if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Captures K instances into one graph per participating GPU. False (with the reason) when the
// driver refuses; the streams are out of capture mode either way. `kernels`: the first GPU's
// graph's kernel names.
bool capture_graphs(GpuContext& ctx, Op& op, const std::vector<int>& devs, int k, std::vector<cudaGraphExec_t>& exec,
                    std::string& why, std::string& kernels) {
  std::vector<cudaGraph_t> graphs(static_cast<size_t>(ctx.n()), nullptr);
  bool failed = false;
  std::vector<int> capturing;
  for (int d : devs) {
    ctx.set(d);
    const cudaError_t e = cudaStreamBeginCapture(ctx.stream(d), cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
      why = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(e);
      failed = true;
      break;
    }
    capturing.push_back(d);
  }
  if (!failed) {
    try {
      for (int i = 0; i < k; ++i) op.enqueue();
    } catch (const CudaError& e) {
      why = e.what();
      failed = true;
    }
  }
  for (int d : capturing) {
    ctx.set(d);
    cudaGraph_t g = nullptr;
    const cudaError_t e = cudaStreamEndCapture(ctx.stream(d), &g);
    if (e != cudaSuccess && !failed) {
      why = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e);
      failed = true;
    }
    graphs[static_cast<size_t>(d)] = g;
  }
  for (int d : devs) {
    cudaGraph_t g = graphs[static_cast<size_t>(d)];
    if (!g) continue;
    ctx.set(d);
    if (!failed && d == devs.front()) kernels = graph_kernel_names(g);
    if (!failed) {
      const cudaError_t e = cudaGraphInstantiate(&exec[static_cast<size_t>(d)], g, 0);
      if (e != cudaSuccess) {
        why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
        failed = true;
      }
    }
    cudaGraphDestroy(g);
  }
  cudaGetLastError();  // capture errors are not sticky; clear them
  if (failed) {
    for (auto& e : exec)
      if (e) {
        cudaGraphExecDestroy(e);
        e = nullptr;
      }
  }
  return !failed;
}

}  // namespace

TimingResult time_op(GpuContext& ctx, Op& op, const TimingPlan& plan, bool flush_l2) {
  NvtxRange range("time " + op.name());
  TimingResult res;
  const std::vector<int> devs = op.devices();
  TimingResources tr(ctx);
  tr.lead = devs.front();
  const int k = std::max(1, plan.ops_per_graph);
  res.ops_per_graph = k;

  std::string why;
  ctx.sync_all();
  const bool graphs = capture_graphs(ctx, op, devs, k, tr.exec, why, res.kernels);
  res.mode = graphs ? "graphs" : "stream";
  if (!graphs) std::fprintf(stderr, "  [%s] graph capture refused (%s): timing plain stream enqueue\n", op.name().c_str(), why.c_str());

  ctx.set(tr.lead);
  for (int i = 0; i < plan.reps + 1; ++i) {
    cudaEvent_t a, b;
    PS_CUDA(cudaEventCreate(&a));
    PS_CUDA(cudaEventCreate(&b));
    tr.start.push_back(a);
    tr.end.push_back(b);
  }
  const int lead = tr.lead;
  auto sample = [&](int slot) {
    if (flush_l2) {
      ctx.enqueue_l2_flush();
      for (int d = 0; d < ctx.n(); ++d) {
        if (d == lead) continue;
        ctx.set(d);
        PS_CUDA(cudaEventRecord(ctx.event(d, GpuContext::kEventPool - 2), ctx.stream(d)));
        ctx.set(lead);
        PS_CUDA(cudaStreamWaitEvent(ctx.stream(lead), ctx.event(d, GpuContext::kEventPool - 2), 0));
      }
    }
    ctx.set(lead);
    PS_CUDA(cudaEventRecord(tr.start[static_cast<size_t>(slot)], ctx.stream(lead)));
    for (int d : devs) {
      if (d == lead) continue;
      ctx.set(d);
      PS_CUDA(cudaStreamWaitEvent(ctx.stream(d), tr.start[static_cast<size_t>(slot)], 0));
    }
    if (graphs) {
      for (int d : devs) {
        ctx.set(d);
        PS_CUDA(cudaGraphLaunch(tr.exec[static_cast<size_t>(d)], ctx.stream(d)));
      }
    } else {
      for (int i = 0; i < k; ++i) op.enqueue();
    }
    for (int d : devs) {
      if (d == lead) continue;
      ctx.set(d);
      PS_CUDA(cudaEventRecord(ctx.event(d, GpuContext::kEventPool - 1), ctx.stream(d)));
      ctx.set(lead);
      PS_CUDA(cudaStreamWaitEvent(ctx.stream(lead), ctx.event(d, GpuContext::kEventPool - 1), 0));
    }
    ctx.set(lead);
    PS_CUDA(cudaEventRecord(tr.end[static_cast<size_t>(slot)], ctx.stream(lead)));
  };

  for (int w = 0; w < plan.warmup; ++w) sample(plan.reps);  // the spare slot
  ctx.sync_all();
  for (int r = 0; r < plan.reps; ++r) sample(r);
  ctx.sync_all();

  const auto errors = ctx.sync_errors();
  for (size_t r = 0; r < errors.size(); ++r)
    if (errors[r]) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "barrier/wait timeout on GPU %zu (code 0x%x)", r, errors[r]);
      res.problem = buf;
      return res;
    }
  ctx.set(lead);
  for (int r = 0; r < plan.reps; ++r) {
    float ms = 0;
    PS_CUDA(cudaEventElapsedTime(&ms, tr.start[static_cast<size_t>(r)], tr.end[static_cast<size_t>(r)]));
    res.samples.push_back(static_cast<double>(ms) * 1e6 / k);
  }
  res.ns = summarize(res.samples);
  return res;
}

}  // namespace parascope::bench
