#include "trace/io/common/cuda_activity_names.h"

namespace parascope {

std::string_view memory_label(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kArray: return "Array";
    case MemoryKind::kManaged: return "Managed";
    default: return "Unknown";
  }
}

std::string_view strip_api_version(std::string_view n) {
  const size_t v = n.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= n.size()) return n;
  for (size_t i = v + 2; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > '9') return n;
  return n.substr(0, v);
}

std::string memcpy_name(std::string_view copy_label, MemoryKind src, MemoryKind dst) {
  std::string name = "Memcpy";
  if (!copy_label.empty()) name += " " + std::string(copy_label);
  if (src != MemoryKind::kUnknown || dst != MemoryKind::kUnknown)
    name += " (" + std::string(memory_label(src)) + " -> " + std::string(memory_label(dst)) + ")";
  return name;
}

std::string memset_name(MemoryKind memory) { return "Memset (" + std::string(memory_label(memory)) + ")"; }

}  // namespace parascope
