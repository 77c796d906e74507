// Finding slices by name (the GUI's find bar; the CLI can use it too). The pattern is matched once
// per interned name — a case-insensitive substring, an exact name, or a case-insensitive
// ECMAScript regular expression — then next() and previous() step through the matching slices in
// (start, track, row) order, looking only at tracks that hold a match. A bad regular expression
// is reported by error(), never thrown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

enum class MatchMode : uint8_t { kSubstring, kExact, kRegex };

class SliceSearch {
 public:
  SliceSearch(const Trace& trace, std::string_view pattern, MatchMode mode);

  const std::string& error() const { return error_; }
  bool matches(StringId name) const { return name < match_.size() && match_[name]; }
  int64_t count() const { return count_; }  // matching slices in the trace
  // The first match after `from` (an invalid `from`: the first match of the trace); invalid at the end.
  EventRef next(EventRef from) const;
  // The last match before `from` (an invalid `from`: the last match of the trace); invalid at the start.
  EventRef previous(EventRef from) const;
  // The first match that starts at or after t.
  EventRef first_at_or_after(TimeNs t) const;
  // Where match `r` stands among all of them in (start, track, row) order, from 1 (the find bar's
  // "3 of 12"); 0 when `r` is not a match.
  int64_t position(EventRef r) const;

 private:
  const Trace& trace_;
  std::vector<uint8_t> match_;       // per StringId
  std::vector<uint32_t> tracks_;     // tracks holding at least one match
  int64_t count_ = 0;
  std::string error_;
};

}  // namespace parascope
