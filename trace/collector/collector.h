// The collector inside a traced process: one per process, created by whichever entry point runs
// first (CUDA injection at cuInit, NVTX injection, the NCCL plugin's init), never destroyed (its
// work ends in the atexit handler, after which every entry point is a no-op).
// It owns the CaptureWriter and everything CUPTI-facing: the subscriber, activity kinds, buffer
// callbacks (which only hand buffers over), the writer-thread hook (periodic CUPTI flush, NCCL
// records, PM-sampling decode, clock sync, probe chunks), and the flushes at cudaDeviceReset,
// context destruction, exit and crashes. When CUPTI refuses us because another tool holds it, the
// trace says so (warnings + metadata "status") instead of being silently empty; when another
// client in the process (torch.profiler) is refused or takes CUPTI's buffers after us, the CUPTI
// guard `record` preloads notices it and the trace says that too (other_cupti_clients.h).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/collector/activity_conversion.h"
#include "trace/collector/capture_writer.h"
#include "trace/collector/clock_bounds.h"
#include "trace/collector/clock_sync.h"
#include "trace/collector/chunk_payloads.h"
#include "trace/collector/collector_config.h"
#include "trace/collector/cupti_api.h"
#include "trace/collector/driver_api.h"
#include "trace/collector/other_cupti_clients.h"

namespace parascope::collector {

class PmSampler;
struct PmSamplerLog;

class Collector {
 public:
  static Collector& instance();

  // Entry points (injection.cpp / collector_api.cpp / nccl_plugin.cpp).
  int initialize_injection();                           // 1 on success (CUDA ignores the value)
  int initialize_nvtx(const void* get_export_table);    // CUPTI's NVTX hook result
  bool nccl_plugin_init(int comm_rank, int comm_nranks);  // false: record no NCCL events
  bool capturing() const { return capturing_.load(std::memory_order_relaxed); }

  // The C API (parascope/collector.h).
  int capture(bool on, const char* label);
  int name_rank(int rank, const char* name);
  int submit_probes(int device, const void* host_buffer, size_t bytes, const char* kernel_name, uint32_t correlation);
  int status() const;  // 0 inactive, 1 recording, 2 blocked by another CUPTI client
  // The stand-in process group's records (record --world): JSON lines into a kStandInRecords
  // chunk (1: taken), and the CUPTI stream id of a cudaStream_t (0xFFFFFFFF: unknown).
  int submit_standin(const char* text, size_t bytes);
  uint32_t stream_id(uint64_t stream_handle);
  // A line for the trace from the program's side of the collector (record --op-shapes's Python
  // hook: whether PyTorch's NVTX op ranges are on): a note, or a warning (1: taken).
  int program_message(bool warning, const char* text);

  // CUPTI callbacks (static trampolines in collector.cpp call these).
  void buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
  void buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid);
  void on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  void at_exit();
  void sampler_at_exit();  // ends NVLink PM sampling before libnvperf_host's destructors run
  bool crash_flush(int sig, int timeout_ms) noexcept;

 private:
  Collector();
  bool ensure_writer();                 // caller holds mutex_
  bool start_cupti();                   // caller holds mutex_
  void set_dynamic_kinds(bool on);
  void update_launch_callbacks();       // launch callbacks on/off as counting and NCCL need them
  void set_launch_counting(bool on);
  void flush_all(bool forced, std::chrono::milliseconds wait);
  void periodic(CaptureWriter::HookReason reason);
  uint64_t convert_buffer(const uint8_t* data, size_t valid, ByteWriter& out);
  std::string api_name(CUpti_CallbackDomain domain, uint32_t cbid);
  void add_record(const CollectedActivity& a);
  void warn(const std::string& text, bool also_stderr = true);  // the trace's warnings (and stderr)
  void note(const std::string& text);  // the trace's notes: how it was made, no problem
  void sampler_said(const PmSamplerLog& log);  // NVLink sampling's notes and warnings, "nvlink sampling: ..."
  Metadata start_metadata() const;
  Metadata final_metadata();
  void record_device_info(int device);
  bool measure_clock(int device, bool final);
  void handle_pending(bool final);      // writer thread: device info, sampler start, probes
  void note_bracket_kernel(const CollectedActivity& a);  // writer thread: a clock-bracket kernel record
  void resolve_brackets(bool force);    // writer thread: combined clock offsets, clock_sync records
  void rename_for_rank();
  // Another CUPTI client's calls the guard saw (other_cupti_clients.h), as metadata entries: those
  // new or changed since the last call, or all of them.
  Metadata other_cupti_calls(bool all);

