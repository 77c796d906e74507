// What a traced process is asked to record, read once from the environment that
// `parascope-cli record` (or the user) sets: output place, activity kinds, flush period, NVLink
// sampling, capture start. Also the process's rank (torchrun, Open MPI, PMI, Slurm variables) and
// the trace file name <host>-<pid>-r<rank>.pstrace. CUDA-free: the CLI validates options with the
// same code the collector runs. Unknown kind names are errors listing the valid ones.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parascope::collector {

// Activity groups the collector can enable; each maps to one or more CUPTI kinds (injection.cpp).
enum Kind : uint32_t {
  kKindKernel = 1u << 0,     // CONCURRENT_KERNEL (graph node ids kept)
  kKindMemcpy = 1u << 1,     // MEMCPY + MEMCPY2 (peer copies)
  kKindMemset = 1u << 2,     // MEMSET
  kKindSync = 1u << 3,       // SYNCHRONIZATION
  kKindNvtx = 1u << 4,       // MARKER + MARKER_DATA
  kKindDevice = 1u << 5,     // DEVICE + CONTEXT + STREAM + driver device info
  kKindRuntime = 1u << 6,    // RUNTIME
  kKindDriver = 1u << 7,     // DRIVER + INTERNAL_LAUNCH_API
  kKindOverhead = 1u << 8,   // OVERHEAD
  kKindGraph = 1u << 9,      // GRAPH_TRACE: one record per graph launch instead of its nodes
  kKindNvLink = 1u << 10,    // NVLINK topology records
  kKindNccl = 1u << 11,      // the NCCL profiler plugin's records
  kKindExternal = 1u << 12,  // EXTERNAL_CORRELATION
};
struct KindName {
  std::string_view name;
  uint32_t bits;
  std::string_view help;
};
const std::vector<KindName>& kind_names();  // includes the sets "default", "all", "minimal"
inline constexpr uint32_t kDefaultKinds = kKindKernel | kKindMemcpy | kKindMemset | kKindSync | kKindNvtx |
                                          kKindDevice | kKindRuntime | kKindDriver | kKindOverhead |
                                          kKindNvLink | kKindNccl | kKindExternal;

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "kernel,memcpy,nvtx" or "default,-driver" or "minimal". Throws ConfigError naming the bad word.
uint32_t parse_kinds(std::string_view list);
std::string kinds_to_string(uint32_t bits);

struct RankInfo {
  int32_t rank = -1, local_rank = -1, world_size = -1;
  std::string source;  // which variable gave the rank: "RANK", "OMPI_COMM_WORLD_RANK", ...
};
using GetEnv = std::function<const char*(const char*)>;
RankInfo detect_rank(const GetEnv& getenv);

struct CollectorConfig {
  std::string output_dir = ".";   // PARASCOPE_OUTPUT_DIR
  std::string output_path;        // PARASCOPE_OUTPUT: exact file (overrides the directory naming)
  uint32_t kinds = kDefaultKinds; // PARASCOPE_KINDS
  uint32_t flush_ms = 1000;       // PARASCOPE_FLUSH_MS (10 ..= 60000)
  bool start_now = true;          // PARASCOPE_START=api: record only between collector start/stop calls
  uint32_t nvlink_sample_us = 0;  // PARASCOPE_NVLINK_SAMPLE_US: PM sampling interval, 0 off
  std::string nvlink_metrics;     // PARASCOPE_NVLINK_METRICS: comma list overriding the defaults
  bool signal_handlers = true;    // PARASCOPE_SIGNALS=0 disables the crash flush
  uint32_t buffer_kib = 8192;     // PARASCOPE_BUFFER_KIB: one CUPTI activity buffer
  uint32_t max_buffered_mib = 1024;  // PARASCOPE_MAX_BUFFERED_MIB: beyond it CUPTI drops (counted)
  uint32_t buffer_pool = 2;       // PARASCOPE_BUFFER_POOL: zero-filled CUPTI buffers kept ready (0..16; 0 = off)
  bool launch_callbacks_always = false;  // PARASCOPE_LAUNCH_CALLBACKS=always|auto|off (see collector.md, Tuning log)
  bool launch_callbacks_off = false;     // off: no launch counting (no check for another client taking the buffers)
  // PARASCOPE_RESET_CALLBACKS=1|0: API callbacks on cudaDeviceReset / cuCtxDestroy /
  // cuDevicePrimaryCtxReset (flush before the context goes) besides the resource callback on
  // context destruction, which flushes too. 0 leaves the runtime and driver API domains without any
  // callback while no launch callback is needed (measured in collector.md, Tuning log).
  bool reset_api_callbacks = true;
  bool clock_bracket = true;      // PARASCOPE_CLOCK_BRACKET=0: clock sync by the host window only
  std::string session;            // PARASCOPE_SESSION: id shared by one `record` run
  std::string command;            // PARASCOPE_COMMAND: the recorded command line, for metadata
  RankInfo rank;
};

// Reads the PARASCOPE_* variables; a malformed value is a ConfigError naming the variable.
CollectorConfig parse_config(const GetEnv& getenv);

// "<host>-<pid>-r<rank>.pstrace" ("rnone" when the rank is unknown); host sanitised to [A-Za-z0-9._-].
std::string trace_file_name(std::string_view host, int64_t pid, int32_t rank);

}  // namespace parascope::collector
