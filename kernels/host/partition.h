// How work is cut: a buffer into per-rank chunks, a chunk into pipeline pieces, a grid's blocks
// onto 16-byte vectors and TMA tiles, and the order in which fused GEMM kernels visit row blocks.
// Everything here is plain arithmetic shared by the kernels' host code and the tests; ranges are
// half-open, in elements unless the name says bytes, and always cover their input exactly once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parascope::bench {

struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
  bool operator==(const Range&) const = default;
};

// Rank `rank`'s share of [0, count): equal chunks of a multiple of `align`, the last one short
// (or empty) when count is not a multiple of nranks·align.
Range rank_chunk(uint64_t count, int nranks, int rank, uint64_t align);

// `r` cut into at most `pieces` consecutive pieces of a multiple of `align` (the last may be
// shorter); never returns an empty piece unless `r` is empty (then one empty piece).
std::vector<Range> split_pieces(Range r, int pieces, uint64_t align);

// Pipeline depth for copy-engine pipelines over `bytes`: pieces of at least `min_piece` bytes,
// at most `max_pieces`, at least 1.
int pipeline_pieces(uint64_t bytes, uint64_t min_piece, int max_pieces);

// Peers in the order a rank visits them: rank+1, rank+2, ... (mod nranks), self excluded.
std::vector<int> peer_order(int rank, int nranks);

// A collective over `bytes` of elements of `elem_size` on `nranks` must split into per-rank
// chunks of whole 16-byte vectors. Returns the problem, or nullopt when the size is usable.
std::optional<std::string> collective_size_problem(uint64_t bytes, int elem_size, int nranks);

// Grid-stride ownership that does not depend on the size: vector v belongs to block
// (v / threads) mod blocks. The collectives rely on this so that a per-block barrier orders
// exactly the data that block's partners exchanged.
inline int owner_block(uint64_t v, int threads, int blocks) {
  return static_cast<int>((v / static_cast<uint64_t>(threads)) % static_cast<uint64_t>(blocks));
}
inline int owner_tile_block(uint64_t tile, int blocks) { return static_cast<int>(tile % static_cast<uint64_t>(blocks)); }
inline uint64_t tile_count(uint64_t bytes, uint64_t tile_bytes) { return (bytes + tile_bytes - 1) / tile_bytes; }

// One GEMM launch of a fused kernel: rows [rows.begin, rows.end) of the global M, which rank's
// data they are, and the chunk index (the signal slot that announces the data).
struct GemmStep {
  int owner = 0;      // AG: whose rows (the data's source); RS: who receives the reduced rows
  int chunk = 0;
  Range rows;
  bool operator==(const GemmStep&) const = default;
};

// All-gather + GEMM, A [M, K] sharded on M (rank p holds rows rank_chunk(M, n, p)): the local
// rows first (no communication needed), then chunk j of every peer in peer order, for j in
// 0..chunks-1, so the GEMM works on the oldest arrived data while later chunks are in flight.
std::vector<GemmStep> ag_gemm_schedule(uint64_t m, int nranks, int rank, int chunks, uint64_t row_align);

// GEMM + reduce-scatter, output rows sharded on M: the peers' row blocks first (chunk by chunk,
// so each can be sent while the next is computed), the rank's own rows last.
std::vector<GemmStep> gemm_rs_schedule(uint64_t m, int nranks, int rank, int chunks, uint64_t row_align);

}  // namespace parascope::bench
