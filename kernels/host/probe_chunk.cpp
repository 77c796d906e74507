#include "host/probe_chunk.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "trace/io/pstrace/pstrace_writer.h"

namespace parascope::bench {

uint64_t probe_overflow(const ProbeBufferHeader& h) { return std::max(h.next, h.capacity) - h.capacity; }

std::string describe_probes(const std::vector<ProbeLaunch>& launches) {
  static constexpr const char* kRoles[] = {"compute", "communicate", "wait", "other"};
  std::string out;
  for (const auto& l : launches) {
    std::set<uint16_t> sms;
    uint64_t per_role[4] = {0, 0, 0, 0};
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (const auto& r : l.records) {
      sms.insert(r.smid);
      per_role[r.role < 4 ? r.role : 3]++;
      t0 = std::min(t0, r.t_start_ns);
      t1 = std::max(t1, r.t_end_ns);
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "GPU %u %s: %zu spans on %zu SMs", l.device, l.kernel_name.c_str(), l.records.size(), sms.size());
    out += buf;
    if (!sms.empty()) {
      std::snprintf(buf, sizeof buf, " (%u-%u)", static_cast<unsigned>(*sms.begin()), static_cast<unsigned>(*sms.rbegin()));
      out += buf;
    }
    for (int k = 0; k < 4; ++k)
      if (per_role[k]) out += std::string(", ") + kRoles[k] + " " + std::to_string(per_role[k]);
    std::snprintf(buf, sizeof buf, ", window %.1f us, overflow %llu\n", l.records.empty() ? 0.0 : (t1 - t0) / 1e3,
                  static_cast<unsigned long long>(l.overflow));
    out += buf;
  }
  return out;
}

void write_probe_pstrace(const std::string& path, const ProbeFileInfo& info, const std::vector<ProbeLaunch>& launches) {
  PstraceWriteOptions opt;
  opt.chunk.atomic = true;
  PstraceWriter w(path, opt);
  for (const auto& [k, v] : info.metadata) w.set_metadata(k, v);
  Process p = info.process;
  if (p.name.empty()) p.name = "parascope-bench";
  if (p.clock_offset_reason.empty()) p.clock_offset_reason = "none: probe spans are each GPU's %globaltimer ns (no collector)";
  const uint32_t proc = w.add_process(p);
  for (Device d : info.devices) {
    d.process = proc;
    w.add_device(d);
  }
  for (const auto& l : launches) w.append_raw(ChunkType::kProbeRecords, encode_probe_chunk(l));
  w.close();
}

}  // namespace parascope::bench
