// The stand-in's compiled path (torch >= 2.1): a c10d::Backend that records every collective,
// point-to-point call and wait as standin.py's StandInGroup does — the same records (schema 1,
// trace/io/collector/standin_records.h), the same small-output fill — but in C++, so that DDP's
// reducer, FSDP and the functional collectives call it without entering Python. The Python group
// costs ~35 us of host time per call on a host-bound step (docs/accuracy.md, issue 21 item 3):
// most of it cold interpreter and binding code that a C++ call does not touch.
// Built on first use by compiled.py (torch.utils.cpp_extension against the torch in use); the
// records are formatted into JSON lines here and handed to the Python Recorder (records.py) every
// kFlushEvery records and when it asks, so every record reaches one sink in one stream.
#include <pybind11/stl.h>
#include <torch/extension.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#ifdef PARASCOPE_STANDIN_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace parascope_standin {

namespace {

constexpr size_t kFlushEvery = 256;
constexpr int64_t kFillBytesDefault = 65536;

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // time.time_ns(): the collector's clock
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

uint32_t thread_id() { return uint32_t(uintptr_t(pthread_self()) & 0xFFFFFFFFu); }  // records.thread_id()

// torch's Python names of dtypes (str(torch.float32) without "torch.")
std::string dtype_name(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    case at::kComplexHalf: return "complex32";
    default: break;
  }
  std::string s = c10::toString(t);  // Float8_e4m3fn -> float8_e4m3fn, UInt16 -> uint16
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Where {
  int device = -1;
  uint64_t stream = 0;
  bool has_stream = false;
};

Where current_where(int device) {
  Where w;
  w.device = device;
#ifdef PARASCOPE_STANDIN_CUDA
  if (device >= 0) {
    w.stream = uint64_t(uintptr_t(c10::cuda::getCurrentCUDAStream(c10::DeviceIndex(device)).stream()));
    w.has_stream = true;
  }
#endif
  if (device < 0) w.device = -1;
  return w;
}

Where where_of(const at::Tensor* t) {
  if (t && t->defined() && t->is_cuda()) return current_where(t->get_device());
  return Where{};
}

// One record, op or wait, as standin.py would have written it.
struct Record {
  bool is_wait = false;
  // op
  const char* op = "";
  int64_t id = 0, seq = -1;
  int64_t group = 0;
  std::string dtype;
  int64_t elem_bytes = 1, in_elems = 0, out_elems = 0, tensors = 0;
  const char* reduce = nullptr;
  int64_t root = -1, peer = -1, peer_global = -1, tag = 0, coalesced = 0;
  bool has_root = false, p2p = false, peer_guessed = false;
  std::vector<int64_t> in_splits, out_splits;
  bool has_in_splits = false, has_out_splits = false;
  // wait
  std::vector<int64_t> ops;
  const char* how = "";
  bool blocking = false;
  // both
  Where where;
  uint32_t tid = 0;
  int64_t t0 = 0, t1 = 0;
};

void put_list(std::string& s, const std::vector<int64_t>& v) {
  s += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  s += ']';
}

using StreamIdFn = uint32_t (*)(uint64_t);

// The records of the process: ids and per-group sequence numbers as records.py's Recorder gives
// them, futures handed out and not yet waited, the sink (a Python callable taking JSON lines).
class Store {
 public:
  static Store& get() {
    static Store* s = new Store();  // never destroyed: threads may record during exit
    return *s;
  }

  int64_t next_seq(int64_t group) {
    std::lock_guard<std::mutex> g(mu_);
    return seq_[group]++;
  }
  int64_t seq_of(int64_t group) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = seq_.find(group);
    return it == seq_.end() ? 0 : it->second;
  }

  int64_t add_op(Record&& r, bool collective) {
    bool full;
    int64_t id;
    {
      std::lock_guard<std::mutex> g(mu_);
      id = r.id = next_id_++;
      r.seq = collective ? seq_[r.group]++ : -1;
      pending_.push_back(std::move(r));
      full = pending_.size() >= kFlushEvery;
    }
    if (full) flush_to_sink();
    return id;
  }

  void add_wait(Record&& r) {
    bool full;
    {
      std::lock_guard<std::mutex> g(mu_);
      for (auto o : r.ops) futures_.erase(o);
      pending_.push_back(std::move(r));
      full = pending_.size() >= kFlushEvery;
    }
    if (full) flush_to_sink();
  }

