// Aligned text tables for the CLI's human output: columns sized to their widest cell, numbers
// right-aligned, text left-aligned, long text shortened to a column's limit as the GUI shortens
// names (models::elide_names: "ncclDevKernel_AllGather_RING_LL(…)", not a cut through the
// arguments that makes every NCCL kernel read alike, and names of a column that would still read
// alike keep where they differ; other text cut with "…"). Output is plain
// ASCII/UTF-8 with two spaces between columns, so it reads in a terminal and diffs in a log.
#pragma once

#include <string>
#include <vector>

namespace parascope::cli {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = Align::kRight;
    size_t max_width = 0;  // 0: unlimited
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // The table with a header row, each line prefixed by `indent`.
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; the CLI prints no wide characters).
size_t display_width(const std::string& s);

}  // namespace parascope::cli
