// NVLink traffic measured by CUPTI PM sampling on one device: the nvltx/nvlrx byte counters read
// every `interval_us` by the GPU into a hardware buffer, decoded on the collector's writer thread
// into counter_sample records (bytes moved during [start, end], GPU timestamps). Everything that
// can refuse (privileges, chip, metric names, passes) is reported as text with the CUPTI error.
// Runs only on the writer thread, with the device's context current.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "trace/collector/cupti_api.h"
#include "trace/io/collector/collector_records.h"

namespace parascope::collector {

// What sampling says beside its samples: notes (the NVLink counters the chip offers, what is
// sampled) and warnings (metrics refused, samples lost to a full hardware buffer).
struct PmSamplerLog {
  std::vector<std::string> notes, warnings;
};

class PmSampler {
 public:
  PmSampler(const CuptiApi& cupti, int device) : cupti_(cupti), device_(device) {}
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  // Configures and starts sampling. `metrics` empty: nvlrx__bytes.sum, nvltx__bytes.sum. On failure
  // returns false with `error` set ("cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES …").
  // `log` receives what was found (chip, NVLink metrics the chip offers, chosen metrics; metrics refused).
  bool start(uint32_t interval_us, uint32_t max_samples, const std::vector<std::string>& metrics, std::string* error,
             PmSamplerLog* log);
  // Decodes completed samples into `out`; false with `error` on a CUPTI failure (overflow: a warning in `log`).
  bool decode(std::vector<CollectedActivity>& out, std::string* error, PmSamplerLog* log);
  void stop();
  const std::vector<std::string>& metrics() const { return metrics_; }
  bool running() const { return started_; }

 private:
  bool check(CUptiResult r, const char* what, std::string* error) const;
  bool build_config(std::vector<std::string> metrics, std::string* error, PmSamplerLog* log);

  const CuptiApi& cupti_;
  int device_;
  std::string chip_;
  std::vector<uint8_t> availability_, config_, counter_data_, counter_data_blank_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_PmSampling_Object* sampler_ = nullptr;
  std::vector<std::string> metrics_;
  std::vector<const char*> metric_ptrs_;
  bool started_ = false;
};

}  // namespace parascope::collector
