#include "cli/trace_messages.h"

namespace parascope::cli {

void print_warnings_and_notes(const Trace& t, std::FILE* out) {
  auto block = [out](const char* title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    std::fprintf(out, "\n%s\n", title);
    for (const std::string& l : lines) std::fprintf(out, "  %s\n", l.c_str());
  };
  block("warnings", t.warnings);
  block("notes", t.notes);
}

JsonValue string_array(const std::vector<std::string>& lines) {
  JsonValue a = JsonValue::array();
  for (const std::string& l : lines) a.push(JsonValue::string(l));
  return a;
}

void say_warnings_and_notes(const Trace& t, bool verbose, std::FILE* out) {
  for (const std::string& w : t.warnings) std::fprintf(out, "warning: %s\n", w.c_str());
  if (verbose) {
    for (const std::string& n : t.notes) std::fprintf(out, "note: %s\n", n.c_str());
  } else if (!t.notes.empty()) {
    std::fprintf(out, "%zu note%s on how the trace was made (--verbose lists them)\n", t.notes.size(),
                 t.notes.size() == 1 ? "" : "s");
  }
}

}  // namespace parascope::cli
