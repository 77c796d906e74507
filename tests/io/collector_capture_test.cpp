// Real collector output from the 2 × H200 batch of 2026-11-30 (tests/data/collector, see its
// README; resources/samples/record_torch_nccl_2xh200) read through load_trace, against numbers
// taken independently: the collector's own summaries (parascope-collector-dump --json, in
// tests/data/collector/summaries), the batch's results.json (resources/captures/h200x2_2026-11-30/
// collector), and the raw records decoded here with collector::decode_all / decode_probe_chunk.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "test_paths.h"
#include "trace/core/classify.h"
#include "trace/core/json.h"
#include "trace/core/summary.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/collector/nccl_records.h"
#include "trace/io/collector/probe_chunk.h"
#include "trace/io/collector/record_manifest.h"
#include "trace/io/load_trace.h"
#include "trace/io/pstrace/chunk_reader.h"

using namespace parascope;

namespace {

std::string fixture(const std::string& rel) { return test::data_path("collector/" + rel); }

// The collector's summary of the file whose name ends with `file` (its paths are the GPU machine's).
JsonField summary_of(const JsonValue& doc, const std::string& name, const std::string& file) {
  const JsonField all(doc, name);
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string p = all.at(i).at("path").as_string();
    if (p.size() >= file.size() && p.compare(p.size() - file.size(), file.size(), file) == 0) return all.at(i);
  }
  FAIL("no summary for " << file);
  return all;
}

int64_t num(const JsonField& f, const char* key) { return f.at(key).as_int(); }

const JsonField device_entry(const JsonField& s, int64_t ordinal) {
  const JsonField devs = s.at("devices");
  for (size_t i = 0; i < devs.size(); ++i)
    if (devs.at(i).at("device").as_int() == ordinal) return devs.at(i);
  FAIL("no device " << ordinal);
  return devs;
}

// The raw records of every kCuptiRecords chunk, decoded without the trace model.
std::vector<collector::CollectedActivity> raw_records(const std::string& path) {
  ChunkReader r(path);
  std::vector<collector::CollectedActivity> out;
  for (const ChunkInfo& c : r.chunks()) {
    if (c.header.type != static_cast<uint32_t>(ChunkType::kCuptiRecords)) continue;
    const auto p = r.payload(c);
    ByteReader b(p.data(), p.size(), path, 0);
    auto v = collector::decode_all(b);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

const Process* process_with_rank(const Trace& t, int32_t rank) {
  for (const Process& p : t.processes)
    if (p.rank == rank) return &p;
  return nullptr;
}

uint32_t process_index(const Trace& t, int32_t rank) {
  for (uint32_t i = 0; i < t.processes.size(); ++i)
    if (t.processes[i].rank == rank) return i;
  FAIL("no rank " << rank);
  return 0;
}

int32_t device_index(const Trace& t, uint32_t process, int32_t ordinal) {
  for (uint32_t i = 0; i < t.devices.size(); ++i)
    if (t.devices[i].process == process && t.devices[i].ordinal == ordinal) return static_cast<int32_t>(i);
  return -1;
}

struct GpuCounts {
  int64_t kernels = 0, memcpys = 0, peer = 0, memsets = 0, syncs = 0, nccl_kernels = 0, nccl_annotated = 0;
  std::map<std::pair<int32_t, int32_t>, int64_t> peer_pairs;  // (src ordinal, dst ordinal)
  std::multiset<std::string> kernel_names;
};

// GPU work of `device` starting in [t0, t1] (the whole trace by default), counted from the model.
GpuCounts gpu_counts(const Trace& t, int32_t device, TimeNs t0 = INT64_MIN, TimeNs t1 = INT64_MAX) {
  GpuCounts c;
  std::set<EventRef> annotated;
  for (const CollectiveInfo& ci : t.collectives)
    if (ci.kernel.valid()) annotated.insert(ci.kernel);
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.device != device) continue;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      if (tr.slices.start[i] < t0 || tr.slices.start[i] > t1) continue;
      const SliceRef r = tr.slices.ref[i];
      const std::string name(t.str(tr.slices.name[i]));
      switch (r.kind()) {
        case SliceKind::kKernel:
          if (name.rfind("parascope_", 0) == 0) break;  // the collector's clock-sync kernel (not in Kineto)
          ++c.kernels;
          c.kernel_names.insert(name);
          if (name.find("nccl") != std::string::npos) {
            ++c.nccl_kernels;
            c.nccl_annotated += annotated.count(EventRef{ti, i});
          }
          break;
        case SliceKind::kMemcpy: {
          ++c.memcpys;
          const MemcpyInfo& m = t.memcpys[r.index()];
          if (m.copy_kind == CopyKind::kPtoP) {
            ++c.peer;
            ++c.peer_pairs[{t.devices[m.src_device].ordinal, t.devices[m.dst_device].ordinal}];
          }
          break;
        }
        case SliceKind::kMemset: ++c.memsets; break;
        case SliceKind::kSync: ++c.syncs; break;
        default: break;
      }
    }
  }
  return c;
}

