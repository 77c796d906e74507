#include "sim/knobs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

namespace parascope::sim {

std::string_view to_string(KnobType t) {
  switch (t) {
    case KnobType::kInt: return "int";
    case KnobType::kDouble: return "double";
    case KnobType::kBool: return "bool";
    case KnobType::kEnum: return "enum";
    case KnobType::kBytes: return "bytes";
  }
  return "?";
}

bool parse_bytes(std::string_view t, int64_t& out) {
  double v = 0;
  size_t i = 0;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  if (i == 0) return false;
  auto r = std::from_chars(t.data(), t.data() + i, v);
  if (r.ec != std::errc() || r.ptr != t.data() + i) return false;
  std::string_view unit = t.substr(i);
  double mult = 1;
  if (unit.empty() || unit == "B") mult = 1;
  else if (unit == "KiB" || unit == "Ki" || unit == "k" || unit == "K") mult = 1024.0;
  else if (unit == "MiB" || unit == "Mi" || unit == "M" || unit == "m") mult = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "Gi" || unit == "G" || unit == "g") mult = 1024.0 * 1024 * 1024;
  else if (unit == "TiB" || unit == "Ti" || unit == "T") mult = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "KB" || unit == "kB") mult = 1e3;
  else if (unit == "MB") mult = 1e6;
  else if (unit == "GB") mult = 1e9;
  else if (unit == "TB") mult = 1e12;
  else return false;
  const double b = v * mult;
  if (!(b >= 0) || b > 9.0e18 || b != std::floor(b)) return false;
  out = static_cast<int64_t>(b);
  return true;
}

std::string format_bytes(int64_t b) {
  static constexpr const char* kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
  static constexpr int kShift[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; ++i) {
    const int64_t u = int64_t{1} << kShift[i];
    if (b >= u && b % u == 0) return std::to_string(b / u) + kUnits[i];
  }
  return std::to_string(b);
}

void KnobRegistry::add(KnobSpec spec) {
  if (find(spec.name)) throw std::logic_error("knob registered twice: " + spec.name);
  specs_.push_back(std::move(spec));
  // validate the default through the same path as user input
  (void)parse(specs_.back().name, format(specs_.back(), specs_.back().default_value));
}

