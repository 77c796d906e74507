#include "sim/whatif/comm_model.h"

#include <algorithm>
#include <cmath>

#include "sim/collectives.h"
#include "sim/simulator.h"

namespace parascope::whatif {

std::shared_ptr<const CommTiming> CommCache::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : it->second;
}

void CommCache::put(const std::string& key, std::shared_ptr<const CommTiming> t) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_.emplace(key, std::move(t));
}

size_t CommCache::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.size();
}

namespace {

// Knobs that shape one collective's simulation; they go into the cache key.
constexpr const char* kCollectiveKnobs[] = {"chunk_bytes", "window", "granularity", "threads_per_channel", "protocol",
                                            "ll_max_bytes", "ll128_max_bytes", "overlap", "num_comm_sms", "dtype_bytes"};

std::string mechanism_name(Mechanism m) {
  switch (m) {
    case Mechanism::kCopyEngine: return "ce";
    case Mechanism::kTma: return "tma";
    case Mechanism::kMultimem: return "multimem";
    case Mechanism::kLdSt: return "ldst";
    default: return "";
  }
}

}  // namespace

sim::WorkloadStep workload_step_for(const CommSpec& spec, const sim::KnobSettings& knobs, std::string* why) {
  sim::WorkloadStep s;
  auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    s.op.clear();
    return s;
  };
  if (spec.bytes <= 0) return fail("no size");
  if (spec.gpus.empty()) return fail("no GPUs");
  s.gpu_list = spec.gpus;
  double bytes = spec.bytes;
  bool p2p = false;
  switch (spec.op) {
    case CollectiveOp::kAllReduce: s.op = "allreduce"; break;
    case CollectiveOp::kAllGather: s.op = "allgather"; break;
    case CollectiveOp::kReduceScatter: s.op = "reducescatter"; break;
    case CollectiveOp::kAllToAll: s.op = "alltoall"; break;
    case CollectiveOp::kSend:
    case CollectiveOp::kRecv:
    case CollectiveOp::kSendRecv:
    case CollectiveOp::kBroadcast:  // a pipelined ring moves the buffer once over each link
    case CollectiveOp::kReduce:
      s.op = "sendrecv";
      p2p = true;
      break;
    case CollectiveOp::kBarrier:
      s.op = "allreduce";
      bytes = 4;
      break;
    default: return fail("operation " + std::string(parascope::to_string(spec.op)) + " has no simulator model");
  }
  if (spec.gpus.size() < 2) {
    if (p2p) return fail("a transfer needs two GPUs");
    return fail("a group of one GPU moves nothing");
  }
  if (p2p && spec.gpus.size() > 2) s.gpu_list.resize(2);
  try {
    sim::KnobSettings& k = s.knobs;
    if (spec.gemm_m > 0) {
      s.op = spec.fused_allgather_first ? "allgather_gemm" : "gemm_reducescatter";
      k.set_value("gemm_m", spec.gemm_m);
      k.set_value("gemm_n", spec.gemm_n);
      k.set_value("gemm_k", spec.gemm_k);
      k.set_value("gemm_efficiency", spec.gemm_efficiency);
    } else {
      k.set_value("bytes", static_cast<int64_t>(std::llround(bytes)));
    }
    // The trace's own values (channels, algorithm) unless the user set the knob. The simulator's
    // default channel count is its calibrated stand-in for NCCL's default (docs/accuracy.md): a
    // traced collective at or above it runs at the default, one limited below it
    // (NCCL_MAX_NCHANNELS) at its own count.
    if (knobs.is_set("channels")) k.set_value("channels", knobs.get_int("channels"));
    else if (knobs.is_set("num_comm_sms") && spec.gemm_m == 0) k.set_value("channels", std::max<int64_t>(1, knobs.get_int("num_comm_sms")));
    else if (spec.channels > 0 && spec.channels < static_cast<uint32_t>(knobs.get_int("channels"))) k.set_value("channels", int64_t{spec.channels});
    const std::string algo = knobs.is_set("algorithm") ? knobs.get_enum("algorithm") : spec.algorithm;
    if (!algo.empty() && algo != "ring") {
      const bool ar = s.op == "allreduce";
      const bool agrs = s.op == "allgather" || s.op == "reducescatter";
      if (ar || (agrs && algo == "one_shot")) k.set_value("algorithm", algo);
      else if (why && knobs.is_set("algorithm")) *why = "algorithm=" + algo + " does not apply to " + s.op + ": ring used";
    }
    std::string mech = knobs.is_set("mechanism") ? knobs.get_enum("mechanism") : mechanism_name(spec.mechanism);
    if (spec.mechanism == Mechanism::kCopyEngine && !knobs.is_set("mechanism")) mech = "ce";
    if (!mech.empty()) k.set_value("mechanism", mech);
    if (!spec.protocol.empty() && !knobs.is_set("protocol")) k.set_value("protocol", spec.protocol);
    for (const char* name : kCollectiveKnobs) {
      if (!knobs.is_set(name)) continue;
      if (std::string_view(name) == "num_comm_sms" && spec.gemm_m == 0) continue;  // NCCL collectives: channels
      k.set_value(name, knobs.values().at(name));
    }
  } catch (const sim::KnobError& e) {
    return fail(e.what());  // a traced value the simulator has no choice for
  }
  return s;
}