std::pair<TimeNs, TimeNs> window(const std::string& file) {
  const JsonValue w = load_json_file(file);
  const JsonField f(w, file);
  return {f.at("t0_ns").as_int(), f.at("t1_ns").as_int()};
}

}  // namespace

TEST_CASE("Collector capture: a CUDA graph's kernels keep the graph they came from", "[io][collector][real]") {
  const std::string file = fixture("graph_rec/vm-3397-rnone.pstrace");
  const JsonValue sums = load_json_file(fixture("summaries/graph_rec.summary.json"));
  const JsonField s = summary_of(sums, "graph_rec.summary.json", "vm-3397-rnone.pstrace");
  const JsonField d0 = device_entry(s, 0);
  LoadReport report;
  const Trace t = load_trace({fixture("graph_rec")}, {}, &report);
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes[0].pid == 3397);
  CHECK(t.processes[0].rank == -1);
  const int32_t dev = device_index(t, 0, 0);
  REQUIRE(dev >= 0);
  // device facts from the device_info record (summary: name, pci_bus_id, uuid)
  CHECK(t.devices[dev].name == d0.at("name").as_string());
  CHECK(t.devices[dev].pci_bus_id == d0.at("pci_bus_id").as_string());
  CHECK(t.devices[dev].uuid == d0.at("uuid").as_string());
  CHECK(t.devices[dev].sm_count == 132);
  const GpuCounts c = gpu_counts(t, dev);
  CHECK(c.kernels == num(d0, "kernels"));  // 15
  CHECK(num(d0, "graph_kernels") == 15);
  CHECK(c.syncs == num(s, "syncs"));  // 1

  // clones resolved: each kernel names the graph the program built and its node there
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint32_t, uint64_t>> clones;
  for (const auto& a : raw_records(file))
    if (a.kind == collector::RecordKind::kGraphNodeClone)
      clones[{a.graph_id, a.graph_node_id}] = {a.original_graph_id, a.original_node_id};
  REQUIRE(clones.size() == 3);
  std::set<std::pair<uint32_t, uint64_t>> nodes;
  std::multiset<uint32_t> exec_graphs;
  for (const Track& tr : t.tracks)
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      if (tr.slices.ref[i].kind() != SliceKind::kKernel) continue;
      const KernelInfo& k = t.kernels[tr.slices.ref[i].index()];
      nodes.insert({k.graph_id, k.graph_node_id.get()});
      // the instantiated graph's ids stay as arguments
      uint64_t exec_graph = 0, exec_node = 0;
      for (const Arg& a : t.args.get(tr.slices.args_of(i))) {
        if (t.str(a.key) == "graph exec id") exec_graph = a.value.u;
        if (t.str(a.key) == "graph exec node id") exec_node = a.value.u;
      }
      exec_graphs.insert(static_cast<uint32_t>(exec_graph));
      auto it = clones.find({static_cast<uint32_t>(exec_graph), exec_node});
      REQUIRE(it != clones.end());
      CHECK(it->second == std::make_pair(k.graph_id, k.graph_node_id.get()));
    }
  CHECK(nodes.size() == 3);  // results.json misc.graph.distinct_nodes
  CHECK(exec_graphs.size() == 15);
  // 5 graph launches of 3 kernels: each kernel has a launch flow from its cudaGraphLaunch call
  int64_t from_graph_launch = 0;
  for (const Flow& f : t.flows)
    if (f.kind == FlowKind::kLaunch && t.str(t.tracks[f.from.track].slices.name[f.from.index]) == "cudaGraphLaunch")
      ++from_graph_launch;
  CHECK(from_graph_launch == 15);
  // API calls: runtime + driver, all on CPU thread tracks
  const TraceSummary sum = summarize(t);
  CHECK(sum.processes[0].api_calls == num(s, "runtime_calls") + num(s, "driver_calls"));  // 14 + 237
  CHECK(sum.processes[0].overhead == 11);  // records_by_kind.overhead
}

