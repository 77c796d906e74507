// How a Chrome / Kineto JSON counter event ("ph": "C") carries its track's unit: in the value's
// key, "value [bytes/s]". Perfetto names a JSON counter series "<name> <key>" and reads only the
// number, so the unit shows in its track name and nothing is dropped; our importer reads the key
// back as the series "value" with that unit. A key without " [...]" has no unit (as before).
#pragma once

#include <string>
#include <string_view>

namespace parascope {

// "value" without a unit, else "value [UNIT]".
inline std::string counter_value_key(std::string_view unit) {
  return unit.empty() ? std::string("value") : "value [" + std::string(unit) + "]";
}

struct CounterArgKey {
  std::string_view series;  // the key without its unit: "value", "heap"
  std::string_view unit;    // "" when the key names none
};

// "value [bytes/s]" -> {"value", "bytes/s"}; "heap" -> {"heap", ""}; "[x]" alone stays a name.
inline CounterArgKey split_counter_arg_key(std::string_view key) {
  const size_t open = key.rfind(" [");
  if (open == std::string_view::npos || open == 0 || key.size() < open + 4 || key.back() != ']') return {key, {}};
  return {key.substr(0, open), key.substr(open + 2, key.size() - open - 3)};
}

}  // namespace parascope
