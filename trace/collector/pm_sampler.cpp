#include "trace/collector/pm_sampler.h"

#include <algorithm>

namespace parascope::collector {

namespace {

const char* support_text(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    default: return "unknown";
  }
}

template <class T>
T params(size_t size) {
  T p{};
  p.structSize = size;
  p.pPriv = nullptr;
  return p;
}
#define PARAMS(T) params<T>(T##_STRUCT_SIZE)

}  // namespace

bool PmSampler::check(CUptiResult r, const char* what, std::string* error) const {
  if (r == CUPTI_SUCCESS) return true;
  if (error) *error = std::string(what) + ": " + cupti_.error(r);
  return false;
}

PmSampler::~PmSampler() { stop(); }

bool PmSampler::build_config(std::vector<std::string> metrics, std::string* error, PmSamplerLog* log) {
  auto init_host = [&]() -> bool {
    if (host_) {
      auto d = PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      d.pHostObject = host_;
      cupti_.cuptiProfilerHostDeinitialize(&d);
      host_ = nullptr;
    }
    auto p = PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    p.pChipName = chip_.c_str();
    p.pCounterAvailabilityImage = availability_.data();
    if (!check(cupti_.cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize", error)) return false;
    host_ = p.pHostObject;
    return true;
  };
  auto add = [&](const std::vector<std::string>& names) -> CUptiResult {
    std::vector<const char*> ptrs;
    for (const auto& n : names) ptrs.push_back(n.c_str());
    auto p = PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = host_;
    p.ppMetricNames = ptrs.data();
    p.numMetrics = ptrs.size();
    return cupti_.cuptiProfilerHostConfigAddMetrics(&p);
  };
  if (!init_host()) return false;

  // What the chip offers that looks like NVLink: printed so a failure is actionable.
  {
    auto p = PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
    p.pHostObject = host_;
    p.metricType = CUPTI_METRIC_TYPE_COUNTER;
    if (cupti_.cuptiProfilerHostGetBaseMetrics && cupti_.cuptiProfilerHostGetBaseMetrics(&p) == CUPTI_SUCCESS) {
      std::string nvl;
      for (size_t i = 0; i < p.numMetrics; ++i) {
        const std::string m = p.ppMetricNames[i];
        if (m.rfind("nvl", 0) == 0) nvl += (nvl.empty() ? "" : " ") + m;
      }
      if (log) log->notes.push_back("PM sampling counters on " + chip_ + " starting with nvl: " + (nvl.empty() ? "(none)" : nvl));
    }
  }

  CUptiResult r = add(metrics);
  if (r != CUPTI_SUCCESS) {
    // keep the metrics that work on their own
    std::vector<std::string> ok;
    std::string bad;
    for (const auto& m : metrics) {
      if (!init_host()) return false;
      const CUptiResult rm = add({m});
      if (rm == CUPTI_SUCCESS) ok.push_back(m);
      else bad += " " + m + " (" + cupti_.error(rm) + ")";
    }
    if (log && !bad.empty()) log->warnings.push_back("PM sampling metrics refused:" + bad);
    if (ok.empty()) {
      if (error) *error = "cuptiProfilerHostConfigAddMetrics: no NVLink metric accepted:" + bad;
      return false;
    }
    metrics = ok;
    if (!init_host()) return false;
    if (!check(add(metrics), "cuptiProfilerHostConfigAddMetrics", error)) return false;
  }
  auto sz = PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  sz.pHostObject = host_;
  if (!check(cupti_.cuptiProfilerHostGetConfigImageSize(&sz), "cuptiProfilerHostGetConfigImageSize", error)) return false;
  config_.assign(sz.configImageSize, 0);
  auto img = PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  img.pHostObject = host_;
  img.configImageSize = config_.size();
  img.pConfigImage = config_.data();
  if (!check(cupti_.cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage", error)) return false;
  auto passes = PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  passes.configImageSize = config_.size();
  passes.pConfigImage = config_.data();
  if (!check(cupti_.cuptiProfilerHostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses", error)) return false;
  if (passes.numOfPasses != 1) {
    if (error) *error = "the NVLink metrics need " + std::to_string(passes.numOfPasses) + " passes; PM sampling takes one";
    return false;
  }
  metrics_ = metrics;
  metric_ptrs_.clear();
  for (const auto& m : metrics_) metric_ptrs_.push_back(m.c_str());
  return true;
}

bool PmSampler::start(uint32_t interval_us, uint32_t max_samples, const std::vector<std::string>& metrics,
                      std::string* error, PmSamplerLog* log) {
  if (!cupti_.cuptiPmSamplingEnable || !cupti_.cuptiProfilerHostInitialize || !cupti_.cuptiProfilerInitialize) {
    if (error) *error = "this libcupti has no PM sampling API (" + cupti_.path + ")";
    return false;
  }
  auto init = PARAMS(CUpti_Profiler_Initialize_Params);
  if (!check(cupti_.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize", error)) return false;

  auto chip = PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<size_t>(device_);
  if (!check(cupti_.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName", error)) return false;
  chip_ = chip.pChipName ? chip.pChipName : "";

  if (cupti_.cuptiProfilerDeviceSupported) {
    auto sup = PARAMS(CUpti_Profiler_DeviceSupported_Params);
    sup.cuDevice = device_;
    sup.api = CUPTI_PROFILER_PM_SAMPLING;
    if (!check(cupti_.cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported", error)) return false;
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
      if (error)
        *error = "PM sampling is not supported on device " + std::to_string(device_) + " (" + chip_ +
                 "): architecture " + support_text(sup.architecture) + ", vGPU " + support_text(sup.vGpu) +
                 ", confidential compute " + support_text(sup.confidentialCompute) + ", SLI " + support_text(sup.sli) +
                 ", CMP " + support_text(sup.cmp) + ", WSL " + support_text(sup.wsl);
      return false;
    }
  }

  auto avail = PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
  avail.deviceIndex = static_cast<size_t>(device_);
  if (!check(cupti_.cuptiPmSamplingGetCounterAvailability(&avail), "cuptiPmSamplingGetCounterAvailability", error))
    return false;
  availability_.assign(avail.counterAvailabilityImageSize, 0);
  avail.pCounterAvailabilityImage = availability_.data();
  if (!check(cupti_.cuptiPmSamplingGetCounterAvailability(&avail), "cuptiPmSamplingGetCounterAvailability", error))
    return false;

  std::vector<std::string> wanted = metrics;
  if (wanted.empty()) wanted = {"nvlrx__bytes.sum", "nvltx__bytes.sum"};
  if (!build_config(wanted, error, log)) return false;
  if (log) {
    std::string m;
    for (const auto& s : metrics_) m += " " + s;
    log->notes.push_back("PM sampling on device " + std::to_string(device_) + " (" + chip_ + ") every " +
                     std::to_string(interval_us) + " us:" + m);
  }

  auto en = PARAMS(CUpti_PmSampling_Enable_Params);
  en.deviceIndex = static_cast<size_t>(device_);
  if (!check(cupti_.cuptiPmSamplingEnable(&en), "cuptiPmSamplingEnable", error)) return false;
  sampler_ = en.pPmSamplingObject;

  auto cfg = PARAMS(CUpti_PmSampling_SetConfig_Params);
  cfg.pPmSamplingObject = sampler_;
  cfg.configSize = config_.size();
  cfg.pConfig = config_.data();
  cfg.hardwareBufferSize = 256ull << 20;
  cfg.samplingInterval = static_cast<uint64_t>(interval_us) * 1000;  // ns in GPU_TIME_INTERVAL mode
  cfg.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  cfg.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  if (!check(cupti_.cuptiPmSamplingSetConfig(&cfg), "cuptiPmSamplingSetConfig", error)) return false;

  auto size = PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
  size.pPmSamplingObject = sampler_;
  size.pMetricNames = metric_ptrs_.data();
  size.numMetrics = metric_ptrs_.size();
  size.maxSamples = max_samples;
  if (!check(cupti_.cuptiPmSamplingGetCounterDataSize(&size), "cuptiPmSamplingGetCounterDataSize", error)) return false;
  counter_data_.assign(size.counterDataSize, 0);
  auto ci = PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
  ci.pPmSamplingObject = sampler_;
  ci.counterDataSize = counter_data_.size();
  ci.pCounterData = counter_data_.data();
  if (!check(cupti_.cuptiPmSamplingCounterDataImageInitialize(&ci), "cuptiPmSamplingCounterDataImageInitialize", error))
    return false;
  counter_data_blank_ = counter_data_;  // restoring the blank image is cheaper than re-initialising

  auto st = PARAMS(CUpti_PmSampling_Start_Params);
  st.pPmSamplingObject = sampler_;
  if (!check(cupti_.cuptiPmSamplingStart(&st), "cuptiPmSamplingStart", error)) return false;
  started_ = true;
  return true;
}

bool PmSampler::decode(std::vector<CollectedActivity>& out, std::string* error, PmSamplerLog* log) {
  if (!started_ && !sampler_) return true;
  for (int round = 0; round < 64; ++round) {
    auto dd = PARAMS(CUpti_PmSampling_DecodeData_Params);
    dd.pPmSamplingObject = sampler_;
    dd.pCounterDataImage = counter_data_.data();
    dd.counterDataImageSize = counter_data_.size();
    if (!check(cupti_.cuptiPmSamplingDecodeData(&dd), "cuptiPmSamplingDecodeData", error)) return false;
    if (dd.overflow && log) log->warnings.push_back("PM sampling hardware buffer overflowed on device " + std::to_string(device_) +
                                                    ": samples were lost (raise the interval)");
    auto info = PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    if (!check(cupti_.cuptiPmSamplingGetCounterDataInfo(&info), "cuptiPmSamplingGetCounterDataInfo", error)) return false;
    std::vector<double> values(metric_ptrs_.size());
    for (size_t i = 0; i < info.numCompletedSamples; ++i) {
      auto si = PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
      si.pPmSamplingObject = sampler_;
      si.pCounterDataImage = counter_data_.data();
      si.counterDataImageSize = counter_data_.size();
      si.sampleIndex = i;
      if (!check(cupti_.cuptiPmSamplingCounterDataGetSampleInfo(&si), "cuptiPmSamplingCounterDataGetSampleInfo", error))
        return false;
      auto ev = PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      ev.pHostObject = host_;
      ev.pCounterDataImage = counter_data_.data();
      ev.counterDataImageSize = counter_data_.size();
      ev.rangeIndex = i;
      ev.ppMetricNames = metric_ptrs_.data();
      ev.numMetrics = metric_ptrs_.size();
      ev.pMetricValues = values.data();
      if (!check(cupti_.cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues", error))
        return false;
      for (size_t m = 0; m < metrics_.size(); ++m) {
        CollectedActivity a;
        a.kind = RecordKind::kCounterSample;
        a.device = static_cast<uint32_t>(device_);
        a.name = metrics_[m];
        a.start_ns = si.startTimestamp;
        a.end_ns = si.endTimestamp;
        a.clock = ClockDomain::kGlobalTimer;
        a.counter_value = values[m];
        out.push_back(std::move(a));
      }
    }
    counter_data_ = counter_data_blank_;
    if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) break;
  }
  return true;
}

void PmSampler::stop() {
  if (started_) {
    auto st = PARAMS(CUpti_PmSampling_Stop_Params);
    st.pPmSamplingObject = sampler_;
    cupti_.cuptiPmSamplingStop(&st);
    started_ = false;
  }
  // cuptiPmSamplingDisable is left out on purpose: other CUPTI clients report that it can finalise
  // more of CUPTI than the sampler (activity tracing would stop); we stop only at exit anyway.
  if (host_) {
    auto d = PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    d.pHostObject = host_;
    cupti_.cuptiProfilerHostDeinitialize(&d);
    host_ = nullptr;
  }
}

}  // namespace parascope::collector
