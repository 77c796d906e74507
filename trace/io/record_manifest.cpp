#include "trace/io/record_manifest.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "trace/core/error.h"

namespace parascope {

std::string record_file_name(const std::string& host, int64_t pid, int32_t rank) {
  return host + "-" + std::to_string(pid) + "-r" + std::to_string(rank) + ".pstrace";
}

RecordManifest record_manifest_from_json(const JsonValue& doc, const std::string& file) {
  const JsonField root(doc, file);
  root.expect(JsonValue::Type::kObject);
  RecordManifest m;
  const JsonField version = root.at("schema_version");
  m.schema_version = static_cast<int>(version.as_int());
  if (m.schema_version > kRecordManifestSchemaVersion || m.schema_version < 1)
    version.fail("schema_version " + std::to_string(m.schema_version) + " is not one this build reads (1.." +
                 std::to_string(kRecordManifestSchemaVersion) + ")");
  m.tool = root.get_string("tool", "");
  if (auto c = root.get("command"))
    for (size_t i = 0; i < c->size(); ++i) m.command.push_back(c->at(i).as_string());
  m.start_time_unix_ns = root.get_int("start_time_unix_ns", 0);
  if (auto h = root.get("hosts"))
    for (size_t i = 0; i < h->size(); ++i) m.hosts.push_back(h->at(i).as_string());
  m.ranks = static_cast<int32_t>(root.get_int("ranks", 0));
  const JsonField files = root.at("files");
  for (size_t i = 0; i < files.size(); ++i) {
    const JsonField f = files.at(i);
    RecordFile r;
    const JsonField path = f.at("path");
    r.path = path.as_string();
    if (r.path.empty() || r.path.find('/') != std::string::npos || r.path == "." || r.path == "..")
      path.fail("expected a file name inside the record directory, found \"" + r.path + "\"");
    r.host = f.get_string("host", "");
    r.pid = f.get_int("pid", 0);
    r.rank = static_cast<int32_t>(f.get_int("rank", -1));
    m.files.push_back(std::move(r));
  }
  return m;
}

RecordManifest load_record_manifest(const std::string& path) {
  return record_manifest_from_json(load_json_file(path), path);
}

JsonValue record_manifest_to_json(const RecordManifest& m) {
  JsonValue command = JsonValue::array();
  for (const auto& c : m.command) command.push(JsonValue::string(c));
  JsonValue hosts = JsonValue::array();
  for (const auto& h : m.hosts) hosts.push(JsonValue::string(h));
  JsonValue files = JsonValue::array();
  for (const RecordFile& f : m.files)
    files.push(JsonValue::object({{"path", JsonValue::string(f.path)},
                                  {"host", JsonValue::string(f.host)},
                                  {"pid", JsonValue::number(f.pid)},
                                  {"rank", JsonValue::number(int64_t{f.rank})}}));
  return JsonValue::object({{"schema_version", JsonValue::number(int64_t{m.schema_version})},
                            {"tool", JsonValue::string(m.tool)},
                            {"command", std::move(command)},
                            {"start_time_unix_ns", JsonValue::number(m.start_time_unix_ns)},
                            {"hosts", std::move(hosts)},
                            {"ranks", JsonValue::number(int64_t{m.ranks})},
                            {"files", std::move(files)}});
}

void write_record_manifest(const RecordManifest& m, const std::string& path) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << to_json(record_manifest_to_json(m), 2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": cannot write the record manifest");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot rename the record manifest into place");
}

}  // namespace parascope
