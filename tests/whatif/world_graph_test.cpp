// A stand-in recording (record --world) of rank 0 of 4 through the reader into the 4-rank graph:
// the records become CollectiveInfo rows and a RecordedWorld, ranks 1-3 copy rank 0, groups are
// mapped to each copy's rank, and the prediction simulates every collective.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "sim/whatif/dep_graph.h"
#include "sim/whatif/what_if.h"
#include "test_paths.h"
#include "trace/collector/standin_capture.h"
#include "trace/core/topology_presets.h"
#include "trace/io/load_trace.h"

using namespace parascope;
using namespace parascope::whatif;

namespace {

// Rank 0 of 4 with TP groups [0, 1], [2, 3] (rank 0 is not in the second): an all-reduce of 1024
// float32 on [0, 1] (blocking wait: CPU tensors), an all-gather of 256 bfloat16 over the world, and
// a send of 64 float32 to group rank 1 of the world.
const char* kRecords =
    R"({"k":"world","v":1,"rank":0,"world_size":4,"pid":7,"host":"h","asked_backend":"nccl","torch":"2.11.0","t0":1000})" "\n"
    R"({"k":"group","id":0,"ranks":[0,1,2,3],"rank":0,"name":"0","desc":"default_pg"})" "\n"
    R"({"k":"group","id":1,"ranks":[0,1],"rank":0,"name":"1"})" "\n"
    R"({"k":"group","id":2,"ranks":[2,3],"rank":-1,"name":"2"})" "\n"
    R"({"k":"op","id":1,"op":"all_reduce","group":1,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":1024,"out_elems":1024,"tensors":1,"device":-1,"tid":7,"t0":10000,"t1":12000})" "\n"
    R"({"k":"wait","ops":[1],"how":"wait","device":-1,"tid":7,"t0":12500,"t1":13000,"blocking":true})" "\n"
    R"({"k":"op","id":2,"op":"all_gather_into_tensor","group":0,"seq":0,"dtype":"bfloat16","elem_bytes":2,"in_elems":256,"out_elems":1024,"tensors":1,"device":-1,"tid":7,"t0":20000,"t1":21000})" "\n"
    R"({"k":"wait","ops":[2],"how":"wait","device":-1,"tid":7,"t0":21500,"t1":22000,"blocking":true})" "\n"
    R"({"k":"op","id":3,"op":"send","group":0,"seq":-1,"dtype":"float32","elem_bytes":4,"in_elems":64,"out_elems":0,"tensors":1,"device":-1,"tid":7,"t0":30000,"t1":31000,"peer":1,"peer_global":1})" "\n";

Trace recorded() {
  const auto dir = test::temp_dir("world_graph");
  collector::write_standin_capture((dir / "h-7-r0.pstrace").string(),
                                   {{"host", "h"}, {"pid", "7"}, {"rank", "0"}, {"clock", "cupti"}}, kRecords);
  Trace t = load_trace({(dir / "h-7-r0.pstrace").string()});
  std::filesystem::remove_all(dir);
  return t;
}

}  // namespace

TEST_CASE("stand-in records import as a recorded world with one annotated collective per call", "[whatif][world]") {
  const Trace t = recorded();
  REQUIRE(t.worlds.size() == 1);
  CHECK(t.worlds[0].rank == 0);
  CHECK(t.worlds[0].world_size == 4);
  CHECK(t.worlds[0].asked_backend == "nccl");
  REQUIRE(t.worlds[0].groups.size() == 3);
  CHECK(t.worlds[0].groups[2].rank == -1);  // [2, 3]: created, rank 0 not a member
  REQUIRE(t.collectives.size() == 3);
  // sorted by the builder: the all-reduce, the all-gather, the send (call order)
  const CollectiveInfo& ar = t.collectives[0];
  CHECK(ar.op == CollectiveOp::kAllReduce);
  CHECK(t.str(ar.group_ranks) == "[0, 1]");
  CHECK(ar.group_size == 2);
  CHECK(ar.in_elements == 1024);
  CHECK(ar.dtype_bytes == 4);
  CHECK(ar.sequence == 0);
  CHECK(collective_bytes(ar) == 4096.0);
  const CollectiveInfo& ag = t.collectives[1];
  CHECK(ag.op == CollectiveOp::kAllGather);
  CHECK(collective_bytes(ag) == 512.0);  // the per-rank input: 256 x 2 bytes
  CHECK(t.collectives[2].op == CollectiveOp::kSend);
  CHECK(t.collectives[2].peer == 1);
}

