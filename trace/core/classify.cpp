#include "trace/core/classify.h"

#include <algorithm>
#include <array>

namespace parascope {

namespace {
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
}  // namespace

bool is_communication_kernel_name(std::string_view name) {
  // Strip a leading "void " and namespaces: "void c10d::symmetric_memory::two_shot_all_reduce..."
  if (starts_with(name, "void ")) name.remove_prefix(5);
  static constexpr std::array<std::string_view, 4> kPrefixes = {"nccl", "parascope_comm", "ps_comm_", "msccl"};
  for (auto p : kPrefixes)
    if (starts_with(name, p)) return true;
  static constexpr std::array<std::string_view, 9> kInside = {
      "ncclDevKernel", "ncclKernel", "symmetric_memory", "one_shot_all_reduce", "two_shot_all_reduce",
      "multimem_all_reduce", "multimem_all_gather", "cross_device_reduce", "nvshmem"};
  for (auto p : kInside)
    if (contains(name, p)) return true;
  return false;
}

SliceClassifier::SliceClassifier(const Trace& trace) : trace_(trace), kernel_comm_(trace.kernels.size(), 0) {
  for (const CollectiveInfo& c : trace.collectives) {
    if (!c.kernel.valid() || c.kernel.track >= trace.tracks.size()) continue;
    const auto& s = trace.tracks[c.kernel.track].slices;
    if (c.kernel.index >= s.size()) continue;
    const SliceRef r = s.ref[c.kernel.index];
    if (r.kind() == SliceKind::kKernel && r.index() < kernel_comm_.size()) kernel_comm_[r.index()] = 1;
  }
  name_comm_.assign(trace.strings.size(), -1);
}

Category SliceClassifier::category(uint32_t track, uint32_t index) const {
  const Track& t = trace_.tracks[track];
  const SliceRef r = t.slices.ref[index];
  switch (r.kind()) {
    case SliceKind::kKernel: {
      if (r.has_detail() && r.index() < kernel_comm_.size() && kernel_comm_[r.index()]) return Category::kCommunication;
      const StringId n = t.slices.name[index];
      if (n >= name_comm_.size()) name_comm_.resize(trace_.strings.size(), -1);
      int8_t& cached = name_comm_[n];
      if (cached < 0) cached = is_communication_kernel_name(trace_.strings.view(n)) ? 1 : 0;
      return cached ? Category::kCommunication : Category::kCompute;
    }
    case SliceKind::kMemcpy: {
      if (!r.has_detail()) return Category::kMemory;
      const MemcpyInfo& m = trace_.memcpys[r.index()];
      const bool peer = m.copy_kind == CopyKind::kPtoP ||
                        (m.src_device != kNoDevice && m.dst_device != kNoDevice && m.src_device != m.dst_device);
      return peer ? Category::kCommunication : Category::kMemory;
    }
    case SliceKind::kMemset: return Category::kMemory;
    case SliceKind::kSync: return Category::kSync;
    case SliceKind::kSmSpan: {
      if (!r.has_detail()) return Category::kOther;
      switch (trace_.sm_spans[r.index()].role) {
        case SmRole::kCompute: return Category::kCompute;
        case SmRole::kCommunicate: return Category::kCommunication;
        case SmRole::kWait: return Category::kSync;
        case SmRole::kOther: return Category::kOther;
      }
      return Category::kOther;
    }
    case SliceKind::kCpuOp:
    case SliceKind::kRuntimeApi: return Category::kHost;
    case SliceKind::kNvtxRange:
    case SliceKind::kGpuAnnotation:
    case SliceKind::kInstant: return Category::kAnnotation;
    case SliceKind::kOverhead: return Category::kOther;
    case SliceKind::kGeneric:
    case SliceKind::kCount: break;
  }
  return Category::kOther;
}

}  // namespace parascope