TEST_CASE("Collector capture: peer copies name both GPUs, NVLink records give the links", "[io][collector][real]") {
  const std::string file = fixture("peer_rec/vm-3377-rnone.pstrace");
  const JsonValue sums = load_json_file(fixture("summaries/peer_rec.summary.json"));
  const JsonField s = summary_of(sums, "peer_rec.summary.json", "vm-3377-rnone.pstrace");
  const JsonField d0 = device_entry(s, 0);
  const Trace t = load_trace({fixture("peer_rec")});
  const int32_t g0 = device_index(t, 0, 0), g1 = device_index(t, 0, 1);
  REQUIRE(g0 >= 0);
  REQUIRE(g1 >= 0);
  const GpuCounts c = gpu_counts(t, g0);
  CHECK(c.peer == num(d0, "peer_memcpys"));  // 20
  CHECK(c.memcpys - c.peer == num(d0, "memcpys"));  // 0
  CHECK(c.memsets == num(d0, "memsets"));  // 1
  REQUIRE(c.peer_pairs.size() == 1);
  CHECK(c.peer_pairs.begin()->first == std::make_pair(0, 1));  // peer_pairs: src 0, dst 1, 20 copies
  CHECK(c.peer_pairs.begin()->second == 20);
  const TraceSummary sum = summarize(t);
  const DeviceSummary& ds0 = sum.processes[0].devices[0].device == static_cast<uint32_t>(g0) ? sum.processes[0].devices[0]
                                                                                             : sum.processes[0].devices[1];
  CHECK(ds0.memcpy_bytes == static_cast<uint64_t>(num(d0, "memcpy_bytes")));  // 1342177280
  CHECK(ds0.peer_memcpys == 20);
  // GPU 1 is only named by the copies: a device without events of this process
  for (const DeviceSummary& ds : sum.processes[0].devices)
    if (ds.device == static_cast<uint32_t>(g1)) CHECK_FALSE(ds.has_events);
  CHECK(t.devices[g1].pci_bus_id == device_entry(s, 1).at("pci_bus_id").as_string());
  // the NVLINK record: GPU 0 ↔ GPU 1, bandwidth in kB/s for both directions; one link each way
  uint64_t kbps = 0;
  for (const auto& a : raw_records(file))
    if (a.kind == collector::RecordKind::kNvLink) kbps = a.bandwidth_kbps;
  REQUIRE(kbps == 849'960'000);
  int links = 0;
  for (const Link& l : t.links) {
    if (l.medium != Medium::kNvLink || l.dst_device == kNoDevice) continue;
    ++links;
    CHECK(l.capacity_bytes_per_s == Approx(static_cast<double>(kbps) * 1000 / 2));
    CHECK(l.direction == LinkDirection::kTx);
  }
  CHECK(links == 2);
  // the context synchronisation (stream id 0xFFFFFFFF) sits on the device's no-stream track
  int64_t context_syncs = 0;
  for (const Track& tr : t.tracks)
    if (tr.key.kind == TrackKind::kGpuStream && tr.key.id == -1)
      for (SliceRef r : tr.slices.ref)
        if (r.kind() == SliceKind::kSync && t.syncs[r.index()].kind == SyncKind::kContextSync) ++context_syncs;
  CHECK(context_syncs == num(s, "syncs"));  // 1
}

