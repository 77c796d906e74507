#include "trace/io/collector/record_manifest.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "trace/core/error.h"

namespace parascope {

std::string record_file_name(const std::string& host, int64_t pid, int32_t rank) {
  return host + "-" + std::to_string(pid) + "-r" + std::to_string(rank) + ".pstrace";
}

namespace {

uint64_t get_uint(const JsonField& f, std::string_view key) {
  const auto v = f.get(key);
  return v ? v->as_uint() : 0;
}

std::string file_name_at(const JsonField& path) {
  std::string p = path.as_string();
  if (p.empty() || p.find('/') != std::string::npos || p == "." || p == "..")
    path.fail("expected a file name inside the record directory, found \"" + p + "\"");
  return p;
}

}  // namespace

RecordManifest record_manifest_from_json(const JsonValue& doc, const std::string& file) {
  const JsonField root(doc, file);
  root.expect(JsonValue::Type::kObject);
  RecordManifest m;
  const JsonField version = root.at("schema_version");
  m.schema_version = static_cast<int>(version.as_int());
  if (m.schema_version > kRecordManifestSchemaVersion || m.schema_version < 1)
    version.fail("schema_version " + std::to_string(m.schema_version) + " is not one this build reads (1.." +
                 std::to_string(kRecordManifestSchemaVersion) + ")");
  m.kind = root.get_string("kind", "parascope-record");
  m.tool_version = root.get_string("tool_version", root.get_string("tool", ""));
  m.session = root.get_string("session", "");
  if (auto c = root.get("command"))
    for (size_t i = 0; i < c->size(); ++i) m.command.push_back(c->at(i).as_string());
  m.host = root.get_string("host", "");
  if (m.host.empty())
    if (auto h = root.get("hosts"); h && h->size() > 0) m.host = h->at(0).as_string();
  m.started_unix_ns = root.get_int("started_unix_ns", root.get_int("start_time_unix_ns", 0));
  m.ended_unix_ns = root.get_int("ended_unix_ns", 0);
  if (auto e = root.get("exit")) {
    if (auto code = e->get("code")) m.exit_code = static_cast<int32_t>(code->as_int());
    m.exit_signal = e->get_string("signal", "");
  }
  m.clock = root.get_string("clock", "cupti");
  m.collector_library = root.get_string("collector_library", "");
  const JsonField files = root.at("files");
  for (size_t i = 0; i < files.size(); ++i) {
    const JsonField f = files.at(i);
    RecordFile r;
    r.path = file_name_at(f.at("path"));
    r.host = f.get_string("host", "");
    r.pid = f.get_int("pid", 0);
    r.rank = static_cast<int32_t>(f.get_int("rank", -1));
    r.local_rank = static_cast<int32_t>(f.get_int("local_rank", -1));
    r.world_size = static_cast<int32_t>(f.get_int("world_size", -1));
    r.rank_source = f.get_string("rank_source", "");
    r.rank_name = f.get_string("rank_name", "");
    r.status = f.get_string("status", "");
    r.end_reason = f.get_string("end_reason", "");
    r.complete = f.get_bool("complete", true);
    r.bytes = get_uint(f, "bytes");
    r.records = get_uint(f, "records");
    r.kernels = get_uint(f, "kernels");
    r.dropped_records = get_uint(f, "dropped_records");
    r.start_time_unix_ns = f.get_int("start_time_unix_ns", 0);
    r.process_command = f.get_string("process_command", "");
    m.files.push_back(std::move(r));
  }
  if (auto o = root.get("other_files"))
    for (size_t i = 0; i < o->size(); ++i) m.other_files.push_back(file_name_at(o->at(i)));
  return m;
}

RecordManifest load_record_manifest(const std::string& path) {
  return record_manifest_from_json(load_json_file(path), path);
}

JsonValue record_manifest_to_json(const RecordManifest& m) {
  auto unum = [](uint64_t v) { return JsonValue::number(std::to_string(v)); };
  auto inum = [](int64_t v) { return JsonValue::number(v); };
  JsonValue command = JsonValue::array();
  for (const auto& c : m.command) command.push(JsonValue::string(c));
  JsonValue files = JsonValue::array();
  for (const RecordFile& f : m.files)
    files.push(JsonValue::object({{"path", JsonValue::string(f.path)},
                                  {"host", JsonValue::string(f.host)},
                                  {"pid", inum(f.pid)},
                                  {"rank", inum(f.rank)},
                                  {"local_rank", inum(f.local_rank)},
                                  {"world_size", inum(f.world_size)},
                                  {"rank_source", JsonValue::string(f.rank_source)},
                                  {"rank_name", JsonValue::string(f.rank_name)},
                                  {"status", JsonValue::string(f.status)},
                                  {"end_reason", JsonValue::string(f.end_reason)},
                                  {"complete", JsonValue::boolean(f.complete)},
                                  {"bytes", unum(f.bytes)},
                                  {"records", unum(f.records)},
                                  {"kernels", unum(f.kernels)},
                                  {"dropped_records", unum(f.dropped_records)},
                                  {"start_time_unix_ns", inum(f.start_time_unix_ns)},
                                  {"process_command", JsonValue::string(f.process_command)}}));
  JsonValue others = JsonValue::array();
  for (const auto& o : m.other_files) others.push(JsonValue::string(o));
  return JsonValue::object(
      {{"schema_version", inum(m.schema_version)},
       {"kind", JsonValue::string(m.kind)},
       {"tool_version", JsonValue::string(m.tool_version)},
       {"session", JsonValue::string(m.session)},
       {"command", std::move(command)},
       {"host", JsonValue::string(m.host)},
       {"started_unix_ns", inum(m.started_unix_ns)},
       {"ended_unix_ns", inum(m.ended_unix_ns)},
       {"exit", JsonValue::object({{"code", m.exit_code ? inum(*m.exit_code) : JsonValue::null()},
                                   {"signal", m.exit_signal.empty() ? JsonValue::null() : JsonValue::string(m.exit_signal)}})},
       {"collector_library", JsonValue::string(m.collector_library)},
       {"clock", JsonValue::string(m.clock)},
       {"files", std::move(files)},
       {"other_files", std::move(others)}});
}

void write_record_manifest(const RecordManifest& m, const std::string& path) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << to_json(record_manifest_to_json(m), 2) << "\n";
    out.flush();
    if (!out) {
      ::unlink(tmp.c_str());
      throw std::runtime_error(tmp + ": cannot write the record manifest");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename the record manifest into place");
  }
}

}  // namespace parascope
