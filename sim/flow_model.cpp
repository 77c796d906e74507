#include "sim/flow_model.h"

#include "sim/sim_clock.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace parascope::sim {

namespace {
constexpr double kPsPerS = 1e12;


// A flow whose remaining bytes are below this is done: the class clock is a double that has been
// advanced by rate x dt many times, so it can sit a rounding error short of the key.
double done_slack(double key) { return 1e-9 * std::fabs(key) + 1e-6; }
}  // namespace

uint32_t FlowModel::add_resource(double capacity) {
  if (!(capacity > 0) || !std::isfinite(capacity))
    throw std::invalid_argument("resource capacity must be positive and finite");
  ResHot r;
  r.capacity = capacity;
  res_.push_back(r);
  cold_.emplace_back();
  return static_cast<uint32_t>(res_.size() - 1);
}

void FlowModel::SortedFlows::push_slow(const Flow& f) {
  if (size_ == buf_.size()) {  // grow, unrolled to start at 0
    std::vector<Flow> bigger(std::max<size_t>(8, buf_.size() * 2));
    for (size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & mask_];
    buf_.swap(bigger);
    head_ = 0;
    mask_ = buf_.size() - 1;
  }
  size_t pos = size_++;
  // shift larger ones up one place; usually none
  while (pos > 0 && before(f, buf_[(head_ + pos - 1) & mask_])) {
    buf_[(head_ + pos) & mask_] = buf_[(head_ + pos - 1) & mask_];
    --pos;
  }
  buf_[(head_ + pos) & mask_] = f;
}

const ResourceUsage& FlowModel::usage(uint32_t r) const {
  usage_scratch_.bytes = 0;
  for (uint32_t u : cold_[r].all) usage_scratch_.bytes += classes_[owner_[u]].bytes * uses_[u].weight;
  usage_scratch_.peak = res_[r].peak;
  return usage_scratch_;
}

uint32_t FlowModel::intern_path(std::span<const PathUse> uses, double bound) {
  if (uses.empty() && !std::isfinite(bound)) throw std::logic_error("a path needs a resource or a finite bound");
  if (!(bound > 0)) throw std::logic_error("a path's bound must be > 0");
  std::vector<std::pair<uint32_t, double>> key;
  key.reserve(uses.size());
  for (const PathUse& u : uses) {
    if (u.resource >= res_.size()) throw std::logic_error("path uses an unknown resource");
    if (!(u.weight > 0)) throw std::logic_error("path weights must be > 0");
    // a resource listed twice (a multicast crossing one link twice) counts its weights together
    auto it = std::find_if(key.begin(), key.end(), [&](const auto& k) { return k.first == u.resource; });
    if (it != key.end()) it->second += u.weight;
    else key.emplace_back(u.resource, u.weight);
  }
  auto [it, inserted] = path_ids_.try_emplace({key, bound}, static_cast<uint32_t>(classes_.size()));
  if (!inserted) return it->second;
  Class c;
  c.first_use = static_cast<uint32_t>(uses_.size());
  c.use_count = static_cast<uint32_t>(key.size());
  c.bound = bound;
  for (const auto& [r, w] : key) {
    cold_[r].all.push_back(static_cast<uint32_t>(uses_.size()));
    uses_.push_back({r, w});
    owner_.push_back(static_cast<uint32_t>(classes_.size()));
    pos_.push_back(0);
  }
  classes_.push_back(std::move(c));
  versions_.push_back(0);
  return it->second;
}

void FlowModel::start_slow(TimePs now, uint32_t path, double bytes, TimePs latency, uint64_t tag) {
  if (latency <= 0) {
    join(path, bytes, tag, now);
    return;
  }
  if (last_line_ >= lines_.size() || lines_[last_line_].latency != latency) {
    last_line_ = lines_.size();
    for (size_t i = 0; i < lines_.size(); ++i)
      if (lines_[i].latency == latency) last_line_ = i;
    if (last_line_ == lines_.size()) lines_.push_back(DelayLine{latency, std::vector<Pending>(16), 0, 0});
  }
  DelayLine& line = lines_[last_line_];
  if (line.size == line.ring.size()) {  // grow, unrolled to start at 0
    std::vector<Pending> bigger(line.ring.size() * 2);
    for (size_t i = 0; i < line.size; ++i) bigger[i] = line.ring[(line.head + i) & (line.ring.size() - 1)];
    line.ring.swap(bigger);
    line.head = 0;
  }
  line.ring[(line.head + line.size) & (line.ring.size() - 1)] = Pending{now + latency, path, bytes, tag};
  ++line.size;
}