TEST_CASE("Collector capture: probe spans on SM lanes, 100 per SM, each inside its kernel", "[io][collector][real]") {
  const std::string file = fixture("probe_rec/vm-3289-rnone.pstrace");
  const JsonValue sums = load_json_file(fixture("summaries/probe_rec.summary.json"));
  const JsonField s = summary_of(sums, "probe_rec.summary.json", "vm-3289-rnone.pstrace");
  // the raw probe chunks, per SM, shifted by each chunk's offset
  std::map<uint16_t, std::vector<TimeNs>> raw_starts;
  int64_t chunks = 0;
  {
    ChunkReader r(file);
    for (const ChunkInfo& c : r.chunks()) {
      if (c.header.type != static_cast<uint32_t>(ChunkType::kProbeRecords)) continue;
      const auto p = r.payload(c);
      ByteReader b(p.data(), p.size(), file, 0);
      const ProbeChunk pc = decode_probe_chunk(b);
      ++chunks;
      for (const ProbeRecord& rec : pc.records) raw_starts[rec.smid].push_back(static_cast<TimeNs>(rec.t_start_ns) + pc.clock_offset_ns);
    }
  }
  CHECK(chunks == s.at("probes").at("chunks").as_int());  // 50
  const Trace t = load_trace({fixture("probe_rec")});
  const int32_t dev = device_index(t, 0, 0);
  REQUIRE(dev >= 0);
  std::map<uint16_t, std::vector<TimeNs>> lane_starts;
  int64_t spans = 0, linked = 0;
  for (const Track& tr : t.tracks) {
    if (tr.key.kind != TrackKind::kSmLane) continue;
    CHECK(tr.key.device == dev);
    lane_starts[static_cast<uint16_t>(tr.key.id)] = tr.slices.start;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      ++spans;
      const SmSpanInfo& sp = t.sm_spans[tr.slices.ref[i].index()];
      if (!sp.kernel.valid()) continue;
      ++linked;
      const Track& kt = t.tracks[sp.kernel.track];
      CHECK_THAT(std::string(t.str(kt.slices.name[sp.kernel.index])), Catch::Contains("probe_kernel("));
    }
  }
  CHECK(spans == s.at("probes").at("records").as_int());  // 13200
  CHECK(lane_starts.size() == 132);
  for (auto& [sm, v] : raw_starts) {
    std::sort(v.begin(), v.end());
    CHECK(v.size() == 100);  // 50 launches × 264 blocks, 2 per SM
    CHECK(lane_starts[sm] == v);
  }
  // no correlation in the chunks: every span is linked by time to the kernel it ran in
  CHECK(linked == 13200);
  // the two clock syncs (summary: -1064960 ± 1167 ns, -1065042 ± 1154 ns) are reported
  const std::string reason = t.processes[0].clock_offset_reason;
  CHECK_THAT(reason, Catch::Contains("GPU 0 globaltimer -> CUPTI -1064960 ns +- 1167 ns (2 syncs, drift -82 ns)"));
  const GpuCounts c = gpu_counts(t, dev);
  CHECK(c.kernels + 1 == device_entry(s, 0).at("kernels").as_int());  // 52, one is parascope_clock_sync
  CHECK(c.memcpys == device_entry(s, 0).at("memcpys").as_int());      // 100
  const TraceSummary sum = summarize(t);
  CHECK(sum.processes[0].devices[0].sm_lanes == 132);
  CHECK(sum.processes[0].devices[0].sm_spans_min == 100);
  CHECK(sum.processes[0].devices[0].sm_spans_max == 100);
}

