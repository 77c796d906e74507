// The `record` output directory: one DIR/<host>-<pid>-r<rank>.pstrace per traced process plus
// DIR/manifest.json saying what the run was. load_trace() reads such a directory as one trace.
// Schema (schema_version 1; unknown members are ignored, so later versions may add some):
//   { "schema_version": 1, "tool": "parascope 0.1", "command": ["torchrun", "..."],
//     "start_time_unix_ns": 1790857026000000000, "hosts": ["node-a"], "ranks": 2,
//     "files": [{"path": "node-a-4242-r0.pstrace", "host": "node-a", "pid": 4242, "rank": 0}, ...] }
// `path` is relative to the directory; `ranks` is the world size (0: unknown); rank -1: unknown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/core/json.h"

namespace parascope {

inline constexpr int kRecordManifestSchemaVersion = 1;
inline constexpr const char* kRecordManifestName = "manifest.json";

struct RecordFile {
  std::string path;  // relative to the record directory
  std::string host;
  int64_t pid = 0;
  int32_t rank = -1;
};

struct RecordManifest {
  int schema_version = kRecordManifestSchemaVersion;
  std::string tool;
  std::vector<std::string> command;
  int64_t start_time_unix_ns = 0;
  std::vector<std::string> hosts;
  int32_t ranks = 0;
  std::vector<RecordFile> files;
};

// "<host>-<pid>-r<rank>.pstrace"
std::string record_file_name(const std::string& host, int64_t pid, int32_t rank);

// InputError naming the file and the JSON path on a malformed manifest or a newer schema.
RecordManifest record_manifest_from_json(const JsonValue& doc, const std::string& file);
RecordManifest load_record_manifest(const std::string& path);
JsonValue record_manifest_to_json(const RecordManifest& m);
// Written to a temporary name and renamed, so readers never see half a manifest.
void write_record_manifest(const RecordManifest& m, const std::string& path);

}  // namespace parascope
