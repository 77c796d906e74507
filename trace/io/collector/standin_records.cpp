#include "trace/io/collector/standin_records.h"

#include "trace/core/json.h"

namespace parascope::standin {

namespace {

struct Line {
  const JsonValue& v;
  const std::string& file;
  int64_t line;
  int64_t offset;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    InputLocation where;
    where.file = file;
    where.byte_offset = offset;
    where.event_index = line;
    where.field = "stand-in record, line " + std::to_string(line + 1) + (field.empty() ? "" : ", " + field);
    throw InputError(where, problem);
  }
  const JsonValue* get(const char* key) const {
    const JsonValue* x = v.find(key);
    return x && !x->is_null() ? x : nullptr;
  }
  int64_t integer(const char* key, int64_t def) const {
    const JsonValue* x = get(key);
    if (!x) return def;
    const auto i = x->is_number() ? x->as_int() : std::nullopt;
    if (!i) fail(key, "expected an integer");
    return *i;
  }
  uint64_t unsigned_integer(const char* key, uint64_t def) const {
    const JsonValue* x = get(key);
    if (!x) return def;
    const auto i = x->is_number() ? x->as_uint() : std::nullopt;
    if (!i) fail(key, "expected a non-negative integer");
    return *i;
  }
  int32_t int32(const char* key, int32_t def) const {
    const int64_t i = integer(key, def);
    if (i < INT32_MIN || i > INT32_MAX) fail(key, "out of range");
    return static_cast<int32_t>(i);
  }
  std::string text(const char* key) const {
    const JsonValue* x = get(key);
    if (!x) return {};
    if (!x->is_string()) fail(key, "expected a string");
    return x->text();
  }
  bool flag(const char* key) const {
    const JsonValue* x = get(key);
    if (!x) return false;
    if (x->type() != JsonValue::Type::kBool) fail(key, "expected true or false");
    return x->as_bool();
  }
  template <class T>
  std::vector<T> list(const char* key) const {
    std::vector<T> out;
    const JsonValue* x = get(key);
    if (!x) return out;
    if (!x->is_array()) fail(key, "expected an array");
    for (const JsonValue& e : x->items()) {
      const auto i = e.is_number() ? e.as_int() : std::nullopt;
      if (!i || (std::is_unsigned_v<T> && *i < 0)) fail(key, "expected integers");
      out.push_back(static_cast<T>(*i));
    }
    return out;
  }
  int64_t time(const char* key) const {
    const int64_t t = integer(key, 0);
    if (t < 0 || t > (int64_t{1} << 62)) fail(key, "time " + std::to_string(t) + " ns is outside 0..2^62");
    return t;
  }
};

}  // namespace