TEST_CASE("Collector capture of a PyTorch NCCL program: per-rank counts and NCCL annotations", "[io][collector][real]") {
  const JsonValue sums = load_json_file(fixture("summaries/torch_rec.summary.json"));
  const JsonValue results = load_json_file(test::source_path("resources/captures/h200x2_2026-11-30/collector/results.json"));
  const JsonField res(results, "results.json");
  // the manifest record wrote is read as it is
  const RecordManifest m = load_record_manifest(fixture("torch_rec/manifest.json"));
  CHECK(m.session == "2363232abb5c10a1");
  REQUIRE(m.exit_code);
  CHECK(*m.exit_code == 0);
  REQUIRE(m.files.size() == 3);
  CHECK(m.files[1].rank == 0);
  CHECK(m.files[1].kernels == 173);
  CHECK(m.files[1].complete);

  const Trace t = load_trace({fixture("torch_rec")});
  REQUIRE(t.processes.size() == 3);
  // torchrun itself: CUDA initialised, no GPU work
  const Process* launcher = process_with_rank(t, -1);
  REQUIRE(launcher);
  CHECK(launcher->pid == 2016);
  CHECK(launcher->name == "torchrun");  // its process_command: /opt/torch/.venv/bin/python /opt/torch/.venv/bin/torchrun ...
  const TraceSummary sum = summarize(t);
  for (const ProcessSummary& ps : sum.processes)
    if (t.processes[ps.process].rank < 0) {
      CHECK(ps.api_calls == 233);  // records_by_kind.api of vm-2016-rnone
      for (const DeviceSummary& ds : ps.devices) CHECK_FALSE(ds.has_events);
    }
  for (int32_t rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    const std::string file = rank == 0 ? "vm-2061-r0.pstrace" : "vm-2062-r1.pstrace";
    const JsonField s = summary_of(sums, "torch_rec.summary.json", file);
    const JsonField d = device_entry(s, rank);  // rank r runs on GPU r
    const uint32_t proc = process_index(t, rank);
    const int32_t dev = device_index(t, proc, rank);
    REQUIRE(dev >= 0);
    CHECK(t.devices[dev].pci_bus_id == d.at("pci_bus_id").as_string());
    // the whole file
    const GpuCounts all = gpu_counts(t, dev);
    CHECK(all.kernels == num(d, "kernels"));                       // 173
    CHECK(all.nccl_kernels == num(d, "nccl_kernels"));             // 57
    CHECK(all.nccl_annotated == num(d, "nccl_kernels_annotated"));  // 57
    CHECK(all.memcpys - all.peer == num(d, "memcpys"));            // 146
    CHECK(all.peer == num(d, "peer_memcpys"));                     // 6
    CHECK(all.memsets == num(d, "memsets"));                       // 208
    // syncs name contexts on both GPUs (the peer copies made a context on the other one)
    int64_t syncs = 0;
    for (const Device& other : t.devices)
      if (other.process == proc) syncs += gpu_counts(t, static_cast<int32_t>(&other - t.devices.data())).syncs;
    CHECK(syncs == num(s, "syncs"));  // 373
    const ProcessSummary& ps = sum.processes[proc];
    CHECK(ps.api_calls == num(s, "runtime_calls") + num(s, "driver_calls"));
    CHECK(ps.nvtx == num(s, "nvtx_ranges"));  // 232 ranges, no marks
    int64_t linked = 0;
    for (const CollectiveInfo& c : t.collectives)
      if (c.kernel.valid() && t.devices[t.tracks[c.kernel.track].key.device].process == proc) ++linked;
    CHECK(linked == s.at("nccl").at("operations_linked_to_kernels").as_int());  // 57

    // the measured window (the workload's CLOCK_REALTIME stamps): results.json torch.ranks[r].collector
    const auto [t0, t1] = window(fixture("torch_rec_win/window_rank" + std::to_string(rank) + ".json"));
    const JsonField expect = res.at("torch").at("ranks").at(static_cast<size_t>(rank)).at("collector").at(std::to_string(rank));
    const GpuCounts win = gpu_counts(t, dev, t0, t1);
    CHECK(win.kernels == num(expect, "kernels"));                // 150
    CHECK(win.memsets == num(expect, "memsets"));                // 100
    CHECK(win.memcpys - win.peer == num(expect, "memcpys"));     // 0
    CHECK(win.peer == num(expect, "peer_memcpys"));              // 5
    CHECK(win.nccl_kernels == num(expect, "nccl_kernels"));      // 50
    CHECK(win.nccl_annotated == num(expect, "nccl_annotated"));  // 50
    CHECK(win.peer_pairs.at({rank, 1 - rank}) == 5);
    // the NVTX range "measure" brackets the same window (results: 36 µs after t0, 5 µs before t1)
    bool measure = false;
    for (const Track& tr : t.tracks)
      if (tr.key.kind == TrackKind::kCpuThread && tr.key.process == proc)
        for (uint32_t i = 0; i < tr.slices.size(); ++i)
          if (t.str(tr.slices.name[i]) == "measure") {
            measure = true;
            const auto nv = res.at("torch").at("ranks").at(static_cast<size_t>(rank)).at("nvtx_vs_host_clock_ns");
            CHECK(tr.slices.start[i] - t0 == nv.at(size_t{0}).as_int());
            CHECK(t1 - tr.slices.end(i) == nv.at(size_t{1}).as_int());
            CHECK(gpu_counts(t, dev, tr.slices.start[i], tr.slices.end(i)).kernels == 150);
          }
    CHECK(measure);
    // the first all-reduce: results.json nccl_example (count, dtype, algorithm, protocol, channels, seq)
    const JsonField ex = res.at("torch").at("ranks").at(static_cast<size_t>(rank)).at("nccl_example");
    const CollectiveInfo* first = nullptr;
    for (const CollectiveInfo& c : t.collectives)
      if (c.kernel.valid() && t.devices[t.tracks[c.kernel.track].key.device].process == proc && c.sequence == 0) first = &c;
    REQUIRE(first);
    CHECK(first->op == CollectiveOp::kAllReduce);
    CHECK(first->in_elements == static_cast<uint64_t>(ex.at("count").as_int()));
    CHECK(t.str(first->dtype) == ex.at("dtype").as_string());
    CHECK(first->dtype_bytes == 2);
    CHECK(t.str(first->algorithm) == ex.at("algo").as_string());
    CHECK(t.str(first->protocol) == ex.at("proto").as_string());
    CHECK(first->channels == ex.at("channels").as_int());
    CHECK(first->rank == rank);
    CHECK(first->group_size == 2);  // the communicator's comm_init: nranks 2
    CHECK(t.kernels[t.tracks[first->kernel.track].slices.ref[first->kernel.index].index()].correlation ==
          static_cast<uint32_t>(ex.at("kernel_corr").as_int()));
    // every kernel was launched by an API call of its process (a launch flow)
    std::set<EventRef> launched;
    for (const Flow& f : t.flows)
      if (f.kind == FlowKind::kLaunch) launched.insert(f.to);
    int64_t kernels_with_flow = 0, kernels_total = 0;
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
      if (t.tracks[ti].key.device == dev && t.tracks[ti].key.kind == TrackKind::kGpuStream)
        for (uint32_t i = 0; i < t.tracks[ti].slices.size(); ++i)
          if (t.tracks[ti].slices.ref[i].kind() == SliceKind::kKernel) {
            ++kernels_total;
            kernels_with_flow += launched.count(EventRef{ti, i});
          }
    CHECK(kernels_with_flow == kernels_total);
  }
}

