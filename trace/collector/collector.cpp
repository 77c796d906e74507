#include "trace/collector/collector.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "trace/collector/clock_sync.h"
#include "trace/collector/crash_guard.h"
#include "trace/collector/cupti_guard.h"
#include "trace/collector/nccl_plugin.h"
#include "trace/collector/pm_sampler.h"

namespace parascope::collector {

namespace {

constexpr const char* kVersion = "0.1.0";
std::atomic<bool> g_forked_child{false};

uint64_t realtime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  return buf;
}

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s;
}

// The CUPTI guard's reader when `record` preloaded it into this process (cupti_guard.h), else null.
parascope_cupti_guard_calls_fn cupti_guard() {
  static const auto fn = reinterpret_cast<parascope_cupti_guard_calls_fn>(::dlsym(RTLD_DEFAULT, "parascope_cupti_guard_calls"));
  return fn;
}

std::string command_line() {
  std::string s = read_file("/proc/self/cmdline");
  for (char& c : s)
    if (c == '\0') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void CUPTIAPI tramp_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Collector::instance().buffer_requested(buffer, size, max_records);
}
void CUPTIAPI tramp_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  Collector::instance().buffer_completed(ctx, stream, buffer, size, valid);
}
void CUPTIAPI tramp_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  Collector::instance().on_callback(domain, cbid, data);
}
void tramp_at_exit() { Collector::instance().at_exit(); }
void tramp_sampler_at_exit() { Collector::instance().sampler_at_exit(); }
bool tramp_crash(int sig, int timeout_ms) noexcept { return Collector::instance().crash_flush(sig, timeout_ms); }
void atfork_child() { g_forked_child = true; }

struct KindMap {
  uint32_t bit;
  CUpti_ActivityKind kind;
  bool dynamic;  // toggled by capture start/stop; static kinds (topology) stay on
  const char* name;
};
constexpr KindMap kKindMap[] = {
    {kKindKernel, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true, "CONCURRENT_KERNEL"},
    {kKindMemcpy, CUPTI_ACTIVITY_KIND_MEMCPY, true, "MEMCPY"},
    {kKindMemcpy, CUPTI_ACTIVITY_KIND_MEMCPY2, true, "MEMCPY2"},
    {kKindMemset, CUPTI_ACTIVITY_KIND_MEMSET, true, "MEMSET"},
    {kKindSync, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, true, "SYNCHRONIZATION"},
    {kKindNvtx, CUPTI_ACTIVITY_KIND_MARKER, true, "MARKER"},
    {kKindNvtx, CUPTI_ACTIVITY_KIND_MARKER_DATA, true, "MARKER_DATA"},
    {kKindRuntime, CUPTI_ACTIVITY_KIND_RUNTIME, true, "RUNTIME"},
    {kKindDriver, CUPTI_ACTIVITY_KIND_DRIVER, true, "DRIVER"},
    {kKindDriver, CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, true, "INTERNAL_LAUNCH_API"},
    {kKindOverhead, CUPTI_ACTIVITY_KIND_OVERHEAD, true, "OVERHEAD"},
    {kKindGraph, CUPTI_ACTIVITY_KIND_GRAPH_TRACE, true, "GRAPH_TRACE"},
    {kKindExternal, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, true, "EXTERNAL_CORRELATION"},
    {kKindDevice, CUPTI_ACTIVITY_KIND_DEVICE, false, "DEVICE"},
    {kKindDevice, CUPTI_ACTIVITY_KIND_CONTEXT, false, "CONTEXT"},
    {kKindDevice, CUPTI_ACTIVITY_KIND_STREAM, false, "STREAM"},
    {kKindNvLink, CUPTI_ACTIVITY_KIND_NVLINK, false, "NVLINK"},
};

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
  return false;
}

}  // namespace

Collector& Collector::instance() {
  // never destroyed: CUPTI threads and atexit handlers may still call in during static destruction
  static Collector* c = new Collector;
  return *c;
}

Collector::Collector() {
  try {
    config_ = parse_config([](const char* n) { return std::getenv(n); });
  } catch (const ConfigError& e) {
    config_error_ = e.what();
    config_.rank = detect_rank([](const char* n) { return std::getenv(n); });
  }
  host_ = hostname();
  pid_ = ::getpid();
  start_unix_ns_ = realtime_ns();
  ::pthread_atfork(nullptr, nullptr, atfork_child);
}

void Collector::warn(const std::string& text, bool also_stderr) {
  if (also_stderr) std::fprintf(stderr, "parascope collector: %s\n", text.c_str());
  if (writer_) writer_->add_warning(text);
}

void Collector::note(const std::string& text) {
  if (writer_) writer_->add_note(text);
}

void Collector::sampler_said(const PmSamplerLog& log) {
  for (const auto& n : log.notes) note("nvlink sampling: " + n);
  for (const auto& w : log.warnings) warn("nvlink sampling: " + w, false);
}

