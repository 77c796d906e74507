// The max-min solver alone, SimGrid maxmin_test style: each expected rate is worked out by hand in
// the comment above its REQUIRE.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/max_min.h"

using namespace parascope::sim;

namespace {
std::vector<double> solve(const MaxMinProblem& p) {
  MaxMinSolver s;
  std::vector<double> rates;
  s.solve(p, rates);
  return rates;
}
}  // namespace

TEST_CASE("Max-min: flows on one link share it equally", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t link = p.add_resource(100);
  const uint32_t r[] = {link};
  p.add_class(1, kUnbounded, r);
  p.add_class(1, kUnbounded, r);
  p.add_class(1, kUnbounded, r);
  const auto rates = solve(p);
  // 100 / 3 flows
  REQUIRE(rates[0] == Approx(100.0 / 3));
  REQUIRE(rates[1] == Approx(100.0 / 3));
  REQUIRE(rates[2] == Approx(100.0 / 3));
}

TEST_CASE("Max-min: a bottleneck downstream frees capacity upstream", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t a = p.add_resource(10), b = p.add_resource(4);
  const uint32_t f1[] = {a, b}, f2[] = {a}, f3[] = {b};
  p.add_class(1, kUnbounded, f1);
  p.add_class(1, kUnbounded, f2);
  p.add_class(1, kUnbounded, f3);
  const auto rates = solve(p);
  // B's fair share 4/2 = 2 < A's 10/2 = 5: B saturates first, f1 = f3 = 2.
  REQUIRE(rates[0] == Approx(2));
  REQUIRE(rates[2] == Approx(2));
  // A keeps 10 - 2 = 8 for f2 alone.
  REQUIRE(rates[1] == Approx(8));
}

TEST_CASE("Max-min: parking lot", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t l1 = p.add_resource(1), l2 = p.add_resource(1), l3 = p.add_resource(1);
  const uint32_t longf[] = {l1, l2, l3}, s1[] = {l1}, s2[] = {l2}, s3[] = {l3};
  p.add_class(1, kUnbounded, longf);
  p.add_class(1, kUnbounded, s1);
  p.add_class(1, kUnbounded, s2);
  p.add_class(1, kUnbounded, s3);
  const auto rates = solve(p);
  // every link has 2 flows and the same capacity: all saturate at 1/2 in one round.
  for (double r : rates) REQUIRE(r == Approx(0.5));
  MaxMinSolver s;
  std::vector<double> again;
  s.solve(p, again);
  REQUIRE(s.last_rounds() == 1);
}

TEST_CASE("Max-min: a per-flow bound caps a flow and the others take the rest", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t link = p.add_resource(100);
  const uint32_t r[] = {link};
  p.add_class(1, 10, r);
  p.add_class(1, kUnbounded, r);
  p.add_class(1, kUnbounded, r);
  const auto rates = solve(p);
  // level rises to 10 where flow 0's bound binds (100/3 = 33.3 > 10); then (100 - 10) / 2 = 45.
  REQUIRE(rates[0] == Approx(10));
  REQUIRE(rates[1] == Approx(45));
  REQUIRE(rates[2] == Approx(45));
}

TEST_CASE("Max-min: a class of n identical flows counts n times", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t link = p.add_resource(90);
  const uint32_t r[] = {link};
  p.add_class(3, kUnbounded, r);
  p.add_class(1, kUnbounded, r);
  const auto rates = solve(p);
  // 4 flows on 90: 22.5 each, whichever class they are in.
  REQUIRE(rates[0] == Approx(22.5));
  REQUIRE(rates[1] == Approx(22.5));
}

TEST_CASE("Max-min: weights charge a flow more of a resource", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t sm = p.add_resource(12);
  const uint32_t r[] = {sm};
  const double w2[] = {2.0}, w1[] = {1.0};
  p.add_class(1, kUnbounded, r, w2);
  p.add_class(1, kUnbounded, r, w1);
  const auto rates = solve(p);
  // same rate x for both: 2x + x = 12, x = 4 (flow 0 uses 8 of the 12).
  REQUIRE(rates[0] == Approx(4));
  REQUIRE(rates[1] == Approx(4));
}

TEST_CASE("Max-min: split-duplex ring neighbours are independent", "[sim][maxmin]") {
  // 3 GPUs behind a switch, each with an up and a down link of 450; ring i -> i+1 with 2 flows per
  // pair plus one extra flow 0 -> 2. up0 carries 3 flows: 450/3 = 150; down2 carries 2 (from 1) + 1 (from 0).
  MaxMinProblem p;
  uint32_t up[3], down[3];
  for (int i = 0; i < 3; ++i) {
    up[i] = p.add_resource(450);
    down[i] = p.add_resource(450);
  }
  for (int i = 0; i < 3; ++i) {
    const uint32_t r[] = {up[i], down[(i + 1) % 3]};
    p.add_class(2, kUnbounded, r);
  }
  const uint32_t extra[] = {up[0], down[2]};
  p.add_class(1, kUnbounded, extra);
  const auto rates = solve(p);
  // up0: 2 (0->1) + 1 (0->2) = 3 flows, 150 each. down2: 2 (1->2) + 1 (0->2) = 3 flows, 150 each.
  REQUIRE(rates[0] == Approx(150));  // 0 -> 1
  REQUIRE(rates[1] == Approx(150));  // 1 -> 2
  REQUIRE(rates[3] == Approx(150));  // 0 -> 2
  // 2 -> 0 uses up2 (2 flows) and down0 (2 flows): 225 each.
  REQUIRE(rates[2] == Approx(225));
}

TEST_CASE("Max-min: empty classes and classes without resources", "[sim][maxmin]") {
  MaxMinProblem p;
  const uint32_t link = p.add_resource(10);
  const uint32_t r[] = {link};
  p.add_class(0, kUnbounded, r);  // no flows: takes nothing
  p.add_class(1, kUnbounded, r);
  p.add_class(1, 7, {});          // only its own cap
  p.add_class(1, kUnbounded, {});
  const auto rates = solve(p);
  REQUIRE(rates[0] == 0);
  REQUIRE(rates[1] == Approx(10));
  REQUIRE(rates[2] == 7);
  REQUIRE(rates[3] == kUnbounded);
}