  void future_taken(const std::vector<int64_t>& ops, int device) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto o : ops) futures_[o] = device;
  }

  std::map<int64_t, int> unwaited_futures() {
    std::lock_guard<std::mutex> g(mu_);
    return std::map<int64_t, int>(futures_.begin(), futures_.end());
  }

  void mark_barrier(int64_t op) {
    std::lock_guard<std::mutex> g(mu_);
    barriers_.insert(op);
  }
  bool any_barrier(const std::vector<int64_t>& ops) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto o : ops)
      if (barriers_.count(o)) return true;
    return false;
  }

  void set_sink(py::object sink) {
    std::lock_guard<std::mutex> g(mu_);
    if (sink_) Py_DECREF(sink_);
    sink_ = sink.release().ptr();  // kept (not released at exit: the interpreter may be gone)
  }

  // What is pending, formatted. No lock is held while the sink runs (it takes the GIL, and a thread
  // holding the GIL may be recording: the functional collectives called from Python keep it).
  std::string take_text() {
    std::vector<Record> batch;
    {
      std::lock_guard<std::mutex> g(mu_);
      batch.swap(pending_);
    }
    std::string text;
    std::lock_guard<std::mutex> g(format_mu_);  // the stream-id cache
    for (auto& r : batch) format(r, text);
    return text;
  }

  void flush_to_sink() {
    std::string text = take_text();
    if (text.empty()) return;
    PyObject* sink;
    {
      std::lock_guard<std::mutex> g(mu_);
      sink = sink_;
    }
    if (!sink || !Py_IsInitialized()) {  // no Recorder attached, or the interpreter is gone: keep the lines
      std::lock_guard<std::mutex> g(mu_);
      orphan_ += text;
      return;
    }
    py::gil_scoped_acquire gil;
    try {
      py::handle callable(sink);  // (not `py::handle(sink)(...)`: that declares a function)
      callable(py::bytes(text));
    } catch (py::error_already_set& e) {
      std::fprintf(stderr, "parascope: the stand-in's records could not be handed over: %s\n", e.what());
      std::lock_guard<std::mutex> g(mu_);
      orphan_ += text;
    }
  }

  std::string take_orphans() {
    std::lock_guard<std::mutex> g(mu_);
    std::string s;
    s.swap(orphan_);
    return s;
  }

  int64_t fill_bytes() const { return fill_bytes_; }

  size_t pending_count() {
    std::lock_guard<std::mutex> g(mu_);
    return pending_.size();
  }

 private:
  Store() {
    const char* e = getenv("PARASCOPE_WORLD_FILL_BYTES");
    fill_bytes_ = e ? std::atoll(e) : kFillBytesDefault;
  }

  // the collector's CUPTI stream id for a cudaStream_t, where the collector is loaded and knows it
  bool stream_id(uint64_t handle, uint32_t* out) {
    if (!stream_fn_) {
      void* lib = dlopen("libparascope_cupti.so", RTLD_NOLOAD | RTLD_LAZY);
      if (lib) stream_fn_ = reinterpret_cast<StreamIdFn>(dlsym(lib, "parascope_collector_impl_stream_id"));
      if (!stream_fn_) return false;
    }
    auto it = stream_ids_.find(handle);
    if (it != stream_ids_.end()) {
      *out = it->second;
      return true;
    }
    uint32_t sid = stream_fn_(handle);
    if (sid == 0xFFFFFFFFu) return false;  // not known yet: asked again at the next flush
    stream_ids_[handle] = sid;
    *out = sid;
    return true;
  }

  void format(const Record& r, std::string& s) {
    auto field = [&](const char* k, int64_t v) {
      s += ",\"";
      s += k;
      s += "\":";
      s += std::to_string(v);
    };
    if (r.is_wait) {
      s += "{\"k\":\"wait\",\"ops\":";
      put_list(s, r.ops);
      s += ",\"how\":\"";
      s += r.how;
      s += '"';
    } else {
      s += "{\"k\":\"op\",\"op\":\"";
      s += r.op;
      s += '"';
      field("id", r.id);
      field("seq", r.seq);
      field("group", r.group);
      s += ",\"dtype\":\"" + r.dtype + "\"";
      field("elem_bytes", r.elem_bytes);
      field("in_elems", r.in_elems);
      field("out_elems", r.out_elems);
      field("tensors", r.tensors);
      if (r.reduce) s += std::string(",\"reduce\":\"") + r.reduce + "\"";
      if (r.has_root) field("root", r.root);
      if (r.p2p) {
        field("peer", r.peer);
        field("peer_global", r.peer_global);
        field("tag", r.tag);
      }
      if (r.peer_guessed) s += ",\"peer_guessed\":true";
      if (r.has_in_splits) {
        s += ",\"in_splits\":";
        put_list(s, r.in_splits);
      }
      if (r.has_out_splits) {
        s += ",\"out_splits\":";
        put_list(s, r.out_splits);
      }
      if (r.coalesced) field("coalesced", r.coalesced);
    }
    field("device", r.where.device);
    if (r.where.has_stream) {
      s += ",\"stream\":" + std::to_string(r.where.stream);
      uint32_t sid;
      if (stream_id(r.where.stream, &sid)) field("stream_id", sid);
    }
    field("tid", r.tid);
    field("t0", r.t0);
    field("t1", r.t1);
    if (r.is_wait) s += r.blocking ? ",\"blocking\":true" : ",\"blocking\":false";
    s += "}\n";
  }

  std::mutex mu_;
  std::mutex format_mu_;
  int64_t next_id_ = 1;
  std::unordered_map<int64_t, int64_t> seq_;
  std::vector<Record> pending_;
  std::unordered_map<int64_t, int> futures_;
  std::set<int64_t> barriers_;
  PyObject* sink_ = nullptr;
  std::string orphan_;
  int64_t fill_bytes_ = kFillBytesDefault;
  StreamIdFn stream_fn_ = nullptr;  // with stream_ids_, under format_mu_
  std::unordered_map<uint64_t, uint32_t> stream_ids_;
};

