// A trace's warnings and notes (Trace::warnings / Trace::notes) as the verbs show them, always
// apart and warnings first: `info` and `stats` print a "warnings" and a "notes" block and carry a
// `warnings` and a `notes` array in --json; `convert` says its warnings on stderr and its notes
// only with --verbose (else one line counting them).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "trace/core/json.h"
#include "trace/core/trace.h"

namespace parascope::cli {

// "\nwarnings\n  ...\n" then "\nnotes\n  ...\n"; an empty list prints nothing.
void print_warnings_and_notes(const Trace& t, std::FILE* out = stdout);
JsonValue string_array(const std::vector<std::string>& lines);
// convert: "warning: ..." per warning, then "note: ..." per note (verbose) or "N notes ..." once.
void say_warnings_and_notes(const Trace& t, bool verbose, std::FILE* out = stderr);

}  // namespace parascope::cli