TEST_CASE("The PyTorch profiler and the collector see the same GPU work of the same program", "[io][collector][real]") {
  // Kineto traces of the profiled run (the profiler wraps exactly the measured loop) against the
  // collector's run of the same program over its measured window; both through our own readers.
  const Trace rec = load_trace({fixture("torch_rec")});
  for (int32_t rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    const Trace kin = load_trace({fixture("torch_prof/kineto_rank" + std::to_string(rank) + ".json.gz")});
    // Kineto names its GPU by the device ordinal: rank r runs on GPU r
    GpuCounts k;
    for (uint32_t d = 0; d < kin.devices.size(); ++d)
      if (kin.devices[d].ordinal == rank) k = gpu_counts(kin, static_cast<int32_t>(d));
    const auto [t0, t1] = window(fixture("torch_rec_win/window_rank" + std::to_string(rank) + ".json"));
    const GpuCounts c = gpu_counts(rec, device_index(rec, process_index(rec, rank), rank), t0, t1);
    CHECK(k.kernels == 150);  // results.json torch.ranks[r].kineto
    CHECK(k.memsets == 100);
    CHECK(c.kernels == k.kernels);
    CHECK(c.memsets == k.memsets);
    CHECK(c.nccl_kernels == k.nccl_kernels);
    CHECK(c.peer == k.peer);  // Kineto's "Memcpy PtoP" (no device arg: results.json counts it under None)
    // the same kernels by name: CUPTI's mangled names demangled as Kineto does
    CHECK(c.kernel_names == k.kernel_names);
  }
}

