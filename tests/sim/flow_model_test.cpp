// FlowModel on hand-worked timelines: latency then bandwidth, max-min sharing that changes as flows
// join and leave, per-flow bounds, byte totals and load history. 1 GB/s = 0.001 bytes per ps, so
// 1000 bytes alone on a 1 GB/s resource take 1 000 000 ps (1 us).
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "sim/flow_model.h"

using namespace parascope;
using namespace parascope::sim;

namespace {
// Runs the model to the end the way the simulator does; returns (tag, completion time) in order.
std::vector<std::pair<uint64_t, TimePs>> drain(FlowModel& m, TimePs now = 0) {
  std::vector<std::pair<uint64_t, TimePs>> out;
  m.resolve(now);
  std::vector<uint64_t> done;
  for (TimePs t = m.next_time(); t != kNever; t = m.next_time()) {
    done.clear();
    m.advance(t, done);
    for (uint64_t tag : done) out.emplace_back(tag, t);
    m.resolve(t);
  }
  return out;
}
}  // namespace

TEST_CASE("Flow model: one flow waits its latency then moves at the link rate", "[sim][flow]") {
  FlowModel m;
  const uint32_t link = m.add_resource(1e9);
  const PathUse path[] = {{link, 1.0}};
  const uint32_t p = m.intern_path(path, kUnbounded);
  m.start(0, p, 1000, 500, 7);
  const auto done = drain(m);
  // 500 ps of latency + 1000 bytes / 0.001 bytes/ps = 1 000 500 ps
  REQUIRE(done == std::vector<std::pair<uint64_t, TimePs>>{{7, 1'000'500}});
  REQUIRE(m.usage(link).bytes == 1000);
  REQUIRE(m.usage(link).peak == 1e9);
}

TEST_CASE("Flow model: two flows share, the short one leaves and the long one speeds up", "[sim][flow]") {
  FlowModel m;
  const uint32_t link = m.add_resource(1e9);
  const PathUse path[] = {{link, 1.0}};
  const uint32_t p = m.intern_path(path, kUnbounded);
  m.start(0, p, 1000, 0, 1);
  m.start(0, p, 500, 0, 2);
  const auto done = drain(m);
  // 0.5 GB/s each: flow 2 (500 B) done at 1 000 000 ps; flow 1 has 500 B left, alone at 1 GB/s:
  // 500 000 ps more, done at 1 500 000 ps.
  REQUIRE(done == std::vector<std::pair<uint64_t, TimePs>>{{2, 1'000'000}, {1, 1'500'000}});
}

TEST_CASE("Flow model: a flow joining later slows the first one down", "[sim][flow]") {
  FlowModel m;
  const uint32_t link = m.add_resource(1e9);
  const PathUse path[] = {{link, 1.0}};
  const uint32_t p = m.intern_path(path, kUnbounded);
  m.start(0, p, 1000, 0, 1);
  m.start(0, p, 1000, 500'000, 2);  // its latency ends at 500 000 ps
  m.record_samples(link);
  const auto done = drain(m);
  // flow 1 alone moves 500 B by 500 000 ps; then 0.5 GB/s each: flow 1's last 500 B take
  // 1 000 000 ps (done at 1 500 000); flow 2 has moved 500 B by then and finishes its last 500 B
  // alone in 500 000 ps (done at 2 000 000).
  REQUIRE(done == std::vector<std::pair<uint64_t, TimePs>>{{1, 1'500'000}, {2, 2'000'000}});
  // the load stays 1 GB/s while anything flows and drops to 0 at the end
  const auto& s = m.samples(link);
  REQUIRE(s.size() == 2);
  REQUIRE(s[0].time == 0);
  REQUIRE(s[0].load == 1e9);
  REQUIRE(s[1].time == 2'000'000);
  REQUIRE(s[1].load == 0);
}

TEST_CASE("Flow model: a per-flow bound caps a flow below its fair share", "[sim][flow]") {
  FlowModel m;
  const uint32_t link = m.add_resource(1e9);
  const PathUse path[] = {{link, 1.0}};
  const uint32_t capped = m.intern_path(path, 0.25e9);
  const uint32_t free = m.intern_path(path, kUnbounded);
  REQUIRE(capped != free);
  REQUIRE(m.intern_path(path, 0.25e9) == capped);  // interned
  m.start(0, capped, 1000, 0, 1);
  m.start(0, free, 1500, 0, 2);
  const auto done = drain(m);
  // flow 1 at its 0.25 GB/s bound, flow 2 takes the other 0.75 GB/s: 1500 B done at 2 000 000 ps.
  // Flow 1 has moved 500 B by then and stays at its bound: 500 B more take 2 000 000 ps.
  REQUIRE(done.size() == 2);
  REQUIRE(done[0].second == 2'000'000);
  REQUIRE(done[1].second == 4'000'000);
  REQUIRE(done[0].first == 2);
  REQUIRE(done[1].first == 1);
}

TEST_CASE("Flow model: weights make a flow use more of a resource", "[sim][flow]") {
  FlowModel m;
  const uint32_t sm = m.add_resource(3e9);
  const PathUse heavy[] = {{sm, 2.0}};
  const PathUse light[] = {{sm, 1.0}};
  m.start(0, m.intern_path(heavy, kUnbounded), 1000, 0, 1);
  m.start(0, m.intern_path(light, kUnbounded), 1000, 0, 2);
  const auto done = drain(m);
  // same rate x: 2x + x = 3 GB/s, x = 1 GB/s: both done at 1 000 000 ps
  REQUIRE(done.size() == 2);
  REQUIRE(done[0].second == 1'000'000);
  REQUIRE(done[1].second == 1'000'000);
  REQUIRE(m.usage(sm).bytes == 3000);  // 2 x 1000 + 1000
}

TEST_CASE("Flow model: only the component of changed flows is re-solved", "[sim][flow]") {
  FlowModel m;
  const uint32_t a = m.add_resource(1e9), b = m.add_resource(1e9);
  const PathUse pa[] = {{a, 1.0}}, pb[] = {{b, 1.0}};
  const uint32_t on_a = m.intern_path(pa, kUnbounded), on_b = m.intern_path(pb, kUnbounded);
  m.start(0, on_a, 1000, 0, 1);
  m.start(0, on_b, 4000, 0, 2);
  const auto done = drain(m);
  // independent resources: 1 us and 4 us
  REQUIRE(done == std::vector<std::pair<uint64_t, TimePs>>{{1, 1'000'000}, {2, 4'000'000}});
  // resolves at 0 (two single-class components) and at 1 us (only a's class, now empty: nothing to solve)
  REQUIRE(m.stats().max_component == 1);
  REQUIRE(m.stats().classes_solved == 2);
}

TEST_CASE("Flow model: bad paths are refused", "[sim][flow]") {
  FlowModel m;
  REQUIRE_THROWS(m.add_resource(0));
  const uint32_t r = m.add_resource(1);
  REQUIRE_THROWS(m.intern_path({}, kUnbounded));  // nothing limits it
  const PathUse bad[] = {{r + 1, 1.0}};
  REQUIRE_THROWS(m.intern_path(bad, kUnbounded));
}