int64_t bytes_of(const at::Tensor& t) { return t.numel() * int64_t(t.element_size()); }

// dst gets src's values when a peer would have written dst and it is small (standin._fill)
void fill(at::Tensor& dst, const at::Tensor& src) {
  if (!dst.defined() || !src.defined() || dst.is_same(src) || bytes_of(dst) > Store::get().fill_bytes() ||
      dst.numel() == 0 || !dst.is_contiguous())
    return;
  at::NoGradGuard no_grad;
  auto flat_dst = dst.view(-1);
  auto s = src.reshape(-1).to(dst.scalar_type());
  int64_t n = std::min(flat_dst.numel(), s.numel());
  if (n == 0) return;
  for (int64_t off = 0; off < flat_dst.numel(); off += n) {
    int64_t k = std::min(n, flat_dst.numel() - off);
    flat_dst.narrow(0, off, k).copy_(s.narrow(0, 0, k));
  }
}

const char* reduce_name(const c10d::ReduceOp& op) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return "sum";
    case c10d::ReduceOp::AVG: return "avg";
    case c10d::ReduceOp::PRODUCT: return "product";
    case c10d::ReduceOp::MIN: return "min";
    case c10d::ReduceOp::MAX: return "max";
    case c10d::ReduceOp::BAND: return "band";
    case c10d::ReduceOp::BOR: return "bor";
    case c10d::ReduceOp::BXOR: return "bxor";
    case c10d::ReduceOp::PREMUL_SUM: return "premul_sum";
    default: return "unused";
  }
}

// Complete work; wait() records where the program waited, getFuture() hands out a completed future
// (its op counts as waited where backward() returns unless waited before: patches.py).
class StandInWork : public c10d::Work {
 public:
  StandInWork(std::vector<int64_t> ops, int device, std::vector<at::Tensor> outputs, int source)
      : ops_(std::move(ops)), device_(device), outputs_(std::move(outputs)), source_(source) {
    finish();
  }

  bool wait(std::chrono::milliseconds /*timeout*/) override {
    Record r;
    r.is_wait = true;
    r.t0 = now_ns();
    r.ops = ops_;
    r.how = "wait";
    r.where = current_where(device_);
    r.tid = thread_id();
    r.blocking = device_ < 0 || Store::get().any_barrier(ops_);
    r.t1 = now_ns();
    Store::get().add_wait(std::move(r));
    return true;
  }

  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    std::vector<c10::Device> devices;
    for (const auto& t : outputs_)
      if (t.defined() && t.is_cuda()) {
        devices.push_back(t.device());
        break;
      }
    auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()), devices);
    fut->markCompleted(c10::IValue(outputs_));
    Store::get().future_taken(ops_, device_);
    return fut;
  }

  std::vector<at::Tensor> result() override { return outputs_; }
  int sourceRank() const override { return source_; }

 private:
  std::vector<int64_t> ops_;
  int device_;
  std::vector<at::Tensor> outputs_;
  int source_;
};

