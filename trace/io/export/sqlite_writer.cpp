#include "trace/io/export/sqlite_writer.h"

#include <stdexcept>

#if PARASCOPE_HAVE_SQLITE
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <unordered_map>
#include <vector>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/classify.h"
#include "trace/io/common/atomic_file.h"
#endif

namespace parascope {

#if !PARASCOPE_HAVE_SQLITE

bool sqlite_export_available() { return false; }

void write_sqlite(const Trace&, const std::string& path, const std::function<void(uint64_t, uint64_t)>&) {
  throw std::runtime_error(path + ": this build has no SQLite support (configure with PARASCOPE_SQLITE=ON and sqlite3 installed)");
}

#else

bool sqlite_export_available() { return true; }

namespace {

constexpr const char* kSchema = R"SQL(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE process (id INTEGER PRIMARY KEY, rank INTEGER, pid INTEGER, host TEXT, name TEXT, source TEXT,
  clock_offset_ns INTEGER, clock_offset_reason TEXT);
CREATE TABLE device (id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES process(id), ordinal INTEGER, name TEXT,
  pci_bus_id TEXT, uuid TEXT, sm_count INTEGER, compute_major INTEGER, compute_minor INTEGER, memory_bytes INTEGER);
CREATE TABLE track (id INTEGER PRIMARY KEY, kind TEXT, process_id INTEGER REFERENCES process(id),
  device_id INTEGER REFERENCES device(id), key INTEGER, name TEXT, parent_id INTEGER, unit TEXT, counter_source TEXT);
CREATE TABLE slice (id INTEGER PRIMARY KEY, track_id INTEGER REFERENCES track(id), row INTEGER, ts INTEGER,
  dur INTEGER, name TEXT, kind TEXT, category TEXT, depth INTEGER);
CREATE TABLE kernel (slice_id INTEGER PRIMARY KEY REFERENCES slice(id), correlation INTEGER, grid_x INTEGER,
  grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers_per_thread INTEGER,
  static_smem INTEGER, dynamic_smem INTEGER, graph_id INTEGER, graph_node_id INTEGER);
CREATE TABLE memcpy (slice_id INTEGER PRIMARY KEY REFERENCES slice(id), bytes INTEGER, copy_kind TEXT,
  src_device_id INTEGER, dst_device_id INTEGER, mechanism TEXT, correlation INTEGER);
CREATE TABLE memset (slice_id INTEGER PRIMARY KEY REFERENCES slice(id), bytes INTEGER, value INTEGER,
  correlation INTEGER);
CREATE TABLE sync (slice_id INTEGER PRIMARY KEY REFERENCES slice(id), kind TEXT, event_id INTEGER,
  stream INTEGER, correlation INTEGER);
CREATE TABLE collective (id INTEGER PRIMARY KEY, kernel_slice_id INTEGER REFERENCES slice(id),
  cpu_slice_id INTEGER REFERENCES slice(id), op TEXT, process_group TEXT, group_ranks TEXT, group_size INTEGER,
  rank INTEGER, sequence INTEGER, dtype TEXT, dtype_bytes INTEGER, in_elements INTEGER, out_elements INTEGER,
  bytes INTEGER, algbw_gbps REAL, busbw_gbps REAL);
CREATE TABLE arg (slice_id INTEGER REFERENCES slice(id), key TEXT, value);
CREATE TABLE flow (id INTEGER PRIMARY KEY, kind TEXT, from_slice_id INTEGER REFERENCES slice(id),
  to_slice_id INTEGER REFERENCES slice(id));
CREATE TABLE counter (track_id INTEGER REFERENCES track(id), ts INTEGER, value REAL);
)SQL";

