// The `record` output directory: one DIR/<host>-<pid>-r<rank>.pstrace per traced process plus
// DIR/manifest.json saying what the run was. The schema is the one `parascope-cli record` writes
// (docs/collector.md, "manifest.json", schema_version 1):
//   { "schema_version": 1, "kind": "parascope-record", "tool_version": "0.1.0", "session": "…",
//     "command": ["torchrun", "…"], "host": "h200-01", "started_unix_ns": …, "ended_unix_ns": …,
//     "exit": {"code": 0, "signal": null}, "options": {…}, "collector_library": "…", "clock": "cupti",
//     "files": [{"path": "h200-01-4242-r0.pstrace", "host", "pid", "rank", "local_rank", "world_size",
//                "rank_source", "rank_name", "status", "end_reason", "complete", "bytes", "records",
//                "kernels", "dropped_records", "warnings", "notes", "start_time_unix_ns", "process_command",
//                "devices": [...]}, ...],
//     "other_files": ["older-run.pstrace", ...] }
// Unknown members are ignored (later versions may add some); every member but schema_version,
// files and files[].path is optional. `path` is a file name inside the directory; rank -1: unknown;
// `complete` false: the file has no index (its process was killed); `other_files` belong to other
// runs in the same directory and are not part of this one. Earlier drafts' spellings (tool,
// start_time_unix_ns, hosts) are still read. Large integers (ns) stay exact.
#pragma once

#include <cstdint>
#include <optional>
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
  int32_t local_rank = -1, world_size = -1;
  std::string rank_source, rank_name;  // rank_name: parascope_collector_name_rank's name, "" if none
  std::string status;                  // recording, blocked, no-cupti, cupti-error, nccl-only, unfinished
  std::string end_reason;              // exit, or the signal (SIGABRT…); "" when the file was not closed
  bool complete = true;                // index + trailer present
  uint64_t bytes = 0, records = 0, kernels = 0, dropped_records = 0;
  int64_t start_time_unix_ns = 0;
  std::string process_command;
};

struct RecordManifest {
  int schema_version = kRecordManifestSchemaVersion;
  std::string kind = "parascope-record";
  std::string tool_version;
  std::string session;
  std::vector<std::string> command;
  std::string host;
  int64_t started_unix_ns = 0, ended_unix_ns = 0;
  std::optional<int32_t> exit_code;    // the launched command's exit status (absent: unknown)
  std::string exit_signal;             // the signal that ended it ("SIGKILL"), "" when none
  std::string clock = "cupti";
  std::string collector_library;
  std::vector<RecordFile> files;
  std::vector<std::string> other_files;
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
