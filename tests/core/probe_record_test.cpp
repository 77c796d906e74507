#include <catch2/catch.hpp>

#include <cstring>

#include "trace/core/probe_record.h"

using namespace parascope;

TEST_CASE("ProbeRecord is the 32-byte wire layout DESIGN.md fixes", "[core][probe]") {
  // The static_asserts in the header pin offsets at compile time; this checks the byte image a
  // GPU writes is read back field by field on the host.
  unsigned char raw[32] = {};
  const uint64_t t0 = 1'796'033'537'000'000'123ull, t1 = t0 + 4096;
  std::memcpy(raw + 0, &t0, 8);
  std::memcpy(raw + 8, &t1, 8);
  const uint32_t block = 77;
  std::memcpy(raw + 16, &block, 4);
  const uint16_t sm = 131;
  std::memcpy(raw + 20, &sm, 2);
  raw[22] = 3;   // warp
  raw[23] = 1;   // role: communicate
  const uint32_t tag = 0xABCD, launch = 9;
  std::memcpy(raw + 24, &tag, 4);
  std::memcpy(raw + 28, &launch, 4);
  ProbeRecord r;
  std::memcpy(&r, raw, sizeof r);
  REQUIRE(r.t_start_ns == t0);
  REQUIRE(r.t_end_ns - r.t_start_ns == 4096);
  REQUIRE(r.block == 77);
  REQUIRE(r.smid == 131);
  REQUIRE(r.warp == 3);
  REQUIRE(static_cast<ProbeRole>(r.role) == ProbeRole::kCommunicate);
  REQUIRE(r.tag == 0xABCD);
  REQUIRE(r.launch_id == 9);
  REQUIRE(sizeof(ProbeBufferHeader) == 16);
}
