#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/core/json.h"

using namespace parascope;

namespace {
std::string cli() { return PARASCOPE_CLI; }
}  // namespace

TEST_CASE("links lists the measured NVLink counters with their statistics", "[cli][links]") {
  const auto csv = test::temp_dir("cli-links") / "links.csv";
  const auto r = test::run_command(cli() + " links --json --no-estimates --csv " + csv.string() + " " +
                                   test::sample_path("record_torch_nccl_2xh200"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "stdout");
  CHECK(doc.find("schema_version")->as_int() == 1);
  const auto& rows = doc.find("links")->find("rows")->items();
  REQUIRE(rows.size() == 4);  // rx and tx of each rank's GPU
  // `parascope-cli info`: rank 0 GPU 0 NVLink tx peak 117.5 GB/s, 2.577 GB
  const JsonValue& tx0 = rows[1];
  CHECK(tx0.find("link")->text() == "rank 0 GPU 0 \xE2\x86\x92 fabric (NVLink tx)");
  CHECK(tx0.find("source")->text() == "measured");
  CHECK(tx0.find("peak_bytes_per_s")->as_double() == Approx(117.5e9).margin(0.05e9));
  CHECK(tx0.find("bytes")->as_double() == Approx(2.577e9).margin(0.0005e9));
  CHECK(tx0.find("capacity_bytes_per_s")->as_double() == Approx(424.98e9));
  CHECK(tx0.find("capacity_from")->text() == "the trace's link record");  // CUPTI's NVLINK record, the inferred machine
  CHECK(tx0.find("peak_util")->as_double() == Approx(117.5 / 424.98).margin(0.0002));
  // the CSV holds the same rows, with units in the header
  const std::string text = test::slurp(csv);
  CHECK_THAT(text, Catch::StartsWith("link,source,capacity [bytes/s],capacity from,peak [bytes/s]"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  std::filesystem::remove_all(csv.parent_path());
}

TEST_CASE("links estimates traffic from collective sizes when nothing was measured", "[cli][links]") {
  const auto r = test::run_command(cli() + " links -q " + test::sample_path("allreduce_matmul_2xh200"));
  REQUIRE(r.exit_code == 0);
  // 3 all-reduces of 16 MiB per rank, each rank sending to the other (link_traffic_test)
  CHECK_THAT(r.out, Catch::Contains("rank 0 GPU 0 \xE2\x86\x92 rank 1 GPU 1 (estimated)"));
  CHECK_THAT(r.out, Catch::Contains("50.33 MB"));  // 3 x 16777216 B
}
