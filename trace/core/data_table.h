// DataTable: one analysis result as a table of text cells with the numbers behind them, so the
// CLI's text output, its CSV and JSON, the GUI's sortable tables and the reports (HTML, PDF, CSV)
// all show the same rows from one builder. A cell's `text` is what people read ("117.5 GB/s");
// its `value` (NaN for text columns) is the exact number that sorts and goes into CSV.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/time.h"

namespace parascope {

struct DataCell {
  std::string text;
  double value = std::numeric_limits<double>::quiet_NaN();
  bool numeric() const { return !std::isnan(value); }
};

struct DataColumn {
  std::string title;  // "peak"
  std::string unit;   // "bytes/s", "ns", "%", "" — the unit of `value` in CSV
  bool numeric = false;
  // JSON member name: the title in snake_case plus the unit ("peak" + bytes/s → "peak_bytes_per_s").
  std::string key() const;
};

struct DataTable {
  std::string id;     // file-name-safe: "link_stats" (CSV file name, HTML anchor)
  std::string title;  // "Link utilization"
  std::string note;   // one line under the title: what the numbers mean, where they come from
  std::vector<DataColumn> columns;
  std::vector<std::vector<DataCell>> rows;

  DataTable& column(std::string name, std::string unit = "", bool numeric = false);
  DataTable& add_row(std::vector<DataCell> row);
  // RFC 4180: header of titles (with "[unit]" for numeric columns), numbers at full precision;
  // lines end in CRLF unless `line_end` says otherwise (a file scripts have always read with "\n").
  std::string to_csv(std::string_view line_end = "\r\n") const;
};

// Cell helpers: the text people read, the number CSV keeps.
DataCell text_cell(std::string s);
DataCell int_cell(int64_t v);
DataCell duration_cell(TimeNs ns);           // "1.234 ms", value in ns
DataCell rate_cell(double bytes_per_s);      // "117.5 GB/s", value in bytes/s
DataCell bytes_cell(double bytes);           // "2.58 GB", value in bytes (decimal units, as rates)
DataCell percent_cell(double fraction);      // "12.3 %" ("0.042 %" below 0.1 %), value as a fraction (0.123)
DataCell number_cell(double v, int decimals, std::string suffix = "");
DataCell flops_cell(double flops_per_s);     // "512.3 TFLOP/s"
DataCell flop_count_cell(double flops);      // "8.796 TFLOP", value in FLOP

// Decimal-unit text: 117.5 GB/s, 2.58 GB, 512.3 TFLOP/s, 8.796 TFLOP. The one size and rate convention of every
// table, view and CLI line (a byte count over a time reads in the rate's own units); only knob
// values keep the exact binary text they were given ("chunk_bytes=1MiB", sim/knobs.h).
std::string format_rate(double bytes_per_s);
std::string format_bytes_decimal(double bytes);
std::string format_flops(double flops_per_s);
std::string format_flop_count(double flops);  // an amount of work: "8.796 TFLOP", "512 FLOP"

}  // namespace parascope
