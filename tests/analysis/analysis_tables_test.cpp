// The summary analyses as DataTables (analysis_tables.h) on the hand-worked example trace
// (example_trace.h): every number below is worked out there and in overlap_test / kernel_stats_test.
#include <catch2/catch.hpp>

#include "analysis/example_trace.h"
#include "trace/core/analysis/analysis_tables.h"

using namespace parascope;

namespace {

const std::vector<DataCell>* find_row(const DataTable& t, const std::string& a, const std::string& b = {}) {
  for (const auto& r : t.rows)
    if (r[0].text == a && (b.empty() || r[1].text == b)) return &r;
  return nullptr;
}

int column(const DataTable& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].key() == key) return static_cast<int>(i);
  return -1;
}

double value(const DataTable& t, const std::vector<DataCell>& row, const std::string& key) {
  const int c = column(t, key);
  REQUIRE(c >= 0);
  return row[static_cast<size_t>(c)].value;
}

}  // namespace

TEST_CASE("The overlap table has the device and stream rows of the hand-worked example", "[analysis][tables]") {
  const auto ex = test::make_example_trace();
  const DataTable t = overlap_table(ex.trace, compute_overlap(ex.trace), exposed_communication(ex.trace));
  CHECK(t.id == "overlap");
  // device 0: C = 200, M = 150, C ∩ M = 100, exposed M − C = 50
  const auto* d0 = find_row(t, "rank 0 GPU 0", "all");
  REQUIRE(d0);
  CHECK(value(t, *d0, "compute_ns") == 200);
  CHECK(value(t, *d0, "communication_ns") == 150);
  CHECK(value(t, *d0, "overlap_ns") == 100);
  CHECK(value(t, *d0, "comm_hidden") == Approx(100.0 / 150.0));
  CHECK((*d0)[static_cast<size_t>(column(t, "comm_hidden"))].text == "66.7 %");
  CHECK(value(t, *d0, "exposed_comm_ns") == 50);
  // stream 17 holds all communication: 100 of 150 under the device's compute
  const auto* s17 = find_row(t, "rank 0 GPU 0", "stream 17");
  REQUIRE(s17);
  CHECK(value(t, *s17, "communication_ns") == 150);
  CHECK(value(t, *s17, "overlap_ns") == 100);
  CHECK(value(t, *s17, "exposed_comm_ns") == 50);
  // stream 7 has no communication: its hidden share is not a number
  const auto* s7 = find_row(t, "rank 0 GPU 0", "stream 7");
  REQUIRE(s7);
  CHECK(value(t, *s7, "compute_ns") == 200);
  CHECK(!(*s7)[static_cast<size_t>(column(t, "comm_hidden"))].numeric());
  // device 1 (rank 1, CUDA ordinal 0) only computes: 160 ns, nothing exposed
  const auto* d1 = find_row(t, "rank 1 GPU 0", "all");
  REQUIRE(d1);
  CHECK(value(t, *d1, "compute_ns") == 160);
  CHECK(value(t, *d1, "exposed_comm_ns") == 0);
  CHECK(t.rows.size() == 2 + 2 + 1);  // two device rows, streams 7 and 17 of device 0, stream 7 of device 1
}

TEST_CASE("Kernel, exposed-by-name and busy tables of the hand-worked example", "[analysis][tables]") {
  const auto ex = test::make_example_trace();
  const KernelStats ks = kernel_stats(ex.trace);
  // device 0: gemm x2 (200) + fused_allreduce (150); device 1: relu x5 (150) + gemm (10)
  const DataTable sum = kernel_summary_table(ex.trace, ks);
  REQUIRE(sum.rows.size() == 3);
  CHECK(value(sum, *find_row(sum, "rank 0 GPU 0"), "kernels") == 3);
  CHECK(value(sum, *find_row(sum, "rank 0 GPU 0"), "kernel_time_ns") == 350);
  CHECK(value(sum, *find_row(sum, "rank 1 GPU 0"), "kernels") == 6);
  CHECK(value(sum, *find_row(sum, "all devices"), "kernels") == 9);
  CHECK(value(sum, *find_row(sum, "all devices"), "names") == 3);
  CHECK(value(sum, *find_row(sum, "all devices"), "kernel_time_ns") == 510);

  const DataTable top = kernel_stats_table(ex.trace, ks.overall, 2);
  REQUIRE(top.rows.size() == 2);
  CHECK(top.rows[0][0].text == "gemm");
  CHECK(value(top, top.rows[0], "count") == 3);
  CHECK(value(top, top.rows[0], "mean_ns") == Approx(70.0));
  CHECK(top.note.find("the 2 names with the most time of 3") != std::string::npos);
  CHECK(kernel_stats_table(ex.trace, ks.overall, 0).rows.size() == 3);

  const DataTable ex_names = exposed_by_name_table(ex.trace, exposed_communication(ex.trace), 0);
  REQUIRE(ex_names.rows.size() == 1);
  CHECK(ex_names.rows[0][1].text == "fused_allreduce");
  CHECK(value(ex_names, ex_names.rows[0], "exposed_ns") == 50);
  CHECK(value(ex_names, ex_names.rows[0], "exposed_share") == Approx(50.0 / 150.0));

  // busy/idle of device 0 over its own window [0, 340): overlapped [50,100) ∪ [150,200) = 100,
  // compute only [0,50) ∪ [200,250) = 100, communication only [100,150) = 50, memory [320,340) = 20,
  // sync [250,300) = 50, idle [300,320) = 20
  const DataTable busy = busy_idle_table(ex.trace, busy_idle(ex.trace));
  const auto* b0 = find_row(busy, "rank 0 GPU 0");
  REQUIRE(b0);
  CHECK(value(busy, *b0, "window_ns") == 340);
  CHECK(value(busy, *b0, "compute_comm_ns") == 100);
  CHECK(value(busy, *b0, "compute_ns") == 100);
  CHECK(value(busy, *b0, "comm_ns") == 50);
  CHECK(value(busy, *b0, "memory_ns") == 20);
  CHECK(value(busy, *b0, "sync_ns") == 50);
  CHECK(value(busy, *b0, "idle_ns") == 20);
}

TEST_CASE("The collectives table sums the example's annotated all-reduce", "[analysis][tables]") {
  const auto ex = test::make_example_trace();
  const DataTable t = collectives_table(ex.trace, summarize_collective_bandwidth(ex.trace, collective_bandwidth(ex.trace)));
  // 1000 fp32 elements = 4000 bytes in 150 ns: algbw 26.67 GB/s; busbw x 2(4-1)/4 = 1.5 (group of 4)
  const auto* row = find_row(t, "rank 0 GPU 0", "allreduce");
  REQUIRE(row);
  CHECK(value(t, *row, "count") == 1);
  CHECK(value(t, *row, "bytes") == 4000);
  CHECK(value(t, *row, "algbw_bytes_per_s") == Approx(4000 / 150e-9));
  CHECK(value(t, *row, "busbw_bytes_per_s") == Approx(4000 / 150e-9 * 1.5));
  CHECK(find_row(t, "all devices", "allreduce"));
}