TEST_CASE("a one-rank recording becomes the world's graph: copies, mapped groups, lonely sends", "[whatif][world]") {
  const Trace t = recorded();
  const DepGraph g = build_dep_graph(t);
  REQUIRE(g.processes.size() == 4);
  for (int32_t r = 0; r < 4; ++r) CHECK(g.processes[static_cast<size_t>(r)].rank == r);
  // groups: the all-reduce on [0, 1] (ranks 0, 1) and on [2, 3] (the copies 2 and 3, shifted by 2),
  // the all-gather over all 4, and 4 sends r -> r + 1 without receives (nobody recorded one)
  REQUIRE(g.groups.size() == 7);
  size_t complete = 0, four = 0, two = 0, alone = 0;
  for (const CommGroup& grp : g.groups) {
    complete += grp.complete;
    if (grp.members.size() == 4) {
      ++four;
      CHECK(grp.spec.op == CollectiveOp::kAllGather);
      CHECK(grp.spec.bytes == 512.0);
      CHECK(grp.spec.gpus == std::vector<int32_t>{0, 1, 2, 3});
    } else if (grp.members.size() == 2) {
      ++two;
      CHECK(grp.spec.op == CollectiveOp::kAllReduce);
      CHECK(grp.spec.bytes == 4096.0);
      CHECK((grp.spec.gpus == std::vector<int32_t>{0, 1} || grp.spec.gpus == std::vector<int32_t>{2, 3}));
    } else {
      ++alone;
      CHECK(grp.spec.op == CollectiveOp::kSendRecv);
      CHECK(grp.measured_only);
    }
  }
  CHECK(complete == 3);
  CHECK(four == 1);
  CHECK(two == 2);
  CHECK(alone == 4);
  bool said = false;
  for (const std::string& w : g.diagnostics.warnings) said = said || w.find("ranks 1-3 not recorded; they repeat recorded rank 0") != std::string::npos;
  CHECK(said);
  // blocking waits: each process has 2 host syncs (a stand-in wait per collective)
  CHECK(g.diagnostics.edges_by_kind[static_cast<int>(EdgeKind::kHostSync)] == 8);
}

TEST_CASE("the one-rank recording predicts on hgx_h200x8 with traffic on every GPU's link", "[whatif][world]") {
  const Trace t = recorded();
  const DepGraph g = build_dep_graph(t);
  WhatIfInput in;
  in.measured = &t;
  in.graph = &g;
  in.topology = find_topology("hgx_h200x8", test::source_path("resources/topologies"));
  const WhatIfOutput out = run_whatif(in);
  size_t busy = 0;
  for (const LinkUse& l : out.summary.links) busy += l.bytes > 0 && l.name.find("->nvswitch") != std::string::npos;
  CHECK(busy == 4);
  CHECK(out.summary.span_ns > 0);
}

namespace {

// The shape of a ParallelKernelBench recording (pkb_n2, rank 0 of 2, every reference in one
// process): the world group 0 [0, 1], per reference a new_group of every rank (group 3, the same
// ranks as the world) and one group per rank ([0]: 1, [1]: 2). Both [0, 1] groups count their
// calls from 0, so their sequences collide: rank 0's calls (0, 0) on group 0 and (3, 0) on group 3.
const char* kSameRanks =
    R"({"k":"world","v":1,"rank":0,"world_size":2,"pid":9,"host":"h","asked_backend":"nccl","torch":"2.11.0","t0":1000})" "\n"
    R"({"k":"group","id":0,"ranks":[0,1],"rank":0,"name":"0","desc":"default_pg"})" "\n"
    R"({"k":"group","id":1,"ranks":[0],"rank":0,"name":"1"})" "\n"
    R"({"k":"group","id":2,"ranks":[1],"rank":-1,"name":"2"})" "\n"
    R"({"k":"group","id":3,"ranks":[0,1],"rank":0,"name":"3"})" "\n"
    R"({"k":"op","id":1,"op":"all_reduce","group":0,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":1024,"out_elems":1024,"tensors":1,"device":-1,"tid":9,"t0":10000,"t1":11000})" "\n"
    R"({"k":"op","id":2,"op":"all_reduce","group":3,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":2048,"out_elems":2048,"tensors":1,"device":-1,"tid":9,"t0":20000,"t1":21000})" "\n"
    R"({"k":"op","id":3,"op":"all_reduce","group":1,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":64,"out_elems":64,"tensors":1,"device":-1,"tid":9,"t0":30000,"t1":31000})" "\n";

}  // namespace

