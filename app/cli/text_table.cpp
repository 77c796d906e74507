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

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows_.size() + 1);
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(c.title);
  cells.push_back(header);
  // a column with a limit is shortened as the GUI's tables shorten names (models/name_elide.h): a
  // kernel's signature loses return type, arguments, namespaces and template arguments before its
  // own name is cut, and names that would then read alike keep where they differ
  for (const auto& r : rows_) cells.emplace_back(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(std::min(r.size(), columns_.size())));
  for (auto& row : cells) row.resize(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i].max_width) continue;
    std::vector<std::string_view> texts;
    for (size_t r = 1; r < cells.size(); ++r) texts.push_back(cells[r][i]);
    std::vector<std::string> cut = models::elide_names(texts, static_cast<double>(columns_[i].max_width), models::char_count);
    for (size_t r = 1; r < cells.size(); ++r) cells[r][i] = std::move(cut[r - 1]);
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
