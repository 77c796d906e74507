#include "cli/table_output.h"

#include "cli/text_table.h"
#include "trace/io/common/atomic_file.h"

namespace parascope::cli {

std::string render_text(const DataTable& t, size_t max_text_width) {
  std::vector<TextTable::Column> cols;
  for (const DataColumn& c : t.columns)
    cols.push_back({c.title, c.numeric ? TextTable::Align::kRight : TextTable::Align::kLeft, c.numeric ? 0 : max_text_width});
  TextTable tt(std::move(cols));
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const DataCell& c : row) cells.push_back(c.text);
    tt.add(std::move(cells));
  }
  std::string out = t.title + "\n";
  if (!t.note.empty()) out += "  (" + t.note + ")\n";
  return out + (t.rows.empty() ? "  (none)\n" : tt.render());
}

JsonValue table_json(const DataTable& t) {
  JsonValue rows = JsonValue::array();
  for (const auto& row : t.rows) {
    JsonValue o = JsonValue::object();
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const DataCell& cell = row[c];
      if (t.columns[c].numeric) o.set(t.columns[c].key(), cell.numeric() ? JsonValue::number(cell.value) : JsonValue::null());
      else o.set(t.columns[c].key(), JsonValue::string(cell.text));
    }
    rows.push(std::move(o));
  }
  return JsonValue::object({{"id", JsonValue::string(t.id)},
                            {"title", JsonValue::string(t.title)},
                            {"note", JsonValue::string(t.note)},
                            {"rows", std::move(rows)}});
}

void write_csv(const DataTable& t, const std::string& path, std::string_view line_end) {
  AtomicFile f(path);
  f.write(t.to_csv(line_end));
  f.commit();
}

}  // namespace parascope::cli
