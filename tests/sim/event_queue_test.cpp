#include <catch2/catch.hpp>

#include "sim/event_queue.h"

using namespace parascope;
using namespace parascope::sim;

TEST_CASE("EventQueue pops in (time, scheduling order) and skips cancelled events", "[sim][queue]") {
  EventQueue q;
  const EventId a = q.schedule(18'204, 1, 100);  // 8 KiB at 450 GB/s = 18 204 ps
  const EventId b = q.schedule(5'000, 2, 200);
  const EventId c = q.schedule(18'204, 3, 300);  // same time as a: a was scheduled first
  const EventId d = q.schedule(1'000, 4, 400);
  REQUIRE(q.live() == 4);
  REQUIRE(q.cancel(d));
  REQUIRE_FALSE(q.cancel(d));  // twice
  REQUIRE(q.live() == 3);
  REQUIRE(*q.peek_time() == 5'000);
  auto e1 = q.pop();
  REQUIRE(e1->id == b);
  REQUIRE(q.now() == 5'000);
  auto e2 = q.pop();
  auto e3 = q.pop();
  REQUIRE(e2->id == a);
  REQUIRE(e2->payload == 100);
  REQUIRE(e3->id == c);
  REQUIRE_FALSE(q.pop().has_value());
  REQUIRE_FALSE(q.cancel(a));  // already popped
  REQUIRE(q.popped() == 3);
  REQUIRE_THROWS_AS(q.schedule(1, 0, 0), std::logic_error);  // the past
}

TEST_CASE("EventQueue is deterministic: same schedule, same pop sequence", "[sim][queue]") {
  auto run = [] {
    EventQueue q;
    uint64_t x = 12345;  // seeded LCG, no wall clock
    std::vector<EventId> ids;
    for (int i = 0; i < 10000; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      ids.push_back(q.schedule(static_cast<TimePs>(x >> 50), static_cast<uint32_t>(i), x));
    }
    for (size_t i = 0; i < ids.size(); i += 7) q.cancel(ids[i]);
    std::vector<std::pair<TimePs, uint64_t>> out;
    while (auto e = q.pop()) out.emplace_back(e->time, e->payload);
    return out;
  };
  const auto first = run();
  REQUIRE(first.size() == 10000 - 1429);  // ceil(10000 / 7) cancelled
  REQUIRE(first == run());
  REQUIRE(std::is_sorted(first.begin(), first.end(), [](auto& l, auto& r) { return l.first < r.first; }));
}