Metadata Collector::start_metadata() const {
  const int32_t rank = rank_override_.load() >= 0 ? rank_override_.load() : config_.rank.rank;
  Metadata kv = {
      {"tool", "parascope-collector"},
      {"tool_version", kVersion},
      {"source_format", "parascope-collector"},
      {"clock", "cupti"},  // CUPTI's clock: CLOCK_REALTIME ns unless a tool registered its own
      {"host", host_},
      {"pid", std::to_string(pid_)},
      {"rank", std::to_string(rank)},
      {"local_rank", std::to_string(config_.rank.local_rank)},
      {"world_size", std::to_string(config_.rank.world_size)},
      {"rank_source", config_.rank.source},
      {"start_time_unix_ns", std::to_string(start_unix_ns_)},
      {"command", config_.command.empty() ? command_line() : config_.command},
      {"process_command", command_line()},
      {"session", config_.session},
      {"kinds", kinds_to_string(config_.kinds)},
      {"flush_ms", std::to_string(config_.flush_ms)},
      {"capture_start", config_.start_now ? "now" : "api"},
      {"nvlink_sample_us", std::to_string(config_.nvlink_sample_us)},
      {"cupti_api_compiled", std::to_string(CUPTI_API_VERSION)},
      {"cupti_guard", cupti_guard() ? "preloaded" : "absent"},  // can another CUPTI client be noticed
  };
  // relation between CUPTI's clock and the host clocks at start: readers align other sources
  kv.emplace_back("realtime_minus_monotonic_ns",
                  std::to_string(static_cast<int64_t>(realtime_ns()) - static_cast<int64_t>(monotonic_ns())));
  return kv;
}

Metadata Collector::final_metadata() {
  Metadata kv;
  const int32_t rank = rank_override_.load() >= 0 ? rank_override_.load() : config_.rank.rank;
  kv.emplace_back("rank", std::to_string(rank));
  if (!rank_name_.empty()) kv.emplace_back("rank_name", rank_name_);
  kv.emplace_back("status", status_);
  if (cupti_) {
    kv.emplace_back("cupti_path", cupti_->path);
    kv.emplace_back("cupti_source", cupti_->source);
    kv.emplace_back("cupti_api_runtime", std::to_string(cupti_->runtime_version));
  }
  kv.emplace_back("launches_seen", std::to_string(launches_seen_.load()));
  kv.emplace_back("kernel_records", std::to_string(counts_.kernels));
  kv.emplace_back("incomplete_records", std::to_string(counts_.incomplete));
  const NcclPluginStats ns = nccl_plugin_stats();
  kv.emplace_back("nccl_communicators", std::to_string(ns.communicators));
  kv.emplace_back("nccl_records", std::to_string(ns.records));
  kv.emplace_back("nccl_launches", std::to_string(ns.launches));
  kv.emplace_back("nccl_launches_with_correlation", std::to_string(ns.launches_with_correlation));
  kv.emplace_back("nccl_dropped_events", std::to_string(ns.dropped_events));
  if (writer_) kv.emplace_back("collector_tid", std::to_string(writer_->writer_tid()));
  const Metadata others = other_cupti_calls(true);
  kv.insert(kv.end(), others.begin(), others.end());
  std::string errs;
  for (const auto& e : kind_errors_) errs += (errs.empty() ? "" : "; ") + e;
  if (!errs.empty()) kv.emplace_back("kind_errors", errs);
  return kv;
}

bool Collector::ensure_writer() {
  if (writer_) return true;
  if (writer_failed_ || g_forked_child.load()) return false;
  std::string path = config_.output_path;
  if (path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(config_.output_dir, ec);
    const int32_t rank = rank_override_.load() >= 0 ? rank_override_.load() : config_.rank.rank;
    path = (std::filesystem::path(config_.output_dir) / trace_file_name(host_, pid_, rank)).string();
  }
  CaptureWriter::Options o;
  o.flush_ms = config_.flush_ms;
  o.max_buffered_bytes = static_cast<uint64_t>(config_.max_buffered_mib) << 20;
  o.pool_buffers = config_.buffer_pool;
  o.pool_buffer_bytes = static_cast<size_t>(config_.buffer_kib) << 10;
  try {
    writer_ = std::make_unique<CaptureWriter>(
        path, o, [this](const uint8_t* data, size_t valid, ByteWriter& out) { return convert_buffer(data, valid, out); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope collector: cannot write the trace: %s\n", e.what());
    writer_failed_ = true;
    return false;
  }
  writer_->set_periodic_hook([this](CaptureWriter::HookReason r) { periodic(r); });
  writer_->start();
  writer_->submit_chunk(ChunkType::kMetadata, encode_metadata(start_metadata()));
  if (!config_error_.empty()) warn("configuration: " + config_error_ + " (defaults used)");
  std::atexit(tramp_at_exit);
  if (config_.signal_handlers) install_crash_guard(tramp_crash, 3000);
  return true;
}

const DriverApi* Collector::driver() {
  const DriverApi* d = driver_.load();
  if (!d && (d = load_driver(nullptr))) driver_.store(d);
  return d;
}

int Collector::initialize_injection() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!ensure_writer()) return 0;
  driver();  // libcuda is loaded: it is calling us
  if (!cupti_started_.load() && !blocked_.load() && status_ != "no-cupti") start_cupti();
  return 1;
}

int Collector::initialize_nvtx(const void* get_export_table) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!ensure_writer()) return 0;
  if (!cupti_started_.load() && !blocked_.load() && status_ != "no-cupti") start_cupti();
  if (!(config_.kinds & kKindNvtx) || !cupti_started_.load()) return 0;  // 0: NVTX calls stay no-ops
  if (!cupti_->InitializeInjectionNvtx2) {
    warn("NVTX: " + cupti_->path + " has no InitializeInjectionNvtx2; NVTX ranges are not recorded");
    return 0;
  }
  return cupti_->InitializeInjectionNvtx2(get_export_table);
}

bool Collector::nccl_plugin_init(int comm_rank, int comm_nranks) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!(config_.kinds & kKindNccl)) return false;
  if (!ensure_writer()) return false;
  if (status_ == "starting") status_ = "nccl-only";  // no CUDA injection: only the plugin records
  if (config_.rank.rank < 0 && rank_override_.load() < 0 && comm_nranks > 1 && !rank_from_nccl_.exchange(true)) {
    // the launcher set no rank variable: the first multi-rank communicator names the file
    rank_override_ = comm_rank;
    rename_for_rank();
  }
  if (!capturing_.load() && config_.start_now && !cupti_started_.load()) capturing_ = true;
  if (!nccl_active_.exchange(true)) update_launch_callbacks();  // NCCL's launches carry its correlation
  return true;
}

