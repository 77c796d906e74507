#include "trace/collector/nccl_plugin.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "trace/collector/collector.h"
#include "trace/collector/driver_api.h"
#include "trace/collector/nccl_profiler_abi.h"
#include "trace/io/collector/nccl_records.h"

namespace parascope::collector {

namespace {

using namespace nccl_abi;

constexpr size_t kRingSize = 8192;  // events per communicator that may be open or referenced at once
constexpr int kMask = kGroupApi | kCollApi | kP2pApi | kKernelLaunch | kColl | kP2p;

uint64_t now_ns() {
  // CUPTI's default clock on Linux is CLOCK_REALTIME: plugin times line up with activity records
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The thread id as CUPTI writes it into API records (threadId: pthread_self() truncated to 32 bits
// on Linux, e.g. 2944819520 in the bundled sample, not the kernel's gettid()), so that
// nccl_kernel_correlations can find a launch's driver record by thread when the correlation id
// is missing.
uint32_t this_tid() {
  thread_local const uint32_t tid = static_cast<uint32_t>(static_cast<uint64_t>(::pthread_self()));
  return tid;
}

struct Context;

struct Event {
  std::atomic<uint32_t> open{0};
  uint64_t type = 0;
  Context* ctx = nullptr;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t tid = 0;
  uint64_t group = 0, launch = 0, sequence = 0;
  int depth = 0, rank = -1, root = -1, peer = -1;
  bool graph_captured = false;
  const char* func = nullptr;
  const char* datatype = nullptr;
  const char* algo = nullptr;
  const char* proto = nullptr;
  uint64_t count = 0;
  uint32_t channels = 0, warps = 0;
  void* stream = nullptr;
  uint64_t api_start_ns = 0, api_end_ns = 0;
  std::atomic<uint32_t> correlation{0};
};

struct Context {
  uint64_t comm_hash = 0;
  std::string name;
  int nnodes = 0, nranks = 0, rank = -1, device = -1;
  std::unique_ptr<Event[]> ring{new Event[kRingSize]};
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> last_launch{0}, last_launch_group{0};
};

std::atomic<uint64_t> g_group_serial{0}, g_launch_serial{0};
std::atomic<uint64_t> g_records{0}, g_dropped{0}, g_comms{0}, g_launches{0}, g_launches_corr{0};
thread_local Event* t_open_launch = nullptr;

std::mutex g_sink_mutex;
ByteWriter g_sink;

void emit(const NcclRecord& r) {
  std::lock_guard lock(g_sink_mutex);
  encode(g_sink, r);
  ++g_records;
}

Event* allocate(Context* ctx) {
  for (size_t tries = 0; tries < kRingSize; ++tries) {
    Event& e = ctx->ring[ctx->next.fetch_add(1, std::memory_order_relaxed) % kRingSize];
    uint32_t expected = 0;
    if (e.open.compare_exchange_strong(expected, 1)) {
      e.ctx = ctx;
      return &e;
    }
  }
  ++g_dropped;
  return nullptr;
}

std::string str(const char* s) { return s ? s : ""; }

NcclRecord operation_record(const Event& e, NcclRecordKind kind) {
  NcclRecord r;
  r.kind = kind;
  r.comm_hash = e.ctx->comm_hash;
  r.rank = e.rank >= 0 ? e.rank : e.ctx->rank;
  r.sequence = e.sequence;
  r.func = str(e.func);
  r.count = e.count;
  r.datatype = str(e.datatype);
  r.root = e.root;
  r.peer = e.peer;
  r.channels = e.channels;
  r.warps = e.warps;
  r.algorithm = str(e.algo);
  r.protocol = str(e.proto);
  r.group = e.group;
  r.launch = e.launch;
  r.stream = reinterpret_cast<uint64_t>(e.stream);
  r.graph_captured = e.graph_captured;
  r.start_ns = e.start_ns;
  r.end_ns = e.end_ns;
  r.api_start_ns = e.api_start_ns;
  r.api_end_ns = e.api_end_ns;
  r.tid = e.tid;
  return r;
}

Result plugin_init(void** context, uint64_t comm_id, int* mask, const char* comm_name, int nnodes, int nranks, int rank,
                   Logger) {
  *context = nullptr;
  if (!Collector::instance().nccl_plugin_init(rank, nranks)) {
    *mask = 0;
    return kSuccess;  // loaded but asked to record nothing (kinds without nccl)
  }
  auto* ctx = new Context;
  ctx->comm_hash = comm_id;
  ctx->name = str(comm_name);
  ctx->nnodes = nnodes;
  ctx->nranks = nranks;
  ctx->rank = rank;
  if (const DriverApi* d = load_driver(nullptr)) {
    CUdevice dev = -1;
    if (d->cuCtxGetDevice(&dev) == CUDA_SUCCESS) ctx->device = dev;
  }
  *mask = kMask;
  *context = ctx;
  ++g_comms;
  NcclRecord r;
  r.kind = NcclRecordKind::kCommInit;
  r.comm_hash = comm_id;
  r.comm_name = ctx->name;
  r.nnodes = nnodes, r.nranks = nranks, r.rank = rank, r.device = ctx->device;
  r.pid = static_cast<uint32_t>(::getpid());
  r.start_ns = now_ns();
  emit(r);
  return kSuccess;
}

Result plugin_start_event(void* context, void** handle, EventDescrV5* d) {
  *handle = nullptr;
  auto* ctx = static_cast<Context*>(context);
  if (!ctx || !d || !Collector::instance().capturing()) return kSuccess;
  const uint64_t type = d->type;
  if (!(type & kMask)) return kSuccess;
  Event* e = allocate(ctx);
  if (!e) return kSuccess;
  e->type = type;
  e->start_ns = now_ns();
  e->end_ns = 0;
  e->tid = this_tid();
  e->launch = 0;
  e->correlation.store(0, std::memory_order_relaxed);
  e->rank = d->rank;
  e->root = e->peer = -1;
  e->func = e->datatype = e->algo = e->proto = nullptr;
  e->count = 0, e->channels = 0, e->warps = 0, e->sequence = 0, e->stream = nullptr;
  e->graph_captured = false;
  e->api_start_ns = e->api_end_ns = 0;
  const auto* parent = static_cast<const Event*>(d->parent);
  switch (type) {
    case kGroupApi:
      e->group = g_group_serial.fetch_add(1) + 1;
      e->depth = d->group_api.group_depth;
      e->graph_captured = d->group_api.graph_captured;
      break;
    case kCollApi:
      e->group = parent ? parent->group : 0;
      e->func = d->coll_api.func, e->count = d->coll_api.count, e->datatype = d->coll_api.datatype;
      e->root = d->coll_api.root, e->stream = d->coll_api.stream, e->graph_captured = d->coll_api.graph_captured;
      break;
    case kP2pApi:
      e->group = parent ? parent->group : 0;
      e->func = d->p2p_api.func, e->count = d->p2p_api.count, e->datatype = d->p2p_api.datatype;
      e->stream = d->p2p_api.stream, e->graph_captured = d->p2p_api.graph_captured;
      break;
    case kKernelLaunch:
      e->group = parent ? parent->group : 0;
      e->launch = g_launch_serial.fetch_add(1) + 1;
      e->stream = d->kernel_launch.stream;
      ctx->last_launch_group.store(e->group);
      ctx->last_launch.store(e->launch);
      t_open_launch = e;  // nccl_on_driver_launch fills in the correlation
      break;
    case kColl:
    case kP2p: {
      // parent = the CollApi/P2pApi event (already stopped, still in the ring)
      if (parent) {
        e->group = parent->group;
        e->api_start_ns = parent->start_ns, e->api_end_ns = parent->end_ns;
        e->stream = parent->stream, e->graph_captured = parent->graph_captured;
      } else {
        e->group = 0;
      }
      if (type == kColl) {
        e->sequence = d->coll.seq_number, e->func = d->coll.func, e->count = d->coll.count;
        e->root = d->coll.root, e->datatype = d->coll.datatype, e->channels = d->coll.channels;
        e->warps = d->coll.warps, e->algo = d->coll.algo, e->proto = d->coll.proto;
      } else {
        e->func = d->p2p.func, e->datatype = d->p2p.datatype, e->count = d->p2p.count;
        e->peer = d->p2p.peer, e->channels = d->p2p.channels;
      }
      // this plan's kernel was launched just before its operations start (same communicator);
      // a group mismatch means we cannot tell (CE collectives, delayed host callbacks)
      if (e->group != 0 && ctx->last_launch_group.load() == e->group) e->launch = ctx->last_launch.load();
      break;
    }
    default: break;
  }
  *handle = e;
  return kSuccess;
}

Result plugin_stop_event(void* handle) {
  auto* e = static_cast<Event*>(handle);
  if (!e) return kSuccess;
  e->end_ns = now_ns();
  switch (e->type) {
    case kGroupApi: {
      NcclRecord r;
      r.kind = NcclRecordKind::kGroup;
      r.group = e->group, r.depth = e->depth, r.graph_captured = e->graph_captured;
      r.start_ns = e->start_ns, r.end_ns = e->end_ns, r.tid = e->tid;
      emit(r);
      break;
    }
    case kKernelLaunch: {
      if (t_open_launch == e) t_open_launch = nullptr;
      NcclRecord r;
      r.kind = NcclRecordKind::kKernelLaunch;
      r.comm_hash = e->ctx->comm_hash, r.group = e->group, r.launch = e->launch;
      r.stream = reinterpret_cast<uint64_t>(e->stream);
      r.correlation = e->correlation.load();
      r.start_ns = e->start_ns, r.end_ns = e->end_ns, r.tid = e->tid;
      ++g_launches;
      if (r.correlation) ++g_launches_corr;
      emit(r);
      break;
    }
    case kColl: emit(operation_record(*e, NcclRecordKind::kCollective)); break;
    case kP2p: emit(operation_record(*e, NcclRecordKind::kP2p)); break;
    default: break;  // CollApi/P2pApi: kept in the ring for their Coll/P2p child
  }
  e->open.store(0, std::memory_order_release);
  return kSuccess;
}

Result plugin_record_event_state(void*, EventState, StateArgsV5*) { return kSuccess; }

Result plugin_finalize(void* context) {
  auto* ctx = static_cast<Context*>(context);
  if (!ctx) return kSuccess;
  NcclRecord r;
  r.kind = NcclRecordKind::kCommFinalize;
  r.comm_hash = ctx->comm_hash;
  r.start_ns = now_ns();
  emit(r);
  // Events of this communicator can no longer arrive; the ring is kept (never freed) because a
  // late host-callback thread of NCCL could still stop one.
  return kSuccess;
}

}  // namespace

void nccl_on_driver_launch(uint32_t correlation) noexcept {
  if (Event* e = t_open_launch) {
    // the first driver launch inside the KernelLaunch event is NCCL's kernel
    uint32_t expected = 0;
    e->correlation.compare_exchange_strong(expected, correlation, std::memory_order_relaxed);
  }
}

std::vector<uint8_t> nccl_take_records() {
  std::lock_guard lock(g_sink_mutex);
  std::vector<uint8_t> out;
  out.swap(g_sink.bytes());
  return out;
}

NcclPluginStats nccl_plugin_stats() {
  return {g_records.load(), g_dropped.load(), g_comms.load(), g_launches.load(), g_launches_corr.load()};
}

}  // namespace parascope::collector

// The symbol NCCL looks up (NCCL_PROFILER_PLUGIN names this library).
extern "C" {
__attribute__((visibility("default"))) parascope::collector::nccl_abi::ProfilerV5 ncclProfiler_v5 = {
    "parascope",
    parascope::collector::plugin_init,
    parascope::collector::plugin_start_event,
    parascope::collector::plugin_stop_event,
    parascope::collector::plugin_record_event_state,
    parascope::collector::plugin_finalize,
};
}
