#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "test_paths.h"
#include "trace/io/export/csv_writer.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

// RFC 4180 reader for the test: records of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\r') {
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field.push_back(c);
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

}  // namespace

TEST_CASE("CSV fields are quoted only when needed", "[writers][csv]") {
  std::string out;
  append_csv_field(out, "plain");
  out += ",";
  append_csv_field(out, "void k<4, float>");
  out += ",";
  append_csv_field(out, "say \"hi\"");
  CHECK(out == "plain,\"void k<4, float>\",\"say \"\"hi\"\"\"");
}

TEST_CASE("Slices and kernel-statistics CSV of the bundled sample", "[writers][csv][real]") {
  const std::string s = "allreduce_matmul_2xh200/";
  const Trace t = load_trace({test::sample_path(s + "rank0.json"), test::sample_path(s + "rank1.json")});
  const fs::path dir = test::temp_dir("csv");
  write_slices_csv(t, (dir / "slices.csv").string());
  const auto rows = parse_csv(test::slurp(dir / "slices.csv"));
  REQUIRE(rows.size() == 1 + 476);  // header + every slice (2 × (236 X + 2 i) events)
  const auto& h = rows[0];
  auto col = [&](const std::string& name) { return static_cast<size_t>(std::find(h.begin(), h.end(), name) - h.begin()); };
  REQUIRE(col("collective") < h.size());
  size_t allreduces = 0, quoted_names = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == h.size());
    quoted_names += rows[i][col("name")].find(',') != std::string::npos;
    if (rows[i][col("collective")] != "allreduce") continue;
    ++allreduces;
    CHECK(rows[i][col("collective_bytes")] == "16777216");
    CHECK(rows[i][col("group_size")] == "2");
    if (rows[i][col("start_ns")] == "1796033537019104314") {  // rank 0's first all-reduce (Python json)
      CHECK(rows[i][col("dur_ns")] == "241246");
      CHECK(rows[i][col("rank")] == "0");
      CHECK(rows[i][col("category")] == "communication");
    }
  }
  CHECK(allreduces == 6);
  CHECK(quoted_names > 0);  // templated kernel names hold commas and survive quoting

  write_kernel_stats_csv(t, kernel_stats(t), (dir / "kernels.csv").string());
  const auto k = parse_csv(test::slurp(dir / "kernels.csv"));
  REQUIRE(k.size() > 1);
  // first row: rank 0's NCCL all-reduce, 3 launches, 438749 ns, p50 118815 (tests/analysis)
  CHECK(k[1][0] == "device");
  CHECK(k[1][1] == "0");
  CHECK(k[1][3].rfind("ncclDevKernel_AllReduce", 0) == 0);
  CHECK(k[1][5] == "3");
  CHECK(k[1][6] == "438749");
  CHECK(k[1][8] == "118815");
  fs::remove_all(dir);
}