constexpr const char* kIndexesAndViews = R"SQL(
CREATE INDEX slice_by_track_ts ON slice(track_id, ts);
CREATE INDEX slice_by_name ON slice(name);
CREATE INDEX arg_by_slice ON arg(slice_id);
CREATE INDEX counter_by_track_ts ON counter(track_id, ts);
CREATE VIEW gpu_slice AS
  SELECT s.id AS slice_id, p.rank AS rank, d.ordinal AS device, t.key AS stream, s.kind, s.category, s.name,
         s.ts, s.dur, s.ts + s.dur AS end_ts, s.depth
  FROM slice s JOIN track t ON s.track_id = t.id JOIN device d ON t.device_id = d.id
  JOIN process p ON t.process_id = p.id
  WHERE t.kind = 'stream';
CREATE VIEW kernel_slice AS
  SELECT g.*, k.correlation, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,
         k.registers_per_thread, k.dynamic_smem, k.static_smem
  FROM gpu_slice g JOIN kernel k ON k.slice_id = g.slice_id;
)SQL";

class Db {
 public:
  explicit Db(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw std::runtime_error(path + ": cannot create SQLite database: " + msg);
    }
  }
  ~Db() {
    for (auto* s : statements_) sqlite3_finalize(s);
    if (db_) sqlite3_close(db_);
  }
  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(path_ + ": SQLite: " + msg);
    }
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) fail("prepare");
    statements_.push_back(s);
    return s;
  }
  void run(sqlite3_stmt* s) {
    if (sqlite3_step(s) != SQLITE_DONE) fail("insert");
    sqlite3_reset(s);
  }
  void close() {
    for (auto* s : statements_) sqlite3_finalize(s);
    statements_.clear();
    if (sqlite3_close(db_) != SQLITE_OK) fail("close");
    db_ = nullptr;
  }
  [[noreturn]] void fail(const char* what) { throw std::runtime_error(path_ + ": SQLite " + what + ": " + sqlite3_errmsg(db_)); }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> statements_;
};