void Collector::rename_for_rank() {
  if (!writer_ || !config_.output_path.empty()) return;
  const auto dir = std::filesystem::path(writer_->path()).parent_path();
  const std::string path = (dir / trace_file_name(host_, pid_, rank_override_.load())).string();
  if (!writer_->rename_to(path)) warn("could not rename the trace to " + path);
  Metadata kv = {{"rank", std::to_string(rank_override_.load())}};
  if (!rank_name_.empty()) kv.emplace_back("rank_name", rank_name_);
  writer_->submit_chunk(ChunkType::kMetadata, encode_metadata(kv));
}

bool Collector::start_cupti() {
  std::string why;
  cupti_ = load_cupti(&why);
  if (!cupti_) {
    status_ = "no-cupti";
    warn("CUPTI unavailable, no GPU activity recorded: " + why);
    return false;
  }
  driver();
  writer_->submit_chunk(ChunkType::kMetadata, encode_metadata({{"cupti_path", cupti_->path},
                                                               {"cupti_source", cupti_->source},
                                                               {"cupti_api_runtime", std::to_string(cupti_->runtime_version)}}));
  if (cupti_->runtime_version != CUPTI_API_VERSION)
    warn("CUPTI API version " + std::to_string(cupti_->runtime_version) + " at " + cupti_->path +
             " differs from the collector's " + std::to_string(CUPTI_API_VERSION) + "; record layouts are assumed compatible",
         false);

  CUptiResult r;
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  if (cupti_->cuptiSubscribe_v2) {
    CUpti_SubscriberParams p{};
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "Parascope";
    p.oldSubscriberName = old_name;
    p.oldSubscriberSize = CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;
    r = cupti_->cuptiSubscribe_v2(&subscriber_, tramp_callback, nullptr, &p);
  } else {
    r = cupti_->cuptiSubscribe(&subscriber_, tramp_callback, nullptr);
  }
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    blocked_ = true;
    status_ = "blocked";
    std::string who = old_name[0] ? std::string(" (\"") + old_name + "\")" : std::string();
    warn("another CUPTI client already holds CUPTI" + who + ": " + cupti_->error(r) +
         ". Nsight Systems/Compute, cuda-gdb or a profiler inside the program (torch.profiler) cannot share CUPTI "
         "with Parascope; this process is NOT traced. Run it without the other tool.");
    return false;
  }
  if (r != CUPTI_SUCCESS) {
    blocked_ = true;
    status_ = "cupti-error";
    warn("cuptiSubscribe failed: " + cupti_->error(r) + " (" + cupti_->path + "); this process is NOT traced");
    return false;
  }
  auto enable_cb = [&](CUpti_CallbackDomain d, CUpti_CallbackId id) {
    if (CUptiResult e = cupti_->cuptiEnableCallback(1, subscriber_, d, id); e != CUPTI_SUCCESS)
      kind_errors_.push_back("callback " + std::to_string(d) + "/" + std::to_string(id) + ": " + cupti_->error(e));
  };
  enable_cb(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  enable_cb(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  enable_cb(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
  if (config_.reset_api_callbacks) {
    enable_cb(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
                                CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2})
      enable_cb(CUPTI_CB_DOMAIN_DRIVER_API, id);
  }
  // Kernel launches: counted (to notice another client taking the activity buffers) and, for
  // NCCL's cuLaunchKernelEx, their correlation ids go to the NCCL plugin. A callback on every
  // launch costs host time on the launching thread, so by default ("auto") the launch callbacks
  // are on only while they are needed: counting until kernel records are seen arriving in our
  // buffers (and again after a period without kernel records), and the driver-API ones while the
  // NCCL plugin is active. PARASCOPE_LAUNCH_CALLBACKS=always keeps them all on (the first version).
  launch_counting_ = !config_.launch_callbacks_off;
  update_launch_callbacks();
  if (config_.buffer_pool && cupti_->cuptiActivitySetAttribute) {
    // our buffers come zero-filled (CaptureWriter's pool): CUPTI need not clear them on the
    // launching thread
    uint8_t one = 1;
    size_t sz = sizeof one;
    if (CUptiResult e = cupti_->cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz, &one);
        e != CUPTI_SUCCESS)
      kind_errors_.push_back("CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER: " + cupti_->error(e));
  }

  if (r = cupti_->cuptiActivityRegisterCallbacks(tramp_buffer_requested, tramp_buffer_completed); r != CUPTI_SUCCESS) {
    blocked_ = true;
    status_ = "blocked";
    warn("cuptiActivityRegisterCallbacks failed: " + cupti_->error(r) + "; this process is NOT traced");
    return false;
  }
  cupti_started_ = true;
  status_ = "recording";
  for (const auto& k : kKindMap)
    if (!k.dynamic && (config_.kinds & k.bit))
      if (CUptiResult e = cupti_->cuptiActivityEnable(k.kind); e != CUPTI_SUCCESS)
        kind_errors_.push_back(std::string(k.name) + ": " + cupti_->error(e));
  if (config_.start_now) set_dynamic_kinds(true);
  if (!kind_errors_.empty()) {
    std::string all;
    for (const auto& e : kind_errors_) all += "\n  " + e;
    warn("some activity kinds or callbacks could not be enabled:" + all);
  }
  return true;
}

