#include <catch2/catch.hpp>

#include "parascope/collector.h"

TEST_CASE("Without an injected collector the C API does nothing and says so", "[collector][api]") {
  // this test binary never loads libparascope_cupti.so
  CHECK(parascope_collector_status() == 0);
  CHECK(parascope_collector_start("x") == 0);
  CHECK(parascope_collector_stop("x") == 0);
  CHECK(parascope_collector_name_rank(1, "tp1") == 0);
  const unsigned char buf[16] = {};
  CHECK(parascope_collector_submit_probes(0, buf, sizeof buf, "k", 0) == 0);
  CHECK(parascope_collector_lookup()->start == nullptr);
}
