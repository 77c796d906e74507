// The host time of ProcessGroup::allreduce called from C++, as DDP's reducer and FSDP call it (issue 21
// item 3: the calibration of whatif's comm_call_us, measured apart from the runs it is scored on).
// Built on the GPU machine by backend_call_cost.py (torch.utils.cpp_extension); not part of the product.
#include <torch/extension.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <c10/cuda/CUDAFunctions.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

// `calls` calls of pg->allreduce({t}); each call's host time in ns. Every `sync_every` calls the last
// work is waited for and the device synchronised, outside the timed part, so the launch queue never fills.
std::vector<int64_t> time_calls(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& t,
                                int64_t calls, int64_t sync_every) {
  std::vector<int64_t> ns;
  ns.reserve(static_cast<size_t>(calls));
  std::vector<at::Tensor> ts{t};
  for (int64_t i = 0; i < calls; ++i) {
    auto a = std::chrono::steady_clock::now();
    auto work = pg->allreduce(ts);
    auto b = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
    if ((i + 1) % sync_every == 0) {
      work->wait();
      c10::cuda::device_synchronize();
    }
  }
  c10::cuda::device_synchronize();
  return ns;
}

// As DDP's reducer drives a backward's buckets: for each bucket pg->allreduce({b}), its work's future
// and a then() callback on it (the reducer's copy-back hook; here it only passes the value on), then
// every callback's future waited for at the end (finalize_backward). Host ns per round; the device is
// synchronised between rounds, outside the timed part.
std::vector<int64_t> time_buckets(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const std::vector<at::Tensor>& buckets,
                                  int64_t rounds) {
  std::vector<int64_t> ns;
  ns.reserve(static_cast<size_t>(rounds));
  for (int64_t r = 0; r < rounds; ++r) {
    std::vector<c10::intrusive_ptr<c10::ivalue::Future>> done;
    auto a = std::chrono::steady_clock::now();
    for (const at::Tensor& b : buckets) {
      std::vector<at::Tensor> ts{b};
      auto fut = pg->allreduce(ts)->getFuture();
      done.push_back(fut->then([](c10::ivalue::Future& f) { return f.value(); }, fut->elementType()));
    }
    for (auto& f : done) f->wait();
    auto e = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(e - a).count());
    c10::cuda::device_synchronize();
  }
  return ns;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("time_calls", &time_calls, py::call_guard<py::gil_scoped_release>(),
        "host ns of each pg.allreduce([t]) made from C++ on this thread");
  m.def(
      "time_calls_thread",
      [](const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& t, int64_t calls, int64_t sync_every) {
        std::vector<int64_t> out;
        std::thread th([&] {
          c10::cuda::set_device(t.device().index());
          out = time_calls(pg, t, calls, sync_every);
        });
        th.join();
        return out;
      },
      py::call_guard<py::gil_scoped_release>(), "the same from a new C++ thread (as autograd's backward thread calls DDP's hook)");
  m.def(
      "time_buckets_thread",
      [](const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const std::vector<at::Tensor>& buckets, int64_t rounds) {
        std::vector<int64_t> out;
        std::thread th([&] {
          c10::cuda::set_device(buckets.front().device().index());
          out = time_buckets(pg, buckets, rounds);
        });
        th.join();
        return out;
      },
      py::call_guard<py::gil_scoped_release>(),
      "host ns per round of DDP-like buckets (allreduce, future, then(), all waited at the end) from a new C++ thread");
}