const KnobSpec* KnobRegistry::find(std::string_view name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string range_text(const KnobSpec& s) {
  switch (s.type) {
    case KnobType::kBool: return "true|false";
    case KnobType::kEnum: {
      std::string out;
      for (const auto& c : s.choices) out += (out.empty() ? "" : "|") + c;
      return out;
    }
    default: break;
  }
  auto num = [&](double v) {
    if (s.type == KnobType::kBytes) return format_bytes(static_cast<int64_t>(v));
    if (s.type == KnobType::kInt) return std::to_string(static_cast<int64_t>(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  return "[" + num(s.min) + ", " + num(s.max) + "]";
}

KnobValue KnobRegistry::parse(std::string_view name, std::string_view text) const {
  const KnobSpec* s = find(name);
  if (!s) {
    std::string best;
    size_t best_d = 4;
    for (const auto& k : specs_) {
      const size_t d = edit_distance(name, k.name);
      if (d < best_d) {
        best_d = d;
        best = k.name;
      }
    }
    throw KnobError("unknown knob '" + std::string(name) + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)") +
                    "; `parascope-cli knobs` lists them");
  }
  const std::string bad = "knob " + s->name + ": '" + std::string(text) + "' is not ";
  switch (s->type) {
    case KnobType::kInt: {
      int64_t v;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size()) throw KnobError(bad + "an integer");
      if (v < s->min || v > s->max) throw KnobError(bad + "in range " + range_text(*s));
      return v;
    }
    case KnobType::kBytes: {
      int64_t v;
      if (!parse_bytes(text, v)) throw KnobError(bad + "a byte count (e.g. 4096, 64KiB, 1GiB)");
      if (v < s->min || v > s->max) throw KnobError(bad + "in range " + range_text(*s));
      return v;
    }
    case KnobType::kDouble: {
      double v;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) throw KnobError(bad + "a number");
      if (v < s->min || v > s->max) throw KnobError(bad + "in range " + range_text(*s));
      return v;
    }
    case KnobType::kBool:
      if (text == "true" || text == "1" || text == "on" || text == "yes") return true;
      if (text == "false" || text == "0" || text == "off" || text == "no") return false;
      throw KnobError(bad + "true or false");
    case KnobType::kEnum: {
      for (const auto& c : s->choices)
        if (c == text) return c;
      std::string list;
      for (const auto& c : s->choices) list += (list.empty() ? "" : ", ") + c;
      throw KnobError(bad + "one of: " + list);
    }
  }
  throw KnobError(bad + "valid");
}

std::string KnobRegistry::format(const KnobSpec& s, const KnobValue& v) const {
  if (const auto* i = std::get_if<int64_t>(&v)) return s.type == KnobType::kBytes ? format_bytes(*i) : std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", *d);
    return buf;
  }
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

std::string KnobRegistry::format(std::string_view name, const KnobValue& v) const {
  const KnobSpec* s = find(name);
  if (!s) throw std::logic_error("no knob named " + std::string(name));
  return format(*s, v);
}

namespace {
KnobRegistry build_registry() {
  KnobRegistry r;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  r.add({"gpus", KnobType::kInt, 1, 65536, {}, int64_t{8}, "GPUs", "topology", "number of GPUs taking part"});
  r.add({"gpus_per_node", KnobType::kInt, 1, 64, {}, int64_t{8}, "GPUs", "topology", "GPUs per node for multi-node topologies"});
  r.add({"bytes", KnobType::kBytes, 1, 1024 * kGiB, {}, int64_t{1} << 30, "bytes", "collective",
         "message size of a generated collective (per rank input)"});
  r.add({"algorithm", KnobType::kEnum, 0, 0, {"ring", "tree", "one_shot", "two_shot", "nvls"}, std::string("ring"), "",
         "collective", "collective algorithm (all-gather, reduce-scatter, all-to-all: ring or one_shot = direct)"});
  r.add({"mechanism", KnobType::kEnum, 0, 0, {"ce", "tma", "ldst", "multimem", "ldst_pull", "tma_pull"}, std::string("ldst"), "",
         "mechanism",
         "how bytes move between GPUs: copy engine, TMA bulk copies, SM loads/stores, NVLS multimem; *_pull: the "
         "receiving GPU's SMs read (direct kernels)"});
  r.add({"channels", KnobType::kInt, 1, 1024, {}, int64_t{16}, "channels", "collective",
         "parallel channels (NCCL-style rings; the direct kernels: blocks, one per SM), each driven by its own SMs; "
         "unset, NCCL's algorithms on a topology with a measured NCCL profile run its channel count (h200x2: 24)"});
  r.add({"num_comm_sms", KnobType::kInt, 0, 1024, {}, int64_t{16}, "SMs", "mechanism",
         "SMs given to communication (taken from compute in fused kernels)"});
  r.add({"chunk_bytes", KnobType::kBytes, 256, 1024 * kGiB, {}, int64_t{1} << 20, "bytes", "collective",
         "bytes per message; a collective is split into channels x steps x chunks"});
  r.add({"window", KnobType::kInt, 1, 1024, {}, int64_t{8}, "messages", "collective", "messages in flight per channel"});
  r.add({"granularity", KnobType::kEnum, 0, 0, {"chunk", "step"}, std::string("chunk"), "", "collective",
         "simulate every chunk, or one flow per algorithm step (coarser, faster for big what-ifs)"});
  r.add({"link_bandwidth_scale", KnobType::kDouble, 0.01, 100, {}, 1.0, "x", "topology",
         "multiply every link's bandwidth"});
  r.add({"compute_scale", KnobType::kDouble, 0.01, 100, {}, 1.0, "x", "schedule", "multiply compute kernel durations"});
  r.add({"threads_per_channel", KnobType::kInt, 32, 1024, {}, int64_t{1024}, "threads", "mechanism",
         "threads driving one channel; below the calibration's block size the per-SM rate scales down (fewer "
         "bytes in flight). NCCL's 512-thread blocks unroll 4x and keep as much in flight as 1024 plain threads"});
  r.add({"overlap", KnobType::kEnum, 0, 0, {"inter_sm", "intra_sm"}, std::string("inter_sm"), "", "schedule",
         "fused kernels: communication on num_comm_sms dedicated SMs (inter_sm) or on warps of every SM (intra_sm)"});
  r.add({"gemm_m", KnobType::kInt, 1, int64_t{1} << 24, {}, int64_t{8192}, "rows", "schedule", "GEMM rows (M) per rank"});
  r.add({"gemm_n", KnobType::kInt, 1, int64_t{1} << 24, {}, int64_t{8192}, "columns", "schedule", "GEMM columns (N)"});
  r.add({"gemm_k", KnobType::kInt, 1, int64_t{1} << 24, {}, int64_t{8192}, "", "schedule", "GEMM inner dimension (K)"});
  r.add({"gemm_efficiency", KnobType::kDouble, 0.01, 1, {}, 1.0, "x", "schedule",
         "fraction of the GPU's bf16_TFLOPs a GEMM reaches (measured presets already carry achieved rates)"});
  r.add({"dtype_bytes", KnobType::kInt, 1, 8, {}, int64_t{2}, "bytes", "collective", "element size (bf16: 2)"});
  r.add({"repeat", KnobType::kInt, 1, 100000, {}, int64_t{1}, "times", "schedule",
         "run the workload step this many times back to back on its stream"});
  r.add({"protocol", KnobType::kEnum, 0, 0, {"auto", "simple", "ll128", "ll"}, std::string("auto"), "", "collective",
         "NCCL protocol: simple moves payload only; ll128 carries 8 flag bytes per 128-byte line (x128/120 on the "
         "wire and in the SMs), ll 4 per 8 written as half-efficient 16-byte stores (x4, NCCL's own LL factor); auto: ll up to ll_max_bytes, ll128 up to ll128_max_bytes, then simple. With a measured NCCL profile, auto follows NCCL's logged choice and simple / ll force that protocol's curve (NCCL_PROTO)"});
  r.add({"ll_max_bytes", KnobType::kBytes, 0, 1024 * kGiB, {}, int64_t{0}, "bytes", "collective",
         "protocol=auto: largest per-rank message that uses LL"});
  r.add({"ll128_max_bytes", KnobType::kBytes, 0, 1024 * kGiB, {}, int64_t{256} << 20, "bytes", "collective",
         "protocol=auto: largest per-rank message that uses LL128 (a measured NCCL profile decides instead: NCCL 2.28 on "
         "the 2 x H200 logs LL up to 1 MiB per rank, Simple above, never LL128; docs/accuracy.md)"});
  r.add({"nccl_profile", KnobType::kBool, 0, 0, {}, true, "", "collective",
         "NCCL's algorithms (ring, tree, send/recv, all-to-all) use the topology's measured NCCL profile (per-channel rate "
         "by size, fixed costs) when it has one"});
  r.add({"hbm", KnobType::kBool, 0, 0, {}, true, "", "topology",
         "model each GPU's HBM as a bandwidth shared by every transfer touching it"});
  // What-if on a trace (sim/whatif): which operations a schedule change applies to, and how.
  r.add({"comm_select", KnobType::kEnum, 0, 0, {"all", "allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"},
         std::string("all"), "", "schedule",
         "whatif: the collectives that comm_stream, comm_split, comm_merge, channels, algorithm, mechanism... change"});
  r.add({"comm_stream", KnobType::kEnum, 0, 0, {"trace", "side", "serial"}, std::string("trace"), "", "schedule",
         "whatif: keep each selected collective's stream, move it to a side stream (it overlaps the rest of its step; "
         "the step's next operation on the old stream and its host syncs wait for it), or serialise it on its "
         "device's compute stream"});
  r.add({"comm_deps", KnobType::kEnum, 0, 0, {"stream", "launch", "step"}, std::string("stream"), "", "schedule",
         "whatif: what holds each selected collective on a side stream back (comm_stream=side, and the traced "
         "side-stream ones through comm_split and comm_merge): the op before it on its stream as traced (stream "
         "order and event waits, the trace's stand-in for its input's producer), only its launch (it does not wait "
         "for this step's compute), or nothing in its step (issued at the step's start, as DDP-style overlap does)"});
  r.add({"comm_split", KnobType::kInt, 1, 64, {}, int64_t{1}, "buckets", "schedule",
         "whatif: split each selected collective into this many equal collectives, back to back"});
  r.add({"comm_merge", KnobType::kInt, 1, 1024, {}, int64_t{1}, "collectives", "schedule",
         "whatif: merge this many consecutive selected collectives (same op, group and stream) into one bucket"});
  r.add({"kernel_class", KnobType::kEnum, 0, 0, {"all", "gemm", "attention", "elementwise", "reduction", "memory", "other"},
         std::string("all"), "", "schedule", "whatif: the kernels compute_scale applies to (by name)"});
  r.add({"fuse", KnobType::kEnum, 0, 0, {"none", "ag_gemm", "gemm_rs", "both"}, std::string("none"), "", "schedule",
         "whatif: fuse an all-gather with the GEMM after it and/or a GEMM with the reduce-scatter after it into one "
         "kernel (the simulator's fused model; overlap and num_comm_sms shape it)"});
  r.add({"scale_gpus", KnobType::kInt, 0, 65536, {}, int64_t{0}, "GPUs", "topology",
         "whatif: run the traced step on this many GPUs (a multiple of the traced ranks; 0: as traced), by the "
         "parallelism knob's rules"});
  r.add({"parallelism", KnobType::kEnum, 0, 0, {"dp", "tp", "pp", "ep"}, std::string("dp"), "", "topology",
         "whatif scale_gpus: data-parallel (same work per rank, collectives over every rank), tensor-parallel (work "
         "and all-gather shards shrink), pipeline (work per stage shrinks), expert-parallel (all-to-all over every rank)"});
  r.add({"fabric", KnobType::kEnum, 0, 0, {"trace", "nvswitch", "pcie", "cluster"}, std::string("trace"), "", "topology",
         "whatif: the given topology, or the same GPUs on one NVSwitch, on PCIe switches, or on gpus_per_node-GPU "
         "nodes joined by InfiniBand"});
  r.add({"cpu_scale", KnobType::kDouble, 0, 100, {}, 1.0, "x", "schedule",
         "whatif: multiply host call durations and the CPU time between them (0: the host is never late)"});
  r.add({"comm_call_us", KnobType::kDouble, -1, 100000, {}, -1.0, "us", "schedule",
         "whatif: host time of each call that launches a (comm_select) collective or peer copy, as the backend's "
         "enqueue takes (unset: traced calls as traced, the stand-in's calls of a record --world recording - 1-2 us, "
         "not NCCL's - the topology's host collective_call_ns where it has one: h200x2, hgx_h200x8 27 us, measured in a DDP step; "
         "-1: every call as recorded)"});
  r.add({"comm_interference", KnobType::kDouble, -1, 10, {}, -1.0, "x", "mechanism",
         "whatif: fractional slow-down of compute while communication runs on its GPU, on top of the SMs the "
         "communication holds (-1: the topology's GpuSpec comm_interference)"});
  r.add({"comm_slowdown", KnobType::kDouble, -1, 10, {}, -1.0, "x", "mechanism",
         "whatif: fractional slow-down of communication while compute kernels run on its GPU; unset: the machine's "
         "a-priori value (the topology's GpuSpec comm_slowdown, measured on other data); -1: calibrate on the trace "
         "being replayed (its collectives that ran beside compute against the model's time alone: a fit, not a "
         "prediction)"});
  return r;
}
}  // namespace

const KnobRegistry& knob_registry() {
  static const KnobRegistry registry = build_registry();
  return registry;
}

void KnobSettings::set(std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw KnobError("expected knob=value, got '" + std::string(assignment) + "'");
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

KnobSettings::KnobSettings(std::initializer_list<std::pair<std::string_view, std::string_view>> assignments)
    : registry_(&knob_registry()) {
  for (const auto& [name, text] : assignments) set(name, text);
}

void KnobSettings::set(std::string_view name, std::string_view value_text) {
  values_[std::string(name)] = registry_->parse(name, value_text);
}

void KnobSettings::set_value(std::string_view name, const KnobValue& value) {
  const KnobSpec* s = registry_->find(name);
  if (!s) (void)registry_->parse(name, "");  // KnobError with the registry's suggestion
  const bool integral = s->type == KnobType::kInt || s->type == KnobType::kBytes;
  const bool fits = integral                        ? std::holds_alternative<int64_t>(value)
                    : s->type == KnobType::kDouble  ? std::holds_alternative<double>(value)
                    : s->type == KnobType::kBool    ? std::holds_alternative<bool>(value)
                                                    : std::holds_alternative<std::string>(value);
  if (!fits) throw KnobError("knob " + s->name + ": a value of the wrong type (" + std::string(to_string(s->type)) + " expected)");
  const std::string bad = "knob " + s->name + ": '" + registry_->format(*s, value) + "' is not ";
  if (integral || s->type == KnobType::kDouble) {
    const double v = integral ? static_cast<double>(std::get<int64_t>(value)) : std::get<double>(value);
    if (!std::isfinite(v) || v < s->min || v > s->max) throw KnobError(bad + "in range " + range_text(*s));
  } else if (s->type == KnobType::kEnum &&
             std::find(s->choices.begin(), s->choices.end(), std::get<std::string>(value)) == s->choices.end()) {
    throw KnobError(bad + "one of: " + range_text(*s));
  }
  values_[s->name] = value;
}

void KnobSettings::merge(const KnobSettings& other) {
  for (const auto& [k, v] : other.values_) values_[k] = v;
}

void KnobSettings::append_key(std::string& key) const {
  for (const auto& [k, v] : values_) {
    key += k;
    key += '=';
    key += static_cast<char>(v.index());
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::string>) key += x;
          else key.append(reinterpret_cast<const char*>(&x), sizeof x);
        },
        v);
    key += ';';
  }
}