TEST_CASE("groups of the same ranks keep their own calls: the world and a new_group of it", "[whatif][world]") {
  const auto dir = test::temp_dir("world_graph_same_ranks");
  collector::write_standin_capture((dir / "h-9-r0.pstrace").string(),
                                   {{"host", "h"}, {"pid", "9"}, {"rank", "0"}, {"clock", "cupti"}}, kSameRanks);
  const Trace t = load_trace({(dir / "h-9-r0.pstrace").string()});
  std::filesystem::remove_all(dir);
  const DepGraph g = build_dep_graph(t);
  REQUIRE(g.processes.size() == 2);
  // 4 groups, every one complete: group 0's call 0 on ranks 0 and 1 (4096 bytes), group 3's call
  // 0 on ranks 0 and 1 (8192 bytes), [0]'s call on rank 0 and [1]'s on the copy (one member each,
  // measured only). Matched by (ranks, sequence) as before, the two [0, 1] calls were one
  // rendezvous of 4 calls at 2 positions: 2 were dropped with no group and the replay wrote
  // group_start[-1] ("double free or corruption" on pkb_n2).
  REQUIRE(g.groups.size() == 4);
  std::vector<double> pair_bytes;
  size_t singles = 0;
  for (const CommGroup& grp : g.groups) {
    CHECK(grp.complete);
    if (grp.members.size() == 2) {
      pair_bytes.push_back(grp.spec.bytes);
      CHECK(grp.spec.gpus == std::vector<int32_t>{0, 1});
      CHECK(g.nodes[grp.members[0]].process != g.nodes[grp.members[1]].process);
    } else {
      REQUIRE(grp.members.size() == 1);
      CHECK(grp.measured_only);
      ++singles;
    }
  }
  std::sort(pair_bytes.begin(), pair_bytes.end());
  CHECK(pair_bytes == std::vector<double>{4096.0, 8192.0});
  CHECK(singles == 2);
  CHECK(g.diagnostics.unmatched.empty());
  for (const Node& n : g.nodes)
    if (n.kind == NodeType::kCollective) CHECK(n.group >= 0);
  WhatIfInput in;
  in.measured = &t;
  in.graph = &g;
  in.topology = find_topology("h200x2", test::source_path("resources/topologies"));
  const WhatIfOutput out = run_whatif(in);
  CHECK(out.summary.span_ns > 0);
}