TimePs FlowModel::next_time() {
  TimePs t = kNever;
  for (const DelayLine& l : lines_)
    if (l.size) t = std::min(t, l.ring[l.head].due);
  t = std::min(t, due_.next([this](uint32_t c, uint32_t v) { return live(c, v); }));
  return t;
}

void FlowModel::catch_up(Class& c, TimePs t) {
  if (c.count) c.served += c.rate_ps * static_cast<double>(t - c.t_ref);
  c.t_ref = t;
}

void FlowModel::mark_dirty(uint32_t c) {
  if (!classes_[c].dirty) {
    classes_[c].dirty = true;
    dirty_.push_back(c);
  }
}

void FlowModel::activate(uint32_t ci, TimePs t) {
  Class& c = classes_[ci];
  catch_up(c, t);
  mark_dirty(ci);
  if (c.count) return;
  c.served = 0;  // a fresh clock keeps the doubles small
  for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u) {
    auto& active = cold_[uses_[u].resource].active;
    pos_[u] = static_cast<uint32_t>(active.size());
    active.push_back(u);
    ++res_[uses_[u].resource].active_n;
  }
}

void FlowModel::join(uint32_t ci, double bytes, uint64_t tag, TimePs t) {
  activate(ci, t);
  add_flow(classes_[ci], bytes, tag);
}

void FlowModel::complete(uint32_t ci, TimePs t, std::vector<uint64_t>& completed) {
  Class& c = classes_[ci];
  catch_up(c, t);
  while (!c.flows.empty() && c.flows.front().key <= c.served + done_slack(c.flows.front().key)) {
    completed.push_back(c.flows.front().tag);
    c.flows.pop();
    --c.count;
    --active_flows_;
  }
  if (c.count == 0) {
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u) {
      auto& active = cold_[uses_[u].resource].active;
      const uint32_t last = active.back();
      active[pos_[u]] = last;
      pos_[last] = pos_[u];
      active.pop_back();
      --res_[uses_[u].resource].active_n;
    }
  }
  ++versions_[ci];  // its scheduled completion is used up; resolve() schedules the next one
  mark_dirty(ci);
}

void FlowModel::advance(TimePs t, std::vector<uint64_t>& completed) {
  for (DelayLine& l : lines_) {
    // Flows ending their latency together often share a path: a run of them joins at once.
    uint32_t run_path = UINT32_MAX;
    Class* c = nullptr;
    while (l.size && l.ring[l.head].due == t) {
      const Pending& p = l.ring[l.head];
      if (p.path != run_path) {
        activate(p.path, t);
        run_path = p.path;
        c = &classes_[p.path];
      }
      add_flow(*c, p.bytes, p.tag);
      l.head = (l.head + 1) & (l.ring.size() - 1);
      --l.size;
    }
  }
  const auto is_live = [this](uint32_t c, uint32_t v) { return live(c, v); };
  if (due_.next(is_live) != t) return;
  due_now_.clear();
  due_.pop(t, is_live, due_now_);
  for (uint32_t c : due_now_) complete(c, t, completed);
}

void FlowModel::schedule(uint32_t ci, TimePs now) {
  Class& c = classes_[ci];
  const uint32_t version = ++versions_[ci];
  if (c.count == 0 || !(c.rate_ps > 0)) return;
  const double left = c.flows.front().key - c.served;
  const TimePs due = left > done_slack(c.flows.front().key) ? deadline_after(now, left / c.rate_ps, "a transfer") : now;
  due_.push(due, ci, version);
}

void FlowModel::resolve(TimePs now) {
  if (dirty_.empty()) return;
  ++stats_.resolves;
  ++stamp_;
  // Seeds: the dirty classes that still have flows, and the active classes sharing a resource with a
  // dirty class that emptied (they get its share back). Each seed not yet reached starts a connected
  // component through shared resources; components are solved one by one.
  seeds_.clear();
  for (uint32_t ci : dirty_) {
    Class& c = classes_[ci];
    c.dirty = false;
    if (c.count) {
      seeds_.push_back(ci);
      continue;
    }
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u) {
      const uint32_t r = uses_[u].resource;
      if (res_[r].active_n == 0) set_load(r, 0.0, now);
      for (uint32_t other : cold_[r].active) seeds_.push_back(owner_[other]);
    }
  }
  dirty_.clear();
  for (uint32_t seed : seeds_)
    if (classes_[seed].stamp != stamp_) solve_component(seed, now);
}

