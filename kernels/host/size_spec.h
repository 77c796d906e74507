// Message sizes on the command line and in tables: "4KiB", "1GiB", "64MiB" (binary units; plain
// integers are bytes) and log-spaced sweeps "1KiB:1GiB:x4". Parsing rejects anything it does not
// fully understand (typed error naming the text), so a typo never turns into a default.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parascope::bench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "4096", "4KiB", "4K", "16MiB", "1GiB", "1G" → bytes. Throws UsageError.
uint64_t parse_bytes(std::string_view text);
// 4096 → "4 KiB", 1536 → "1536 B", 3 << 30 → "3 GiB" (exact binary multiples only, else bytes).
std::string format_bytes(uint64_t bytes);
// lo, lo·f, lo·f², ... while ≤ hi (hi is included when reached exactly). f ≥ 2.
std::vector<uint64_t> log_sweep(uint64_t lo, uint64_t hi, uint64_t factor);
// "1KiB:1GiB:x4" (sweep) or "4KiB,1MiB,1GiB" (list) or a single size.
std::vector<uint64_t> parse_size_list(std::string_view text);
// "1,2,4,132" → {1,2,4,132}; each in [lo, hi].
std::vector<int> parse_int_list(std::string_view text, int lo, int hi);

}  // namespace parascope::bench
