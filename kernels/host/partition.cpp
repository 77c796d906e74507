#include "host/partition.h"

#include <algorithm>

namespace parascope::bench {

Range rank_chunk(uint64_t count, int nranks, int rank, uint64_t align) {
  const uint64_t n = static_cast<uint64_t>(nranks);
  const uint64_t per = (count + n - 1) / n;
  const uint64_t chunk = (per + align - 1) / align * align;
  const uint64_t b = std::min(count, chunk * static_cast<uint64_t>(rank));
  return {b, std::min(count, b + chunk)};
}

std::vector<Range> split_pieces(Range r, int pieces, uint64_t align) {
  std::vector<Range> out;
  if (r.size() == 0 || pieces <= 1) return {r};
  const uint64_t per = (r.size() + pieces - 1) / static_cast<uint64_t>(pieces);
  const uint64_t step = std::max<uint64_t>(align, (per + align - 1) / align * align);
  for (uint64_t b = r.begin; b < r.end; b += step) out.push_back({b, std::min(r.end, b + step)});
  return out;
}

int pipeline_pieces(uint64_t bytes, uint64_t min_piece, int max_pieces) {
  const uint64_t p = min_piece ? bytes / min_piece : 1;
  return static_cast<int>(std::clamp<uint64_t>(p, 1, static_cast<uint64_t>(std::max(1, max_pieces))));
}

std::vector<int> peer_order(int rank, int nranks) {
  std::vector<int> out;
  for (int k = 1; k < nranks; ++k) out.push_back((rank + k) % nranks);
  return out;
}

std::optional<std::string> collective_size_problem(uint64_t bytes, int elem_size, int nranks) {
  if (bytes == 0) return "size is zero";
  if (bytes % static_cast<uint64_t>(elem_size)) return "size is not a whole number of elements";
  const uint64_t unit = 16ull * static_cast<uint64_t>(nranks);
  if (bytes % unit)
    return "size must be a multiple of 16 B x ranks (" + std::to_string(unit) + " B) so every rank's chunk is whole 16-byte vectors";
  return std::nullopt;
}

std::vector<GemmStep> ag_gemm_schedule(uint64_t m, int nranks, int rank, int chunks, uint64_t row_align) {
  std::vector<GemmStep> out;
  out.push_back({rank, 0, rank_chunk(m, nranks, rank, row_align)});
  std::vector<std::vector<Range>> pieces(static_cast<size_t>(nranks));
  for (int p : peer_order(rank, nranks)) pieces[p] = split_pieces(rank_chunk(m, nranks, p, row_align), chunks, row_align);
  for (int j = 0; j < chunks; ++j)
    for (int p : peer_order(rank, nranks))
      if (j < static_cast<int>(pieces[p].size())) out.push_back({p, j, pieces[p][j]});
  return out;
}

std::vector<GemmStep> gemm_rs_schedule(uint64_t m, int nranks, int rank, int chunks, uint64_t row_align) {
  std::vector<GemmStep> out;
  for (int j = 0; j < chunks; ++j)
    for (int p : peer_order(rank, nranks)) {
      const auto pieces = split_pieces(rank_chunk(m, nranks, p, row_align), chunks, row_align);
      if (j < static_cast<int>(pieces.size())) out.push_back({p, j, pieces[j]});
    }
  const auto own = split_pieces(rank_chunk(m, nranks, rank, row_align), chunks, row_align);
  for (int j = 0; j < static_cast<int>(own.size()); ++j) out.push_back({rank, j, own[j]});
  return out;
}

}  // namespace parascope::bench
