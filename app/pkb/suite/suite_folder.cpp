#include "pkb/suite/suite_folder.h"

#include <algorithm>
#include <filesystem>

#include "trace/core/error.h"
#include "trace/core/json.h"
#include "trace/io/common/atomic_file.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

std::string_view to_string(TaskStatus s) { return s == TaskStatus::kOk ? "ok" : "failed"; }

void write_text_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

namespace {

JsonValue num(int64_t v) { return JsonValue::number(v); }
JsonValue unum(uint64_t v) { return JsonValue::number(std::to_string(v)); }
JsonValue str(const std::string& s) { return JsonValue::string(s); }

// Field readers naming the file and the JSON path on a wrong type.
struct Reader {
  const std::string& file;
  const JsonValue& doc;
  const JsonValue* get(const char* key) const { return doc.find(key); }
  std::string text(const char* key, const std::string& def = {}) const {
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return def;
    if (!v->is_string()) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected a string");
    return v->text();
  }
  int64_t integer(const char* key, int64_t def = 0) const {
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return def;
    const auto i = v->is_number() ? v->as_int() : std::nullopt;
    if (!i) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected an integer");
    return *i;
  }
  uint64_t uinteger(const char* key) const {
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return 0;
    const auto i = v->is_number() ? v->as_uint() : std::nullopt;
    if (!i) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected an integer");
    return *i;
  }
  double real(const char* key) const {
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return 0;
    if (!v->is_number()) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected a number");
    return v->as_double();
  }
  bool boolean(const char* key) const {
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return false;
    if (v->type() != JsonValue::Type::kBool)
      throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected true or false");
    return v->as_bool();
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    const JsonValue* v = get(key);
    if (!v || v->is_null()) return out;
    if (!v->is_array()) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected an array");
    for (const auto& x : v->items()) {
      if (!x.is_string()) throw InputError({file, x.byte_offset(), -1, std::string("$.") + key}, "expected strings");
      out.push_back(x.text());
    }
    return out;
  }
};

void check_schema(const Reader& r, const char* kind) {
  if (!r.doc.is_object()) throw InputError({r.file, 0, -1, "$"}, "expected a JSON object");
  const int64_t v = r.integer("schema_version", -1);
  if (v != kSuiteSchemaVersion)
    throw InputError({r.file, -1, -1, "$.schema_version"},
                     "schema_version " + std::to_string(v) + " is not " + std::to_string(kSuiteSchemaVersion));
  if (r.text("kind") != kind) throw InputError({r.file, -1, -1, "$.kind"}, std::string("expected \"") + kind + "\"");
}

JsonValue string_array(const std::vector<std::string>& v) {
  JsonValue a = JsonValue::array();
  for (const auto& s : v) a.push(str(s));
  return a;
}

}  // namespace

void write_suite_info(const SuitePaths& p, const SuiteInfo& s) {
  const JsonValue doc = JsonValue::object({{"schema_version", num(kSuiteSchemaVersion)},
                                           {"kind", str("parascope-pkb-suite")},
                                           {"tool_version", str(s.tool_version)},
                                           {"pkb_root", str(s.pkb_root)},
                                           {"world", num(s.world)},
                                           {"one_gpu", JsonValue::boolean(s.one_gpu)},
                                           {"m", num(s.m)},
                                           {"n", num(s.n)},
                                           {"dtype", str(s.dtype)},
                                           {"created_unix_ns", unum(s.created_unix_ns)}});
  write_text_file(p.suite_json(), to_json(doc, 2) + "\n");
}

std::optional<SuiteInfo> read_suite_info(const SuitePaths& p) {
  std::error_code ec;
  if (!fs::exists(p.suite_json(), ec)) return std::nullopt;
  const std::string file = p.suite_json();
  const JsonValue doc = load_json_file(file);
  const Reader r{file, doc};
  check_schema(r, "parascope-pkb-suite");
  SuiteInfo s;
  s.tool_version = r.text("tool_version");
  s.pkb_root = r.text("pkb_root");
  s.world = static_cast<int>(r.integer("world", 1));
  s.one_gpu = r.boolean("one_gpu");
  s.m = static_cast<int>(r.integer("m", 1024));
  s.n = static_cast<int>(r.integer("n", 1024));
  s.dtype = r.text("dtype", "bfloat16");
  s.created_unix_ns = r.uinteger("created_unix_ns");
  return s;
}

void write_task_record(const SuitePaths& p, const TaskRecord& t) {
  const JsonValue window = JsonValue::object({{"found", JsonValue::boolean(t.window.found)},
                                              {"iterations", num(t.window.iterations)},
                                              {"gpu_ns", num(t.window.gpu_ns)},
                                              {"note", str(t.window.note)}});
  const JsonValue doc = JsonValue::object({{"schema_version", num(kSuiteSchemaVersion)},
                                           {"kind", str("parascope-pkb-task")},
                                           {"id", num(t.id)},
                                           {"stem", str(t.stem)},
                                           {"status", str(std::string(to_string(t.status)))},
                                           {"reason", str(t.reason)},
                                           {"exit_code", num(t.exit_code)},
                                           {"timed_out", JsonValue::boolean(t.timed_out)},
                                           {"wall_s", JsonValue::number(t.wall_s)},
                                           {"started_unix_ns", unum(t.started_unix_ns)},
                                           {"ended_unix_ns", unum(t.ended_unix_ns)},
                                           {"command", string_array(t.command)},
                                           {"trace", str(t.trace)},
                                           {"window", window},
                                           {"warnings", string_array(t.warnings)}});
  write_text_file(p.task_json(t.stem), to_json(doc, 2) + "\n");
}

TaskRecord read_task_record(const std::string& file) {
  const JsonValue doc = load_json_file(file);
  const Reader r{file, doc};
  check_schema(r, "parascope-pkb-task");
  TaskRecord t;
  t.id = static_cast<int>(r.integer("id"));
  t.stem = r.text("stem");
  const std::string status = r.text("status");
  if (status != "ok" && status != "failed") throw InputError({file, -1, -1, "$.status"}, "expected \"ok\" or \"failed\"");
  t.status = status == "ok" ? TaskStatus::kOk : TaskStatus::kFailed;
  t.reason = r.text("reason");
  t.exit_code = static_cast<int>(r.integer("exit_code"));
  t.timed_out = r.boolean("timed_out");
  t.wall_s = r.real("wall_s");
  t.started_unix_ns = r.uinteger("started_unix_ns");
  t.ended_unix_ns = r.uinteger("ended_unix_ns");
  t.command = r.strings("command");
  t.trace = r.text("trace");
  t.warnings = r.strings("warnings");
  if (const JsonValue* w = doc.find("window"); w && w->is_object()) {
    const Reader wr{file, *w};
    t.window.found = wr.boolean("found");
    t.window.iterations = static_cast<int>(wr.integer("iterations"));
    t.window.gpu_ns = wr.integer("gpu_ns");
    t.window.note = wr.text("note");
  }
  if (t.stem.empty()) throw InputError({file, -1, -1, "$.stem"}, "empty");
  return t;
}

std::vector<TaskRecord> read_task_records(const SuitePaths& p) {
  std::vector<TaskRecord> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p.root + "/tasks", ec)) {
    const fs::path j = e.path() / "task.json";
    if (fs::exists(j, ec)) out.push_back(read_task_record(j.string()));
  }
  std::sort(out.begin(), out.end(),
            [](const TaskRecord& a, const TaskRecord& b) { return a.id != b.id ? a.id < b.id : a.stem < b.stem; });
  return out;
}

}  // namespace parascope::pkb