void Collector::update_launch_callbacks() {
  if (!cupti_ || !subscriber_) return;
  std::lock_guard lock(launch_cb_mutex_);
  const bool always = config_.launch_callbacks_always;
  const bool runtime = always || launch_counting_.load();
  const bool driver = runtime || nccl_active_.load();
  auto set = [&](CUpti_CallbackDomain d, CUpti_CallbackId id, bool on) {
    if (CUptiResult e = cupti_->cuptiEnableCallback(on ? 1 : 0, subscriber_, d, id); e != CUPTI_SUCCESS)
      kind_errors_.push_back("callback " + std::to_string(d) + "/" + std::to_string(id) + ": " + cupti_->error(e));
  };
  if (driver != driver_launch_cb_on_) {
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz})
      set(CUPTI_CB_DOMAIN_DRIVER_API, id, driver);
    driver_launch_cb_on_ = driver;
  }
  if (runtime != runtime_launch_cb_on_) {
    for (CUpti_CallbackId id :
         {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
          CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000})
      set(CUPTI_CB_DOMAIN_RUNTIME_API, id, runtime);
    runtime_launch_cb_on_ = runtime;
  }
}

void Collector::set_launch_counting(bool on) {
  if (config_.launch_callbacks_always || config_.launch_callbacks_off || launch_counting_.load() == on) return;
  launch_counting_ = on;
  if (on) counting_since_ = launches_seen_.load();
  update_launch_callbacks();
}

void Collector::set_dynamic_kinds(bool on) {
  if (!cupti_started_.load()) return;
  for (const auto& k : kKindMap) {
    if (!k.dynamic || !(config_.kinds & k.bit)) continue;
    const CUptiResult e = on ? cupti_->cuptiActivityEnable(k.kind) : cupti_->cuptiActivityDisable(k.kind);
    if (e != CUPTI_SUCCESS) {
      kind_errors_.push_back(std::string(on ? "enable " : "disable ") + k.name + ": " + cupti_->error(e));
      if (e == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        blocked_ = true;
        status_ = "blocked";
      }
    }
  }
  capturing_ = on;
}

void Collector::buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  const size_t bytes = static_cast<size_t>(config_.buffer_kib) << 10;
  if (!writer_ || writer_->finished()) return;  // CUPTI drops and counts
  if (config_.buffer_pool) {  // zero-filled, pages mapped: nothing to do on this (launching) thread
    if (uint8_t* b = writer_->take_buffer(bytes)) {
      *buffer = b;
      *size = bytes;
    }
    return;
  }
  if (!writer_->reserve_buffer(bytes)) return;  // CUPTI drops and counts
  void* p = std::aligned_alloc(8, bytes);
  if (!p) {
    writer_->submit_buffer(nullptr, bytes, 0);  // gives the reservation back
    return;
  }
  *buffer = static_cast<uint8_t*>(p);
  *size = bytes;
}

void Collector::buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  size_t dropped = 0;
  if (cupti_ && cupti_->cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
    writer_->note_dropped(dropped);
    CollectedActivity d;
    d.kind = RecordKind::kDropped;
    d.stream = stream;
    d.count = dropped;
    add_record(d);
  }
  if (!writer_) {
    std::free(buffer);
    return;
  }
  writer_->submit_buffer(buffer, size, valid);
}

std::string Collector::api_name(CUpti_CallbackDomain domain, uint32_t cbid) {
  const uint64_t key = (static_cast<uint64_t>(domain) << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* name = nullptr;
  std::string s;
  if (cupti_ && cupti_->cuptiGetCallbackName && cupti_->cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name)
    s = name;
  api_names_.emplace(key, s);
  return s;
}

uint64_t Collector::convert_buffer(const uint8_t* data, size_t valid, ByteWriter& out) {
  if (!cupti_) return 0;
  CUpti_Activity* rec = nullptr;
  uint64_t n = 0;
  CollectedActivity a;
  const ApiNameFn names = [this](CUpti_CallbackDomain d, uint32_t id) { return api_name(d, id); };
  auto* buf = const_cast<uint8_t*>(data);
  const uint64_t kernels_before = counts_.kernels;
  while (cupti_->cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
    if (!convert_activity(rec, a, names, counts_)) continue;
    if (a.kind == RecordKind::kKernel && brackets_pending_.load(std::memory_order_relaxed)) note_bracket_kernel(a);
    encode(out, a);
    ++n;
  }
  // kernel records reach our buffers: no other client has taken them, launches need no counting
  // (not while a crash is being flushed: the crashed thread may hold a CUPTI lock)
  if (counts_.kernels > kernels_before && launch_counting_.load() && !crashing_.load()) set_launch_counting(false);
  return n;
}

void Collector::add_record(const CollectedActivity& a) {
  std::lock_guard lock(pending_mutex_);
  encode(extra_records_, a);
}

void Collector::on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (g_forked_child.load(std::memory_order_relaxed)) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (cb->callbackSite != CUPTI_API_ENTER) return;
    if (is_launch(domain, cbid)) {
      const uint64_t n = launches_seen_.fetch_add(1, std::memory_order_relaxed) + 1;
      // enough launches to prove that kernel records reach our buffers: let the writer flush and
      // check now instead of at the end of the period (then counting stops: "auto" mode)
      if (n == counting_since_.load(std::memory_order_relaxed) + kLaunchesToCheck && writer_ &&
          !config_.launch_callbacks_always)
        writer_->request_period();
      if (domain == CUPTI_CB_DOMAIN_DRIVER_API) nccl_on_driver_launch(cb->correlationId);
      return;
    }
    // cudaDeviceReset, cuCtxDestroy, cuDevicePrimaryCtxReset: records of the dying context must be
    // delivered while CUPTI can still read them
    flush_all(true, std::chrono::milliseconds(2000));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
      uint32_t dev = 0;
      if (!cupti_->cuptiGetDeviceId || cupti_->cuptiGetDeviceId(rd->context, &dev) != CUPTI_SUCCESS) break;
      std::lock_guard lock(pending_mutex_);
      contexts_.emplace(static_cast<int>(dev), rd->context);
      pending_devices_.push_back(static_cast<int>(dev));
      break;
    }
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
      bool sampled = false;
      {
        std::lock_guard lock(pending_mutex_);
        for (auto it = contexts_.begin(); it != contexts_.end();) {
          if (it->second != rd->context) {
            ++it;
            continue;
          }
          sampled |= it->first == sample_device_;
          it = contexts_.erase(it);
        }
      }
      // last samples while the context still exists, then no more PM sampling calls on it
      if (sampled) drain_sampler(true);
      flush_all(true, std::chrono::milliseconds(2000));
      break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: {
      const auto* g = static_cast<const CUpti_GraphData*>(rd->resourceDescriptor);
      if (!g || !cupti_->cuptiGetGraphNodeId || !cupti_->cuptiGetGraphId) break;
      CollectedActivity a;
      a.kind = RecordKind::kGraphNodeClone;
      cupti_->cuptiGetGraphId(g->graph, &a.graph_id);
      cupti_->cuptiGetGraphNodeId(g->node, &a.graph_node_id);
      if (g->originalGraph) cupti_->cuptiGetGraphId(g->originalGraph, &a.original_graph_id);
      if (g->originalNode) cupti_->cuptiGetGraphNodeId(g->originalNode, &a.original_node_id);
      add_record(a);
      break;
    }
    default: break;
  }
}

