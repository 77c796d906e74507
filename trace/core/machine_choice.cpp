#include "trace/core/machine_choice.h"

#include <filesystem>
#include <stdexcept>
#include <tuple>

#include "trace/core/topology_json.h"

namespace parascope {

namespace {

std::string gpu_model(const Topology& t) {
  const int32_t n0 = t.gpu_node(0);
  return n0 >= 0 && t.nodes[static_cast<size_t>(n0)].gpu ? t.nodes[static_cast<size_t>(n0)].gpu->model : "";
}

std::string traced_model(const Trace& trace) {
  for (const Device& d : trace.devices)
    if (!d.name.empty()) return d.name;
  return "";
}

MachineChoice given(const Trace& trace, const std::vector<Preset>& presets, const MachineRequest& r, int32_t gpus) {
  MachineChoice c;
  if (r.name == "trace") {
    if (!trace.topology && !r.simulate) {
      c.reason = "inferred from the trace's devices and link counters";
      return c;
    }
    if (!trace.topology) throw MachineError("this trace has no topology; name a preset");
    if (r.simulate && static_cast<int32_t>(trace.topology->gpu_count()) < gpus)
      throw MachineError("the trace's topology has " + std::to_string(trace.topology->gpu_count()) + " GPUs, " +
                                  std::to_string(gpus) + " are needed; name a preset");
    c.source = MachineChoice::Source::kTrace;
    c.topology = *trace.topology;
    c.reason = "the trace's own topology";
    return c;
  }
  c.source = MachineChoice::Source::kGiven;
  c.reason = "the machine asked for (" + r.name + ")";
  std::error_code ec;
  if (std::filesystem::is_regular_file(r.name, ec)) {
    c.topology = load_topology_file(r.name);
    return c;
  }
  for (const Preset& p : presets)
    if (p.name == r.name) {
      c.topology = p.topology;
      c.preset = p.name;
      return c;
    }
  std::string list;
  for (const Preset& p : presets) list += (list.empty() ? "" : ", ") + p.name;
  throw MachineError("no topology file or preset named '" + r.name + "'" +
                              (list.empty() ? " (no presets found)" : "; presets: " + list));
}

}  // namespace

MachineChoice choose_machine(const Trace& trace, const std::vector<Preset>& presets, const MachineRequest& r) {
  size_t physical = 0;
  physical_gpus(trace, &physical);
  const int32_t gpus = std::max<int32_t>(r.simulate ? 1 : 0, r.gpus > 0 ? r.gpus : static_cast<int32_t>(physical));
  if (!r.name.empty() && r.name != "auto") return given(trace, presets, r, gpus);

  MachineChoice c;
  if (trace.topology && (!r.simulate || static_cast<int32_t>(trace.topology->gpu_count()) >= gpus)) {
    c.source = MachineChoice::Source::kTrace;
    c.topology = *trace.topology;
    c.reason = "the trace's own topology";
    return c;
  }
  if (!r.simulate && !trace.links.empty()) {
    c.reason = "inferred from the trace's devices and link counters (the links it measured)";
    return c;
  }
  const std::string model = traced_model(trace);
  // among the presets with enough GPUs: the traced model first, then measured, then fewest GPUs
  auto rank = [&](const Topology& t) {
    return std::make_tuple(model.empty() || gpu_model(t) != model, t.calibration != Calibration::kMeasured, t.gpu_count());
  };
  const Preset* best = nullptr;
  for (const Preset& p : presets)
    if (static_cast<int32_t>(p.topology.gpu_count()) >= gpus && p.topology.gpu_count() > 0 &&
        (!best || rank(p.topology) < rank(best->topology)))
      best = &p;
  const bool same_model = best && !std::get<0>(rank(best->topology));
  if (same_model) {
    c.source = MachineChoice::Source::kPreset;
    c.topology = best->topology;
    c.preset = best->name;
    c.reason = "preset matching " + model;
    return c;
  }
  const std::string none = model.empty() ? "the trace names no GPU model" : "no preset has " + std::to_string(gpus) + " " + model + " GPUs";
  if (!r.simulate) {
    c.source = MachineChoice::Source::kInferred;
    c.reason = "inferred from the trace's devices and link counters (" + none + ")";
    return c;
  }
  if (!best)
    throw MachineError("no machine with " + std::to_string(gpus) + " GPUs: the trace has no such topology and no preset has them; name one");
  c.source = MachineChoice::Source::kOtherPreset;
  c.topology = best->topology;
  c.preset = best->name;
  c.reason = "the first preset with " + std::to_string(gpus) + " GPUs (" + none + ")";
  return c;
}

TraceMachine trace_machine(const Trace& trace, const MachineChoice& choice) {
  const bool own = choice.source == MachineChoice::Source::kTrace || choice.source == MachineChoice::Source::kInferred;
  return trace_machine(trace, own ? nullptr : &choice.topology);
}

}  // namespace parascope
