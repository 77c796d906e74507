#include "trace/collector/collector_config.h"

#include <charconv>

namespace parascope::collector {

const std::vector<KindName>& kind_names() {
  static const std::vector<KindName> names = {
      {"kernel", kKindKernel, "GPU kernels (CONCURRENT_KERNEL; CUDA-graph node ids kept)"},
      {"memcpy", kKindMemcpy, "copies, peer copies with source and destination device (MEMCPY, MEMCPY2)"},
      {"memset", kKindMemset, "memsets"},
      {"sync", kKindSync, "synchronisation (event/stream/context syncs, stream waits)"},
      {"nvtx", kKindNvtx, "NVTX ranges and marks with domains and payloads (MARKER, MARKER_DATA)"},
      {"device", kKindDevice, "devices, contexts, streams (+ PCI bus ids from the driver)"},
      {"runtime", kKindRuntime, "CUDA runtime API calls (launch -> kernel correlation)"},
      {"driver", kKindDriver, "CUDA driver API calls (NCCL launches kernels through the driver)"},
      {"overhead", kKindOverhead, "CUPTI's own overhead"},
      {"graph", kKindGraph, "one record per CUDA-graph launch instead of one per node (less overhead)"},
      {"nvlink", kKindNvLink, "NVLink topology as CUPTI reports it"},
      {"nccl", kKindNccl, "NCCL profiler plugin: collective metadata linked to kernels"},
      {"external", kKindExternal, "external correlation ids (framework op ids)"},
      {"default", kDefaultKinds, "everything above except graph"},
      {"all", kDefaultKinds | kKindGraph, "everything"},
      {"minimal", kKindKernel | kKindMemcpy | kKindMemset | kKindDevice, "kernels, copies, memsets, devices"},
  };
  return names;
}

uint32_t parse_kinds(std::string_view list) {
  uint32_t bits = 0;
  bool any = false;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = list.find(',', pos);
    std::string_view word = list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? list.size() + 1 : comma + 1;
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (word.empty()) continue;
    bool remove = false;
    if (word.front() == '-' || word.front() == '+') {
      remove = word.front() == '-';
      word.remove_prefix(1);
    }
    const KindName* found = nullptr;
    for (const auto& k : kind_names())
      if (k.name == word) found = &k;
    if (!found) {
      std::string valid;
      for (const auto& k : kind_names()) valid += (valid.empty() ? "" : ", ") + std::string(k.name);
      throw ConfigError("unknown kind '" + std::string(word) + "' (valid: " + valid + ")");
    }
    if (remove) bits &= ~found->bits;
    else bits |= found->bits;
    any = true;
  }
  if (!any) throw ConfigError("empty kind list");
  return bits;
}

std::string kinds_to_string(uint32_t bits) {
  std::string s;
  for (const auto& k : kind_names()) {
    if (k.name == "default" || k.name == "all" || k.name == "minimal") continue;
    if (bits & k.bits) s += (s.empty() ? "" : ",") + std::string(k.name);
  }
  return s;
}

namespace {

bool parse_int(const char* s, int64_t* out) {
  if (!s || !*s) return false;
  std::string_view v(s);
  int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) return false;
  *out = x;
  return true;
}