void Collector::flush_all(bool forced, std::chrono::milliseconds wait) {
  if (!cupti_started_.load() || !writer_ || writer_->finished()) return;
  cupti_->cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  writer_->sync(wait);
}

void Collector::record_device_info(int device) {
  const DriverApi* drv = driver();
  if (!drv) return;
  CUdevice dev = 0;
  if (drv->cuDeviceGet(&dev, device) != CUDA_SUCCESS) return;
  CollectedActivity a;
  a.kind = RecordKind::kDeviceInfo;
  a.device = static_cast<uint32_t>(device);
  char buf[256] = {};
  if (drv->cuDeviceGetName(buf, sizeof buf - 1, dev) == CUDA_SUCCESS) a.name = buf;
  char bus[64] = {};
  if (drv->cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev) == CUDA_SUCCESS) a.pci_bus_id = bus;
  CUuuid uuid{};
  if (drv->cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) a.uuid = format_uuid(uuid);
  int v = 0;
  if (drv->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS) a.sm_count = v;
  if (drv->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS)
    a.compute_major = v;
  if (drv->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
    a.compute_minor = v;
  size_t mem = 0;
  if (drv->cuDeviceTotalMem(&mem, dev) == CUDA_SUCCESS) a.memory_bytes = mem;
  add_record(a);
}

bool Collector::measure_clock(int device, bool final) {
  const DriverApi* drv = driver();
  CUcontext ctx = nullptr;
  {
    std::lock_guard lock(pending_mutex_);
    auto it = contexts_.find(device);
    if (it != contexts_.end()) ctx = it->second;
  }
  if (!drv || !ctx) return false;
  ClockOffset off;
  std::string error;
  const auto now = [this]() {
    uint64_t t = 0;
    cupti_->cuptiGetTimestamp(&t);
    return t;
  };
  if (!measure_clock_offset(*drv, ctx, now, &off, &error)) {
    warn("clock sync on device " + std::to_string(device) + " failed: " + error);
    return false;
  }
  CollectedActivity a;
  a.kind = RecordKind::kClockSync;
  a.device = static_cast<uint32_t>(device);
  a.clock = ClockDomain::kGlobalTimer;
  a.offset_ns = off.cupti_minus_globaltimer_ns;
  a.uncertainty_ns = off.uncertainty_ns;
  a.samples = off.samples;
  a.start_ns = a.end_ns = off.measured_at_ns;
  add_record(a);
  {
    std::lock_guard lock(pending_mutex_);
    if (!final || !clock_offsets_.count(device)) {
      clock_offsets_[device] = off.cupti_minus_globaltimer_ns;
      clock_uncertainty_[device] = off.uncertainty_ns;
    }
  }
  // Kernel brackets (clock_bounds.h): their CUPTI records arrive with a later flush; probe chunks
  // of this device wait for them (resolve_brackets). Not at exit: no flush would follow.
  if (!final && config_.clock_bracket && (config_.kinds & kKindKernel) && capturing_.load()) {
    uint32_t round = 0;
    {
      std::lock_guard lock(pending_mutex_);
      round = ++bracket_rounds_[device];
    }
    PendingBracket b;
    b.device = device;
    b.round = round;
    b.host = {off.window_lo_ns, off.window_hi_ns, true};
    b.period = periods_.load();
    std::string err;
    if (round <= 64 && launch_clock_brackets(*drv, ctx, round, 16, &b.readings, &err)) {
      std::lock_guard lock(pending_mutex_);
      brackets_.push_back(std::move(b));
      ++brackets_pending_;
    } else if (round <= 64) {
      warn("clock brackets on device " + std::to_string(device) + " failed: " + err + " (host window only)");
    }
  }
  return true;
}