template <typename T>
std::vector<at::Tensor> flatten(const std::vector<std::vector<T>>& lists) {
  std::vector<at::Tensor> out;
  for (const auto& l : lists)
    for (const auto& t : l) out.push_back(t);
  return out;
}

// Rank `rank` of a group of `size`; `ranks` are the global ranks in group-rank order; `gid` the
// group's id in the records.
class StandInBackend : public c10d::Backend {
 public:
  StandInBackend(int rank, int size, std::vector<int64_t> ranks, int64_t gid)
      : c10d::Backend(rank, size), ranks_(std::move(ranks)), gid_(gid) {}

  const std::string getBackendName() const override { return "parascope"; }

  void setSequenceNumberForGroup() override {}
  uint64_t getSequenceNumberForGroup() override { return uint64_t(Store::get().seq_of(gid_)); }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) override {
    Call c(this, "all_reduce", tensors, tensors);
    c.rec.reduce = reduce_name(opts.reduceOp);
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override {
    Call c(this, "all_reduce_coalesced", tensors, tensors);
    c.rec.reduce = reduce_name(opts.reduceOp);
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) override {
    Call c(this, "broadcast", tensors, tensors);
    c.root(opts.rootRank);
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override {
    Call c(this, "reduce", tensors, tensors);
    c.root(opts.rootRank);
    c.rec.reduce = reduce_name(opts.reduceOp);
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions&) override {
    auto outs = flatten(outputs);
    Call c(this, "all_gather", inputs, outs);
    auto w = c.done(outs);
    for (size_t i = 0; i < outputs.size() && i < inputs.size(); ++i)
      for (auto& o : outputs[i]) fill(o, inputs[i]);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions&) override {
    auto outs = flatten(outputs);
    Call c(this, "all_gather_coalesced", inputs, outs);
    return c.done(outs);
  }

  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions&) override {
    std::vector<at::Tensor> in{input}, out{output};
    Call c(this, "all_gather_into_tensor", in, out);
    auto w = c.done(out);
    fill(output, input);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::AllgatherOptions&) override {
    Call c(this, "all_gather_into_tensor_coalesced", inputs, outputs);
    auto w = c.done(outputs);
    for (size_t i = 0; i < outputs.size() && i < inputs.size(); ++i) fill(outputs[i], inputs[i]);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override {
    auto ins = flatten(inputs);
    Call c(this, "reduce_scatter", ins, outputs);
    c.rec.reduce = reduce_name(opts.reduceOp);
    auto w = c.done(outputs);
    for (size_t i = 0; i < outputs.size() && i < inputs.size(); ++i)
      if (!inputs[i].empty()) fill(outputs[i], inputs[i][std::min<size_t>(size_t(getRank()), inputs[i].size() - 1)]);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override {
    std::vector<at::Tensor> in{input}, out{output};
    Call c(this, "reduce_scatter_tensor", in, out);
    c.rec.reduce = reduce_name(opts.reduceOp);
    auto w = c.done(out);
    int64_t n = output.numel(), r = getRank();
    if (n && input.numel() >= (r + 1) * n && input.is_contiguous()) fill(output, input.reshape(-1).narrow(0, r * n, n));
    return w;
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) override {
    Call c(this, "reduce_scatter_tensor_coalesced", inputs, outputs);
    c.rec.reduce = reduce_name(opts.reduceOp);
    return c.done(outputs);
  }

  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits, const c10d::AllToAllOptions&) override {
    std::vector<at::Tensor> in{input}, out{output};
    Call c(this, "all_to_all_single", in, out);
    auto rows = [](const at::Tensor& t) { return t.dim() ? t.size(0) : int64_t(1); };
    int64_t rin = rows(input), rout = rows(output);
    int64_t row_in = rin ? input.numel() / rin : 0, row_out = rout ? output.numel() / rout : 0;
    if (!input_splits.empty()) {
      c.rec.has_in_splits = true;
      for (auto s : input_splits) c.rec.in_splits.push_back(s * row_in);
    }
    if (!output_splits.empty()) {
      c.rec.has_out_splits = true;
      for (auto s : output_splits) c.rec.out_splits.push_back(s * row_out);
    }
    auto w = c.done(out);
    if (output.numel() == input.numel()) fill(output, input);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions&) override {
    Call c(this, "all_to_all", inputs, outputs);
    c.rec.has_in_splits = c.rec.has_out_splits = true;
    for (auto& t : inputs) c.rec.in_splits.push_back(t.numel());
    for (auto& t : outputs) c.rec.out_splits.push_back(t.numel());
    auto w = c.done(outputs);
    for (size_t i = 0; i < outputs.size() && i < inputs.size(); ++i)
      if (outputs[i].numel() == inputs[i].numel()) fill(outputs[i], inputs[i]);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override {
    auto outs = flatten(outputs);
    Call c(this, "gather", inputs, outs);
    c.root(opts.rootRank);
    return c.done(outs);
  }

  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override {
    auto ins = flatten(inputs);
    Call c(this, "scatter", ins, outputs);
    c.root(opts.rootRank);
    return c.done(outputs);
  }

  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override {
    int64_t t0 = now_ns();
    int dev = -1;
    if (!opts.device_ids.empty()) {
      dev = int(opts.device_ids[0]);
    } else {
#ifdef PARASCOPE_STANDIN_CUDA
      // the current device, where CUDA is already up (standin.py: torch.cuda.is_initialized())
      if (c10::cuda::device_count() > 0) {
        int cur = c10::cuda::current_device();
        if (c10::cuda::hasPrimaryContext(c10::DeviceIndex(cur))) dev = cur;
      }
#endif
    }
    Record r;
    r.op = "barrier";
    r.group = gid_;
    r.dtype = "none";
    r.elem_bytes = 0;
    r.where = current_where(dev);
    r.tid = thread_id();
    r.t0 = t0;
    r.coalesced = coalescing_;
    r.t1 = now_ns();
    int64_t oid = Store::get().add_op(std::move(r), true);
    if (coalescing_) block_.push_back(oid);
    Store::get().mark_barrier(oid);
    return c10::make_intrusive<StandInWork>(std::vector<int64_t>{oid}, dev, std::vector<at::Tensor>{}, last_source_);
  }

  void monitoredBarrier(const c10d::BarrierOptions& opts, bool) override { barrier(opts)->wait(); }

  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override {
    std::vector<at::Tensor> none;
    Call c(this, "send", tensors, none, false);
    c.p2p(dst, tag);
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override {
    std::vector<at::Tensor> none;
    Call c(this, "recv", none, tensors, false);
    c.p2p(src, tag);
    last_source_ = src;
    return c.done(tensors);
  }

  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override {
    std::vector<at::Tensor> none;
    Call c(this, "recv", none, tensors, false);
    int src = (getRank() - 1 + getSize()) % getSize();  // no peer can be known: the ring's previous rank, marked a guess
    c.p2p(src, tag);
    c.rec.peer_guessed = true;
    last_source_ = src;
    return c.done(tensors);
  }

  void startCoalescing() override {
    ++coalescing_next_;
    coalescing_ = coalescing_next_;
    block_.clear();
    block_device_ = -1;
  }

  c10::intrusive_ptr<c10d::Work> endCoalescing() override {
    std::vector<int64_t> ops;
    ops.swap(block_);
    coalescing_ = 0;
    return c10::make_intrusive<StandInWork>(std::move(ops), block_device_, std::vector<at::Tensor>{}, last_source_);
  }

 private:
  // One call being recorded: its record is filled as standin.StandInGroup._record fills it.
  struct Call {
    StandInBackend* b;
    Record rec;
    bool collective;
    Call(StandInBackend* backend, const char* op, const std::vector<at::Tensor>& in, const std::vector<at::Tensor>& out,
         bool is_collective = true)
        : b(backend), collective(is_collective) {
      rec.t0 = now_ns();
      rec.op = op;
      rec.group = b->gid_;
      const at::Tensor* first = nullptr;
      for (auto* l : {&in, &out})
        for (const auto& t : *l)
          if (!first && t.defined()) first = &t;
      rec.where = where_of(first);
      describe(in, out);
      rec.tensors = int64_t(std::max(in.size(), out.size()));
      rec.tid = thread_id();
      rec.coalesced = b->coalescing_;
    }
    void root(int64_t r) {
      rec.root = r;
      rec.has_root = true;
    }
    void p2p(int peer, int tag) {
      rec.p2p = true;
      rec.peer = peer;
      rec.peer_global = (peer >= 0 && size_t(peer) < b->ranks_.size()) ? b->ranks_[size_t(peer)] : -1;
      rec.tag = tag;
    }
    void describe(const std::vector<at::Tensor>& in, const std::vector<at::Tensor>& out) {
      if (in.size() == 1 && out.size() == 1 && in[0].scalar_type() == out[0].scalar_type()) {  // the common case
        rec.dtype = dtype_name(in[0].scalar_type());
        rec.elem_bytes = int64_t(in[0].element_size());
        rec.in_elems = in[0].numel();
        rec.out_elems = out[0].numel();
        return;
      }
      std::set<int> dtypes;
      const at::Tensor* t0 = nullptr;
      for (auto* l : {&in, &out})
        for (const auto& t : *l)
          if (t.defined()) {
            dtypes.insert(int(t.scalar_type()));
            if (!t0) t0 = &t;
          }
      if (dtypes.size() <= 1) {
        rec.dtype = t0 ? dtype_name(t0->scalar_type()) : "none";
        rec.elem_bytes = t0 ? int64_t(t0->element_size()) : 1;
        for (const auto& t : in)
          if (t.defined()) rec.in_elems += t.numel();
        for (const auto& t : out)
          if (t.defined()) rec.out_elems += t.numel();
      } else {
        rec.dtype = "mixed";
        rec.elem_bytes = 1;
        for (const auto& t : in)
          if (t.defined()) rec.in_elems += bytes_of(t);
        for (const auto& t : out)
          if (t.defined()) rec.out_elems += bytes_of(t);
      }
    }
    c10::intrusive_ptr<c10d::Work> done(const std::vector<at::Tensor>& result) {
      int dev = rec.where.device;
      rec.t1 = now_ns();
      int64_t oid = Store::get().add_op(std::move(rec), collective);
      if (b->coalescing_) {
        b->block_.push_back(oid);
        b->block_device_ = dev;
      }
      return c10::make_intrusive<StandInWork>(std::vector<int64_t>{oid}, dev, result, b->last_source_);
    }
  };

  std::vector<int64_t> ranks_;
  int64_t gid_;
  int last_source_ = -1;
  int64_t coalescing_ = 0, coalescing_next_ = 0;
  std::vector<int64_t> block_;
  int block_device_ = -1;
};

}  // namespace

}  // namespace parascope_standin

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  using namespace parascope_standin;
  m.doc() = "Parascope's compiled stand-in backend (parascope_world/compiled.py loads it)";
  m.def(
      "make_backend",
      [](int rank, int size, std::vector<int64_t> ranks, int64_t gid) -> c10::intrusive_ptr<c10d::Backend> {
        return c10::make_intrusive<StandInBackend>(rank, size, std::move(ranks), gid);
      },
      "A stand-in c10d backend: rank of size, global ranks, group id in the records");
  m.def("set_sink", [](py::object sink) { Store::get().set_sink(std::move(sink)); },
        "callable(bytes): receives the JSON lines, every 256 records and at flush()");
  m.def(
      "flush", []() {
        py::gil_scoped_release nogil;
        Store::get().flush_to_sink();
      },
      "hands what is pending to the sink now");
  m.def("take_orphans", []() { return py::bytes(Store::get().take_orphans()); });
  m.def("unwaited_futures", []() { return Store::get().unwaited_futures(); },
        "{op id: device} of works whose future was taken and not yet waited");
  m.def(
      "record_wait",
      [](std::vector<int64_t> ops, const std::string& how, int device, int64_t t0, int64_t t1, bool blocking) {
        static std::set<std::string> hows;  // how must outlive the record: keep each spelling once
        static std::mutex mu;
        const char* h;
        {
          std::lock_guard<std::mutex> g(mu);
          h = hows.insert(how).first->c_str();
        }
        Record r;
        r.is_wait = true;
        r.ops = std::move(ops);
        r.how = h;
        r.where = current_where(device);
        r.tid = thread_id();
        r.t0 = t0;
        r.t1 = t1;
        r.blocking = blocking;
        Store::get().add_wait(std::move(r));
      },
      "a wait seen from Python (backward_end)");
  m.def("sequence", [](int64_t gid) { return Store::get().seq_of(gid); });
  m.def("pending", []() { return Store::get().pending_count(); }, "records not yet handed to the sink");
}
