#include "host/probe_chunk.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "trace/io/chunk_writer.h"

namespace parascope::bench {

std::vector<uint8_t> encode_probe_chunk(const ProbeLaunch& l) {
  ByteWriter w;
  w.u32(l.device);
  w.u64(static_cast<uint64_t>(l.clock_offset_ns));
  w.u32(l.launch_id);
  w.str(l.kernel);
  w.u32(l.overflow);
  w.raw(l.records.data(), l.records.size() * sizeof(ProbeRecord));
  return std::move(w.bytes());
}

ProbeLaunch decode_probe_chunk(const uint8_t* data, size_t size, const std::string& file, int64_t base_offset) {
  ByteReader r(data, size, file, base_offset);
  ProbeLaunch l;
  l.device = r.u32();
  l.clock_offset_ns = static_cast<int64_t>(r.u64());
  l.launch_id = r.u32();
  l.kernel = std::string(r.str());
  l.overflow = r.u32();
  if (r.remaining() % sizeof(ProbeRecord))
    r.fail("probe record array of " + std::to_string(r.remaining()) + " bytes is not a whole number of 32-byte records");
  l.records.resize(r.remaining() / sizeof(ProbeRecord));
  if (!l.records.empty()) std::memcpy(l.records.data(), r.raw(l.records.size() * sizeof(ProbeRecord)), l.records.size() * sizeof(ProbeRecord));
  return l;
}

uint32_t probe_overflow(const ProbeBufferHeader& h) {
  const uint64_t over = std::max(h.next, h.capacity) - h.capacity;
  return static_cast<uint32_t>(std::min<uint64_t>(over, 0xFFFFFFFFu));
}

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
    std::snprintf(buf, sizeof buf, "GPU %u %s: %zu spans on %zu SMs", l.device, l.kernel.c_str(), l.records.size(), sms.size());
    out += buf;
    if (!sms.empty()) {
      std::snprintf(buf, sizeof buf, " (%u-%u)", static_cast<unsigned>(*sms.begin()), static_cast<unsigned>(*sms.rbegin()));
      out += buf;
    }
    for (int k = 0; k < 4; ++k)
      if (per_role[k]) out += std::string(", ") + kRoles[k] + " " + std::to_string(per_role[k]);
    std::snprintf(buf, sizeof buf, ", window %.1f us, overflow %u\n", l.records.empty() ? 0.0 : (t1 - t0) / 1e3, l.overflow);
    out += buf;
  }
  return out;
}

void write_probe_pstrace(const std::string& path, const std::vector<std::pair<std::string, std::string>>& metadata,
                         const std::vector<ProbeLaunch>& launches) {
  ChunkWriter::Options opt;
  opt.atomic = true;
  ChunkWriter w(path, opt);
  std::string meta;
  for (const auto& [k, v] : metadata) meta += k + "=" + v + "\n";
  w.append(ChunkType::kMetadata, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(meta.data()), meta.size()));
  for (const auto& l : launches) {
    const auto payload = encode_probe_chunk(l);
    w.append(ChunkType::kProbeRecords, payload);
  }
  w.close();
}

}  // namespace parascope::bench