void Collector::note_bracket_kernel(const CollectedActivity& a) {
  if (a.name != "parascope_clock_bracket") return;
  std::lock_guard lock(pending_mutex_);
  for (auto& b : brackets_) {
    if (b.device != static_cast<int>(a.device) || static_cast<int32_t>(b.round) != a.block[1]) continue;
    const int32_t i = a.block[0] - 1;
    if (i < 0 || static_cast<size_t>(i) >= b.readings.size()) return;
    b.brackets = intersect(b.brackets, kernel_bracket_bounds(a.start_ns, a.end_ns, b.readings[i].g_first,
                                                             b.readings[i].g_last));
    if (!b.brackets.valid && b.seen) b.brackets = {};  // inconsistent: ignore the brackets
    ++b.seen;
    return;
  }
}

void Collector::resolve_brackets(bool force) {
  std::vector<PendingBracket> done;
  {
    std::lock_guard lock(pending_mutex_);
    for (auto it = brackets_.begin(); it != brackets_.end();) {
      if (force || it->seen >= it->readings.size() || periods_.load() >= it->period + 3) {
        done.push_back(std::move(*it));
        it = brackets_.erase(it);
        --brackets_pending_;
      } else {
        ++it;
      }
    }
  }
  for (const auto& b : done) {
    const ClockBounds brackets = b.seen ? b.brackets : ClockBounds{};
    const ClockEstimate e = combine_clock_bounds(b.host, brackets);
    CollectedActivity a;
    a.kind = RecordKind::kClockSync;
    a.device = static_cast<uint32_t>(b.device);
    a.clock = ClockDomain::kGlobalTimer;
    a.offset_ns = e.offset_ns;
    a.uncertainty_ns = e.uncertainty_ns;
    a.samples = b.seen;
    uint64_t now = 0;
    if (cupti_) cupti_->cuptiGetTimestamp(&now);
    a.start_ns = a.end_ns = now;
    add_record(a);
    if (!b.final) {
      std::lock_guard lock(pending_mutex_);
      clock_offsets_[b.device] = e.offset_ns;
      clock_uncertainty_[b.device] = e.uncertainty_ns;
    }
    auto range = [](const ClockBounds& c) {
      return c.valid ? "[" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "] (width " + std::to_string(c.width()) + ")"
                     : std::string("none");
    };
    const std::string sync = "clock sync device " + std::to_string(b.device);
    note(sync + ": host window " + range(b.host) + ", kernel brackets " + range(brackets) + " from " +
         std::to_string(b.seen) + " of " + std::to_string(b.readings.size()) + " kernels -> CUPTI - globaltimer = " +
         std::to_string(e.offset_ns) + " +- " + std::to_string(e.uncertainty_ns) + " ns (" + e.method + ")");
    if (!e.note.empty()) warn(sync + ": " + e.note, false);
  }
}

void Collector::handle_pending(bool final) {
  std::vector<int> devices;
  std::vector<ProbeJob> probes;
  resolve_brackets(final);
  {
    std::lock_guard lock(pending_mutex_);
    devices.swap(pending_devices_);
    // probe chunks of a device whose kernel brackets are still out wait for the combined offset
    std::vector<ProbeJob> keep;
    for (auto& job : pending_probes_) {
      bool wait = false;
      for (const auto& b : brackets_) wait |= !b.final && b.device == static_cast<int>(job.chunk.device);
      (wait ? keep : probes).push_back(std::move(job));
    }
    pending_probes_.swap(keep);
  }
  for (int d : devices) {
    record_device_info(d);
    if (config_.nvlink_sample_us && !sampler_attempted_) {
      // one process samples one device: LOCAL_RANK's when the launcher set it, else the first
      const int want = config_.rank.local_rank >= 0 ? config_.rank.local_rank : d;
      if (d == want) {
        sampler_attempted_ = true;
        sample_device_ = d;
        measure_clock(d, false);  // PM samples carry GPU time
        CUcontext ctx = nullptr;
        {
          std::lock_guard lock(pending_mutex_);
          ctx = contexts_.count(d) ? contexts_[d] : nullptr;
        }
        CUcontext previous = nullptr;
        const DriverApi* drv = driver();
        if (drv) drv->cuCtxGetCurrent(&previous);
        if (drv && ctx) drv->cuCtxSetCurrent(ctx);
        std::vector<std::string> metrics;
        for (size_t p = 0; p < config_.nvlink_metrics.size();) {
          size_t c = config_.nvlink_metrics.find(',', p);
          if (c == std::string::npos) c = config_.nvlink_metrics.size();
          if (c > p) metrics.push_back(config_.nvlink_metrics.substr(p, c - p));
          p = c + 1;
        }
        const uint32_t per_period = config_.flush_ms * 1000u / std::max(1u, config_.nvlink_sample_us);
        auto sampler = std::make_unique<PmSampler>(*cupti_, d);
        std::string error;
        PmSamplerLog log;
        const bool ok = sampler->start(config_.nvlink_sample_us, std::max(1000u, per_period * 4), metrics, &error, &log);
        if (drv && ctx) drv->cuCtxSetCurrent(previous);
        sampler_said(log);
        if (!ok) {
          warn("nvlink sampling: NOT available on this driver/device: " + error);
        } else {
          {
            std::lock_guard lock(sampler_mutex_);
            sampler_ = std::move(sampler);
          }
          std::fprintf(stderr, "parascope collector: NVLink PM sampling on device %d every %u us\n", d,
                       config_.nvlink_sample_us);
        }
      }
    }
  }
  for (auto& job : probes) {
    const int dev = static_cast<int>(job.chunk.device);
    bool have = false;
    {
      std::lock_guard lock(pending_mutex_);
      have = clock_offsets_.count(dev) != 0;
    }
    if (!have) have = measure_clock(dev, false);
    {
      std::lock_guard lock(pending_mutex_);
      job.chunk.clock_offset_ns = have ? clock_offsets_[dev] : 0;
    }
    if (!have) warn("probe records of device " + std::to_string(dev) + " stored with clock offset 0 (no clock sync)");
    writer_->submit_chunk(ChunkType::kProbeRecords, encode_probe_chunk(job.chunk));
  }
}

