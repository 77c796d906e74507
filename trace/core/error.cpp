#include "trace/core/error.h"

namespace parascope {

std::string format_location(const InputLocation& where) {
  std::string out = where.file.empty() ? std::string("<input>") : where.file;
  std::string detail;
  auto add = [&](const std::string& part) {
    if (!detail.empty()) detail += ", ";
    detail += part;
  };
  if (where.byte_offset >= 0) add("byte " + std::to_string(where.byte_offset));
  if (where.event_index >= 0) add("event #" + std::to_string(where.event_index));
  if (!where.field.empty()) add(where.field);
  if (!detail.empty()) out += " (" + detail + ")";
  return out;
}

InputError::InputError(InputLocation where, const std::string& problem)
    : std::runtime_error(format_location(where) + ": " + problem),
      where_(std::move(where)),
      problem_(problem) {}

}  // namespace parascope
