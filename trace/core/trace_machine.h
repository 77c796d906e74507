// The machine behind a trace, for the topology view and utilization by link: the trace's own
// Topology when it carries one (simulated traces), a preset the caller chose, or one inferred from
// what the trace says — a GPU node per physical GPU (the devices several processes see with one
// PCI bus id or UUID on one host are one GPU), GPU↔fabric NVLink counters (the collector's) through
// one NVSwitch node per host, other device pairs directly. Link counters are placed on the links
// their bytes cross, so a view can colour each link direction by its load over a window.
#pragma once

#include <optional>
#include <vector>

#include "trace/core/analysis/link_stats.h"
#include "trace/core/topology.h"

namespace parascope {

struct TraceMachine {
  Topology topology;
  enum class Origin : uint8_t { kTrace, kPreset, kInferred } origin = Origin::kInferred;
  std::vector<int32_t> device_node;  // per trace device: its topology node, -1 when unplaced
  std::vector<std::string> notes;    // what could not be placed, and why
};

// Physical GPUs of a trace in a stable order — by host, then PCI bus id (else UUID, else CUDA
// ordinal) — and, per trace device, its physical GPU's position in that order.
std::vector<int32_t> physical_gpus(const Trace& trace, size_t* count = nullptr);

// `preset` (optional) replaces the trace's own topology; devices map to its GPUs by gpu_index in
// physical order. Devices beyond the preset's GPUs stay unplaced (a note says so).
TraceMachine trace_machine(const Trace& trace, const Topology* preset = nullptr);

// One hop of a counter's bytes: a topology link crossed from a to b (a_to_b) or b to a.
struct LinkHop {
  int32_t link = -1;
  bool a_to_b = true;
  friend bool operator==(const LinkHop&, const LinkHop&) = default;
};

// The hops a counter's bytes cross: its own topology link for simulated counters (Link::port);
// the direct link between its two ends, else the two links through a switch both ends reach; for
// a GPU↔fabric counter, the GPU's link into its switch of that medium. Empty when unplaceable.
std::vector<LinkHop> place_counter(const TraceMachine& machine, const LinkCounter& counter);

// The capacity of topology link `link` of the machine, per direction, and its source: the preset's
// name and calibration, the trace's own topology, or (an inferred machine) the trace's link records.
LinkCapacity link_capacity(const TraceMachine& machine, size_t link);

// Per counter, the capacity its bytes meet, decided once for the link dock, `links`, the report and
// the topology view: the narrowest topology link it crosses on the machine (place_counter); a
// counter the machine cannot place keeps its own Link::capacity_bytes_per_s ("the trace's link
// record"), else none.
std::vector<LinkCapacity> counter_capacities(const TraceMachine& machine, const std::vector<LinkCounter>& counters);

// Load of one topology link in one direction over a window, from the counters placed on it. When
// several sources reach a link the best one is kept: measured, then simulated, then estimated.
struct LinkDirectionLoad {
  bool has_data = false;
  CounterSource source = CounterSource::kMeasured;
  double mean_bytes_per_s = 0, peak_bytes_per_s = 0;
  std::vector<size_t> counters;  // indexes into the LinkCounter list, of the kept source
};
struct TopoLinkLoad {
  LinkDirectionLoad a_to_b, b_to_a;
  double capacity_bytes_per_s = 0;  // per direction (link_capacity)
  std::string capacity_source;
  double mean_utilization() const;  // the busier direction's mean / capacity; 0 when unknown
  double peak_utilization() const;
};

// One entry per topology link. Counters of one source crossing one link direction add up (two
// estimated GPU→GPU series through one uplink); means and peaks come from counter_stats per counter
// (the peak of a sum is bounded by the sum of peaks, which is what is reported).
std::vector<TopoLinkLoad> topology_link_loads(const TraceMachine& machine, const std::vector<LinkCounter>& counters,
                                              Interval window);

// One row per link direction with data: from, to, medium, capacity, source, mean, peak, utilizations.
DataTable topology_link_table(const TraceMachine& machine, const std::vector<TopoLinkLoad>& loads);

}  // namespace parascope