void parse_records(std::string_view text, const std::string& file, Records& out) {
  size_t pos = 0;
  int64_t line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view s = text.substr(pos, end - pos);
    const auto offset = static_cast<int64_t>(pos);
    pos = end + 1;
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) {
      ++line;
      continue;
    }
    JsonValue v;
    try {
      v = parse_json(s, file, 16);
    } catch (const InputError& e) {
      Line{JsonValue(), file, line, offset}.fail("", e.problem());
    }
    const Line l{v, file, line, offset};
    if (!v.is_object()) l.fail("", "expected a JSON object");
    const std::string k = l.text("k");
    if (k == "world") {
      World w;
      w.rank = l.int32("rank", -1);
      w.world_size = l.int32("world_size", 0);
      if (w.world_size < 1 || w.world_size > 1 << 20) l.fail("world_size", "expected 1..1048576");
      if (w.rank < 0 || w.rank >= w.world_size) l.fail("rank", "outside the world of " + std::to_string(w.world_size));
      const int64_t schema = l.integer("v", kSchemaVersion);
      if (schema > kSchemaVersion) l.fail("v", "schema " + std::to_string(schema) + " is newer than this reader's " + std::to_string(kSchemaVersion));
      w.pid = l.integer("pid", 0);
      w.host = l.text("host");
      w.asked_backend = l.text("asked_backend");
      w.torch = l.text("torch");
      out.world = std::move(w);
    } else if (k == "group") {
      Group g;
      g.id = l.int32("id", -1);
      if (g.id < 0) l.fail("id", "expected a group id >= 0");
      g.ranks = l.list<int32_t>("ranks");
      g.rank = l.int32("rank", -1);
      if (g.rank >= static_cast<int32_t>(g.ranks.size())) l.fail("rank", "outside the group's " + std::to_string(g.ranks.size()) + " ranks");
      g.name = l.text("name");
      g.desc = l.text("desc");
      g.asked_backend = l.text("asked_backend");
      out.groups.push_back(std::move(g));
    } else if (k == "op") {
      Op o;
      o.id = l.integer("id", 0);
      o.op = l.text("op");
      if (o.op.empty()) l.fail("op", "missing");
      o.group = l.int32("group", -1);
      o.seq = l.integer("seq", -1);
      o.dtype = l.text("dtype");
      o.elem_bytes = static_cast<uint32_t>(l.unsigned_integer("elem_bytes", 0));
      if (o.elem_bytes > 64) l.fail("elem_bytes", "expected 0..64");
      o.in_elems = l.unsigned_integer("in_elems", 0);
      o.out_elems = l.unsigned_integer("out_elems", 0);
      if (o.in_elems > (uint64_t{1} << 50) || o.out_elems > (uint64_t{1} << 50)) l.fail("in_elems", "beyond 2^50 elements");
      o.tensors = static_cast<uint32_t>(l.unsigned_integer("tensors", 0));
      o.device = l.int32("device", -1);
      o.stream = l.unsigned_integer("stream", 0);
      o.stream_id = l.integer("stream_id", -1);
      o.tid = static_cast<uint32_t>(l.unsigned_integer("tid", 0));
      o.t0 = l.time("t0");
      o.t1 = l.time("t1");
      if (o.t1 < o.t0) l.fail("t1", "before t0");
      o.root = l.int32("root", -1);
      o.peer = l.int32("peer", -1);
      o.peer_global = l.int32("peer_global", -1);
      o.peer_guessed = l.flag("peer_guessed");
      o.reduce = l.text("reduce");
      o.in_splits = l.list<uint64_t>("in_splits");
      o.out_splits = l.list<uint64_t>("out_splits");
      o.coalesced = l.integer("coalesced", -1);
      out.ops.push_back(std::move(o));
    } else if (k == "wait") {
      Wait w;
      w.ops = l.list<int64_t>("ops");
      w.how = l.text("how");
      w.device = l.int32("device", -1);
      w.stream = l.unsigned_integer("stream", 0);
      w.stream_id = l.integer("stream_id", -1);
      w.tid = static_cast<uint32_t>(l.unsigned_integer("tid", 0));
      w.t0 = l.time("t0");
      w.t1 = l.time("t1");
      w.blocking = l.flag("blocking");
      out.waits.push_back(std::move(w));
    }
    ++line;
  }
}

CollectiveOp op_kind(std::string_view op) {
  if (op == "all_reduce" || op == "all_reduce_coalesced") return CollectiveOp::kAllReduce;
  if (op.rfind("all_gather", 0) == 0) return CollectiveOp::kAllGather;
  if (op.rfind("reduce_scatter", 0) == 0) return CollectiveOp::kReduceScatter;
  if (op.rfind("all_to_all", 0) == 0) return CollectiveOp::kAllToAll;
  if (op == "broadcast") return CollectiveOp::kBroadcast;
  if (op == "reduce") return CollectiveOp::kReduce;
  if (op == "send") return CollectiveOp::kSend;
  if (op == "recv") return CollectiveOp::kRecv;
  if (op == "barrier") return CollectiveOp::kBarrier;
  if (op == "gather") return CollectiveOp::kGather;
  if (op == "scatter") return CollectiveOp::kScatter;
  return CollectiveOp::kUnknown;
}

bool is_point_to_point(std::string_view op) { return op == "send" || op == "recv"; }

}  // namespace parascope::standin