void Collector::periodic(CaptureWriter::HookReason reason) {
  if (g_forked_child.load()) return;
  const bool crash = reason == CaptureWriter::HookReason::kCrash;
  const bool final = reason == CaptureWriter::HookReason::kFinal;
  if (cupti_started_.load()) cupti_->cuptiActivityFlushAll(crash ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  ++periods_;
  // bracket kernels' records the flush just delivered are converted now, so their offsets are
  // ready for this period's probe chunks
  if (!crash && brackets_pending_.load()) writer_->drain_from_hook();
  if (!crash) handle_pending(final);
  if (!crash) drain_sampler(final);
  if (final) {
    // a second offset per device at the end shows the drift between %globaltimer and CUPTI's clock
    std::vector<int> measured;
    {
      std::lock_guard lock(pending_mutex_);
      for (const auto& [d, o] : clock_offsets_) measured.push_back(d);
    }
    for (int d : measured) measure_clock(d, true);
  }
  // launches counted but no kernel records for three periods in a row: the activity buffers go
  // to someone else (torch.profiler / Kineto registered its own buffer callbacks)
  const uint64_t launches = launches_seen_.load(), kernels = counts_.kernels;
  if (cupti_started_.load() && (config_.kinds & kKindKernel) && capturing_.load() && !stolen_warned_) {
    if (launches - launches_at_last_check_ > 100 && kernels == kernels_at_last_check_) {
      if (++stolen_periods_ >= 3 || (final && kernels == 0)) {
        stolen_warned_ = true;
        warn(std::to_string(launches) + " kernel launches seen but CUPTI delivered " + std::to_string(kernels) +
             " kernel records: another CUPTI client (torch.profiler/Kineto, a second tracer) has taken the "
             "activity buffers; kernels after that point are missing from this trace");
      }
    } else {
      stolen_periods_ = 0;
    }
    // a period without kernel records: idle, or someone took the buffers; count launches to tell
    if (kernels == kernels_at_last_check_ && !final) set_launch_counting(true);
    launches_at_last_check_ = launches;
    kernels_at_last_check_ = kernels;
  }
  if (!crash && !final) {  // another CUPTI client's new calls, kept at once (final: in the final metadata)
    const Metadata others = other_cupti_calls(false);
    if (!others.empty()) writer_->submit_chunk(ChunkType::kMetadata, encode_metadata(others));
  }
  std::vector<uint8_t> extra;
  {
    std::lock_guard lock(pending_mutex_);
    extra.swap(extra_records_.bytes());
  }
  if (!extra.empty()) writer_->submit_chunk(ChunkType::kCuptiRecords, std::move(extra));
  std::vector<uint8_t> nccl = nccl_take_records();
  if (!nccl.empty()) writer_->submit_chunk(ChunkType::kNcclRecords, std::move(nccl));
}

// Decodes the PM samples gathered since the last call; `stop` ends sampling for good (at exit, or
// when the sampled device's context is about to be destroyed: after that the sampler's state
// refers to a dead context, and decoding or stopping it at exit crashed the process).
void Collector::drain_sampler(bool stop) {
  std::lock_guard lock(sampler_mutex_);
  if (!sampler_) return;
  std::vector<CollectedActivity> samples;
  std::string error;
  PmSamplerLog log;
  if (!sampler_->decode(samples, &error, &log)) {
    warn("nvlink sampling stopped: " + error);
    sampler_.reset();
  }
  sampler_said(log);
  for (const auto& s : samples) add_record(s);
  // libnvperf_host (loaded by CUPTI when sampling starts) registers its static destructors after
  // our atexit handler, so they ran first at exit while the writer thread was still decoding:
  // SIGSEGV inside cuptiProfilerHostEvaluateToGpuValues in 5 of 5 torchrun runs on 2 x H200. A second handler,
  // registered once the first samples were evaluated (nvperf's statics exist by then), runs
  // before those destructors and ends sampling.
  if (!samples.empty() && !sampler_exit_hook_) {
    sampler_exit_hook_ = true;
    std::atexit(tramp_sampler_at_exit);
  }
  if (stop && sampler_) {
    sampler_->stop();
    sampler_.reset();
  }
}

void Collector::sampler_at_exit() {
  if (g_forked_child.load() || ::getpid() != pid_) return;
  drain_sampler(true);
}

void Collector::at_exit() {
  if (g_forked_child.load() || ::getpid() != pid_) return;
  if (exiting_.exchange(true)) return;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!writer_ || writer_->finished()) return;
  if (cupti_started_.load()) cupti_->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  writer_->finish(final_metadata());
  const auto s = writer_->stats();
  std::fprintf(stderr, "parascope collector: wrote %s (%llu records, %llu dropped, status %s)\n", writer_->path().c_str(),
               static_cast<unsigned long long>(s.records), static_cast<unsigned long long>(s.dropped), status_.c_str());
}