CommModel::CommModel(const sim::Platform& platform, std::string platform_key, const sim::KnobSettings& knobs,
                     std::shared_ptr<CommCache> cache)
    : platform_(platform), platform_key_(std::move(platform_key)), knobs_(knobs), cache_(std::move(cache)) {
  if (!cache_) cache_ = std::make_shared<CommCache>();
}

std::shared_ptr<const CommTiming> CommModel::timing(const CommSpec& spec) {
  std::string why;
  const sim::WorkloadStep step = workload_step_for(spec, knobs_, &why);
  std::string key = platform_key_ + "|" + step.op + "|";
  step.knobs.append_key(key);
  key += "|gpus";
  for (int32_t g : step.gpu_list) key += "," + std::to_string(g);
  if (step.op.empty()) key += "|" + why;
  if (auto hit = cache_->find(key)) return hit;

  auto t = std::make_shared<CommTiming>();
  if (step.op.empty()) {
    t->error = why;
  } else {
    try {
      const sim::Workload w = sim::build_workload(platform_, {step});
      sim::SimOptions so;
      so.record_compute_spans = false;
      sim::Simulator simulator(platform_, w, so);
      const sim::SimResult r = simulator.run();
      ++simulations_;
      t->duration = ps_to_ns(r.makespan);
      std::vector<uint32_t> held(platform_.gpu_count(), 0);
      for (const sim::Actor& a : w.actors)
        if (a.role == sim::ActorRole::kCommunication) held[static_cast<size_t>(a.gpu)] += a.sms;
      for (int32_t g : step.gpu_list) t->sms = std::max(t->sms, held[static_cast<size_t>(g)]);
      for (size_t i = 0; i < platform_.resources().size(); ++i) {
        const sim::PlatformResource& res = platform_.resources()[i];
        if (res.kind != sim::ResourceKind::kLink && res.kind != sim::ResourceKind::kNicTx) continue;
        const double b = simulator.flows().usage(static_cast<uint32_t>(i)).bytes;
        if (b > 0) t->resource_bytes.push_back({static_cast<uint32_t>(i), b});
      }
      const sim::CollectiveSpec& cs = w.collectives.front();
      t->description = step.op + " " + cs.algorithm + (cs.protocol.empty() ? "" : " " + cs.protocol) + " " +
                       sim::format_bytes(static_cast<int64_t>(std::llround(cs.bytes))) + " on " +
                       std::to_string(step.gpu_list.size()) + " GPUs, " + std::to_string(cs.channels) + " channels";
    } catch (const std::exception& e) {
      t->error = e.what();
      t->duration = 0;
    }
  }
  cache_->put(key, t);
  return cache_->find(key);
}

}  // namespace parascope::whatif
