#include "trace/io/json/importer.h"

#include "trace/io/json/counter_key.h"

namespace parascope::kineto {

void Importer::complete(const RawEvent& e) {
  check_time(e);
  if (!e.has_dur) bad(e, "'X' event has no \"dur\"");
  if (e.dur < 0) bad(e, "negative \"dur\" (" + std::to_string(e.dur) + " ns)");
  const Cat cat = classify_cat(e.cat);
  scan(e);
  Thread& th = thread(e);
  if (is_gpu(cat)) {
    gpu_complete(e, th, cat);
    return;
  }
  const uint32_t t = cpu_track(th, e);
  SliceRef ref;
  uint64_t structured = 0;
  switch (cat) {
    case Cat::kCpuOp:
    case Cat::kUserAnnotation:
    case Cat::kPythonFunction: {
      CpuOpInfo op;
      op.external_id = U64Split(f_.u64(kExternalId));
      op.flops = U64Split(f_.u64(kFlops));
      const int64_t seq = f_.i64(kSequenceNumber, -1);
      op.sequence = seq >= 0 && seq < kNone32 ? static_cast<uint32_t>(seq) : kNone32;
      ref = b_.add_cpu_op(op);
      structured = kCpuOpRoles;
      break;
    }
    case Cat::kRuntime:
    case Cat::kDriver: {
      ApiInfo api;
      api.correlation = static_cast<uint32_t>(f_.u64(kCorrelation));
      api.cbid = static_cast<uint32_t>(f_.u64(kCbid));
      ref = b_.add_api_call(api);
      structured = kApiRoles;
      break;
    }
    case Cat::kOverhead: ref = SliceRef(SliceKind::kOverhead, SliceRef::kNoDetail); break;
    default: break;
  }
  const StringId name = intern(e.name);
  const EventRef r = add_slice(t, e.ts, e.dur, name, ref, collect_args(e, structured));
  maybe_v2_flow(e, r, e.ts);
  if (ref.kind() == SliceKind::kRuntimeApi) {
    const uint32_t corr = b_.trace().api_calls[ref.index()].correlation;
    if (corr) api_calls_.emplace_back(corr, r);
  } else if (cat == Cat::kCpuOp && e.name == "record_param_comms") {
    ParamComms pc;
    pc.ref = r;
    pc.seq = f_.i64(kSeq, -1);
    pc.src_rank = static_cast<int32_t>(f_.i64(kSrcRank, -1));
    pc.dst_rank = static_cast<int32_t>(f_.i64(kDstRank, -1));
    if (const uint64_t ext = f_.u64(kExternalId)) param_comms_.try_emplace(ext, pc);
  }
}

void Importer::begin(const RawEvent& e) {
  check_time(e);
  scan(e);
  Thread& th = thread(e);
  PendingBegin pb;
  pb.ts = e.ts;
  pb.name = intern(e.name);
  pb.args = arg_set(collect_args(e, 0));
  pb.event_index = e.index;
  pb.has_bind = e.bind_id.present() && flow_id_number(e.bind_id, pb.bind_id);
  pb.flow_in = e.flow_in;
  pb.flow_out = e.flow_out;
  th.open.push_back(pb);
}

void Importer::end(const RawEvent& e) {
  check_time(e);
  Thread& th = thread(e);
  if (th.open.empty()) {
    ++unmatched_ends_;
    return;
  }
  const PendingBegin pb = th.open.back();
  th.open.pop_back();
  if (e.ts < pb.ts) bad(e, "'E' at " + std::to_string(e.ts) + " ns is before its 'B' (event #" + std::to_string(pb.event_index) + ")");
  const uint32_t t = cpu_track(th, e);
  const EventRef r = add_slice(t, pb.ts, e.ts - pb.ts, pb.name, SliceRef(), merged_args(pb.args, e));
  if (pb.has_bind && (pb.flow_in || pb.flow_out)) binder_.add_v2(pb.bind_id, pb.flow_in, pb.flow_out, r, pb.ts);
}

void Importer::instant(const RawEvent& e) {
  check_time(e);
  scan(e);
  const SliceRef kind(SliceKind::kInstant, SliceRef::kNoDetail);
  // global-scope instants belong to no thread: one track per process holds them (process scope too)
  if (e.scope == "g" || e.scope == "p") {
    const uint32_t proc = process_for_pid(pid_key(e));
    const char* label = e.scope == "g" ? "global instants" : "process instants";
    const uint32_t t = track(TrackKey{TrackKind::kCpuThread, proc, -1, kStringIdBase + b_.intern(label)}, label);
    add_slice(t, e.ts, 0, intern(e.name), kind, collect_args(e, 0));
    return;
  }
  Thread& th = thread(e);
  const uint32_t t = cpu_track(th, e);
  const EventRef r = add_slice(t, e.ts, 0, intern(e.name), kind, collect_args(e, 0));
  maybe_v2_flow(e, r, e.ts);
  if (e.name == "[memory]") memory_sample(e, th);
}

void Importer::counter(const RawEvent& e) {
  check_time(e);
  const uint32_t proc = process_for_pid(pid_key(e));
  std::string prefix(e.name);
  if (e.id.present()) prefix.append(" id: ").append(e.id.text);
  for (const RawArg& a : e.args) {
    double v;
    if (!a.value.to_double(v)) continue;
    const CounterArgKey key = split_counter_arg_key(a.key);  // "value [bytes/s]": our writer's unit
    std::string series = prefix;
    if (e.args.size() > 1 || key.series != "value") series.append(".").append(key.series);
    const int64_t id = kStringIdBase + b_.intern(series);
    const uint32_t t = track(TrackKey{TrackKind::kCounter, proc, -1, id}, series);
    if (!key.unit.empty()) b_.trace().tracks[t].unit = b_.intern(key.unit);
    touch_samples(t);
    b_.add_counter_sample(t, e.ts, v);
  }
}

void Importer::metadata_event(const RawEvent& e) {
  const ThreadKey k{pid_key(e), tid_key(e)};
  if (e.name == "process_name" || e.name == "thread_name") {
    const RawArg* a = e.arg("name");
    if (!a || !a->value.is_string()) return;
    if (e.name[0] == 'p') pid_names_[k.pid] = std::string(a->value.text);
    else thread_names_[k] = std::string(a->value.text);
  } else if (e.name == "process_sort_index" || e.name == "thread_sort_index") {
    const RawArg* a = e.arg("sort_index");
    int64_t v;
    if (!a || !a->value.to_int(v)) return;
    if (e.name[0] == 'p') pid_sort_[k.pid] = v;
    else thread_sort_[k] = v;
  }
  // process_labels and other metadata carry nothing the model holds
}

}  // namespace parascope::kineto
