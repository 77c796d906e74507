#include "trace/io/collector_records.h"

namespace parascope::collector {

void encode(ByteWriter& w, const CollectedActivity& a) {
  w.u8(static_cast<uint8_t>(a.kind));
  w.varint(a.start_ns);
  w.varint(a.end_ns - a.start_ns);
  w.varint(a.device);
  w.varint(a.context);
  w.varint(a.stream);
  w.varint(a.correlation);
  switch (a.kind) {
    case RecordKind::kKernel:
      w.str(a.name);
      for (int i = 0; i < 3; ++i) w.svarint(a.grid[i]);
      for (int i = 0; i < 3; ++i) w.svarint(a.block[i]);
      w.varint(a.registers);
      w.varint(a.static_smem);
      w.varint(a.dynamic_smem);
      w.varint(a.graph_id);
      w.varint(a.graph_node_id);
      break;
    case RecordKind::kMemcpy:
      w.varint(a.bytes);
      w.u8(a.copy_kind);
      w.varint(a.src_device);
      w.varint(a.dst_device);
      break;
    case RecordKind::kMemset:
      w.varint(a.bytes);
      w.varint(a.value);
      break;
  }
}

CollectedActivity decode(ByteReader& r) {
  CollectedActivity a;
  const uint8_t k = r.u8();
  if (k < 1 || k > 3) r.fail("unknown collector record kind " + std::to_string(k));
  a.kind = static_cast<RecordKind>(k);
  a.start_ns = r.varint();
  a.end_ns = a.start_ns + r.varint();
  a.device = static_cast<uint32_t>(r.varint());
  a.context = static_cast<uint32_t>(r.varint());
  a.stream = static_cast<uint32_t>(r.varint());
  a.correlation = static_cast<uint32_t>(r.varint());
  switch (a.kind) {
    case RecordKind::kKernel:
      a.name = std::string(r.str());
      for (int i = 0; i < 3; ++i) a.grid[i] = static_cast<int32_t>(r.svarint());
      for (int i = 0; i < 3; ++i) a.block[i] = static_cast<int32_t>(r.svarint());
      a.registers = static_cast<uint32_t>(r.varint());
      a.static_smem = static_cast<uint32_t>(r.varint());
      a.dynamic_smem = static_cast<uint32_t>(r.varint());
      a.graph_id = static_cast<uint32_t>(r.varint());
      a.graph_node_id = r.varint();
      break;
    case RecordKind::kMemcpy:
      a.bytes = r.varint();
      a.copy_kind = r.u8();
      a.src_device = static_cast<uint32_t>(r.varint());
      a.dst_device = static_cast<uint32_t>(r.varint());
      break;
    case RecordKind::kMemset:
      a.bytes = r.varint();
      a.value = static_cast<uint32_t>(r.varint());
      break;
  }
  return a;
}

}  // namespace parascope::collector