TEST_CASE("a real recording's last step keeps its length at cpu_scale > 1", "[whatif][world][steps][captures]") {
  // rank 0 of 8 of the TP MLP on one H200 (resources/predictions/onegpu: tpmlp_n8 on hgx_h200x8
  // at the program's host scale S = 1.1406). A helper thread's call (cuDeviceGetName) starts
  // inside "step 5" before the main thread's first call; anchored on it, step 5 replayed 8.74 ms
  // as recorded and 56.57 ms at S against 3.7 ms for every other step and a 3.6 ms GPU range.
  const std::string rec = test::source_path("resources/captures/h200_onegpu_2026-12-02/rec/tpmlp_n8");
  const Trace t = load_trace({rec});
  GraphOptions opt;
  opt.step_regex = "^step ";
  const DepGraph g = build_dep_graph(t, opt);
  for (const char* scale : {"1", "1.1406"}) {
    WhatIfInput in;
    in.measured = &t;
    in.graph = &g;
    in.topology = find_topology("hgx_h200x8", test::source_path("resources/topologies"));
    in.knobs.set("cpu_scale", scale);
    const WhatIfOutput out = run_whatif(in);
    TimeNs step3 = 0, step5 = 0, gpu5 = 0;
    size_t ranks5 = 0;
    for (const StepTimes& st : out.summary.steps) {
      if (st.step == "step 3") step3 = std::max(step3, st.replay_ns);
      if (st.step == "step 5") {
        step5 = std::max(step5, st.replay_ns);
        gpu5 = std::max(gpu5, st.replay_gpu_ns);
        ++ranks5;
      }
    }
    INFO("cpu_scale " << scale << ": step 3 " << step3 << " ns, step 5 " << step5 << " ns (GPU " << gpu5 << " ns)");
    CHECK(ranks5 == 8);
    REQUIRE(step3 > 0);
    CHECK(std::abs(static_cast<double>(step5) / static_cast<double>(step3) - 1) < 0.05);
    CHECK(step5 < gpu5 * 11 / 10);  // a GPU-bound step: its host range about its GPU range
  }
}

namespace {

// Rank 0 of 4 calling new_group for the pairs [0, 1], [2, 3] twice (one split per library call, as
// ParallelKernelBench's references do) and all-reducing once on each [0, 1]. Rank 1's copy finds
// no group of the shifted set {1, 2}: it takes the pair of the same split that holds it.
const char* kSplits =
    R"({"k":"world","v":1,"rank":0,"world_size":4,"pid":5,"host":"h","asked_backend":"nccl","torch":"2.11.0","t0":1000})" "\n"
    R"({"k":"group","id":0,"ranks":[0,1,2,3],"rank":0,"name":"0","desc":"default_pg"})" "\n"
    R"({"k":"group","id":1,"ranks":[0,1],"rank":0,"name":"1"})" "\n"
    R"({"k":"group","id":2,"ranks":[2,3],"rank":-1,"name":"2"})" "\n"
    R"({"k":"group","id":3,"ranks":[0,1],"rank":0,"name":"3"})" "\n"
    R"({"k":"group","id":4,"ranks":[2,3],"rank":-1,"name":"4"})" "\n"
    R"({"k":"op","id":1,"op":"all_reduce","group":1,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":1024,"out_elems":1024,"tensors":1,"device":-1,"tid":5,"t0":10000,"t1":11000})" "\n"
    R"({"k":"op","id":2,"op":"all_reduce","group":3,"seq":0,"dtype":"float32","elem_bytes":4,"in_elems":2048,"out_elems":2048,"tensors":1,"device":-1,"tid":5,"t0":20000,"t1":21000})" "\n";

}  // namespace

TEST_CASE("a copy whose shifted group does not exist takes the pair of the same split", "[whatif][world]") {
  const auto dir = test::temp_dir("world_graph_splits");
  collector::write_standin_capture((dir / "h-5-r0.pstrace").string(),
                                   {{"host", "h"}, {"pid", "5"}, {"rank", "0"}, {"clock", "cupti"}}, kSplits);
  const Trace t = load_trace({(dir / "h-5-r0.pstrace").string()});
  std::filesystem::remove_all(dir);
  const DepGraph g = build_dep_graph(t);
  REQUIRE(g.processes.size() == 4);
  // 4 rendezvous of 2: the first split's call on ranks 0-1 and 2-3 (4096 bytes), the second's
  // (8192 bytes). Rank 1 (and 3) mapped every [0, 1] ([2, 3]) to the first one: it took part in
  // the first split's call twice and the second split's pairs lacked it.
  CHECK(g.diagnostics.unmatched.empty());
  REQUIRE(g.groups.size() == 4);
  std::vector<std::pair<double, std::vector<int32_t>>> got;
  for (const CommGroup& grp : g.groups) {
    CHECK(grp.complete);
    std::vector<int32_t> ranks;
    for (uint32_t m : grp.members) ranks.push_back(g.processes[g.nodes[m].process].rank);
    got.push_back({grp.spec.bytes, ranks});
  }
  std::sort(got.begin(), got.end());
  using Row = std::pair<double, std::vector<int32_t>>;
  CHECK(got == std::vector<Row>{{4096.0, {0, 1}}, {4096.0, {2, 3}}, {8192.0, {0, 1}}, {8192.0, {2, 3}}});
  for (const std::string& w : g.diagnostics.warnings) CHECK(w.find("recorded twice") == std::string::npos);
}