TEST_CASE("Sample record directory: measured NVLink counters on link tracks, cut files said", "[io][collector][real]") {
  const JsonValue sums = load_json_file(fixture("summaries/torch_nvl.summary.json"));
  const std::string dir = test::sample_path("record_torch_nccl_2xh200");
  const Trace t = load_trace({dir});
  for (int32_t rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    const JsonField s = summary_of(sums, "torch_nvl.summary.json", rank == 0 ? "vm-3490-r0.pstrace" : "vm-3491-r1.pstrace");
    const JsonField cs = s.at("counters");
    const JsonField clock = s.at("clock_syncs").at(size_t{0});
    const int64_t offset = clock.at("cupti_minus_globaltimer_ns").as_int();
    const uint32_t proc = process_index(t, rank);
    const int32_t dev = device_index(t, proc, rank);
    REQUIRE(dev >= 0);
    int tracks = 0;
    for (const Track& tr : t.tracks) {
      if (tr.key.kind != TrackKind::kLink || tr.key.process != proc) continue;
      ++tracks;
      CHECK(tr.key.device == dev);
      CHECK(tr.counter_source == CounterSource::kMeasured);
      CHECK(t.str(tr.unit) == "bytes/s");
      const Link& l = t.links[static_cast<size_t>(tr.key.id)];
      CHECK(l.src_device == dev);
      CHECK(l.dst_device == kNoDevice);  // per-GPU counters: the GPU ↔ fabric
      CHECK(l.medium == Medium::kNvLink);
      CHECK(l.capacity_bytes_per_s == Approx(849'960'000.0 * 1000 / 2));
      const std::string metric = l.direction == LinkDirection::kRx ? "nvlrx__bytes.sum" : "nvltx__bytes.sum";
      CHECK_THAT(std::string(t.str(tr.name)), Catch::Contains(metric));
      std::optional<JsonField> series;
      for (size_t i = 0; i < cs.size(); ++i)
        if (cs.at(i).at("metric").as_string() == metric) series.emplace(cs.at(i));
      REQUIRE(series);
      // one rate per sample (1013 on rank 0, 1014 on rank 1), back to back, then a closing 0
      const auto& c = tr.counter;
      CHECK(static_cast<int64_t>(c.size()) == series->at("samples").as_int() + 1);
      CHECK(c.value.back() == 0);
      // on the CUPTI clock: the sampler's %globaltimer plus the file's clock sync
      CHECK(c.time.front() == series->at("first_ns").as_int() + offset);
      CHECK(c.time.back() == series->at("last_ns").as_int() + offset);
      // the rates integrate back to the bytes the counters counted
      double bytes = 0;
      for (size_t i = 0; i + 1 < c.size(); ++i) bytes += c.value[i] * static_cast<double>(c.time[i + 1] - c.time[i]) * 1e-9;
      CHECK(bytes == Approx(series->at("sum").as_double()).epsilon(1e-9));
    }
    CHECK(tracks == 2);
    // NCCL kernels annotated: 57 on rank 0, 48 on rank 1 (its file was cut before the rest)
    const GpuCounts g = gpu_counts(t, dev);
    CHECK(g.nccl_annotated == device_entry(s, rank).at("nccl_kernels_annotated").as_int());
  }
  // the run crashed at exit (manifest: exit 1, both rank files unfinished and without index)
  auto warned = [&](const std::string& needle) {
    return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const std::string& w) { return w.find(needle) != std::string::npos; });
  };
  CHECK(warned("manifest.json: the recorded command exited with status 1"));
  CHECK(warned("vm-3490-r0.pstrace: has no end index"));
  CHECK(warned("vm-3491-r1.pstrace: has no end index"));
}