// Binds a parameter list in order.
struct Bind {
  sqlite3_stmt* s;
  int i = 1;
  Bind& i64(int64_t v) {
    sqlite3_bind_int64(s, i++, v);
    return *this;
  }
  Bind& u64(uint64_t v) {  // SQLite integers are signed 64-bit; larger values are kept as text
    if (v > static_cast<uint64_t>(INT64_MAX)) return text(std::to_string(v));
    return i64(static_cast<int64_t>(v));
  }
  Bind& real(double v) {
    sqlite3_bind_double(s, i++, v);
    return *this;
  }
  Bind& text(std::string_view v) {
    sqlite3_bind_text(s, i++, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Bind& null() {
    sqlite3_bind_null(s, i++);
    return *this;
  }
  Bind& opt(bool present, int64_t v) { return present ? i64(v) : null(); }
};

void write(const Trace& t, Db& db, const std::function<void(uint64_t, uint64_t)>& progress) {
  db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;");
  db.exec(kSchema);
  db.exec("BEGIN");
  auto* meta = db.prepare("INSERT INTO meta VALUES (?, ?)");
  auto m = [&](std::string_view k, std::string_view v) {
    Bind{meta}.text(k).text(v);
    db.run(meta);
  };
  m("schema_version", std::to_string(kSqliteSchemaVersion));
  m("time_unit", "ns");
  m("source_format", t.source_format);
  std::string files;
  for (const auto& f : t.source_files) files += (files.empty() ? "" : "\n") + f;
  m("source_files", files);
  m("exported_by", "parascope");
  for (size_t i = 0; i < t.warnings.size(); ++i) m("warning " + std::to_string(i), t.warnings[i]);
  for (size_t i = 0; i < t.notes.size(); ++i) m("note " + std::to_string(i), t.notes[i]);

  auto* proc = db.prepare("INSERT INTO process VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < t.processes.size(); ++i) {
    const Process& p = t.processes[i];
    Bind{proc}.i64(static_cast<int64_t>(i)).opt(p.rank >= 0, p.rank).i64(p.pid).text(p.host).text(p.name).text(p.source)
        .i64(p.clock_offset_ns).text(p.clock_offset_reason);
    db.run(proc);
  }
  auto* dev = db.prepare("INSERT INTO device VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < t.devices.size(); ++i) {
    const Device& d = t.devices[i];
    Bind{dev}.i64(static_cast<int64_t>(i)).i64(d.process).i64(d.ordinal).text(d.name).text(d.pci_bus_id).text(d.uuid)
        .i64(d.sm_count).i64(d.compute_major).i64(d.compute_minor).u64(d.memory_bytes);
    db.run(dev);
  }
  auto* track = db.prepare("INSERT INTO track VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  std::vector<int64_t> first_slice(t.tracks.size() + 1, 0);
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    first_slice[i + 1] = first_slice[i] + static_cast<int64_t>(tr.slices.size());
    Bind b{track};
    b.i64(static_cast<int64_t>(i)).text(to_string(tr.key.kind)).i64(tr.key.process).opt(tr.key.device >= 0, tr.key.device);
    if (tr.key.id >= (int64_t{1} << 62)) b.null();
    else b.i64(tr.key.id);
    b.text(t.str(tr.name)).opt(tr.parent >= 0, tr.parent);
    if (tr.unit != kEmptyString) b.text(t.str(tr.unit));
    else b.null();
    if (tr.counter.size()) b.text(to_string(tr.counter_source));
    else b.null();
    db.run(track);
  }
  auto slice_id = [&](EventRef r) -> int64_t {
    if (!r.valid() || r.track >= t.tracks.size() || r.index >= t.tracks[r.track].slices.size()) return -1;
    return first_slice[r.track] + r.index;
  };

  const SliceClassifier classify(t);
  auto* slice = db.prepare("INSERT INTO slice VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto* kernel = db.prepare("INSERT INTO kernel VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto* memcpy_row = db.prepare("INSERT INTO memcpy VALUES (?, ?, ?, ?, ?, ?, ?)");
  auto* memset_row = db.prepare("INSERT INTO memset VALUES (?, ?, ?, ?)");
  auto* sync = db.prepare("INSERT INTO sync VALUES (?, ?, ?, ?, ?)");
  auto* arg = db.prepare("INSERT INTO arg VALUES (?, ?, ?)");
  auto* counter = db.prepare("INSERT INTO counter VALUES (?, ?, ?)");
  const uint64_t total = t.slice_count();
  uint64_t done = 0;
  auto device_or_null = [](Bind& b, uint16_t d) -> Bind& { return d == kNoDevice ? b.null() : b.i64(d); };
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    for (uint32_t i = 0; i < tr.slices.size(); ++i) {
      const int64_t id = first_slice[ti] + i;
      const SliceRef r = tr.slices.ref[i];
      Bind{slice}.i64(id).i64(ti).i64(i).i64(tr.slices.start[i]).i64(tr.slices.dur[i]).text(t.str(tr.slices.name[i]))
          .text(to_string(r.kind())).text(to_string(classify.category(ti, i))).i64(tr.slices.depth_of(i));
      db.run(slice);
      if (r.has_detail()) {
        switch (r.kind()) {
          case SliceKind::kKernel: {
            const KernelInfo& k = t.kernels[r.index()];
            const LaunchConfig lc = t.launch_config(k) ? *t.launch_config(k) : LaunchConfig{};
            Bind{kernel}.i64(id).i64(k.correlation).i64(lc.grid[0]).i64(lc.grid[1]).i64(lc.grid[2]).i64(lc.block[0])
                .i64(lc.block[1]).i64(lc.block[2]).i64(lc.registers_per_thread).i64(lc.static_smem).i64(lc.dynamic_smem)
                .i64(k.graph_id).u64(k.graph_node_id.get());
            db.run(kernel);
            break;
          }
          case SliceKind::kMemcpy: {
            const MemcpyInfo& mc = t.memcpys[r.index()];
            Bind b{memcpy_row};
            b.i64(id).u64(mc.bytes.get()).text(to_string(mc.copy_kind));
            device_or_null(b, mc.src_device);
            device_or_null(b, mc.dst_device);
            b.text(to_string(mc.mechanism)).i64(mc.correlation);
            db.run(memcpy_row);
            break;
          }
          case SliceKind::kMemset: {
            const MemsetInfo& ms = t.memsets[r.index()];
            Bind{memset_row}.i64(id).u64(ms.bytes.get()).i64(ms.value).i64(ms.correlation);
            db.run(memset_row);
            break;
          }
          case SliceKind::kSync: {
            const SyncInfo& s = t.syncs[r.index()];
            Bind{sync}.i64(id).text(to_string(s.kind)).opt(s.event_id != kNone32, s.event_id).opt(s.stream >= 0, s.stream)
                .i64(s.correlation);
            db.run(sync);
            break;
          }
          default: break;
        }
      }
      for (const Arg& a : t.args.get(tr.slices.args_of(i))) {
        Bind b{arg};
        b.i64(id).text(t.str(a.key));
        switch (a.value.type) {
          case ArgValue::Type::kInt: b.i64(a.value.i); break;
          case ArgValue::Type::kUInt: b.u64(a.value.u); break;
          case ArgValue::Type::kDouble: b.real(a.value.d); break;
          case ArgValue::Type::kBool: b.i64(a.value.b ? 1 : 0); break;
          case ArgValue::Type::kString:
          case ArgValue::Type::kJson: b.text(t.str(a.value.s)); break;
        }
        db.run(arg);
      }
      if (++done % 65536 == 0 && progress) progress(done, total);
    }
    for (size_t i = 0; i < tr.counter.size(); ++i) {
      Bind{counter}.i64(ti).i64(tr.counter.time[i]).real(tr.counter.value[i]);
      db.run(counter);
    }
  }
  auto* coll = db.prepare("INSERT INTO collective VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const auto bw = collective_bandwidth(t);
  std::unordered_map<uint32_t, const CollectiveBandwidth*> bw_by_collective;
  for (const auto& row : bw) bw_by_collective[row.collective] = &row;
  for (uint32_t ci = 0; ci < t.collectives.size(); ++ci) {
    const CollectiveInfo& c = t.collectives[ci];
    Bind b{coll};
    const int64_t k = slice_id(c.kernel), cpu = slice_id(c.cpu_op);
    b.i64(ci).opt(k >= 0, k).opt(cpu >= 0, cpu).text(to_string(c.op)).text(t.str(c.group)).text(t.str(c.group_ranks));
    b.i64(collective_group_size(t, c)).opt(c.rank >= 0, c.rank).opt(c.sequence >= 0, c.sequence).text(t.str(c.dtype));
    b.i64(c.dtype_bytes).u64(c.in_elements).u64(c.out_elements).u64(collective_bytes(c));
    auto it = bw_by_collective.find(ci);
    if (it != bw_by_collective.end() && it->second->algbw_bytes_per_s > 0)
      b.real(it->second->algbw_bytes_per_s * 1e-9).real(it->second->busbw_bytes_per_s * 1e-9);
    else
      b.null().null();
    db.run(coll);
  }
  auto* flow = db.prepare("INSERT INTO flow VALUES (?, ?, ?, ?)");
  for (size_t fi = 0; fi < t.flows.size(); ++fi) {
    const Flow& f = t.flows[fi];
    const int64_t a = slice_id(f.from), b = slice_id(f.to);
    if (a < 0 || b < 0) continue;
    Bind{flow}.i64(static_cast<int64_t>(fi)).text(to_string(f.kind)).i64(a).i64(b);
    db.run(flow);
  }
  db.exec("COMMIT");
  db.exec(kIndexesAndViews);
  if (progress) progress(total, total);
}

}  // namespace

void write_sqlite(const Trace& trace, const std::string& path, const std::function<void(uint64_t, uint64_t)>& progress) {
  const std::string tmp = atomic_temp_path(path);
  ::unlink(tmp.c_str());
  try {
    Db db(tmp);
    write(trace, db, progress);
    db.close();
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename " + tmp + " into place");
  }
}

#endif

}  // namespace parascope
