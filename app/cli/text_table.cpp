#include "cli/text_table.h"

#include <algorithm>

#include "models/name_elide.h"

namespace parascope::cli {

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

namespace {
// `s` in at most `width` characters: a kernel's signature loses its return type, arguments,
// namespaces and template arguments before its own name is cut (models/name_elide.h, as the GUI's
// tables); anything else is cut at the right with "…".
std::string cut(const std::string& s, size_t width) {
  return models::elide_name(s, static_cast<double>(width), models::char_count);
}
}  // namespace

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows_.size() + 1);
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(c.title);
  cells.push_back(header);
  for (const auto& r : rows_) {
    std::vector<std::string> row(columns_.size());
    for (size_t i = 0; i < columns_.size() && i < r.size(); ++i)
      row[i] = columns_[i].max_width ? cut(r[i], columns_[i].max_width) : r[i];
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(columns_.size(), 0);
  for (const auto& r : cells)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], display_width(r[i]));
  std::string out;
  for (const auto& r : cells) {
    std::string line = indent;
    for (size_t i = 0; i < r.size(); ++i) {
      const size_t pad = width[i] - display_width(r[i]);
      const bool last = i + 1 == r.size();
      if (columns_[i].align == Align::kRight) line.append(pad, ' ').append(r[i]);
      else {
        line.append(r[i]);
        if (!last) line.append(pad, ' ');
      }
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace parascope::cli
