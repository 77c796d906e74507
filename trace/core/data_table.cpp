#include "trace/core/data_table.h"

#include <cctype>
#include <cstdio>

namespace parascope {

std::string DataColumn::key() const {
  std::string k;
  auto append = [&k](const std::string& text) {
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      else if (c == '%') k += "pct";
      else if (c == '/') k += "_per_";
      else if (!k.empty() && k.back() != '_') k += '_';
    }
    while (!k.empty() && k.back() == '_') k.pop_back();
  };
  append(title);
  const std::string name = k;
  if (numeric && !unit.empty() && unit != "fraction") {
    k.clear();
    append(unit);
    k = k == name ? name : name + "_" + k;  // "bytes" in bytes stays "bytes"
  }
  return k;
}

DataTable& DataTable::column(std::string name, std::string unit, bool numeric) {
  columns.push_back({std::move(name), std::move(unit), numeric});
  return *this;
}

DataTable& DataTable::add_row(std::vector<DataCell> row) {
  row.resize(columns.size());
  rows.push_back(std::move(row));
  return *this;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string full_precision(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9.0e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string scaled(double v, const char* const* units, int count, double step, const char* suffix) {
  int u = 0;
  double a = std::fabs(v);
  while (u + 1 < count && a >= step * 0.9995) {
    a /= step;
    v /= step;
    ++u;
  }
  char buf[48];
  if (u == 0 && std::floor(v) == v) std::snprintf(buf, sizeof buf, "%.0f %s%s", v, units[u], suffix);
  else std::snprintf(buf, sizeof buf, a >= 100 ? "%.1f %s%s" : a >= 10 ? "%.2f %s%s" : "%.3f %s%s", v, units[u], suffix);
  return buf;
}

}  // namespace

std::string DataTable::to_csv(std::string_view line_end) const {
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ',';
    const DataColumn& col = columns[c];
    out += csv_field(col.numeric && !col.unit.empty() ? col.title + " [" + col.unit + "]" : col.title);
  }
  out += line_end;
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) out += ',';
      const DataCell& cell = row[c];
      if (columns[c].numeric) out += cell.numeric() ? full_precision(cell.value) : "";
      else out += csv_field(cell.text);
    }
    out += line_end;
  }
  return out;
}

std::string format_rate(double bytes_per_s) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T"};
  return scaled(bytes_per_s, kUnits, 5, 1000, "B/s");
}

std::string format_bytes_decimal(double bytes) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P"};
  return scaled(bytes, kUnits, 6, 1000, "B");
}

std::string format_flops(double flops_per_s) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P"};
  return scaled(flops_per_s, kUnits, 6, 1000, "FLOP/s");
}

std::string format_flop_count(double flops) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(flops, kUnits, 7, 1000, "FLOP");
}

DataCell text_cell(std::string s) { return {std::move(s)}; }
DataCell int_cell(int64_t v) { return {std::to_string(v), static_cast<double>(v)}; }
DataCell duration_cell(TimeNs ns) { return {format_duration(ns), static_cast<double>(ns)}; }
DataCell rate_cell(double bytes_per_s) { return {format_rate(bytes_per_s), bytes_per_s}; }
DataCell bytes_cell(double bytes) { return {format_bytes_decimal(bytes), bytes}; }
DataCell percent_cell(double fraction) {
  char buf[24];
  // a small non-zero share keeps two digits ("0.042 %"), not "0.0 %" beside a peak of 87.6 %
  const double pct = fraction * 100;
  if (pct != 0 && std::fabs(pct) < 0.1) std::snprintf(buf, sizeof buf, "%.2g %%", pct);
  else std::snprintf(buf, sizeof buf, "%.1f %%", pct);
  return {buf, fraction};
}
DataCell number_cell(double v, int decimals, std::string suffix) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return {buf + suffix, v};
}
DataCell flops_cell(double flops_per_s) { return {format_flops(flops_per_s), flops_per_s}; }
DataCell flop_count_cell(double flops) { return {format_flop_count(flops), flops}; }

}  // namespace parascope
