#include "sim/whatif/trace_knobs.h"

#include <map>
#include <set>

#include "sim/knobs.h"
#include "trace/core/classify.h"

namespace parascope::whatif {

namespace {

template <typename T>
std::string span_text(const std::set<T>& v, auto&& fmt) {
  if (v.empty()) return "";
  if (v.size() == 1) return fmt(*v.begin());
  return fmt(*v.begin()) + " .. " + fmt(*v.rbegin());
}

std::string join(const std::set<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> trace_knob_values(const DepGraph& g) {
  std::set<uint32_t> channels;
  std::set<int64_t> bytes;
  std::set<std::string> algorithms, protocols, ops;
  for (const CommGroup& grp : g.groups) {
    if (grp.spec.op == CollectiveOp::kUnknown) continue;
    ops.insert(std::string(to_string(grp.spec.op)));
    if (grp.spec.channels) channels.insert(grp.spec.channels);
    if (grp.spec.bytes > 0) bytes.insert(static_cast<int64_t>(grp.spec.bytes));
    if (!grp.spec.algorithm.empty()) algorithms.insert(grp.spec.algorithm);
    if (!grp.spec.protocol.empty()) protocols.insert(grp.spec.protocol);
    // NCCL's kernel names say both: ncclDevKernel_AllReduce_Sum_bf16_RING_LL(...)
    if (!grp.members.empty() && grp.spec.algorithm.empty()) {
      const std::string& name = g.names[g.nodes[grp.members[0]].name];
      const std::string head = name.substr(0, name.find('('));
      static const std::pair<const char*, const char*> kAlgos[] = {{"_RING_", "ring"}, {"_TREE_", "tree"}, {"_NVLS_", "nvls"}};
      static const std::pair<const char*, const char*> kProtos[] = {{"_LL128", "ll128"}, {"_LL", "ll"}, {"_SIMPLE", "simple"}};
      for (const auto& [tag, algo] : kAlgos)
        if (head.find(tag) != std::string::npos) algorithms.insert(algo);
      for (const auto& [tag, proto] : kProtos) {
        const size_t at = head.rfind(tag);
        if (at != std::string::npos && at + std::string_view(tag).size() == head.size()) {
          protocols.insert(proto);
          break;
        }
      }
    }
  }
  std::map<std::string, std::string> known;
  known["gpus"] = std::to_string(g.gpu_count());
  known["scale_gpus"] = "0 (" + std::to_string(g.gpu_count()) + " GPUs traced)";
  known["channels"] = span_text(channels, [](uint32_t c) { return std::to_string(c); });
  known["bytes"] = span_text(bytes, [](int64_t b) { return sim::format_bytes(b); });
  known["algorithm"] = join(algorithms);
  known["protocol"] = join(protocols);
  known["comm_select"] = join(ops);
  known["comm_stream"] = "trace";
  known["fabric"] = "trace";
  std::vector<std::pair<std::string, std::string>> out;
  for (const sim::KnobSpec& k : sim::knob_registry().all())
    if (const auto it = known.find(k.name); it != known.end() && !it->second.empty()) out.emplace_back(k.name, it->second);
  return out;
}

}  // namespace parascope::whatif
