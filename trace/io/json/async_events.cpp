#include "trace/io/json/importer.h"

namespace parascope::kineto {

// Chrome async events: one track per (category, id) — per process unless the id is global —
// where 'b'/'e' nest like a stack and 'n' is an instant.
void Importer::async_event(const RawEvent& e) {
  check_time(e);
  AsyncKey key{};
  const int64_t pid = pid_key(e);
  key.scope = pid;
  std::string_view id_text;
  bool have = false;
  if (e.id.present()) {
    have = true;
    id_text = e.id.text;
    key.scope = kGlobalScope;
  } else if (e.id2.type == JsonToken::Type::kObject) {
    // {"local": "0x1"} (process-scoped) or {"global": "0x1"}
    const JsonValue v = parse_json(e.id2.text, path_);
    if (const JsonValue* g = v.find("global")) {
      id_text = std::string_view(g->text());
      key.scope = kGlobalScope;
      have = !g->text().empty();
      id_storage_ = g->text();
    } else if (const JsonValue* l = v.find("local")) {
      id_storage_ = l->text();
      have = !id_storage_.empty();
    }
    id_text = id_storage_;
  }
  if (!have) {
    ++async_no_id_;
    return;
  }
  key.cat = b_.intern(e.cat);
  JsonToken tok;
  tok.type = JsonToken::Type::kString;
  tok.text = id_text;
  if (!flow_id_number(tok, key.id)) {
    key.id = b_.intern(id_text);
    key.id_is_string = true;
  }
  auto [it, inserted] = async_.try_emplace(key);
  AsyncTrack& at = it->second;
  if (inserted) {
    const uint32_t proc = process_for_pid(pid);
    const std::string label = std::string(e.name.empty() ? e.cat : e.name);
    const std::string ident = "async " + std::string(e.cat) + " " + std::string(id_text) +
                              (key.scope == kGlobalScope ? " global" : " pid " + std::to_string(pid));
    at.track = track(TrackKey{TrackKind::kAsync, proc, -1, kStringIdBase + b_.intern(ident)}, label);
  }
  scan(e);
  const char ph = e.ph[0];
  if (ph == 'b') {
    PendingBegin pb;
    pb.ts = e.ts;
    pb.name = intern(e.name);
    pb.args = arg_set(collect_args(e, 0));
    pb.event_index = e.index;
    pb.has_bind = e.bind_id.present() && flow_id_number(e.bind_id, pb.bind_id);
    pb.flow_in = e.flow_in;
    pb.flow_out = e.flow_out;
    at.open.push_back(pb);
  } else if (ph == 'n') {
    const EventRef r = add_slice(at.track, e.ts, 0, b_.intern(e.name), SliceRef(SliceKind::kInstant, SliceRef::kNoDetail),
                                 collect_args(e, 0));
    maybe_v2_flow(e, r, e.ts);
    ++async_slices_;
  } else {
    // 'e' closes the innermost open 'b' of the same name (or the innermost one when unnamed)
    size_t k = at.open.size();
    if (!e.name.empty()) {
      const StringId name = intern(e.name);
      while (k > 0 && at.open[k - 1].name != name) --k;
    }
    if (k == 0) {
      ++async_unmatched_;
      return;
    }
    const PendingBegin pb = at.open[k - 1];
    at.open.erase(at.open.begin() + static_cast<ptrdiff_t>(k - 1));
    if (e.ts < pb.ts) bad(e, "async 'e' at " + std::to_string(e.ts) + " ns is before its 'b' (event #" + std::to_string(pb.event_index) + ")");
    const EventRef r = add_slice(at.track, pb.ts, e.ts - pb.ts, pb.name, SliceRef(), merged_args(pb.args, e));
    if (pb.has_bind && (pb.flow_in || pb.flow_out)) binder_.add_v2(pb.bind_id, pb.flow_in, pb.flow_out, r, pb.ts);
    ++async_slices_;
  }
}

}  // namespace parascope::kineto