TEST_CASE("the PKB recording of rank 0 of 8 maps every stand-in call into a complete rendezvous", "[whatif][world][captures]") {
  // pkb_n8: 48_fsdp_and_tp makes the pairs [0, 1] .. [6, 7] and [0, 2, 4, 6], [1, 3, 5, 7] once per
  // call (a warm-up and 3 timed; 4 times); whatif warned that 12 collectives missed ranks and 12
  // were recorded twice.
  const Trace t = load_trace({test::source_path("resources/captures/h200_onegpu_2026-12-02/rec/pkb_n8")});
  const DepGraph g = build_dep_graph(t);
  CHECK(g.diagnostics.unmatched.empty());
  CHECK(g.diagnostics.complete_groups == g.groups.size());
  CHECK(g.groups.size() == 276);
  for (const std::string& w : g.diagnostics.warnings) {
    INFO(w);
    CHECK(w.find("recorded twice") == std::string::npos);
    CHECK(w.find("miss some") == std::string::npos);
  }
}

TEST_CASE("a stand-in stream is named for what it holds, in the trace, the graph and the prediction", "[whatif][world]") {
  // the synthetic recording: CPU tensors, so no stream to name; the group and its ranks
  const Trace cpu = recorded();
  std::vector<std::string> names;
  for (const Track& tr : cpu.tracks)
    if (tr.key.kind == TrackKind::kGpuStream && tr.key.id >= kStandInStreamBase) names.push_back(std::string(cpu.str(tr.name)));
  CHECK(std::count(names.begin(), names.end(), "stand-in collectives, group 1 [0, 1] (not measured)") == 1);
  CHECK(std::count(names.begin(), names.end(), "stand-in collectives, group 0 [0, 1, 2, 3] (not measured)") == 1);

  // the TP MLP on one H200: every call made on the program's stream 7
  const Trace t = load_trace({test::source_path("resources/captures/h200_onegpu_2026-12-02/rec/tpmlp_n8")});
  const Track* standin = nullptr;
  for (const Track& tr : t.tracks)
    if (tr.key.kind == TrackKind::kGpuStream && tr.key.id == kStandInStreamBase) standin = &tr;
  REQUIRE(standin);
  CHECK(t.str(standin->name) == "stand-in collectives, group 0 [0, 1, 2, 3, 4, 5, 6, 7], called on stream 7 (not measured)");
  CHECK(stream_label(standin->key) == "stand-in collectives (group 0)");
  CHECK(stream_label(TrackKey{TrackKind::kGpuStream, 0, 0, 7}) == "stream 7");
  CHECK(stream_label(TrackKey{TrackKind::kGpuStream, 0, 0, -1}) == "stream (none)");

  // the replay's lanes (critical path items) and the predicted trace's rows, copies included,
  // say the same where they said "stream 1000000000"
  GraphOptions opt;
  opt.step_regex = "^step ";
  const DepGraph g = build_dep_graph(t, opt);
  size_t lanes = 0;
  for (const Lane& l : g.lanes)
    if (l.kind == LaneKind::kStream && l.id == kStandInStreamBase) lanes += l.name == "stand-in collectives (group 0)";
  CHECK(lanes == 8);
  WhatIfInput in;
  in.measured = &t;
  in.graph = &g;
  in.topology = find_topology("hgx_h200x8", test::source_path("resources/topologies"));
  in.want_trace = true;
  const WhatIfOutput out = run_whatif(in);
  REQUIRE(out.trace);
  size_t rows = 0;
  for (const Track& tr : out.trace->tracks) {
    CHECK(out.trace->str(tr.name).find("1000000000") == std::string_view::npos);
    rows += out.trace->str(tr.name) == "stand-in collectives (group 0)";
  }
  CHECK(rows == 8);
  size_t on_path = 0;
  for (const CriticalItem& c : out.summary.critical_items) {
    CHECK(c.lane.find("1000000000") == std::string::npos);
    on_path += c.lane == "stand-in collectives (group 0)";
  }
  CHECK(on_path > 0);
}