int64_t env_int(const GetEnv& getenv, const char* name, int64_t def, int64_t lo, int64_t hi) {
  const char* s = getenv(name);
  if (!s || !*s) return def;
  int64_t v = 0;
  if (!parse_int(s, &v)) throw ConfigError(std::string(name) + "='" + s + "' is not an integer");
  if (v < lo || v > hi)
    throw ConfigError(std::string(name) + "=" + s + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

std::string env_str(const GetEnv& getenv, const char* name) {
  const char* s = getenv(name);
  return s ? std::string(s) : std::string();
}

}  // namespace

RankInfo detect_rank(const GetEnv& getenv) {
  // Launchers in order of specificity: torchrun/torch.distributed, Open MPI, MPICH/Hydra (PMI),
  // PMIx, MVAPICH, Slurm. The first that sets a valid integer wins.
  struct Source {
    const char* rank;
    const char* local;
    const char* size;
  };
  static const Source kSources[] = {
      {"RANK", "LOCAL_RANK", "WORLD_SIZE"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
      {"PMIX_RANK", "PMIX_LOCAL_RANK", "PMIX_SIZE"},
      {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE"},
      {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
  };
  RankInfo info;
  for (const auto& s : kSources) {
    int64_t r = -1;
    if (!parse_int(getenv(s.rank), &r) || r < 0 || r > INT32_MAX) continue;
    info.rank = static_cast<int32_t>(r);
    info.source = s.rank;
    int64_t v = -1;
    if (parse_int(getenv(s.local), &v) && v >= 0 && v <= INT32_MAX) info.local_rank = static_cast<int32_t>(v);
    if (parse_int(getenv(s.size), &v) && v > 0 && v <= INT32_MAX) info.world_size = static_cast<int32_t>(v);
    return info;
  }
  return info;
}

CollectorConfig parse_config(const GetEnv& getenv) {
  CollectorConfig c;
  if (const char* d = getenv("PARASCOPE_OUTPUT_DIR"); d && *d) c.output_dir = d;
  c.output_path = env_str(getenv, "PARASCOPE_OUTPUT");
  if (const char* k = getenv("PARASCOPE_KINDS"); k && *k) {
    try {
      c.kinds = parse_kinds(k);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("PARASCOPE_KINDS: ") + e.what());
    }
  }
  c.flush_ms = static_cast<uint32_t>(env_int(getenv, "PARASCOPE_FLUSH_MS", 1000, 10, 60000));
  if (const char* s = getenv("PARASCOPE_START"); s && *s) {
    const std::string v = s;
    if (v == "api") c.start_now = false;
    else if (v != "now") throw ConfigError("PARASCOPE_START='" + v + "' must be 'now' or 'api'");
  }
  c.nvlink_sample_us = static_cast<uint32_t>(env_int(getenv, "PARASCOPE_NVLINK_SAMPLE_US", 0, 0, 10'000'000));
  c.nvlink_metrics = env_str(getenv, "PARASCOPE_NVLINK_METRICS");
  c.signal_handlers = env_int(getenv, "PARASCOPE_SIGNALS", 1, 0, 1) != 0;
  c.buffer_kib = static_cast<uint32_t>(env_int(getenv, "PARASCOPE_BUFFER_KIB", 8192, 64, 262144));
  c.max_buffered_mib = static_cast<uint32_t>(env_int(getenv, "PARASCOPE_MAX_BUFFERED_MIB", 1024, 16, 1 << 20));
  c.buffer_pool = static_cast<uint32_t>(env_int(getenv, "PARASCOPE_BUFFER_POOL", 2, 0, 16));
  if (const char* s = getenv("PARASCOPE_LAUNCH_CALLBACKS"); s && *s) {
    const std::string v = s;
    if (v == "always") c.launch_callbacks_always = true;
    else if (v == "off") c.launch_callbacks_off = true;
    else if (v != "auto") throw ConfigError("PARASCOPE_LAUNCH_CALLBACKS='" + v + "' must be 'auto', 'always' or 'off'");
  }
  c.clock_bracket = env_int(getenv, "PARASCOPE_CLOCK_BRACKET", 1, 0, 1) != 0;
  c.reset_api_callbacks = env_int(getenv, "PARASCOPE_RESET_CALLBACKS", 1, 0, 1) != 0;
  c.session = env_str(getenv, "PARASCOPE_SESSION");
  c.command = env_str(getenv, "PARASCOPE_COMMAND");
  c.rank = detect_rank(getenv);
  return c;
}

std::string trace_file_name(std::string_view host, int64_t pid, int32_t rank) {
  std::string h;
  for (char ch : host) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '-';
    h.push_back(ok ? ch : '_');
  }
  if (h.empty()) h = "host";
  return h + "-" + std::to_string(pid) + "-r" + (rank >= 0 ? std::to_string(rank) : std::string("none")) + ".pstrace";
}

}  // namespace parascope::collector
