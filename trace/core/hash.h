// Fast non-cryptographic hashing for the model's interning tables (strings, arg sets, launch
// configs): 8 bytes per multiply-mix step, well spread low and high bits, stable across runs and
// platforms of the same endianness. Not for anything that must resist adversarial inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace parascope {

inline constexpr uint64_t kHashMul = 0x9e3779b97f4a7c15ull;
__extension__ typedef unsigned __int128 HashU128;

inline uint64_t hash_mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

// Folds one 64-bit word into a running hash.
inline uint64_t hash_combine(uint64_t h, uint64_t word) {
  const HashU128 m = static_cast<HashU128>(h ^ word) * kHashMul;
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}

inline uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x243f6a8885a308d3ull ^ (n * kHashMul);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = hash_combine(h, w);
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = hash_combine(h, w ^ 0xa0761d6478bd642full);
  }
  return hash_mix(h);
}

inline uint64_t hash_string(std::string_view s) { return hash_bytes(s.data(), s.size()); }

}  // namespace parascope
