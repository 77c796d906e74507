#include <catch2/catch.hpp>

#include <algorithm>

#include "host/partition.h"

using namespace parascope::bench;

TEST_CASE("rank chunks are aligned and cover the buffer once", "[bench][partition]") {
  // 1000 elements, 2 ranks, align 8: ceil(500 / 8) · 8 = 504 per rank
  REQUIRE(rank_chunk(1000, 2, 0, 8) == Range{0, 504});
  REQUIRE(rank_chunk(1000, 2, 1, 8) == Range{504, 1000});
  REQUIRE(rank_chunk(1024, 2, 1, 8) == Range{512, 1024});
  // 3 ranks over 16 elements, align 8: chunks of 8 → the third rank gets nothing
  REQUIRE(rank_chunk(16, 3, 1, 8) == Range{8, 16});
  REQUIRE(rank_chunk(16, 3, 2, 8).size() == 0);
  for (int n : {1, 2, 3, 4, 8}) {
    uint64_t covered = 0;
    for (int r = 0; r < n; ++r) {
      const Range c = rank_chunk(123456, n, r, 16);
      REQUIRE(c.begin == covered);
      covered = c.end;
    }
    REQUIRE(covered == 123456);
  }
}

TEST_CASE("pipeline pieces are aligned, non-empty and cover the range", "[bench][partition]") {
  // 100 elements in 3 pieces, align 8: ceil(100/3) = 34 → 40 per piece: 40, 40, 20
  const auto p = split_pieces({0, 100}, 3, 8);
  REQUIRE(p.size() == 3);
  REQUIRE(p[0] == Range{0, 40});
  REQUIRE(p[1] == Range{40, 80});
  REQUIRE(p[2] == Range{80, 100});
  // more pieces than aligned units: 16 elements, align 8, 4 pieces → 2 pieces of 8
  REQUIRE(split_pieces({32, 48}, 4, 8).size() == 2);
  REQUIRE(split_pieces({5, 5}, 4, 8).size() == 1);
  // 1 GiB in 16 MiB pieces, at most 16 → 16; 4 MiB → 1
  REQUIRE(pipeline_pieces(1ull << 30, 16ull << 20, 16) == 16);
  REQUIRE(pipeline_pieces(4ull << 20, 16ull << 20, 16) == 1);
  REQUIRE(pipeline_pieces(64ull << 20, 16ull << 20, 16) == 4);
}

TEST_CASE("peer order starts after the rank and skips it", "[bench][partition]") {
  REQUIRE(peer_order(1, 4) == std::vector<int>{2, 3, 0});
  REQUIRE(peer_order(0, 2) == std::vector<int>{1});
  REQUIRE(peer_order(0, 1).empty());
}

TEST_CASE("collective sizes must split into whole 16-byte vectors per rank", "[bench][partition]") {
  REQUIRE_FALSE(collective_size_problem(4096, 2, 2));
  REQUIRE_FALSE(collective_size_problem(1ull << 30, 4, 8));
  REQUIRE(collective_size_problem(4008, 2, 2));  // 4008 % 32 = 8
  REQUIRE(collective_size_problem(3, 2, 2));     // not whole bf16 elements
  REQUIRE(collective_size_problem(0, 4, 2));
}

TEST_CASE("vector and tile ownership does not depend on the size", "[bench][partition]") {
  // vector 5000 with 1024-thread blocks: thread-row 4, 4 blocks → block 0
  REQUIRE(owner_block(5000, 1024, 4) == 0);
  REQUIRE(owner_block(1023, 1024, 4) == 0);
  REQUIRE(owner_block(1024, 1024, 4) == 1);
  REQUIRE(owner_tile_block(10, 4) == 2);
  REQUIRE(tile_count(100, 32) == 4);
  REQUIRE(tile_count(96, 32) == 3);
}

namespace {
// Every row of [0, m) appears in exactly one step.
bool covers_once(const std::vector<GemmStep>& steps, uint64_t m) {
  std::vector<int> hits(m, 0);
  for (const auto& s : steps)
    for (uint64_t r = s.rows.begin; r < s.rows.end; ++r) hits[r]++;
  return std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
}
}  // namespace

TEST_CASE("all-gather + GEMM visits local rows first, then peer chunks in arrival order", "[bench][partition]") {
  // M = 8192 on 2 ranks, 4 chunks: rank 0 owns rows 0..4095, rank 1's rows arrive in 1024-row chunks
  const auto s = ag_gemm_schedule(8192, 2, 0, 4, 128);
  REQUIRE(s.size() == 5);
  REQUIRE(s[0] == GemmStep{0, 0, {0, 4096}});
  REQUIRE(s[1] == GemmStep{1, 0, {4096, 5120}});
  REQUIRE(s[4] == GemmStep{1, 3, {7168, 8192}});
  REQUIRE(covers_once(s, 8192));
  // 4 ranks, rank 2, 2 chunks: own {4096, 6144}; then chunk 0 of ranks 3, 0, 1; then chunk 1
  const auto q = ag_gemm_schedule(8192, 4, 2, 2, 128);
  REQUIRE(q.size() == 7);
  REQUIRE(q[0] == GemmStep{2, 0, {4096, 6144}});
  REQUIRE(q[1] == GemmStep{3, 0, {6144, 7168}});
  REQUIRE(q[2] == GemmStep{0, 0, {0, 1024}});
  REQUIRE(q[3] == GemmStep{1, 0, {2048, 3072}});
  REQUIRE(q[4] == GemmStep{3, 1, {7168, 8192}});
  REQUIRE(covers_once(q, 8192));
}

TEST_CASE("GEMM + reduce-scatter computes peers' rows first and its own rows last", "[bench][partition]") {
  const auto s = gemm_rs_schedule(8192, 2, 0, 2, 128);
  REQUIRE(s.size() == 4);
  REQUIRE(s[0] == GemmStep{1, 0, {4096, 6144}});
  REQUIRE(s[1] == GemmStep{1, 1, {6144, 8192}});
  REQUIRE(s[2] == GemmStep{0, 0, {0, 2048}});
  REQUIRE(s[3] == GemmStep{0, 1, {2048, 4096}});
  REQUIRE(covers_once(s, 8192));
  REQUIRE(covers_once(gemm_rs_schedule(8192, 8, 5, 3, 128), 8192));
}
