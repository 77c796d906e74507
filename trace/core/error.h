// Typed errors for bad input: every message names the file and the place (byte offset, event index,
// field path) and says what was expected, so a user can find the problem without a debugger.
// Readers throw InputError; callers print what() as one line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace parascope {

struct InputLocation {
  std::string file;           // as given by the user; empty for in-memory input
  int64_t byte_offset = -1;   // -1: unknown
  int64_t event_index = -1;   // index of the record/event in the file, -1: not applicable
  std::string field;          // e.g. "traceEvents[12].ts" or "$.nodes[3].sm_count"
};

// "FILE: byte N (event #I, FIELD): PROBLEM", leaving out what is unknown.
std::string format_location(const InputLocation& where);

class InputError : public std::runtime_error {
 public:
  InputError(InputLocation where, const std::string& problem);
  const InputLocation& where() const { return where_; }
  const std::string& problem() const { return problem_; }

 private:
  InputLocation where_;
  std::string problem_;
};

}  // namespace parascope