const KnobValue& KnobSettings::value(std::string_view name, KnobType expect) const {
  const KnobSpec* s = registry_->find(name);
  if (!s) throw std::logic_error("no knob named " + std::string(name));
  const bool numeric_ok = (expect == KnobType::kInt || expect == KnobType::kBytes || expect == KnobType::kDouble) &&
                          (s->type == KnobType::kInt || s->type == KnobType::kBytes || s->type == KnobType::kDouble);
  if (s->type != expect && !numeric_ok)
    throw std::logic_error("knob " + s->name + " is " + std::string(to_string(s->type)) + ", read as " +
                           std::string(to_string(expect)));
  auto it = values_.find(std::string(name));
  return it != values_.end() ? it->second : s->default_value;
}

int64_t KnobSettings::get_int(std::string_view name) const {
  const KnobValue& v = value(name, KnobType::kInt);
  if (const auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  return std::get<int64_t>(v);
}
double KnobSettings::get_double(std::string_view name) const {
  const KnobValue& v = value(name, KnobType::kDouble);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
bool KnobSettings::get_bool(std::string_view name) const { return std::get<bool>(value(name, KnobType::kBool)); }
std::string KnobSettings::get_enum(std::string_view name) const { return std::get<std::string>(value(name, KnobType::kEnum)); }

std::string KnobSettings::describe() const {
  std::string out;
  for (const auto& [k, v] : values_) {
    if (!out.empty()) out += ' ';
    out += k + "=" + registry_->format(*registry_->find(k), v);
  }
  return out;
}

std::pair<std::string, std::vector<KnobValue>> parse_sweep(const KnobRegistry& registry, std::string_view spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0) throw KnobError("expected --sweep knob=v1,v2,..., got '" + std::string(spec) + "'");
  std::string name(spec.substr(0, eq));
  std::vector<KnobValue> values;
  std::string_view rest = spec.substr(eq + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    values.push_back(registry.parse(name, rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (values.empty()) throw KnobError("--sweep " + name + ": no values");
  return {name, values};
}

}  // namespace parascope::sim