TEST_CASE("comm_call_us puts the backend's enqueue back into a recording", "[whatif][world][captures]") {
  // rank 0 of 8 of the small GPT's DDP step on one H200, recorded with the collector: the GPU is busy
  // 16.86 of each 17.20 ms step, and each step's 8 gradient all-reduces are launched (by the stand-in)
  // from autograd's thread. At comm_call_us = 50 the calls stay in the GPU's shadow: the step does
  // not move. At 5000 us each call holds that thread's later launches: the step grows by about
  // 8 x 5 ms (the calls in series), never more.
  const Trace t = load_trace({test::source_path("resources/captures/h200_onegpu_2026-12-02/rec/gpt_n8")});
  GraphOptions opt;
  opt.step_regex = "^step ";
  const DepGraph g = build_dep_graph(t, opt);
  auto median_step = [&](const char* us) {
    WhatIfInput in;
    in.measured = &t;
    in.graph = &g;
    in.topology = find_topology("hgx_h200x8", test::source_path("resources/topologies"));
    if (us) in.knobs.set("comm_call_us", us);
    const WhatIfOutput out = run_whatif(in);
    std::vector<TimeNs> steps;
    for (const StepTimes& st : out.summary.steps) steps.push_back(st.replay_ns);
    REQUIRE(steps.size() >= 3);
    std::sort(steps.begin(), steps.end());
    return std::make_pair(steps[steps.size() / 2], out.summary.changes);
  };
  const auto [base, none] = median_step(nullptr);
  const auto [at50, changes] = median_step("50");
  const auto [at5000, changes5000] = median_step("5000");
  const auto [recorded, as_recorded] = median_step("-1");  // set to -1: the stand-in's own 1-2 us, as recorded
  CHECK(as_recorded.empty());
  CHECK(recorded == base);  // in the GPU's shadow either way
  INFO("median step " << base << " ns as recorded, " << at50 << " ns at 50 us, " << at5000 << " ns at 5000 us");
  // unset: the stand-in's calls get the machine's measured backend cost (hgx_h200x8's host profile)
  REQUIRE(none.size() == 1);
  CHECK(none[0].rfind("set the host time of 568 communication launch calls to 27 us (stand-in calls; the backend's "
                      "host time per call on hgx_h200x8: scripts/gpu/backend_step_cost.py", 0) == 0);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0] == "set the host time of 568 communication launch calls to 50 us");  // 71 per rank, 8 ranks
  CHECK(at50 == base);
  CHECK(at5000 > base + 8 * 5'000'000 * 9 / 10);
  CHECK(at5000 <= base + 8 * 5'000'000);
}

TEST_CASE("The machine's backend cost per call goes to the stand-in's calls only, never to traced ones", "[whatif][world][captures]") {
  // a real 2-rank NCCL run (tensor-parallel, profiler trace): its launch calls are as traced on h200x2,
  // whose host profile says 27 us per call; only record --world's stand-in calls take that
  const Trace t = load_trace({test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1")});
  const DepGraph g = build_dep_graph(t, GraphOptions{});
  WhatIfInput in;
  in.measured = &t;
  in.graph = &g;
  in.topology = find_topology("h200x2", test::source_path("resources/topologies"));
  REQUIRE(in.topology.host);
  CHECK(in.topology.host->collective_call_ns == 27000);
  const WhatIfOutput out = run_whatif(in);
  CHECK(out.summary.changes.empty());
  in.knobs.set("comm_call_us", "27");  // set: every selected call, traced or not
  const WhatIfOutput set = run_whatif(in);
  REQUIRE(set.summary.changes.size() == 1);
  CHECK(set.summary.changes[0].rfind("set the host time of ", 0) == 0);
}
