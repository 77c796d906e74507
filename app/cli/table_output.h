// DataTable (trace/core/data_table.h) out of the CLI: aligned text for people, JSON rows keyed by
// column (numbers exact, text as text) for machines, CSV files. Every verb that prints a table a
// report also shows goes through here, so the CLI, the GUI and the reports agree on the numbers.
#pragma once

#include <string>

#include "trace/core/data_table.h"
#include "trace/core/json.h"

namespace parascope::cli {

// Title line, note line, then the aligned rows (text columns left, numbers right; long text cut).
std::string render_text(const DataTable& t, size_t max_text_width = 60);
// {"id", "title", "note", "rows": [{key: value...}]}; numeric cells as numbers, missing ones null.
JsonValue table_json(const DataTable& t);
// Writes t.to_csv(line_end) to `path` (temp file + rename); throws std::runtime_error naming the path.
void write_csv(const DataTable& t, const std::string& path, std::string_view line_end = "\r\n");

}  // namespace parascope::cli
