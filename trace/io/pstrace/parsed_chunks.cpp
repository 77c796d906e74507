#include "trace/io/pstrace/parsed_chunks.h"

#include <cstring>

#include "trace/io/pstrace/pstrace_codec.h"

namespace parascope {

namespace {

// pstrace::read_local_strings, without interning.
void read_strings(ByteReader& r, std::vector<std::string_view>& out) {
  const uint64_t n = r.count(1, "string");
  out.resize(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = r.str();
}

}  // namespace

void parse_flow_chunk(ByteReader& r, FlowChunk& out) {
  out.error = nullptr;
  read_strings(r, out.strings);
  const uint64_t n = r.count(3, "flow");
  out.flows.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    Flow& f = out.flows[i];
    f.from = pstrace::read_ref(r);
    f.to = pstrace::read_ref(r);
    f.kind = pstrace::read_enum<FlowKind>(r, 6, "flow kind");
  }
}

void parse_counter_chunk(ByteReader& r, CounterChunk& out) {
  out.error = nullptr;
  read_strings(r, out.strings);
  out.file_track = r.varint();
  const uint64_t n = r.count(9, "counter sample");
  out.time.resize(n);
  uint64_t t = 0;  // the first time, then deltas (wrapping, as the writer's)
  for (uint64_t i = 0; i < n; ++i) out.time[i] = static_cast<TimeNs>(t += static_cast<uint64_t>(r.svarint()));
  const uint8_t* values = r.raw(n * 8);
  out.value.resize(n);
  if (n) std::memcpy(out.value.data(), values, n * 8);
}

}  // namespace parascope