Metadata Collector::other_cupti_calls(bool all) {
  Metadata kv;
  const parascope_cupti_guard_calls_fn guard = cupti_guard();
  if (!guard) return kv;
  parascope_guard_call calls[PARASCOPE_GUARD_MAX_CALLS];
  const int n = std::min(guard(calls, PARASCOPE_GUARD_MAX_CALLS), PARASCOPE_GUARD_MAX_CALLS);
  std::lock_guard lock(other_calls_mutex_);
  other_calls_seen_.resize(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const parascope_guard_call& g = calls[i];
    uint64_t& seen = other_calls_seen_[static_cast<size_t>(i)];
    if (!all && seen == g.calls) continue;
    OtherCuptiCall c;
    c.function = std::string(g.function, strnlen(g.function, sizeof g.function));
    c.caller = std::string(g.caller, strnlen(g.caller, sizeof g.caller));
    c.result = g.result;
    c.result_name = cupti_ ? cupti_->error(static_cast<CUptiResult>(g.result)) : "";
    c.argument = g.argument;
    c.calls = g.calls;
    c.first_unix_ns = g.first_unix_ns;
    if (seen == 0) std::fprintf(stderr, "parascope collector: %s\n", describe_other_cupti_call(c).c_str());
    seen = g.calls;
    kv.emplace_back(kOtherCuptiCallKey + std::to_string(i), encode_other_cupti_call(c));
  }
  return kv;
}

bool Collector::crash_flush(int sig, int timeout_ms) noexcept {
  if (g_forked_child.load() || !writer_) return false;
  crashing_ = true;
  return writer_->crash_flush(sig, timeout_ms);
}

int Collector::capture(bool on, const char* label) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!cupti_started_.load() && status_ != "nccl-only") return 0;
  if (on == capturing_.load()) return 1;
  if (!on) flush_all(false, std::chrono::milliseconds(0));
  set_dynamic_kinds(on);
  if (status_ == "nccl-only") capturing_ = on;
  CollectedActivity a;
  a.kind = RecordKind::kCaptureRange;
  a.start_ns = a.end_ns = realtime_ns();
  if (cupti_) cupti_->cuptiGetTimestamp(&a.start_ns), a.end_ns = a.start_ns;
  a.flags = on ? 1 : 0;
  a.name = label ? label : "";
  add_record(a);
  return 1;
}

int Collector::name_rank(int rank, const char* name) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!writer_) return 0;
  rank_override_ = rank;
  rank_name_ = name ? name : "";
  rename_for_rank();
  return 1;
}

int Collector::submit_standin(const char* text, size_t bytes) {
  std::lock_guard lock(mutex_);
  if (exiting_ || !text || !ensure_writer() || writer_->finished()) return 0;
  writer_->submit_chunk(ChunkType::kStandInRecords, std::vector<uint8_t>(text, text + bytes));
  return 1;
}

int Collector::program_message(bool warning, const char* text) {
  std::lock_guard lock(mutex_);
  if (exiting_ || !text || !ensure_writer() || writer_->finished()) return 0;
  if (warning) warn(text, false);
  else note(text);
  return 1;
}

uint32_t Collector::stream_id(uint64_t stream_handle) {
  const DriverApi* drv = driver();
  if (!cupti_ || !cupti_->cuptiGetStreamIdEx || !drv) return 0xFFFFFFFFu;
  CUcontext ctx = nullptr;
  if (drv->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return 0xFFFFFFFFu;
  // cudaStreamPerThread is the handle 2; 0 and cudaStreamLegacy (1) are the legacy default stream
  const bool per_thread = stream_handle == 2;
  const auto stream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream_handle <= 2 ? 0 : stream_handle));
  uint32_t id = 0;
  if (cupti_->cuptiGetStreamIdEx(ctx, stream, per_thread ? 1 : 0, &id) != CUPTI_SUCCESS) return 0xFFFFFFFFu;
  return id;
}

int Collector::submit_probes(int device, const void* host_buffer, size_t bytes, const char* kernel_name,
                             uint32_t correlation) {
  if (!writer_ || writer_->finished() || !host_buffer || bytes < sizeof(ProbeBufferHeader)) return 0;
  const DriverApi* drv = driver();
  ProbeBufferHeader h;
  std::memcpy(&h, host_buffer, sizeof h);
  if (h.magic != kProbeMagic) {
    warn("parascope_collector_submit_probes: buffer magic is not PRB1; ignored");
    return 0;
  }
  const uint64_t filled = std::min<uint64_t>(h.next, h.capacity);
  const uint64_t fits = (bytes - sizeof h) / sizeof(ProbeRecord);
  ProbeJob job;
  job.chunk.device = static_cast<uint32_t>(device);
  job.chunk.correlation = correlation;
  job.chunk.launch_id = h.launch_id;
  job.chunk.kernel_name = kernel_name ? kernel_name : "";
  const uint64_t n = std::min(filled, fits);
  job.chunk.overflow = (h.next > h.capacity ? h.next - h.capacity : 0) + (filled - n);
  job.chunk.records.resize(n);
  std::memcpy(job.chunk.records.data(), static_cast<const char*>(host_buffer) + sizeof h, n * sizeof(ProbeRecord));
  // The first hand-over per device measures %globaltimer against the CUPTI clock right here, on
  // the program's thread with its context alive (at exit the context may already be gone).
  bool measured = false;
  {
    std::lock_guard lock(pending_mutex_);
    measured = clock_offsets_.count(device) != 0;
    if (!measured && drv) {
      CUcontext current = nullptr;
      if (drv->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current && !contexts_.count(device))
        contexts_.emplace(device, current);
    }
  }
  if (!measured && cupti_started_.load()) measure_clock(device, false);
  {
    std::lock_guard lock(pending_mutex_);
    pending_probes_.push_back(std::move(job));
  }
  return 1;
}

int Collector::status() const {
  if (blocked_.load()) return 2;
  return writer_ && !writer_->finished() ? 1 : 0;
}

}  // namespace parascope::collector
