#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "host/ll_protocol.h"

using namespace parascope::bench;

TEST_CASE("LL words carry data and flag and match only their own epoch", "[bench][ll]") {
  const uint64_t w = ll_pack(0xdeadbeefu, 7);
  REQUIRE(w == 0x00000007deadbeefull);
  REQUIRE(ll_data(w) == 0xdeadbeefu);
  REQUIRE(ll_flag(w) == 7u);
  REQUIRE(ll_ready(w, 7));
  REQUIRE_FALSE(ll_ready(w, 9));  // the same half two launches later
  REQUIRE_FALSE(ll_ready(w, 8));
  // data that looks like a flag does not make a word ready: the flag is the high half only
  REQUIRE_FALSE(ll_ready(ll_pack(9u, 7), 9));
  REQUIRE_FALSE(ll_ready(0, 1));  // cleared scratch is never ready (epochs start at 1)
  REQUIRE(ll_half(1) == 1u);
  REQUIRE(ll_half(2) == 0u);
}

TEST_CASE("LL scratch layout: halves and sources never overlap, grids follow the size", "[bench][ll]") {
  // 256 KiB per rank = 32768 lines of 16 bytes (8 data bytes each) per (half, source)
  REQUIRE(kLlMaxLines == 32768u);
  REQUIRE(ll_scratch_bytes(2) == 2u * 2u * 32768u * 16u);  // 2 MiB
  REQUIRE(ll_line_offset(0, 0, 2, 0) == 0u);
  REQUIRE(ll_line_offset(0, 1, 2, 0) == 32768u * 16u);
  REQUIRE(ll_line_offset(1, 0, 2, 0) == 2u * 32768u * 16u);
  REQUIRE(ll_line_offset(1, 1, 2, kLlMaxLines - 1) + kLlLineBytes == ll_scratch_bytes(2));
  // one 16-byte vector per thread, 256 threads per block: 4 KiB → 1 block, 64 KiB → 16, 256 KiB → 64
  REQUIRE(ll_blocks(16) == 1);
  REQUIRE(ll_blocks(4096) == 1);
  REQUIRE(ll_blocks(4096 + 16) == 2);
  REQUIRE(ll_blocks(64 << 10) == 16);
  REQUIRE(ll_blocks(kLlMaxBytes) == 64);
}

// A model of the protocol over a sequence of launches of different sizes on 2 ranks: every block
// counts its own epoch; the writer stores its lines into the peer's scratch; a reader must find
// every line of the current launch ready only after the peer's write, and never before it (a
// stale line from any earlier launch, of any size, must not match).
TEST_CASE("LL epochs and double buffering never let a stale line match", "[bench][ll]") {
  const int n = 2;
  std::vector<std::map<uint64_t, uint64_t>> scratch(n);  // byte offset → word (first word of a line)
  std::vector<std::vector<uint32_t>> epoch(n, std::vector<uint32_t>(64, 0));
  const std::vector<uint64_t> sizes = {4096, 65536, 16, 262144, 4096, 4096, 98304, 65536, 262144, 16};
  uint32_t stamp = 0;
  for (size_t launch = 0; launch < sizes.size(); ++launch) {
    const uint64_t vecs = sizes[launch] / 16;
    const int blocks = ll_blocks(sizes[launch]);
    for (int me = 0; me < n; ++me) {
      const int peer = 1 - me;
      for (uint64_t v = 0; v < vecs; ++v) {
        const int b = static_cast<int>(v / kLlThreads);
        REQUIRE(b < blocks);
        const uint32_t e = epoch[static_cast<size_t>(peer)][static_cast<size_t>(b)] + 1;
        const uint64_t off = ll_line_offset(ll_half(e), peer, n, kLlLinesPerVec * v);
        const auto it = scratch[static_cast<size_t>(me)].find(off);
        // before the peer's write of this launch: not ready
        REQUIRE_FALSE((it != scratch[static_cast<size_t>(me)].end() && ll_ready(it->second, e)));
      }
    }
    // every rank writes (data = a running stamp), then every reader sees exactly that data
    std::vector<std::vector<uint32_t>> sent(n);
    for (int me = 0; me < n; ++me) {
      const int peer = 1 - me;
      for (uint64_t v = 0; v < vecs; ++v) {
        const int b = static_cast<int>(v / kLlThreads);
        const uint32_t e = epoch[static_cast<size_t>(me)][static_cast<size_t>(b)] + 1;
        scratch[static_cast<size_t>(peer)][ll_line_offset(ll_half(e), me, n, kLlLinesPerVec * v)] = ll_pack(++stamp, e);
        sent[static_cast<size_t>(me)].push_back(stamp);
      }
    }
    for (int me = 0; me < n; ++me) {
      const int peer = 1 - me;
      for (uint64_t v = 0; v < vecs; ++v) {
        const int b = static_cast<int>(v / kLlThreads);
        const uint32_t e = epoch[static_cast<size_t>(me)][static_cast<size_t>(b)] + 1;
        REQUIRE(epoch[static_cast<size_t>(peer)][static_cast<size_t>(b)] + 1 == e);  // ranks agree
        const uint64_t w = scratch[static_cast<size_t>(me)].at(ll_line_offset(ll_half(e), peer, n, kLlLinesPerVec * v));
        REQUIRE(ll_ready(w, e));
        REQUIRE(ll_data(w) == sent[static_cast<size_t>(peer)][v]);
      }
    }
    for (int me = 0; me < n; ++me)
      for (int b = 0; b < blocks; ++b) ++epoch[static_cast<size_t>(me)][static_cast<size_t>(b)];
  }
}
