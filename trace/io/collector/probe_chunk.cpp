#include "trace/io/collector/probe_chunk.h"

#include <cstring>

namespace parascope {

std::vector<uint8_t> encode_probe_chunk(const ProbeChunk& c) {
  ByteWriter w;
  w.varint(c.device);
  w.svarint(c.clock_offset_ns);
  w.varint(c.correlation);
  w.varint(c.launch_id);
  w.str(c.kernel_name);
  w.varint(c.overflow);
  w.varint(c.records.size());
  w.raw(c.records.data(), c.records.size() * sizeof(ProbeRecord));
  return std::move(w.bytes());
}

ProbeChunk decode_probe_chunk(ByteReader& r) {
  ProbeChunk c;
  const uint64_t device = r.varint();
  if (device > UINT32_MAX) r.fail("probe chunk: device " + std::to_string(device) + " out of range");
  c.device = static_cast<uint32_t>(device);
  c.clock_offset_ns = r.svarint();
  c.correlation = static_cast<uint32_t>(r.varint());
  c.launch_id = static_cast<uint32_t>(r.varint());
  c.kernel_name = std::string(r.str());
  c.overflow = r.varint();
  const uint64_t n = r.count(sizeof(ProbeRecord), "probe record");
  c.records.resize(n);
  if (n) std::memcpy(c.records.data(), r.raw(n * sizeof(ProbeRecord)), n * sizeof(ProbeRecord));
  return c;
}

}  // namespace parascope