bool FlowModel::alone(const Class& c) const {
  for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u)
    if (res_[uses_[u].resource].active_n != 1) return false;
  return true;
}

void FlowModel::set_load(uint32_t ri, double load, TimePs now) {
  ResHot& r = res_[ri];
  if (load == r.load) return;
  r.load = load;
  r.peak = std::max(r.peak, load);
  if (r.record) {
    auto& samples = cold_[ri].samples;
    if (!samples.empty() && samples.back().time == now) samples.back().load = load;
    else samples.push_back({now, load});
  }
}

void FlowModel::gather_component() {
  for (size_t i = 0; i < comp_classes_.size(); ++i) {
    const Class& c = classes_[comp_classes_[i]];
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u) {
      ResHot& r = res_[uses_[u].resource];
      if (r.stamp == stamp_) continue;
      r.stamp = stamp_;
      r.local = static_cast<uint32_t>(comp_res_.size());
      comp_res_.push_back(uses_[u].resource);
      for (uint32_t other : cold_[uses_[u].resource].active) {
        Class& oc = classes_[owner_[other]];
        if (oc.stamp == stamp_) continue;
        oc.stamp = stamp_;
        comp_classes_.push_back(owner_[other]);
      }
    }
  }
}

void FlowModel::solve_component(uint32_t seed, TimePs now) {
  comp_classes_.clear();
  comp_res_.clear();
  classes_[seed].stamp = stamp_;
  comp_classes_.push_back(seed);
  if (!alone(classes_[seed])) gather_component();
  stats_.classes_solved += comp_classes_.size();
  stats_.max_component = std::max<uint64_t>(stats_.max_component, comp_classes_.size());

  if (comp_classes_.size() == 1) {
    // Alone on its resources: every flow gets the tightest of its bound and cap / (count x weight).
    Class& c = classes_[seed];
    double rate = c.bound;
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u)
      rate = std::min(rate, res_[uses_[u].resource].capacity / (c.count * uses_[u].weight));
    catch_up(c, now);
    c.rate_ps = rate / kPsPerS;
    schedule(seed, now);
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u)
      set_load(uses_[u].resource, c.count * uses_[u].weight * rate, now);
    ++stats_.solver_rounds;
    return;
  }

  problem_.clear();
  for (uint32_t r : comp_res_) problem_.capacity.push_back(res_[r].capacity);
  for (uint32_t ci : comp_classes_) {
    const Class& c = classes_[ci];
    MaxMinClass mc;
    mc.count = c.count;
    mc.bound = c.bound;
    mc.first_use = static_cast<uint32_t>(problem_.uses.size());
    mc.use_count = c.use_count;
    for (uint32_t u = c.first_use; u < c.first_use + c.use_count; ++u)
      problem_.uses.push_back({res_[uses_[u].resource].local, uses_[u].weight});
    problem_.classes.push_back(mc);
  }
  solver_.solve(problem_, rates_);
  stats_.solver_rounds += solver_.last_rounds();

  comp_load_.assign(comp_res_.size(), 0.0);
  for (size_t i = 0; i < comp_classes_.size(); ++i) {
    const uint32_t ci = comp_classes_[i];
    Class& c = classes_[ci];
    catch_up(c, now);
    c.rate_ps = rates_[i] / kPsPerS;
    schedule(ci, now);
    const MaxMinClass& mc = problem_.classes[i];
    for (uint32_t u = mc.first_use; u < mc.first_use + mc.use_count; ++u)
      comp_load_[problem_.uses[u].resource] += c.count * problem_.uses[u].weight * rates_[i];
  }
  for (size_t i = 0; i < comp_res_.size(); ++i) set_load(comp_res_[i], comp_load_[i], now);
}

double FlowModel::path_rate(uint32_t path) const {
  const Class& c = classes_.at(path);
  return c.count ? c.rate_ps * kPsPerS : 0.0;
}

}  // namespace parascope::sim
