#include "trace/io/nsys/nsys_sqlite_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "trace/core/error.h"
#include "trace/io/common/cuda_activity_names.h"
#include "trace/io/common/file_import.h"

namespace parascope {

namespace {

// Nsight serialises a thread as globalTid = globalPid | tid, the low 24 bits being the tid.
constexpr int64_t kTidMask = 0xFFFFFF;
constexpr int kCheckEveryRows = 1 << 16;
// Times beyond 2^62 ns (year 2116) and a session start beyond 2^61 ns are damage, refused as in
// collector_import.cpp: that keeps every time + session start and end - start inside int64.
constexpr int64_t kMaxTimeNs = int64_t{1} << 62;
constexpr int64_t kMaxOffsetNs = int64_t{1} << 61;

[[noreturn]] void fail(const std::string& file, const std::string& table, const std::string& problem) {
  InputLocation where;
  where.file = file;
  where.field = table;
  throw InputError(where, problem);
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& file, const std::string& table)
      : db_(db), file_(file), table_(table) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      fail(file, table, std::string("query failed: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(file_, table_, std::string("reading rows failed: ") + sqlite3_errmsg(db_));
  }
  bool null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  bool is_text(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_TEXT; }
  int64_t i(int c, int64_t dflt = 0) const { return null(c) ? dflt : sqlite3_column_int64(stmt_, c); }
  double d(int c) const { return sqlite3_column_double(stmt_, c); }
  // A time column (ns): InputError naming the table and column beyond +-2^62 ns.
  int64_t time(int c) const {
    const int64_t v = i(c);
    if (v > kMaxTimeNs || v < -kMaxTimeNs)
      fail(file_, table_, std::string("column ") + sqlite3_column_name(stmt_, c) + ": time " + std::to_string(v) +
                              " ns is beyond 2^62 ns");
    return v;
  }
  std::string_view text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
    return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, c))) : std::string_view();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string file_, table_;
};

std::string_view copy_kind_label(int64_t k) {
  static constexpr std::string_view kLabels[] = {"",     "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                                 "DtoA", "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};
  return k >= 0 && k < static_cast<int64_t>(std::size(kLabels)) ? kLabels[k] : "";
}

CopyKind copy_kind_of(int64_t k) {
  switch (k) {
    case 1: case 3: case 11: return CopyKind::kHtoD;
    case 2: case 4: case 12: return CopyKind::kDtoH;
    case 5: case 6: case 7: case 8: case 13: return CopyKind::kDtoD;
    case 9: return CopyKind::kHtoH;
    case 10: return CopyKind::kPtoP;
    default: return CopyKind::kUnknown;
  }
}

// ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static,
// 6 managed static, 7 unknown.
MemoryKind memory_kind_of(int64_t k) {
  switch (k) {
    case 0: return MemoryKind::kPageable;
    case 1: return MemoryKind::kPinned;
    case 2: case 5: return MemoryKind::kDevice;
    case 3: return MemoryKind::kArray;
    case 4: case 6: return MemoryKind::kManaged;
    default: return MemoryKind::kUnknown;
  }
}


