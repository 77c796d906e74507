// FlowModel: the flow-level BandwidthModel. Flows on the same path are one class (they get the same
// max-min rate), solved by MaxMinSolver over the connected component of the classes whose flow
// count changed in the timestamp batch, and nothing else. Inside a class, flows progress by
// processor sharing on a per-class "bytes served per flow" clock, so a rate change costs O(1) per
// class, not per flow, and only the class's earliest-finishing flow has a scheduled completion.
// Latency phases wait in FIFO delay lines, one per distinct latency. Deterministic bit for bit.
#pragma once

#include <map>
#include <utility>

#include "sim/bandwidth_model.h"
#include "sim/max_min.h"

namespace parascope::sim {

struct FlowModelStats {
  uint64_t flows_started = 0;
  uint64_t resolves = 0;          // resolve() calls that had work
  uint64_t classes_solved = 0;    // sum of component sizes (classes), over every component solved
  uint64_t solver_rounds = 0;
  uint64_t max_component = 0;
};

class FlowModel final : public BandwidthModel {
 public:
  uint32_t add_resource(double capacity) override;
  size_t resource_count() const override { return res_.size(); }
  double capacity(uint32_t r) const override { return res_[r].capacity; }
  uint32_t intern_path(std::span<const PathUse> uses, double bound) override;
  void start(TimePs now, uint32_t path, double bytes, TimePs latency, uint64_t tag) override;
  TimePs next_time() override;
  void advance(TimePs t, std::vector<uint64_t>& completed) override;
  void resolve(TimePs now) override;
  const ResourceUsage& usage(uint32_t r) const override;
  void record_samples(uint32_t r) override { res_[r].record = true; }
  const std::vector<LoadSample>& samples(uint32_t r) const override { return res_[r].samples; }
  size_t active_flows() const override { return active_flows_; }

  const FlowModelStats& stats() const { return stats_; }
  // Current per-flow rate on a path, bytes/s (0 when it has no active flow).
  double path_rate(uint32_t path) const;

 private:
  struct Flow {
    double key;     // class clock value at which the flow is done
    uint64_t seq;   // start order: ties finish in start order
    uint64_t tag;
  };
  // The flows of a class ordered by (key, seq): a ring buffer kept sorted. Flows of one path mostly
  // start in the order they finish (same size, processor sharing), so push is an append and pop
  // takes the front; an out-of-order key is inserted by shifting the few larger ones.
  class SortedFlows {
   public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    const Flow& front() const { return buf_[head_]; }
    void pop() {
      head_ = (head_ + 1) & mask_;
      --size_;
    }
    void push(const Flow& f);

   private:
    std::vector<Flow> buf_;
    size_t head_ = 0, size_ = 0, mask_ = 0;
  };
  struct Class {
    uint32_t first_use = 0, use_count = 0;
    double bound = kUnbounded;
    uint32_t count = 0;
    double rate_ps = 0;      // bytes per picosecond per flow
    double served = 0;       // bytes served per flow since the class became active
    TimePs t_ref = 0;        // time `served` refers to
    SortedFlows flows;
    double bytes = 0;        // bytes of every flow that started on this path
    uint32_t stamp = 0;
    bool dirty = false;
  };
  static constexpr uint32_t kNotDue = 0xffffffffu;
  struct Res {
    double capacity = 0;
    std::vector<uint32_t> active;  // uses (index into uses_) of classes with flows
    std::vector<uint32_t> all;     // uses of every class (for the byte totals)
    double load = 0;
    mutable ResourceUsage usage;   // bytes filled in by usage()
    bool record = false;
    std::vector<LoadSample> samples;
    uint32_t stamp = 0;
    uint32_t local = 0;
  };
  struct Pending {
    TimePs due;
    uint32_t path;
    double bytes;
    uint64_t tag;
  };
  struct DelayLine {  // FIFO: a fixed latency keeps due times in start order
    TimePs latency = 0;
    std::vector<Pending> ring;  // power-of-two size
    size_t head = 0, size = 0;
  };
  struct Due {
    TimePs time;
    uint32_t cls;
  };
  // due_: an indexed min-heap on (time, class) with one entry per class that has flows in
  // progress; a class's entry moves in place when its completion time changes.
  bool due_before(const Due& a, const Due& b) const { return a.time != b.time ? a.time < b.time : a.cls < b.cls; }
  void due_set(uint32_t c, TimePs t);
  void due_remove(uint32_t c);
  void due_move(size_t i, Due d);
  void sift_up(size_t i);
  void sift_down(size_t i);

  void join(uint32_t c, double bytes, uint64_t tag, TimePs t);
  void complete(uint32_t c, TimePs t, std::vector<uint64_t>& completed);
  void catch_up(Class& c, TimePs t);
  void mark_dirty(uint32_t c);
  void schedule(uint32_t c, TimePs now);
  void solve_component(uint32_t seed, TimePs now);

  void set_load(Res& r, double load, TimePs now);

  std::vector<Res> res_;
  std::vector<Class> classes_;
  std::vector<PathUse> uses_;
  std::vector<uint32_t> owner_;  // per use: its class
  std::vector<uint32_t> pos_;    // per use: index in its resource's active list
  std::map<std::pair<std::vector<std::pair<uint32_t, double>>, double>, uint32_t> path_ids_;
  std::vector<DelayLine> lines_;
  size_t last_line_ = 0;
  std::vector<Due> due_;
  std::vector<uint32_t> heap_pos_;  // per class: place in due_, kNotDue when nothing is scheduled
  std::vector<uint32_t> dirty_;
  uint64_t seq_ = 0;
  uint32_t stamp_ = 0;
  size_t active_flows_ = 0;
  FlowModelStats stats_;
  // scratch for resolve()
  MaxMinProblem problem_;
  MaxMinSolver solver_;
  std::vector<double> rates_;
  std::vector<uint32_t> seeds_, comp_classes_, comp_res_;
  std::vector<double> comp_load_;
};

}  // namespace parascope::sim
