#include "trace/collector/capture_summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "trace/io/collector/collector_notes.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"
#include "trace/io/pstrace/chunk_reader.h"

namespace parascope::collector {

namespace {

bool is_nccl_kernel(const std::string& name) {
  std::string n = name;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n.find("nccl") != std::string::npos;
}

void widen(DeviceCounts& d, uint64_t start, uint64_t end) {
  if (!d.first_ns || start < d.first_ns) d.first_ns = start;
  d.last_ns = std::max(d.last_ns, end);
}

JsonValue num(uint64_t v) { return JsonValue::number(std::to_string(v)); }
JsonValue snum(int64_t v) { return JsonValue::number(v); }

}  // namespace

CaptureSummary summarize_capture(const std::string& path) {
  CaptureSummary s;
  s.path = path;
  ChunkReader reader(path);
  s.complete = reader.had_index();
  s.file_bytes = reader.file_size();
  s.chunks = reader.chunks().size();
  s.reader_warnings = reader.warnings();

  std::vector<CollectedActivity> kernels_and_api;  // kernels + driver launches, for NCCL linking
  std::vector<NcclRecord> nccl;
  for (const ChunkInfo& c : reader.chunks()) {
    const auto payload = reader.payload(c);
    ByteReader r(payload.data(), payload.size(), path, static_cast<int64_t>(c.offset));
    switch (static_cast<ChunkType>(c.header.type)) {
      case ChunkType::kMetadata: {
        Metadata kv = decode_metadata(r);
        s.metadata.insert(s.metadata.end(), kv.begin(), kv.end());
        break;
      }
      case ChunkType::kWarnings:  // an older collector's notes are among its warnings
        for (std::string& w : decode_lines(r)) (is_collector_note(w) ? s.notes : s.warnings).push_back(std::move(w));
        break;
      case ChunkType::kNotes:
        for (std::string& n : decode_lines(r)) s.notes.push_back(std::move(n));
        break;
      case ChunkType::kProbeRecords: {
        const ProbeChunk p = decode_probe_chunk(r);
        ++s.probe_chunks;
        s.probe_records += p.records.size();
        s.probe_overflow += p.overflow;
        break;
      }
      case ChunkType::kNcclRecords: {
        auto v = decode_all_nccl(r);
        nccl.insert(nccl.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
        break;
      }
      case ChunkType::kCuptiRecords: {
        while (!r.done()) {
          CollectedActivity a = decode(r);
          if (a.kind == RecordKind::kUnknown) continue;
          ++s.records_by_kind[std::string(to_string(a.kind))];
          switch (a.kind) {
            case RecordKind::kKernel: {
              DeviceCounts& d = s.devices[a.device];
              ++d.kernels;
              if (a.graph_id) ++d.graph_kernels;
              widen(d, a.start_ns, a.end_ns);
              kernels_and_api.push_back(std::move(a));
              break;
            }
            case RecordKind::kMemcpy: {
              DeviceCounts& d = s.devices[a.device];
              if (a.peer) {
                ++d.peer_memcpys;
                ++d.peer_pairs[{a.src_device, a.dst_device}];
              } else {
                ++d.memcpys;
              }
              d.memcpy_bytes += a.bytes;
              widen(d, a.start_ns, a.end_ns);
              break;
            }
            case RecordKind::kMemset: {
              DeviceCounts& d = s.devices[a.device];
              ++d.memsets;
              widen(d, a.start_ns, a.end_ns);
              break;
            }
            case RecordKind::kSync: ++s.syncs; break;  // sync records carry a context, not a device
            case RecordKind::kMarker:
              // CUPTI marker flags: 1 instantaneous, 2 start, 4 end
              if (a.flags & 2) ++s.nvtx_ranges;
              else if (a.flags & 1) ++s.nvtx_marks;
              break;
            case RecordKind::kApi:
              if (a.api_domain == ApiDomain::kRuntime) ++s.runtime_calls;
              else ++s.driver_calls;
              if (a.api_domain == ApiDomain::kDriver) kernels_and_api.push_back(std::move(a));
              break;
            case RecordKind::kDeviceInfo: {
              DeviceCounts& d = s.devices[a.device];
              d.name = a.name, d.pci_bus_id = a.pci_bus_id, d.uuid = a.uuid;
              break;
            }
            case RecordKind::kDevice: {
              DeviceCounts& d = s.devices[a.device];
              if (d.name.empty()) d.name = a.name;
              if (d.uuid.empty()) d.uuid = a.uuid;
              break;
            }
            case RecordKind::kCounterSample: {
              CounterSeries& series = s.counters[{a.device, a.name}];
              ++series.samples;
              series.sum += a.counter_value;
              series.max = std::max(series.max, a.counter_value);
              if (!series.first_ns || a.start_ns < series.first_ns) series.first_ns = a.start_ns;
              series.last_ns = std::max(series.last_ns, a.end_ns);
              break;
            }
            case RecordKind::kClockSync:
              s.clock_syncs.push_back({a.device, a.offset_ns, a.uncertainty_ns, a.start_ns});
              break;
            case RecordKind::kDropped: s.dropped += a.count; break;
            default: break;
          }
        }
        break;
      }
      default: break;
    }
  }
  // NCCL: which kernels carry an operation
  std::vector<CollectedActivity> api;
  std::unordered_map<uint32_t, const CollectedActivity*> kernel_by_corr;
  for (const auto& a : kernels_and_api) {
    if (a.kind == RecordKind::kApi) api.push_back(a);
    else kernel_by_corr[a.correlation] = &a;
  }
  const auto corr = nccl_kernel_correlations(nccl, api);
  std::unordered_set<uint32_t> annotated;
  for (size_t i = 0; i < nccl.size(); ++i) {
    const NcclRecord& n = nccl[i];
    switch (n.kind) {
      case NcclRecordKind::kCommInit: ++s.nccl_communicators; break;
      case NcclRecordKind::kCollective: ++s.nccl_collectives; break;
      case NcclRecordKind::kP2p: ++s.nccl_p2p; break;
      case NcclRecordKind::kKernelLaunch:
        ++s.nccl_launches;
        if (corr[i]) ++s.nccl_launches_with_correlation;
        break;
      default: break;
    }
    if ((n.kind == NcclRecordKind::kCollective || n.kind == NcclRecordKind::kP2p) && corr[i] &&
        kernel_by_corr.count(corr[i])) {
      ++s.nccl_ops_linked;
      annotated.insert(corr[i]);
    }
  }
  for (const auto& a : kernels_and_api) {
    if (a.kind != RecordKind::kKernel || !is_nccl_kernel(a.name)) continue;
    DeviceCounts& d = s.devices[a.device];
    ++d.nccl_kernels;
    if (annotated.count(a.correlation)) ++d.nccl_kernels_annotated;
  }
  // another CUPTI client's calls: one metadata key per call, the last value of each key counts
  std::map<int, std::string> calls;
  const std::string prefix = kOtherCuptiCallKey;
  for (const auto& [k, v] : s.metadata) {
    if (k.rfind(prefix, 0) != 0) continue;
    try {
      size_t used = 0;
      const int i = std::stoi(k.substr(prefix.size()), &used);
      if (used == k.size() - prefix.size() && i >= 0) {
        calls[i] = v;
        continue;
      }
    } catch (const std::exception&) {
    }
    ++s.other_cupti_calls_unreadable;
  }
  for (const auto& [i, v] : calls) {
    if (auto c = decode_other_cupti_call(v)) s.other_cupti_calls.push_back(std::move(*c));
    else ++s.other_cupti_calls_unreadable;
  }
  return s;
}

JsonValue to_json_value(const CaptureSummary& s) {
  JsonValue md = JsonValue::object();
  for (const auto& [k, v] : s.metadata) md.set(k, JsonValue::string(v));
  JsonValue devices = JsonValue::array();
  for (const auto& [id, d] : s.devices) {
    JsonValue pairs = JsonValue::array();
    for (const auto& [p, n] : d.peer_pairs)
      pairs.push(JsonValue::object({{"src", num(p.first)}, {"dst", num(p.second)}, {"copies", num(n)}}));
    devices.push(JsonValue::object({{"device", num(id)},
                                    {"name", JsonValue::string(d.name)},
                                    {"pci_bus_id", JsonValue::string(d.pci_bus_id)},
                                    {"uuid", JsonValue::string(d.uuid)},
                                    {"kernels", num(d.kernels)},
                                    {"graph_kernels", num(d.graph_kernels)},
                                    {"nccl_kernels", num(d.nccl_kernels)},
                                    {"nccl_kernels_annotated", num(d.nccl_kernels_annotated)},
                                    {"memcpys", num(d.memcpys)},
                                    {"peer_memcpys", num(d.peer_memcpys)},
                                    {"peer_pairs", std::move(pairs)},
                                    {"memcpy_bytes", num(d.memcpy_bytes)},
                                    {"memsets", num(d.memsets)},
                                    {"first_ns", num(d.first_ns)},
                                    {"last_ns", num(d.last_ns)}}));
  }
  JsonValue kinds = JsonValue::object();
  for (const auto& [k, n] : s.records_by_kind) kinds.set(k, num(n));
  JsonValue counters = JsonValue::array();
  for (const auto& [key, c] : s.counters)
    counters.push(JsonValue::object({{"device", num(key.first)},
                                     {"metric", JsonValue::string(key.second)},
                                     {"samples", num(c.samples)},
                                     {"sum", JsonValue::number(c.sum)},
                                     {"max", JsonValue::number(c.max)},
                                     {"first_ns", num(c.first_ns)},
                                     {"last_ns", num(c.last_ns)}}));
  JsonValue clocks = JsonValue::array();
  for (const auto& c : s.clock_syncs)
    clocks.push(JsonValue::object({{"device", num(c.device)},
                                   {"cupti_minus_globaltimer_ns", snum(c.offset_ns)},
                                   {"uncertainty_ns", num(c.uncertainty_ns)},
                                   {"at_ns", num(c.at_ns)}}));
  JsonValue warnings = JsonValue::array();
  for (const auto& w : s.warnings) warnings.push(JsonValue::string(w));
  for (const auto& w : s.reader_warnings) warnings.push(JsonValue::string("reader: " + w));
  JsonValue notes = JsonValue::array();
  for (const auto& n : s.notes) notes.push(JsonValue::string(n));
  JsonValue others = JsonValue::array();
  for (const auto& c : s.other_cupti_calls) others.push(to_json_value(c));
  return JsonValue::object({{"path", JsonValue::string(s.path)},
                            {"complete", JsonValue::boolean(s.complete)},
                            {"file_bytes", num(s.file_bytes)},
                            {"chunks", num(s.chunks)},
                            {"metadata", std::move(md)},
                            {"records_by_kind", std::move(kinds)},
                            {"devices", std::move(devices)},
                            {"runtime_calls", num(s.runtime_calls)},
                            {"driver_calls", num(s.driver_calls)},
                            {"syncs", num(s.syncs)},
                            {"nvtx_ranges", num(s.nvtx_ranges)},
                            {"nvtx_marks", num(s.nvtx_marks)},
                            {"dropped_records", num(s.dropped)},
                            {"nccl", JsonValue::object({{"communicators", num(s.nccl_communicators)},
                                                        {"collectives", num(s.nccl_collectives)},
                                                        {"p2p", num(s.nccl_p2p)},
                                                        {"launches", num(s.nccl_launches)},
                                                        {"launches_with_correlation", num(s.nccl_launches_with_correlation)},
                                                        {"operations_linked_to_kernels", num(s.nccl_ops_linked)}})},
                            {"probes", JsonValue::object({{"chunks", num(s.probe_chunks)},
                                                          {"records", num(s.probe_records)},
                                                          {"overflow", num(s.probe_overflow)}})},
                            {"counters", std::move(counters)},
                            {"clock_syncs", std::move(clocks)},
                            {"cupti_guard", JsonValue::string(s.meta("cupti_guard"))},
                            {"other_cupti_clients", std::move(others)},
                            {"warnings", std::move(warnings)},
                            {"notes", std::move(notes)}});
}

std::string format_summary(const CaptureSummary& s) {
  std::string out;
  auto line = [&](const std::string& l) { out += l + "\n"; };
  const std::string rank = s.meta("rank");
  line(s.path + ": rank " + (rank.empty() || rank == "-1" ? "?" : rank) + ", pid " + s.meta("pid") + ", " +
       (s.meta("status").empty() ? "status unknown (no final metadata)" : "status " + s.meta("status")) +
       (s.complete ? "" : ", cut short (no index: killed?)") + ", " + std::to_string(s.file_bytes) + " bytes");
  for (const auto& [id, d] : s.devices) {
    std::string l = "  device " + std::to_string(id) + (d.pci_bus_id.empty() ? "" : " (" + d.pci_bus_id + ")") + ": " +
                    std::to_string(d.kernels) + " kernels (" + std::to_string(d.nccl_kernels) + " NCCL, " +
                    std::to_string(d.nccl_kernels_annotated) + " annotated), " + std::to_string(d.memcpys) + " copies, " +
                    std::to_string(d.peer_memcpys) + " peer copies, " + std::to_string(d.memsets) + " memsets";
    for (const auto& [p, n] : d.peer_pairs)
      l += ", " + std::to_string(n) + "x " + std::to_string(p.first) + "->" + std::to_string(p.second);
    line(l);
  }
  line("  api: " + std::to_string(s.runtime_calls) + " runtime, " + std::to_string(s.driver_calls) + " driver; nvtx: " +
       std::to_string(s.nvtx_ranges) + " ranges, " + std::to_string(s.nvtx_marks) + " marks; syncs " +
       std::to_string(s.syncs) + "; dropped " + std::to_string(s.dropped));
  if (s.nccl_communicators || s.nccl_launches)
    line("  nccl: " + std::to_string(s.nccl_communicators) + " communicators, " + std::to_string(s.nccl_collectives) +
         " collectives, " + std::to_string(s.nccl_p2p) + " p2p, " + std::to_string(s.nccl_launches) + " launches (" +
         std::to_string(s.nccl_launches_with_correlation) + " with correlation), " + std::to_string(s.nccl_ops_linked) +
         " operations linked to kernels");
  for (const auto& c : s.clock_syncs)
    line("  clock: device " + std::to_string(c.device) + " CUPTI - globaltimer = " + std::to_string(c.offset_ns) +
         " ns +- " + std::to_string(c.uncertainty_ns) + " ns");
  for (const auto& [k, c] : s.counters)
    line("  counter " + k.second + " on device " + std::to_string(k.first) + ": " + std::to_string(c.samples) +
         " samples, sum " + std::to_string(static_cast<uint64_t>(c.sum)) + ", max " +
         std::to_string(static_cast<uint64_t>(c.max)));
  if (s.probe_chunks)
    line("  probes: " + std::to_string(s.probe_chunks) + " buffers, " + std::to_string(s.probe_records) + " spans, " +
         std::to_string(s.probe_overflow) + " lost to overflow");
  for (const auto& c : s.other_cupti_calls) line("  another CUPTI client: " + describe_other_cupti_call(c));
  if (s.other_cupti_calls_unreadable)
    line("  another CUPTI client: " + std::to_string(s.other_cupti_calls_unreadable) + " unreadable metadata entries");
  for (const auto& w : s.warnings) line("  warning: " + w);
  for (const auto& w : s.reader_warnings) line("  reader: " + w);
  for (const auto& n : s.notes) line("  note: " + n);
  return out;
}

}  // namespace parascope::collector
