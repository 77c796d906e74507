#include "trace/io/pstrace/standin_import.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace parascope {

namespace {

struct Launched {
  TimeNs launch = 0, end = 0;
  EventRef ref;
};

std::string ranks_text(const std::vector<int32_t>& ranks) {
  std::string s = "[";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s + "]";
}

}  // namespace

StandInImportReport import_standin(TraceBuilder& b, const standin::Records& records_in, int64_t realtime_offset_ns,
                                   const StandInImportHooks& hooks) {
  standin::Records records = records_in;
  for (standin::Op& o : records.ops) o.t0 += realtime_offset_ns, o.t1 += realtime_offset_ns;
  for (standin::Wait& w : records.waits) w.t0 += realtime_offset_ns, w.t1 += realtime_offset_ns;
  StandInImportReport rep;
  if (!records.world) {
    if (!records.ops.empty()) hooks.warn("stand-in records without a world record (init_process_group) are ignored");
    return rep;
  }
  const standin::World& w = *records.world;
  const uint32_t proc = hooks.process();
  {
    RecordedWorld rw;
    rw.process = proc;
    rw.rank = w.rank;
    rw.world_size = w.world_size;
    rw.asked_backend = w.asked_backend;
    rw.torch_version = w.torch;
    for (const standin::Group& g : records.groups) {
      if (g.id < 0 || g.id > 1 << 20) continue;
      if (rw.groups.size() <= static_cast<size_t>(g.id)) rw.groups.resize(static_cast<size_t>(g.id) + 1);
      rw.groups[static_cast<size_t>(g.id)] = RecordedGroup{g.ranks, g.rank, g.name, g.desc};
    }
    b.trace().worlds.push_back(std::move(rw));
    Process& p = b.trace().processes[proc];
    if (p.rank < 0) p.rank = w.rank;
  }
  const std::vector<RecordedGroup>& groups = b.trace().worlds.back().groups;

  // What was launched on each GPU stream of this process, by launch time (provisional refs).
  Trace& t = b.trace();
  std::unordered_map<uint64_t, EventRef> launch_of;  // gpu slice -> its launch call
  for (const Flow& f : t.flows)
    if (f.kind == FlowKind::kLaunch) launch_of[(uint64_t{f.to.track} << 32) | f.to.index] = f.from;
  std::map<std::pair<uint32_t, int64_t>, std::vector<Launched>> by_stream;  // (device, CUPTI stream)
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    if (tr.key.kind != TrackKind::kGpuStream || tr.key.process != proc || tr.key.device < 0 || tr.key.id >= kStandInStreamBase)
      continue;
    auto& list = by_stream[{static_cast<uint32_t>(tr.key.device), tr.key.id}];
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      const SliceKind k = tr.slices.ref[i].kind();
      if (k != SliceKind::kKernel && k != SliceKind::kMemcpy && k != SliceKind::kMemset) continue;
      Launched l;
      l.ref = EventRef{ti, i};
      l.end = tr.slices.start[i] + tr.slices.dur[i];
      l.launch = tr.slices.start[i];
      if (auto it = launch_of.find((uint64_t{ti} << 32) | i); it != launch_of.end())
        l.launch = t.tracks[it->second.track].slices.start[it->second.index];
      list.push_back(l);
    }
  }
  for (auto& [key, list] : by_stream)
    std::stable_sort(list.begin(), list.end(), [](const Launched& a, const Launched& c) { return a.launch < c.launch; });
  auto stream_list = [&](uint32_t dev, int64_t stream) -> const std::vector<Launched>* {
    auto it = by_stream.find({dev, stream});
    return it == by_stream.end() ? nullptr : &it->second;
  };

  std::map<std::pair<uint32_t, int32_t>, uint32_t> comm_tracks;  // (device, group) -> track
  std::map<uint32_t, std::set<int64_t>> called_on;                 // track -> CUPTI streams the calls came from
  std::unordered_map<int64_t, std::pair<EventRef, uint32_t>> kernel_of;  // op id -> (kernel, trace device)
  const StringId dtype_none = b.intern("none");
  std::vector<const standin::Op*> ops;
  for (const standin::Op& o : records.ops) ops.push_back(&o);
  std::stable_sort(ops.begin(), ops.end(), [](const standin::Op* a, const standin::Op* c) { return a->t0 < c->t0; });
  for (const standin::Op* op : ops) {
    const standin::Op& o = *op;
    const uint32_t dev = hooks.device(static_cast<uint32_t>(std::max(0, o.device)));
    const RecordedGroup* g = o.group >= 0 && static_cast<size_t>(o.group) < groups.size() ? &groups[static_cast<size_t>(o.group)] : nullptr;
    auto [ct, fresh] = comm_tracks.try_emplace({dev, o.group}, 0);
    if (fresh)  // named below, once the streams its calls came from are known
      ct->second = b.track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), kStandInStreamBase + std::max(0, o.group)},
                           "stand-in collectives");
    if (o.stream_id >= 0) called_on[ct->second].insert(o.stream_id);
    const uint32_t thread = hooks.thread_track(o.tid);
    const EventRef call = b.add_slice(thread, o.t0, o.t1 - o.t0, b.intern("stand-in " + o.op), b.add_api_call(ApiInfo{}));
    TimeNs start = o.t1;
    const Launched* pred = nullptr;
    if (o.device >= 0 && o.stream_id >= 0)
      if (const auto* list = stream_list(dev, o.stream_id)) {
        auto it = std::lower_bound(list->begin(), list->end(), o.t0, [](const Launched& l, TimeNs v) { return l.launch < v; });
        if (it != list->begin()) pred = &*std::prev(it);
      }
    if (pred) start = std::max(start, pred->end);
    const EventRef kernel = b.add_slice(ct->second, start, 0, b.intern("stand-in " + o.op + " " + o.dtype), b.add_kernel(KernelInfo{}));
    b.add_flow(call, kernel, FlowKind::kLaunch);
    if (pred) {
      b.add_flow(pred->ref, kernel, FlowKind::kDependency);
      ++rep.stream_dependencies;
    }
    CollectiveInfo c;
    c.op = standin::op_kind(o.op);
    c.dtype = o.dtype.empty() ? dtype_none : b.intern(o.dtype);
    c.dtype_bytes = static_cast<uint8_t>(std::min<uint32_t>(o.elem_bytes, 255));
    c.rank = g ? g->rank : w.rank;
    c.group_size = g ? static_cast<int32_t>(g->ranks.size()) : w.world_size;
    c.group = b.intern(g && !g->name.empty() ? g->name : "stand-in group " + std::to_string(o.group));
    c.group_ranks = b.intern(g ? ranks_text(g->ranks) : std::string());
    c.sequence = o.seq;
    c.in_elements = o.in_elems;
    c.out_elements = o.out_elems;
    c.kernel = kernel;
    c.peer = o.peer;
    b.add_collective(c);
    kernel_of[o.id] = {kernel, dev};
    ++rep.ops;
  }

  // "stand-in collectives, group 0 [0, 1], called on stream 7 (not measured)": what the row holds,
  // the group, and the program's stream the calls were made on (NCCL would have run them on a
  // stream of its own, waiting for that one)
  for (const auto& [key, track] : comm_tracks) {
    const int32_t gid = key.second;
    const RecordedGroup* g = gid >= 0 && static_cast<size_t>(gid) < groups.size() ? &groups[static_cast<size_t>(gid)] : nullptr;
    std::string name = "stand-in collectives, group " + std::to_string(gid) + (g ? " " + ranks_text(g->ranks) : std::string());
    if (const auto it = called_on.find(track); it != called_on.end()) {
      name += it->second.size() > 1 ? ", called on streams " : ", called on stream ";
      bool first = true;
      for (int64_t s : it->second) name += (first ? "" : ", ") + std::to_string(s), first = false;
    }
    b.set_track_name(track, name + " (not measured)");
  }

  std::set<std::tuple<int64_t, uint32_t, uint32_t>> linked;  // (op, target track, target index)
  const StringId wait_name = b.intern("stand-in wait");
  for (const standin::Wait& wt : records.waits) {
    ++rep.waits;
    EventRef host_wait;
    for (int64_t id : wt.ops) {
      auto k = kernel_of.find(id);
      if (k == kernel_of.end()) continue;
      if (!wt.blocking && wt.device >= 0 && wt.stream_id >= 0) {
        const auto* list = stream_list(hooks.device(static_cast<uint32_t>(wt.device)), wt.stream_id);
        if (!list) continue;
        auto it = std::lower_bound(list->begin(), list->end(), wt.t0, [](const Launched& l, TimeNs v) { return l.launch < v; });
        if (it == list->end() || !linked.insert({id, it->ref.track, it->ref.index}).second) continue;
        b.add_flow(k->second.first, it->ref, FlowKind::kDependency);
        ++rep.wait_dependencies;
      } else if (wt.blocking || wt.stream_id < 0) {
        if (!host_wait.valid()) {
          host_wait = b.add_slice(hooks.thread_track(wt.tid), wt.t0, wt.t1 - wt.t0, wait_name, b.add_api_call(ApiInfo{}));
          ++rep.host_waits;
        }
        b.add_flow(k->second.first, host_wait, FlowKind::kDependency);
      }
    }
  }
  return rep;
}

}  // namespace parascope
