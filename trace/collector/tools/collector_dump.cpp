// parascope-collector-dump [--json | --jsonl] FILE|DIR...
// Prints what collector .pstrace files hold: a per-file summary (default), the summaries as one
// JSON array (--json), or every record as one JSON object per line (--jsonl: kernels, copies,
// memsets, markers, API calls, NCCL records with the kernel correlation they link to, probe spans,
// counter samples, clock syncs). A developer and test tool; the trace model reader is trace/io's.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "trace/collector/capture_summary.h"
#include "trace/core/error.h"
#include "trace/core/json.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"
#include "trace/io/pstrace/chunk_reader.h"

using namespace parascope;
using namespace parascope::collector;

namespace {

std::vector<std::string> expand(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    if (std::filesystem::is_directory(in)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(in))
        if (e.path().extension() == ".pstrace") found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  return files;
}

std::string q(const std::string& s) { return json_quote(s); }
std::string u(uint64_t v) { return std::to_string(v); }

void dump_records(const std::string& path) {
  ChunkReader reader(path);
  std::vector<CollectedActivity> api;
  std::vector<NcclRecord> nccl;
  const std::string file = q(path);
  for (const ChunkInfo& c : reader.chunks()) {
    const auto payload = reader.payload(c);
    ByteReader r(payload.data(), payload.size(), path, static_cast<int64_t>(c.offset));
    const auto type = static_cast<ChunkType>(c.header.type);
    if (type == ChunkType::kNcclRecords) {
      auto v = decode_all_nccl(r);
      nccl.insert(nccl.end(), v.begin(), v.end());
      continue;
    }
    if (type == ChunkType::kProbeRecords) {
      const ProbeChunk p = decode_probe_chunk(r);
      for (const ProbeRecord& rec : p.records)
        std::printf("{\"file\":%s,\"t\":\"probe\",\"dev\":%u,\"corr\":%u,\"kernel\":%s,\"launch\":%u,\"start\":%lld,"
                    "\"end\":%lld,\"smid\":%u,\"block\":%u,\"warp\":%u,\"role\":%u,\"tag\":%u,\"offset\":%lld}\n",
                    file.c_str(), p.device, p.correlation, q(p.kernel_name).c_str(), rec.launch_id,
                    static_cast<long long>(static_cast<int64_t>(rec.t_start_ns) + p.clock_offset_ns),
                    static_cast<long long>(static_cast<int64_t>(rec.t_end_ns) + p.clock_offset_ns), rec.smid, rec.block,
                    rec.warp, rec.role, rec.tag, static_cast<long long>(p.clock_offset_ns));
      continue;
    }
    if (type != ChunkType::kCuptiRecords) continue;
    while (!r.done()) {
      CollectedActivity a = decode(r);
      switch (a.kind) {
        case RecordKind::kKernel:
          std::printf("{\"file\":%s,\"t\":\"kernel\",\"dev\":%u,\"stream\":%u,\"start\":%s,\"end\":%s,\"corr\":%u,"
                      "\"graph\":%u,\"node\":%s,\"name\":%s}\n",
                      file.c_str(), a.device, a.stream, u(a.start_ns).c_str(), u(a.end_ns).c_str(), a.correlation,
                      a.graph_id, u(a.graph_node_id).c_str(), q(a.name).c_str());
          break;
        case RecordKind::kMemcpy:
          std::printf("{\"file\":%s,\"t\":\"memcpy\",\"dev\":%u,\"stream\":%u,\"start\":%s,\"end\":%s,\"corr\":%u,"
                      "\"bytes\":%s,\"kind\":%u,\"peer\":%s,\"src\":%u,\"dst\":%u}\n",
                      file.c_str(), a.device, a.stream, u(a.start_ns).c_str(), u(a.end_ns).c_str(), a.correlation,
                      u(a.bytes).c_str(), a.copy_kind, a.peer ? "true" : "false", a.src_device, a.dst_device);
          break;
        case RecordKind::kMemset:
          std::printf("{\"file\":%s,\"t\":\"memset\",\"dev\":%u,\"stream\":%u,\"start\":%s,\"end\":%s,\"corr\":%u,"
                      "\"bytes\":%s}\n",
                      file.c_str(), a.device, a.stream, u(a.start_ns).c_str(), u(a.end_ns).c_str(), a.correlation,
                      u(a.bytes).c_str());
          break;
        case RecordKind::kMarker:
          std::printf("{\"file\":%s,\"t\":\"marker\",\"ts\":%s,\"id\":%u,\"flags\":%u,\"tid\":%u,\"name\":%s,"
                      "\"domain\":%s}\n",
                      file.c_str(), u(a.start_ns).c_str(), a.marker_id, a.flags, a.object_id[1], q(a.name).c_str(),
                      q(a.domain).c_str());
          break;
        case RecordKind::kApi:
          std::printf("{\"file\":%s,\"t\":\"api\",\"domain\":%u,\"start\":%s,\"end\":%s,\"corr\":%u,\"tid\":%u,"
                      "\"name\":%s}\n",
                      file.c_str(), static_cast<unsigned>(a.api_domain), u(a.start_ns).c_str(), u(a.end_ns).c_str(),
                      a.correlation, a.tid, q(a.name).c_str());
          if (a.api_domain == ApiDomain::kDriver) api.push_back(a);
          break;
        case RecordKind::kCounterSample:
          std::printf("{\"file\":%s,\"t\":\"counter\",\"dev\":%u,\"metric\":%s,\"start\":%s,\"end\":%s,\"value\":%.17g}\n",
                      file.c_str(), a.device, q(a.name).c_str(), u(a.start_ns).c_str(), u(a.end_ns).c_str(),
                      a.counter_value);
          break;
        case RecordKind::kClockSync:
          std::printf("{\"file\":%s,\"t\":\"clock_sync\",\"dev\":%u,\"offset\":%lld,\"uncertainty\":%s,\"at\":%s}\n",
                      file.c_str(), a.device, static_cast<long long>(a.offset_ns), u(a.uncertainty_ns).c_str(),
                      u(a.start_ns).c_str());
          break;
        case RecordKind::kDropped:
          std::printf("{\"file\":%s,\"t\":\"dropped\",\"count\":%s}\n", file.c_str(), u(a.count).c_str());
          break;
        default: break;
      }
    }
  }
  const auto corr = nccl_kernel_correlations(nccl, api);
  for (size_t i = 0; i < nccl.size(); ++i) {
    const NcclRecord& n = nccl[i];
    std::printf("{\"file\":%s,\"t\":\"nccl_%s\",\"comm\":\"%016llx\",\"rank\":%d,\"nranks\":%d,\"func\":%s,\"count\":%s,"
                "\"dtype\":%s,\"algo\":%s,\"proto\":%s,\"channels\":%u,\"seq\":%s,\"group\":%s,\"launch\":%s,"
                "\"kernel_corr\":%u,\"start\":%s,\"end\":%s}\n",
                file.c_str(), std::string(to_string(n.kind)).c_str(), static_cast<unsigned long long>(n.comm_hash),
                n.rank, n.nranks, q(n.func).c_str(), u(n.count).c_str(), q(n.datatype).c_str(), q(n.algorithm).c_str(),
                q(n.protocol).c_str(), n.channels, u(n.sequence).c_str(), u(n.group).c_str(), u(n.launch).c_str(),
                corr[i], u(n.start_ns).c_str(), u(n.end_ns).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "text";
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) mode = "json";
    else if (!std::strcmp(argv[i], "--jsonl")) mode = "jsonl";
    else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
      std::printf("usage: parascope-collector-dump [--json | --jsonl] FILE|DIR...\n");
      return 0;
    } else inputs.push_back(argv[i]);
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: parascope-collector-dump [--json | --jsonl] FILE|DIR...\n");
    return 2;
  }
  int rc = 0;
  JsonValue all = JsonValue::array();
  for (const auto& f : expand(inputs)) {
    try {
      if (mode == "jsonl") {
        dump_records(f);
      } else {
        const CaptureSummary s = summarize_capture(f);
        if (mode == "json") all.push(to_json_value(s));
        else std::printf("%s", format_summary(s).c_str());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-collector-dump: %s\n", e.what());
      rc = 1;
    }
  }
  if (mode == "json") std::printf("%s\n", to_json(all, 2).c_str());
  return rc;
}