  // recursive: an entry point may run inside another (NVTX's first call during CUDA's injection)
  mutable std::recursive_mutex mutex_;
  CollectorConfig config_;
  std::string config_error_;
  std::string host_;
  int64_t pid_ = 0;
  uint64_t start_unix_ns_ = 0;
  std::unique_ptr<CaptureWriter> writer_;
  bool writer_failed_ = false;
  const CuptiApi* cupti_ = nullptr;
  std::atomic<const DriverApi*> driver_{nullptr};  // loaded once libcuda is in the process
  const DriverApi* driver();
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::string status_ = "starting";     // metadata "status": recording | blocked | no-cupti | nccl-only
  std::atomic<bool> cupti_started_{false}, capturing_{false}, blocked_{false}, exiting_{false};
  std::atomic<uint64_t> launches_seen_{0};
  // launch callbacks ("auto" mode): counting until kernel records are seen arriving
  static constexpr uint64_t kLaunchesToCheck = 256;
  std::atomic<bool> launch_counting_{false}, nccl_active_{false}, crashing_{false};
  std::atomic<uint64_t> counting_since_{0};
  std::mutex launch_cb_mutex_;
  bool runtime_launch_cb_on_ = false, driver_launch_cb_on_ = false;  // under launch_cb_mutex_
  std::atomic<int32_t> rank_override_{-1};
  std::string rank_name_;
  std::atomic<bool> rank_from_nccl_{false};
  std::vector<std::string> kind_errors_;

  // writer-thread state
  ConversionCounts counts_;
  std::unordered_map<uint64_t, std::string> api_names_;
  uint64_t kernels_at_last_check_ = 0, launches_at_last_check_ = 0;
  int stolen_periods_ = 0;
  bool stolen_warned_ = false;

  // shared with callbacks, under pending_mutex_
  std::mutex pending_mutex_;
  ByteWriter extra_records_;
  std::map<int, CUcontext> contexts_;   // device → a live context on it (the first seen)
  std::vector<int> pending_devices_;    // device info to record
  struct ProbeJob {
    ProbeChunk chunk;
  };
  std::vector<ProbeJob> pending_probes_;
  std::map<int, int64_t> clock_offsets_;  // device → CUPTI − %globaltimer
  std::map<int, uint64_t> clock_uncertainty_;
  struct PendingBracket {
    int device = 0;
    uint32_t round = 0;
    bool final = false;
    std::vector<BracketReading> readings;
    ClockBounds host, brackets;
    uint32_t seen = 0;
    uint64_t period = 0;  // periods_ when launched
  };
  std::vector<PendingBracket> brackets_;  // under pending_mutex_
  std::map<int, uint32_t> bracket_rounds_;
  std::atomic<int> brackets_pending_{0};
  std::atomic<uint64_t> periods_{0};
  int sample_device_ = -1;              // NVLink PM sampling target
  bool sampler_attempted_ = false;
  // The sampler is read by the writer thread's periodic hook and ended by whichever thread
  // destroys its context (the context must still exist for the last decode and the stop).
  std::mutex sampler_mutex_;
  std::unique_ptr<PmSampler> sampler_;  // under sampler_mutex_ once started
  bool sampler_exit_hook_ = false;      // under sampler_mutex_
  void drain_sampler(bool stop);
  std::mutex other_calls_mutex_;
  std::vector<uint64_t> other_calls_seen_;  // per guard entry: its call count when last written
};

}  // namespace parascope::collector
