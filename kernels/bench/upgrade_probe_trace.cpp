// parascope-upgrade-probe-trace IN.pstrace OUT.pstrace
// One-off converter for probe traces parascope-bench wrote before it used the official writer
// (the 2026-11-30 GPU batch: resources/samples/fused_probe_2xh200/). Their interim layout was
//   metadata      : "key=value\n" lines (tool, command, date, devices, clock, note)
//   probe_records : u32 device, i64 clock offset ns, u32 launch id, (varint length, kernel name),
//                   u32 overflow, then ProbeRecord[(payload end − here) / 32] raw
// and the reader rejects it. The output is what write_probe_pstrace writes today: the same
// metadata keys (plus upgraded_from), a process and the GPUs the "devices" line names, and one
// kProbeRecords chunk per launch with the records, launch id, name and overflow count unchanged.
// Prints one line per launch (describe_probes) so the result can be compared with the run's log.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "host/probe_chunk.h"
#include "trace/core/error.h"
#include "trace/io/pstrace/chunk_reader.h"

using namespace parascope;
using namespace parascope::bench;

namespace {

ProbeLaunch decode_interim_probes(const std::vector<uint8_t>& p, const std::string& file, int64_t offset) {
  ByteReader r(p.data(), p.size(), file, offset);
  ProbeLaunch l;
  l.device = r.u32();
  l.clock_offset_ns = static_cast<int64_t>(r.u64());
  l.launch_id = r.u32();
  l.kernel_name = std::string(r.str());
  l.overflow = r.u32();
  if (r.remaining() % sizeof(ProbeRecord))
    r.fail("probe record array of " + std::to_string(r.remaining()) + " bytes is not a whole number of 32-byte records");
  l.records.resize(r.remaining() / sizeof(ProbeRecord));
  if (!l.records.empty())
    std::memcpy(l.records.data(), r.raw(l.records.size() * sizeof(ProbeRecord)), l.records.size() * sizeof(ProbeRecord));
  return l;
}

// "2 x NVIDIA H200 (132 SMs, 141 GiB, L2 60 MiB), peer access between all pairs" → 2 devices
// named "NVIDIA H200" with 132 SMs (what the line says; nothing else is invented).
std::vector<Device> devices_from(const std::string& line) {
  std::vector<Device> out;
  unsigned n = 0;
  if (std::sscanf(line.c_str(), "%u x ", &n) != 1 || n == 0 || n > 64) return out;
  const size_t name_at = line.find(" x ") + 3, paren = line.find(" (", name_at);
  const std::string name = line.substr(name_at, paren == std::string::npos ? std::string::npos : paren - name_at);
  unsigned sms = 0;
  if (paren != std::string::npos) std::sscanf(line.c_str() + paren, " (%u SMs", &sms);
  for (unsigned i = 0; i < n; ++i) {
    Device d;
    d.ordinal = static_cast<int32_t>(i);
    d.name = name;
    d.sm_count = sms;
    out.push_back(d);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: parascope-upgrade-probe-trace IN.pstrace OUT.pstrace\n");
    return 2;
  }
  try {
    const std::string in = argv[1], out = argv[2];
    ChunkReader reader(in);
    ProbeFileInfo info;
    std::vector<ProbeLaunch> launches;
    for (const ChunkInfo& c : reader.chunks()) {
      const std::vector<uint8_t> p = reader.payload(c);
      if (c.header.type == static_cast<uint32_t>(ChunkType::kMetadata)) {
        const std::string text(p.begin(), p.end());
        size_t at = 0;
        while (at < text.size()) {
          size_t nl = text.find('\n', at);
          if (nl == std::string::npos) nl = text.size();
          const std::string line = text.substr(at, nl - at);
          const size_t eq = line.find('=');
          if (eq == std::string::npos) {
            InputLocation where;
            where.file = in;
            where.byte_offset = static_cast<int64_t>(c.offset);
            throw InputError(where, "metadata line without '=': not an interim probe trace");
          }
          info.metadata.emplace_back(line.substr(0, eq), line.substr(eq + 1));
          at = nl + 1;
        }
      } else if (c.header.type == static_cast<uint32_t>(ChunkType::kProbeRecords)) {
        launches.push_back(decode_interim_probes(p, in, static_cast<int64_t>(c.offset)));
      }
    }
    for (const auto& [k, v] : info.metadata)
      if (k == "devices") info.devices = devices_from(v);
    info.metadata.emplace_back("source_format", "parascope-bench");
    info.metadata.emplace_back("upgraded_from", "interim probe payload (parascope-bench before 2026-12), by parascope-upgrade-probe-trace");
    info.process.name = "parascope-bench";
    write_probe_pstrace(out, info, launches);
    std::fputs(describe_probes(launches).c_str(), stdout);
    uint64_t records = 0, overflow = 0;
    for (const auto& l : launches) records += l.records.size(), overflow += l.overflow;
    std::printf("%zu buffers, %llu records, %llu overflowed -> %s\n", launches.size(),
                static_cast<unsigned long long>(records), static_cast<unsigned long long>(overflow), out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope-upgrade-probe-trace: %s\n", e.what());
    return 1;
  }
}