class Importer {
 public:
  Importer(const std::string& path, TraceBuilder& b, const NsysImportOptions& o, FileImportReport& report)
      : path_(path), b_(b), o_(o), report_(report) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      fail(path, "", "cannot open as SQLite: " + msg);
    }
  }
  ~Importer() { sqlite3_close(db_); }

  void run() {
    {
      Statement s(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", path_, "sqlite_master");
      while (s.step()) tables_.emplace(s.text(0));
    }
    if (!has("CUPTI_ACTIVITY_KIND_KERNEL") && !has("CUPTI_ACTIVITY_KIND_RUNTIME") && !has("NVTX_EVENTS") &&
        !has("StringIds"))
      fail(path_, "", "an SQLite database, but not an Nsight Systems export (no CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS or StringIds table)");
    count_rows();
    session_start();
    strings();
    thread_names();
    processes_and_devices();
    kernels();
    memcpys();
    memsets();
    syncs();
    graphs();
    runtime();
    overheads();
    nvtx();
    nccl_operations();
    launch_flows();
    for (uint32_t p : processes_) {
      Process& proc = b_.trace().processes[p];
      proc.clock_offset_ns = offset_;
      proc.clock_offset_reason = offset_reason_;
    }
    report_.clock_offset_ns = offset_;
    report_.clock_offset_reason = offset_reason_;
    b_.trace().source_files.push_back(path_);
  }

 private:
  bool has(const std::string& t) const { return tables_.count(t) != 0; }

  const std::set<std::string>& columns(const std::string& table) {
    auto [it, inserted] = columns_.try_emplace(table);
    if (inserted && has(table)) {
      Statement s(db_, "PRAGMA table_info(" + table + ")", path_, table);
      while (s.step()) it->second.emplace(s.text(1));
    }
    return it->second;
  }

  // SELECT of the wanted columns in order; a column this export lacks reads as NULL.
  std::string select(const std::string& table, std::initializer_list<const char*> wanted, const char* tail = "") {
    const auto& have = columns(table);
    std::string sql = "SELECT ";
    bool first = true;
    for (const char* c : wanted) {
      if (!first) sql += ", ";
      first = false;
      sql += have.count(c) ? c : "NULL";
    }
    return sql + " FROM " + table + " " + tail;
  }

  void count_rows() {
    for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
                          "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "PROFILER_OVERHEAD", "CUPTI_ACTIVITY_KIND_OVERHEAD"}) {
      if (!has(t)) continue;
      Statement s(db_, std::string("SELECT COUNT(*) FROM ") + t, path_, t);
      if (s.step()) total_rows_ += static_cast<uint64_t>(s.i(0));
    }
  }

  void row_done() {
    ++rows_;
    if (rows_ % kCheckEveryRows == 0) {
      if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) throw OperationCancelled();
      if (o_.progress) o_.progress(rows_, total_rows_);
    }
  }

  void session_start() {
    const std::string t = "TARGET_INFO_SESSION_START_TIME";
    if (!has(t) || !columns(t).count("utcEpochNs")) {
      offset_reason_ = "none (session-relative ns; no TARGET_INFO_SESSION_START_TIME)";
      return;
    }
    Statement s(db_, "SELECT utcEpochNs FROM " + t, path_, t);
    if (s.step() && !s.null(0)) {
      offset_ = s.i(0);
      if (offset_ > kMaxOffsetNs || offset_ < -kMaxOffsetNs)
        fail(path_, t, "utcEpochNs " + std::to_string(offset_) + " is beyond 2^61 ns");
      offset_reason_ = "TARGET_INFO_SESSION_START_TIME.utcEpochNs";
    } else {
      offset_reason_ = "none (session-relative ns; session start time empty)";
    }
  }

  void strings() {
    if (!has("StringIds")) return;
    Statement s(db_, "SELECT id, value FROM StringIds", path_, "StringIds");
    while (s.step()) string_ids_[s.i(0)] = b_.intern(s.text(1));
  }

  // A column holding a StringIds id (or, in some versions, the text itself).
  StringId sid(const Statement& s, int c) {
    if (s.null(c)) return kEmptyString;
    if (s.is_text(c)) return b_.intern(s.text(c));
    const int64_t id = s.i(c);
    auto it = string_ids_.find(id);
    if (it != string_ids_.end()) return it->second;
    ++missing_strings_;
    return string_ids_[id] = b_.intern("<string " + std::to_string(id) + ">");
  }

  void thread_names() {
    if (!has("ThreadNames")) return;
    Statement s(db_, select("ThreadNames", {"globalTid", "nameId"}), path_, "ThreadNames");
    while (s.step())
      if (!s.null(0)) thread_names_[s.i(0)] = sid(s, 1);
  }

  // Processes with GPU or API activity, ordered by pid; devices by (process, ordinal).
  void processes_and_devices() {
    std::set<int64_t> pids;
    std::set<std::tuple<int64_t, int64_t, int64_t>> contexts;  // (globalPid, contextId, deviceId)
    for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
      if (!has(t)) continue;
      Statement s(db_, select(t, {"globalPid", "contextId", "deviceId"}, "GROUP BY 1, 2, 3"), path_, t);
      while (s.step()) {
        pids.insert(s.i(0));
        contexts.emplace(s.i(0), s.i(1), s.i(2));
      }
    }
    for (const char* t : {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"}) {
      if (!has(t)) continue;
      Statement s(db_, select(t, {"globalPid"}, "GROUP BY 1"), path_, t);
      while (s.step()) pids.insert(s.i(0));
    }
    for (const char* t : {"CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}) {
      if (!has(t)) continue;
      Statement s(db_, select(t, {"globalTid"}, "GROUP BY 1"), path_, t);
      while (s.step())
        if (!s.null(0)) pids.insert(s.i(0) & ~kTidMask);
    }
    std::map<int64_t, std::string> names;
    if (has("PROCESSES")) {
      Statement s(db_, select("PROCESSES", {"globalPid", "name"}), path_, "PROCESSES");
      while (s.step()) names[s.i(0)] = std::string(s.text(1));
    }
    std::string host;
    if (has("TARGET_INFO_SYSTEM_ENV") && columns("TARGET_INFO_SYSTEM_ENV").count("name")) {
      Statement s(db_, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'", path_, "TARGET_INFO_SYSTEM_ENV");
      if (s.step()) host = std::string(s.text(0));
    }
    std::vector<int64_t> order(pids.begin(), pids.end());
    // pid is bits 24..47 of globalPid
    std::stable_sort(order.begin(), order.end(), [](int64_t a, int64_t b) { return ((a >> 24) & kTidMask) < ((b >> 24) & kTidMask); });
    for (int64_t g : order) {
      Process p;
      p.pid = (g >> 24) & kTidMask;
      p.host = host;
      auto it = names.find(g);
      p.name = it != names.end() && !it->second.empty() ? it->second + " (" + std::to_string(p.pid) + ")"
                                                        : "pid " + std::to_string(p.pid);
      p.source = path_;
      const uint32_t idx = b_.add_process(std::move(p));
      process_by_gpid_[g] = idx;
      processes_.push_back(idx);
    }
    for (const auto& [g, ctx, dev] : contexts) {
      context_device_[{g, ctx}] = dev;
      device(g, dev);
    }
    device_facts();
  }

  uint32_t process(int64_t global_pid) {
    auto it = process_by_gpid_.find(global_pid);
    if (it != process_by_gpid_.end()) return it->second;
    Process p;
    p.pid = (global_pid >> 24) & kTidMask;
    p.name = "pid " + std::to_string(p.pid);
    p.source = path_;
    const uint32_t idx = b_.add_process(std::move(p));
    process_by_gpid_[global_pid] = idx;
    processes_.push_back(idx);
    return idx;
  }

  uint32_t device(int64_t global_pid, int64_t ordinal) {
    const auto key = std::make_pair(global_pid, ordinal);
    auto it = devices_.find(key);
    if (it != devices_.end()) return it->second;
    Device d;
    d.process = process(global_pid);
    d.ordinal = static_cast<int32_t>(ordinal);
    const uint32_t idx = b_.add_device(std::move(d));
    devices_[key] = idx;
    return idx;
  }

  // Device facts where the export has them (TARGET_INFO_GPU with cuDevice; absent from the bundled
  // exports, whose devices keep only their ordinal).
  void device_facts() {
    const std::string t = "TARGET_INFO_GPU";
    if (!has(t) || !columns(t).count("cuDevice")) return;
    Statement s(db_, select(t, {"cuDevice", "name", "busLocation", "uuid", "smCount", "totalMemory", "computeMajor", "computeMinor"}), path_, t);
    while (s.step()) {
      const int64_t ord = s.i(0, -1);
      for (auto& [key, idx] : devices_) {
        if (key.second != ord) continue;
        Device& d = b_.trace().devices[idx];
        d.name = std::string(s.text(1));
        d.pci_bus_id = std::string(s.text(2));
        d.uuid = std::string(s.text(3));
        d.sm_count = static_cast<uint32_t>(s.i(4));
        d.memory_bytes = static_cast<uint64_t>(s.i(5));
        d.compute_major = static_cast<uint32_t>(s.i(6));
        d.compute_minor = static_cast<uint32_t>(s.i(7));
      }
    }
  }

  uint32_t stream_track(uint32_t dev, int64_t stream) {
    const uint32_t proc = b_.trace().devices[dev].process;
    return b_.track(TrackKey{TrackKind::kGpuStream, proc, static_cast<int32_t>(dev), stream}, "stream " + std::to_string(stream));
  }

  uint32_t thread_track(int64_t global_tid) {
    const uint32_t proc = process(global_tid & ~kTidMask);
    const int64_t tid = global_tid & kTidMask;
    const TrackKey key{TrackKind::kCpuThread, proc, -1, tid};
    auto it = thread_names_.find(global_tid);
    const std::string name = it != thread_names_.end() && it->second != kEmptyString
                                 ? std::string(b_.strings().view(it->second)) + " (" + std::to_string(tid) + ")"
                                 : "thread " + std::to_string(tid);
    return b_.track(key, name);
  }

  TimeNs t(const Statement& s, int c) const { return s.time(c) + offset_; }
  TimeNs dur(const Statement& s, int start, int end) const { return s.null(end) ? 0 : s.time(end) - s.time(start); }

  void gpu_activity(uint64_t global_pid, uint32_t correlation, EventRef e) {
    if (correlation) gpu_by_correlation_.emplace_back((global_pid << 0), correlation, e);
  }

  void kernels() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!has(tb)) return;
    const bool demangled = columns(tb).count("demangledName") != 0;
    Statement s(db_, select(tb, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                 demangled ? "demangledName" : "shortName", "shortName", "gridX", "gridY", "gridZ",
                                 "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                                 "dynamicSharedMemory", "graphId", "graphNodeId"}),
                path_, tb);
    while (s.step()) {
      const uint32_t dev = device(s.i(5), s.i(2));
      const uint32_t track = stream_track(dev, s.i(3));
      LaunchConfig c;
      for (int k = 0; k < 3; ++k) {
        c.grid[k] = static_cast<uint32_t>(s.i(8 + k));
        c.block[k] = static_cast<uint32_t>(s.i(11 + k));
      }
      c.registers_per_thread = static_cast<uint32_t>(s.i(14));
      c.static_smem = static_cast<uint32_t>(s.i(15));
      c.dynamic_smem = static_cast<uint32_t>(s.i(16));
      KernelInfo k;
      k.launch_config = b_.add_launch_config(c);
      k.correlation = static_cast<uint32_t>(s.i(4));
      k.graph_id = static_cast<uint32_t>(s.i(17));
      k.graph_node_id = U64Split(static_cast<uint64_t>(s.i(18)));
      StringId name = sid(s, 6);
      if (name == kEmptyString) name = sid(s, 7);
      const EventRef e = b_.add_slice(track, t(s, 0), dur(s, 0, 1), name, b_.add_kernel(k));
      gpu_activity(static_cast<uint64_t>(s.i(5)), k.correlation, e);
      if (k.correlation && b_.strings().view(name).starts_with("nccl"))
        nccl_kernels_.emplace(std::make_pair(static_cast<uint64_t>(s.i(5)), k.correlation), NcclKernel{e});
      row_done();
    }
  }

  void memcpys() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!has(tb)) return;
    Statement s(db_, select(tb, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
                                 "srcKind", "dstKind", "srcDeviceId", "dstDeviceId"}),
                path_, tb);
    while (s.step()) {
      const int64_t gpid = s.i(5);
      const uint32_t dev = device(gpid, s.i(2));
      const uint32_t track = stream_track(dev, s.i(3));
      MemcpyInfo m;
      m.bytes = U64Split(static_cast<uint64_t>(s.i(6)));
      m.correlation = static_cast<uint32_t>(s.i(4));
      const int64_t kind = s.i(7);
      m.copy_kind = copy_kind_of(kind);
      m.src_memory = s.null(8) ? MemoryKind::kUnknown : memory_kind_of(s.i(8));
      m.dst_memory = s.null(9) ? MemoryKind::kUnknown : memory_kind_of(s.i(9));
      const auto self = static_cast<uint16_t>(dev);
      switch (m.copy_kind) {
        case CopyKind::kHtoD: m.dst_device = self; break;
        case CopyKind::kDtoH: m.src_device = self; break;
        case CopyKind::kDtoD: m.src_device = m.dst_device = self; break;
        default: break;
      }
      if (!s.null(10)) m.src_device = static_cast<uint16_t>(device(gpid, s.i(10)));
      if (!s.null(11)) m.dst_device = static_cast<uint16_t>(device(gpid, s.i(11)));
      if (m.copy_kind == CopyKind::kPtoP && m.src_device == kNoDevice) m.src_device = self;
      const std::string name = memcpy_name(copy_kind_label(kind), m.src_memory, m.dst_memory);
      const EventRef e = b_.add_slice(track, t(s, 0), dur(s, 0, 1), b_.intern(name), b_.add_memcpy(m));
      gpu_activity(static_cast<uint64_t>(gpid), m.correlation, e);
      row_done();
    }
  }

  void memsets() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_MEMSET";
    if (!has(tb)) return;
    Statement s(db_, select(tb, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "value", "bytes", "memKind"}),
                path_, tb);
    while (s.step()) {
      const uint32_t dev = device(s.i(5), s.i(2));
      MemsetInfo m;
      m.bytes = U64Split(static_cast<uint64_t>(s.i(7)));
      m.correlation = static_cast<uint32_t>(s.i(4));
      m.value = static_cast<uint32_t>(s.i(6));
      m.memory = s.null(8) ? MemoryKind::kUnknown : memory_kind_of(s.i(8));
      const std::string name = memset_name(m.memory);
      const EventRef e = b_.add_slice(stream_track(dev, s.i(3)), t(s, 0), dur(s, 0, 1), b_.intern(name), b_.add_memset(m));
      gpu_activity(static_cast<uint64_t>(s.i(5)), m.correlation, e);
      row_done();
    }
  }

  // Synchronisation records carry deviceId 0 whatever the device (seen in the bundled exports):
  // the context says which device it was.
  void syncs() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (!has(tb)) return;
    Statement s(db_, select(tb, {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"}),
                path_, tb);
    static constexpr std::string_view kNames[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};
    static constexpr SyncKind kKinds[] = {SyncKind::kUnknown, SyncKind::kEventSync, SyncKind::kStreamWaitEvent,
                                          SyncKind::kStreamSync, SyncKind::kContextSync};
    while (s.step()) {
      const int64_t gpid = s.i(6);
      int64_t ordinal = s.i(2);
      if (auto it = context_device_.find({gpid, s.i(3)}); it != context_device_.end()) ordinal = it->second;
      const uint32_t dev = device(gpid, ordinal);
      const int64_t type = s.i(7);
      const size_t k = type >= 0 && type < 5 ? static_cast<size_t>(type) : 0;
      SyncInfo y;
      y.correlation = static_cast<uint32_t>(s.i(5));
      y.kind = kKinds[k];
      y.event_id = s.null(8) ? kNone32 : static_cast<uint32_t>(s.i(8));
      // event and context syncs wait on no stream (CUPTI's invalid id 0xFFFFFFFF): one device track
      const int64_t stream = s.null(4) || s.i(4) == 0xFFFFFFFF ? -1 : s.i(4);
      const uint32_t track = stream >= 0 ? stream_track(dev, stream)
                                         : b_.track(TrackKey{TrackKind::kGpuStream, b_.trace().devices[dev].process,
                                                             static_cast<int32_t>(dev), -1},
                                                    "synchronisation (no stream)");
      b_.add_slice(track, t(s, 0), dur(s, 0, 1), b_.intern(kNames[k]), b_.add_sync(y));
      row_done();
    }
  }

  // Whole-graph records (graph trace mode: Nsight records graph launches, not their kernels).
  void graphs() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
    if (!has(tb)) return;
    Statement s(db_, select(tb, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "graphId", "graphExecId"}), path_, tb);
    const StringId graph_key = b_.intern("graph id"), exec_key = b_.intern("graph exec id");
    while (s.step()) {
      const uint32_t dev = device(s.i(5), s.i(2));
      const Arg args[] = {{graph_key, ArgValue::of_int(s.i(6))}, {exec_key, ArgValue::of_int(s.i(7))}};
      const EventRef e = b_.add_slice(stream_track(dev, s.i(3)), t(s, 0), dur(s, 0, 1),
                                      b_.intern("CUDA graph " + std::to_string(s.i(6))),
                                      SliceRef(SliceKind::kGeneric, SliceRef::kNoDetail), args);
      gpu_activity(static_cast<uint64_t>(s.i(5)), static_cast<uint32_t>(s.i(4)), e);
      row_done();
    }
  }

  void runtime() {
    const std::string tb = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!has(tb)) return;
    Statement s(db_, select(tb, {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue"}), path_, tb);
    std::unordered_map<StringId, StringId> stripped;
    while (s.step()) {
      const int64_t gtid = s.i(3);
      ApiInfo a;
      a.correlation = static_cast<uint32_t>(s.i(4));
      a.result = static_cast<int32_t>(s.i(6));
      StringId name = sid(s, 5);
      auto [it, inserted] = stripped.try_emplace(name, name);
      if (inserted) it->second = b_.intern(strip_api_version(b_.strings().view(name)));
      const EventRef e = b_.add_slice(thread_track(gtid), t(s, 0), dur(s, 0, 1), it->second, b_.add_api_call(a));
      if (a.correlation) {
        // runtime (eventClass 0) calls win over the driver calls they make with the same id
        const bool is_runtime = s.i(2) == 0;
        auto& slot = api_by_correlation_[{static_cast<uint64_t>(gtid & ~kTidMask), a.correlation}];
        if (!slot.second.valid() || (is_runtime && !slot.first)) slot = {is_runtime, e};
        if (const auto k = nccl_kernels_.find({static_cast<uint64_t>(gtid & ~kTidMask), a.correlation}); k != nccl_kernels_.end()) {
          k->second.launch_tid = gtid;
          k->second.launch_at = s.time(0);
        }
      }
      row_done();
    }
  }

  // The profiler's own cost on the host: Nsight's PROFILER_OVERHEAD (initialisation, buffer
  // flushes, TLS allocation) and CUPTI's OVERHEAD records (module loading, lazy function loading,
  // a full command buffer), each on its thread as an overhead slice named by the export (else by
  // ENUM_CUPTI_OVERHEAD_TYPE's label). Rows without a thread are counted in a warning.
  void overheads() {
    std::map<int64_t, StringId> type_labels;
    if (has("ENUM_CUPTI_OVERHEAD_TYPE")) {
      Statement s(db_, select("ENUM_CUPTI_OVERHEAD_TYPE", {"id", "label"}), path_, "ENUM_CUPTI_OVERHEAD_TYPE");
      while (s.step())
        if (!s.null(1)) type_labels[s.i(0)] = b_.intern(s.text(1));
    }
    const StringId type_key = b_.intern("overhead type");
    size_t no_thread = 0;
    for (const char* tb : {"PROFILER_OVERHEAD", "CUPTI_ACTIVITY_KIND_OVERHEAD"}) {
      if (!has(tb)) continue;
      Statement s(db_, select(tb, {"start", "end", "globalTid", "nameId", "overheadType"}), path_, tb);
      while (s.step()) {
        StringId name = sid(s, 3);
        const auto label = type_labels.find(s.i(4));
        if (name == kEmptyString) name = label != type_labels.end() ? label->second : b_.intern("profiler overhead");
        const Arg args[] = {{type_key, label != type_labels.end() ? ArgValue::of_string(label->second) : ArgValue::of_int(s.i(4))}};
        row_done();
        if (s.null(2)) {
          ++no_thread;
          continue;
        }
        b_.add_slice(thread_track(s.i(2)), t(s, 0), dur(s, 0, 1), name, SliceRef(SliceKind::kOverhead, SliceRef::kNoDetail), args);
      }
    }
    if (no_thread) b_.warn(path_ + ": " + std::to_string(no_thread) + " profiler overhead rows have no thread; not imported");
  }

  void nvtx() {
    const std::string tb = "NVTX_EVENTS";
    if (!has(tb)) return;
    std::map<int64_t, StringId> domains;
    std::map<std::pair<int64_t, int64_t>, StringId> categories;
    {
      Statement s(db_, select(tb, {"eventType", "domainId", "category", "text", "textId"}, "WHERE eventType IN (33, 64, 75)"), path_, tb);
      while (s.step()) {
        const StringId text = s.null(3) ? sid(s, 4) : b_.intern(s.text(3));
        if (s.i(0) == 75) domains[s.i(1)] = text;
        else categories[{s.i(1), s.i(2)}] = text;
      }
    }
    Statement s(db_, select(tb, {"start", "end", "eventType", "globalTid", "domainId", "category", "color", "text", "textId",
                                 "uint64Value", "int64Value", "doubleValue", "uint32Value", "int32Value", "floatValue"},
                            "WHERE eventType NOT IN (33, 64, 75)"),
                path_, tb);
    size_t open_ranges = 0, other = 0;
    std::map<std::pair<uint32_t, int64_t>, uint32_t> domain_tracks;
    while (s.step()) {
      const int64_t type = s.i(2);
      const bool push_pop = type == 59 || type == 70, start_end = type == 60 || type == 71, mark = type == 34 || type == 65;
      if (!push_pop && !start_end && !mark) {
        ++other;
        row_done();
        continue;
      }
      NvtxInfo n;
      const int64_t domain = s.i(4);
      if (auto it = domains.find(domain); it != domains.end()) n.domain = it->second;
      if (!s.null(5))
        if (auto it = categories.find({domain, s.i(5)}); it != categories.end()) n.category = it->second;
      n.color_argb = static_cast<uint32_t>(s.i(6));
      for (int p = 0; p < 6; ++p) {
        if (s.null(9 + p)) continue;
        uint64_t bits = 0;
        if (p == 2) {
          const double v = s.d(9 + p);
          std::memcpy(&bits, &v, 8);
        } else if (p == 5) {
          const float v = static_cast<float>(s.d(9 + p));
          uint32_t b32;
          std::memcpy(&b32, &v, 4);
          bits = b32;
        } else {
          bits = static_cast<uint64_t>(s.i(9 + p));
        }
        n.payload = U64Split(bits);
        n.payload_type = static_cast<uint8_t>(p + 1);
        break;
      }
      const StringId text = s.null(7) ? sid(s, 8) : b_.intern(s.text(7));
      uint32_t track;
      if (start_end) {
        const uint32_t proc = process(s.i(3) & ~kTidMask);
        auto [it, inserted] = domain_tracks.try_emplace({proc, domain}, 0u);
        if (inserted) {
          const std::string dname = n.domain == kEmptyString ? "default domain" : std::string(b_.strings().view(n.domain));
          it->second = b_.track(TrackKey{TrackKind::kNvtx, proc, -1, domain}, "NVTX " + dname);
        }
        track = it->second;
      } else {
        track = thread_track(s.i(3));
      }
      TimeNs d = 0;
      if (!mark) {
        if (s.null(1)) ++open_ranges;
        else d = dur(s, 0, 1);
      }
      b_.add_slice(track, t(s, 0), d, text, b_.add_nvtx(n));
      if (push_pop && !s.null(1) && !nccl_kernels_.empty() && b_.strings().view(text).starts_with("nccl"))
        nccl_ranges_[s.i(3)].push_back({s.time(0), s.time(1), text});
      row_done();
    }
    if (open_ranges) b_.warn(path_ + ": " + std::to_string(open_ranges) + " NVTX ranges have no end; shown with zero length");
    if (other) b_.warn(path_ + ": " + std::to_string(other) + " NVTX events of other types (naming, threads) were not imported");
  }

  // NCCL's own NVTX ranges name what its kernels do: PyTorch's "nccl:all_to_all, op_id = N" around
  // the call, else NCCL's API range ("ncclAllReduce", "ncclSend") around the launch, else, for a
  // group launched in ncclGroupEnd, the API ranges since its ncclGroupStart (sends and receives
  // only: SendRecv, else Send or Recv; one collective: that one). The kernel gets a collective
  // annotation of that operation (no size: the exports' NCCL payloads are not read).
  void nccl_operations() {
    for (auto& [tid, v] : nccl_ranges_) std::sort(v.begin(), v.end(), [](const NcclRange& x, const NcclRange& y) {
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    auto op_of_api = [&](std::string_view text) {  // "ncclSend" -> kSend; ncclGroupStart etc.: unknown
      return text.starts_with("nccl") && !text.starts_with("nccl:") ? collective_op_from_name(text.substr(4)) : CollectiveOp::kUnknown;
    };
    for (const auto& [key, k] : nccl_kernels_) {
      const auto it = nccl_ranges_.find(k.launch_tid);
      if (k.launch_tid < 0 || it == nccl_ranges_.end()) continue;
      const std::vector<NcclRange>& v = it->second;
      CollectiveOp op = CollectiveOp::kUnknown, api = CollectiveOp::kUnknown;
      const NcclRange* group_end = nullptr;
      for (const NcclRange& r : v) {  // enclosing ranges, outermost first: the innermost wins
        if (r.start > k.launch_at) break;
        if (r.end < k.launch_at) continue;
        const std::string_view text = b_.strings().view(r.text);
        if (text.starts_with("nccl:")) {
          const std::string_view name = text.substr(5, text.find_first_of(", ", 5) - 5);
          if (const CollectiveOp o = collective_op_from_name(name); o != CollectiveOp::kUnknown) op = o;
        } else if (text == "ncclGroupEnd") {
          group_end = &r;
        } else if (const CollectiveOp o = op_of_api(text); o != CollectiveOp::kUnknown) {
          api = o;
        }
      }
      if (op == CollectiveOp::kUnknown) op = api;
      if (op == CollectiveOp::kUnknown && group_end) {
        const NcclRange* group_start = nullptr;
        for (const NcclRange& r : v) {
          if (r.start >= group_end->start) break;
          if (b_.strings().view(r.text) == "ncclGroupStart") group_start = &r;
        }
        std::set<CollectiveOp> ops;
        for (const NcclRange& r : v) {
          if (r.start >= group_end->start) break;
          if (group_start && r.start > group_start->start)
            if (const CollectiveOp o = op_of_api(b_.strings().view(r.text)); o != CollectiveOp::kUnknown) ops.insert(o);
        }
        const bool sends = ops.count(CollectiveOp::kSend), recvs = ops.count(CollectiveOp::kRecv);
        if (!ops.empty() && ops.size() == static_cast<size_t>(sends) + static_cast<size_t>(recvs))
          op = sends && recvs ? CollectiveOp::kSendRecv : sends ? CollectiveOp::kSend : CollectiveOp::kRecv;
        else if (ops.size() == 1)
          op = *ops.begin();
      }
      if (op == CollectiveOp::kUnknown) continue;
      CollectiveInfo c;
      c.op = op;
      c.kernel = k.kernel;
      b_.add_collective(c);
    }
  }

  void launch_flows() {
    for (const auto& [gpid, corr, gpu] : gpu_by_correlation_) {
      auto it = api_by_correlation_.find({gpid, corr});
      if (it != api_by_correlation_.end()) b_.add_flow(it->second.second, gpu, FlowKind::kLaunch);
    }
    report_.events = static_cast<int64_t>(rows_);
    if (missing_strings_)
      b_.warn(path_ + ": " + std::to_string(missing_strings_) + " names refer to ids missing from StringIds");
  }

  struct NcclKernel {
    EventRef kernel;
    int64_t launch_tid = -1;  // globalTid of its launch call, -1: none in the export
    TimeNs launch_at = 0;     // session-relative
  };
  struct NcclRange {
    TimeNs start, end;  // session-relative
    StringId text;
  };

  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint32_t>& p) const noexcept { return std::hash<uint64_t>{}(p.first * 0x9e3779b97f4a7c15ull ^ p.second); }
  };

  std::string path_;
  TraceBuilder& b_;
  const NsysImportOptions& o_;
  FileImportReport& report_;
  sqlite3* db_ = nullptr;
  std::set<std::string> tables_;
  std::map<std::string, std::set<std::string>> columns_;
  std::unordered_map<int64_t, StringId> string_ids_;
  std::unordered_map<int64_t, StringId> thread_names_;
  std::map<int64_t, uint32_t> process_by_gpid_;
  std::vector<uint32_t> processes_;
  std::map<std::pair<int64_t, int64_t>, uint32_t> devices_;
  std::map<std::pair<int64_t, int64_t>, int64_t> context_device_;
  std::vector<std::tuple<uint64_t, uint32_t, EventRef>> gpu_by_correlation_;
  std::unordered_map<std::pair<uint64_t, uint32_t>, std::pair<bool, EventRef>, PairHash> api_by_correlation_;
  TimeNs offset_ = 0;
  std::string offset_reason_;
  uint64_t rows_ = 0, total_rows_ = 0;
  size_t missing_strings_ = 0;
  std::map<std::pair<uint64_t, uint32_t>, NcclKernel> nccl_kernels_;  // (globalPid, correlation)
  std::map<int64_t, std::vector<NcclRange>> nccl_ranges_;             // by globalTid: NVTX ranges named nccl*
};

}  // namespace

FileImportReport import_nsys_sqlite(const std::string& path, TraceBuilder& builder, const NsysImportOptions& options) {
  FileImportReport report;
  report.file = path;
  Importer(path, builder, options, report).run();
  if (options.progress) options.progress(1, 1);
  return report;
}

}  // namespace parascope
