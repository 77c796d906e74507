#include "trace/io/collector/nccl_records.h"

#include <algorithm>
#include <unordered_map>

namespace parascope::collector {

std::string_view to_string(NcclRecordKind k) {
  switch (k) {
    case NcclRecordKind::kUnknown: return "unknown";
    case NcclRecordKind::kCommInit: return "comm_init";
    case NcclRecordKind::kCollective: return "collective";
    case NcclRecordKind::kP2p: return "p2p";
    case NcclRecordKind::kKernelLaunch: return "kernel_launch";
    case NcclRecordKind::kGroup: return "group";
    case NcclRecordKind::kCommFinalize: return "comm_finalize";
  }
  return "unknown";
}

namespace {

void span(ByteWriter& w, uint64_t start, uint64_t end) {
  w.varint(start);
  w.varint(end >= start ? end - start : 0);
}
void read_span(ByteReader& r, uint64_t& start, uint64_t& end) {
  start = r.varint();
  end = start + r.varint();
}
int32_t z32(ByteReader& r) { return static_cast<int32_t>(r.svarint()); }
uint32_t v32(ByteReader& r) { return static_cast<uint32_t>(r.varint()); }

void encode_body(ByteWriter& w, const NcclRecord& n) {
  switch (n.kind) {
    case NcclRecordKind::kUnknown: break;
    case NcclRecordKind::kCommInit:
      w.u64(n.comm_hash), w.str(n.comm_name), w.svarint(n.nnodes), w.svarint(n.nranks), w.svarint(n.rank);
      w.svarint(n.device), w.varint(n.pid), w.varint(n.start_ns);
      break;
    case NcclRecordKind::kCollective:
    case NcclRecordKind::kP2p:
      w.u64(n.comm_hash), w.svarint(n.rank), w.varint(n.sequence), w.str(n.func), w.varint(n.count);
      w.str(n.datatype), w.svarint(n.root), w.svarint(n.peer), w.varint(n.channels), w.varint(n.warps);
      w.str(n.algorithm), w.str(n.protocol), w.varint(n.group), w.varint(n.launch), w.u64(n.stream);
      w.u8(n.graph_captured ? 1 : 0);
      span(w, n.start_ns, n.end_ns);
      span(w, n.api_start_ns, n.api_end_ns);
      w.varint(n.tid);
      break;
    case NcclRecordKind::kKernelLaunch:
      w.u64(n.comm_hash), w.varint(n.group), w.varint(n.launch), w.u64(n.stream), w.varint(n.correlation);
      span(w, n.start_ns, n.end_ns);
      w.varint(n.tid);
      break;
    case NcclRecordKind::kGroup:
      w.varint(n.group), w.svarint(n.depth), w.u8(n.graph_captured ? 1 : 0);
      span(w, n.start_ns, n.end_ns);
      w.varint(n.tid);
      break;
    case NcclRecordKind::kCommFinalize:
      w.u64(n.comm_hash), w.varint(n.start_ns);
      break;
  }
}

void decode_body(ByteReader& r, NcclRecord& n) {
  switch (n.kind) {
    case NcclRecordKind::kUnknown: break;
    case NcclRecordKind::kCommInit:
      n.comm_hash = r.u64(), n.comm_name = std::string(r.str()), n.nnodes = z32(r), n.nranks = z32(r);
      n.rank = z32(r), n.device = z32(r), n.pid = v32(r), n.start_ns = n.end_ns = r.varint();
      break;
    case NcclRecordKind::kCollective:
    case NcclRecordKind::kP2p:
      n.comm_hash = r.u64(), n.rank = z32(r), n.sequence = r.varint(), n.func = std::string(r.str());
      n.count = r.varint(), n.datatype = std::string(r.str()), n.root = z32(r), n.peer = z32(r);
      n.channels = v32(r), n.warps = v32(r), n.algorithm = std::string(r.str()), n.protocol = std::string(r.str());
      n.group = r.varint(), n.launch = r.varint(), n.stream = r.u64(), n.graph_captured = r.u8() != 0;
      read_span(r, n.start_ns, n.end_ns);
      read_span(r, n.api_start_ns, n.api_end_ns);
      n.tid = v32(r);
      break;
    case NcclRecordKind::kKernelLaunch:
      n.comm_hash = r.u64(), n.group = r.varint(), n.launch = r.varint(), n.stream = r.u64();
      n.correlation = v32(r);
      read_span(r, n.start_ns, n.end_ns);
      n.tid = v32(r);
      break;
    case NcclRecordKind::kGroup:
      n.group = r.varint(), n.depth = z32(r), n.graph_captured = r.u8() != 0;
      read_span(r, n.start_ns, n.end_ns);
      n.tid = v32(r);
      break;
    case NcclRecordKind::kCommFinalize:
      n.comm_hash = r.u64(), n.start_ns = n.end_ns = r.varint();
      break;
  }
}

}  // namespace

void encode(ByteWriter& w, const NcclRecord& n) {
  thread_local ByteWriter body;
  body.clear();
  encode_body(body, n);
  w.u8(static_cast<uint8_t>(n.kind));
  w.varint(body.size());
  w.raw(body.bytes().data(), body.size());
}

NcclRecord decode_nccl(ByteReader& r) {
  NcclRecord n;
  const uint8_t k = r.u8();
  const int64_t body_at = r.offset();
  const uint64_t len = r.varint();
  if (len > r.remaining())
    r.fail("NCCL record of kind " + std::to_string(k) + " claims " + std::to_string(len) + " bytes, " +
           std::to_string(r.remaining()) + " left");
  const uint8_t* body = r.raw(static_cast<size_t>(len));
  if (k == 0 || k > kMaxNcclRecordKind) {
    n.kind = NcclRecordKind::kUnknown;
    return n;
  }
  n.kind = static_cast<NcclRecordKind>(k);
  ByteReader br(body, static_cast<size_t>(len), "", body_at);
  try {
    decode_body(br, n);
  } catch (const InputError&) {
    r.fail("truncated NCCL " + std::string(to_string(n.kind)) + " record (" + std::to_string(len) + " bytes)");
  }
  return n;
}

std::vector<NcclRecord> decode_all_nccl(ByteReader& r) {
  std::vector<NcclRecord> out;
  while (!r.done()) {
    NcclRecord n = decode_nccl(r);
    if (n.kind != NcclRecordKind::kUnknown) out.push_back(std::move(n));
  }
  return out;
}

CollectiveOp nccl_op(std::string_view func) {
  if (func == "AlltoAll") return CollectiveOp::kAllToAll;
  return collective_op_from_name(func);
}

uint8_t nccl_dtype_bytes(std::string_view t) {
  if (t.rfind("nccl", 0) == 0) t.remove_prefix(4);
  if (t == "Int8" || t == "Uint8" || t == "Char" || t == "Float8e4m3" || t == "Float8e5m2") return 1;
  if (t == "Float16" || t == "Half" || t == "Bfloat16") return 2;
  if (t == "Int32" || t == "Uint32" || t == "Int" || t == "Float32" || t == "Float") return 4;
  if (t == "Int64" || t == "Uint64" || t == "Float64" || t == "Double") return 8;
  return 0;
}

void nccl_elements(CollectiveOp op, uint64_t count, int32_t nranks, uint64_t* in, uint64_t* out) {
  const uint64_t n = nranks > 0 ? static_cast<uint64_t>(nranks) : 1;
  switch (op) {
    case CollectiveOp::kAllGather: *in = count, *out = count * n; break;       // count = sendcount
    case CollectiveOp::kReduceScatter: *in = count * n, *out = count; break;   // count = recvcount
    case CollectiveOp::kAllToAll: *in = count * n, *out = count * n; break;    // count per peer
    case CollectiveOp::kSend: *in = count, *out = 0; break;
    case CollectiveOp::kRecv: *in = 0, *out = count; break;
    default: *in = count, *out = count; break;
  }
}

std::vector<uint32_t> nccl_kernel_correlations(const std::vector<NcclRecord>& records,
                                               const std::vector<CollectedActivity>& api) {
  // launch serial → correlation; a launch without one is resolved from driver launch records of
  // its thread inside its host-time window
  std::unordered_map<uint64_t, uint32_t> by_launch;
  std::unordered_map<uint32_t, std::vector<const CollectedActivity*>> launches_by_tid;
  for (const auto& a : api)
    if (a.kind == RecordKind::kApi && a.api_domain == ApiDomain::kDriver && a.name.rfind("cuLaunchKernel", 0) == 0)
      launches_by_tid[a.tid].push_back(&a);
  for (auto& [tid, v] : launches_by_tid)
    std::sort(v.begin(), v.end(), [](const CollectedActivity* x, const CollectedActivity* y) { return x->start_ns < y->start_ns; });
  for (const auto& n : records) {
    if (n.kind != NcclRecordKind::kKernelLaunch || n.launch == 0) continue;
    uint32_t corr = n.correlation;
    if (corr == 0) {
      auto it = launches_by_tid.find(n.tid);
      if (it != launches_by_tid.end()) {
        const auto& v = it->second;
        auto lo = std::lower_bound(v.begin(), v.end(), n.start_ns,
                                   [](const CollectedActivity* x, uint64_t t) { return x->start_ns < t; });
        if (lo != v.end() && (*lo)->start_ns <= n.end_ns) corr = (*lo)->correlation;
      }
    }
    by_launch[n.launch] = corr;
  }
  std::vector<uint32_t> out(records.size(), 0);
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& n = records[i];
    if (n.kind == NcclRecordKind::kKernelLaunch) {
      auto it = by_launch.find(n.launch);
      out[i] = it != by_launch.end() ? it->second : n.correlation;
    } else if ((n.kind == NcclRecordKind::kCollective || n.kind == NcclRecordKind::kP2p) && n.launch != 0) {
      auto it = by_launch.find(n.launch);
      if (it != by_launch.end()) out[i] = it->second;
    }
  }
  return out;
}

}  // namespace parascope::collector
