#include "trace/io/json/importer.h"

#include <algorithm>

namespace parascope::kineto {

void Importer::flow_event(const RawEvent& e) {
  check_time(e);
  // Kineto's ac2g flows repeat its correlation ids, which link launches to kernels exactly
  // (link_launches); every other flow goes through the binder.
  if (kineto_ && e.cat == "ac2g") return;
  FlowBinder::V1Key key;
  const JsonToken& id = e.id.present() ? e.id : e.id2;
  if (!flow_id_number(id, key.id)) {
    if (!id.present()) {
      ++report_.unbound_flow_events;
      return;
    }
    key.id = b_.intern(id.text);
    key.id_is_string = true;
  }
  key.cat = b_.intern(e.cat);
  key.name = b_.intern(e.name);
  Thread& th = thread(e);
  const FlowKind kind = e.cat == "fwdbwd" ? FlowKind::kDependency : FlowKind::kGeneric;
  binder_.add_v1(e.ph[0], key, e.bp == "e", e.ts, thread_number(th), kind);
}

// Launch flows: runtime/driver call → GPU activity with the same correlation id. A GPU event with
// no launch in the file keeps its "External id" as an arg (with a launch, the id is the launching
// call's, reachable through the flow).
void Importer::link_launches() {
  auto by_corr = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::sort(api_calls_.begin(), api_calls_.end(), by_corr);
  Trace& tr = b_.trace();
  int64_t launches = 0;
  for (const GpuRecord& g : gpu_events_) {
    bool linked = false;
    if (g.correlation) {
      auto it = std::lower_bound(api_calls_.begin(), api_calls_.end(), std::make_pair(g.correlation, EventRef{}), by_corr);
      if (it != api_calls_.end() && it->first == g.correlation) {
        b_.add_flow(it->second, g.ref, FlowKind::kLaunch);
        ++launches;
        linked = true;
      }
    }
    if (!linked && g.external_id) {
      auto& col = tr.tracks[g.ref.track].slices.args;
      const uint32_t old = col.empty() ? kNone32 : col[g.ref.index];
      const auto prev = tr.args.get(old);
      std::vector<Arg> with(prev.begin(), prev.end());
      with.push_back(Arg{b_.intern("External id"), ArgValue::of_uint(g.external_id)});
      if (col.empty()) col.assign(tr.tracks[g.ref.track].slices.size(), kNone32);
      col[g.ref.index] = tr.args.add(with);
    }
  }
  report_.flows += launches;
}

// Collective annotations get the record_param_comms op that issued them (same External id), and
// its Seq / peer when the kernel does not carry them.
void Importer::link_collectives() {
  Trace& tr = b_.trace();
  for (const auto& [ext, ci] : collectives_) {
    auto it = param_comms_.find(ext);
    if (it == param_comms_.end()) continue;
    CollectiveInfo& c = tr.collectives[ci];
    c.cpu_op = it->second.ref;
    if (c.sequence < 0) c.sequence = it->second.seq;
    if (c.peer < 0) {
      const int32_t dst = it->second.dst_rank, src = it->second.src_rank;
      if (dst >= 0 && dst != rank_) c.peer = dst;
      else if (src >= 0 && src != rank_) c.peer = src;
    }
  }
}

void Importer::bind_flows(TimeNs offset) {
  if (binder_.empty()) return;
  for (uint32_t i = 0; i < threads_.size(); ++i) binder_.set_thread_tracks(i, threads_[i].tracks);
  for (uint32_t t = 0; t < first_row_.size(); ++t)
    if (first_row_[t] != kNoTrack && first_row_[t] > 0) binder_.set_first_row(t, first_row_[t]);
  const FlowBindStats s = binder_.bind(b_, offset);
  report_.flows += s.flows;
  report_.unbound_flow_events += s.unbound + s.without_start;
  if (s.unbound)
    b_.warn(path_ + ": " + std::to_string(s.unbound) + " flow events have no slice to bind to (none encloses or follows them on their thread)");
  if (s.without_start)
    b_.warn(path_ + ": " + std::to_string(s.without_start) + " flow steps/ends have no flow start with their id");
  if (s.duplicate_starts)
    b_.warn(path_ + ": " + std::to_string(s.duplicate_starts) + " flow starts reuse an open flow id; ignored");
}

}  // namespace parascope::kineto
