#include "trace/io/export/csv_writer.h"

#include <cstdio>
#include <unordered_map>

#include "trace/core/analysis/collective_bandwidth.h"
#include "trace/core/classify.h"
#include "trace/io/common/atomic_file.h"

namespace parascope {

void append_csv_field(std::string& out, std::string_view f) {
  if (f.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(f);
    return;
  }
  out.push_back('"');
  for (char c : f) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

namespace {

class Row {
 public:
  explicit Row(std::string& out) : out_(out) {}
  Row& text(std::string_view s) {
    sep();
    append_csv_field(out_, s);
    return *this;
  }
  Row& num(int64_t v) {
    sep();
    out_ += std::to_string(v);
    return *this;
  }
  Row& unum(uint64_t v) {
    sep();
    out_ += std::to_string(v);
    return *this;
  }
  Row& real(double v) {
    sep();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    out_ += buf;
    return *this;
  }
  Row& empty() {
    sep();
    return *this;
  }
  void end() { out_ += "\r\n"; }

 private:
  void sep() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace

void write_slices_csv(const Trace& t, const std::string& path,
                      const std::function<void(uint64_t, uint64_t)>& progress) {
  AtomicFile file(path);
  std::string out =
      "slice_id,rank,process,device,track_kind,track_key,track,kind,category,name,start_ns,dur_ns,end_ns,depth,"
      "correlation,bytes,src_device,dst_device,collective,collective_bytes,group_size\r\n";
  const SliceClassifier classify(t);
  std::unordered_map<uint64_t, uint32_t> collective_by_kernel;
  for (uint32_t ci = 0; ci < t.collectives.size(); ++ci)
    if (t.collectives[ci].kernel.valid())
      collective_by_kernel[(static_cast<uint64_t>(t.collectives[ci].kernel.track) << 32) | t.collectives[ci].kernel.index] = ci;
  uint64_t total = t.slice_count(), id = 0;
  auto ordinal = [&](uint16_t d) -> int64_t { return d < t.devices.size() ? t.devices[d].ordinal : -1; };
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    const Process* proc = tr.key.process < t.processes.size() ? &t.processes[tr.key.process] : nullptr;
    for (uint32_t i = 0; i < tr.slices.size(); ++i, ++id) {
      Row r(out);
      r.unum(id);
      if (proc && proc->rank >= 0) r.num(proc->rank);
      else r.empty();
      r.num(tr.key.process);
      if (tr.key.device >= 0 && static_cast<size_t>(tr.key.device) < t.devices.size()) r.num(t.devices[static_cast<size_t>(tr.key.device)].ordinal);
      else r.empty();
      r.text(to_string(tr.key.kind));
      if (tr.key.id >= (int64_t{1} << 62)) r.empty();
      else r.num(tr.key.id);
      r.text(t.str(tr.name));
      const SliceRef ref = tr.slices.ref[i];
      r.text(to_string(ref.kind())).text(to_string(classify.category(ti, i))).text(t.str(tr.slices.name[i]));
      r.num(tr.slices.start[i]).num(tr.slices.dur[i]).num(tr.slices.end(i)).num(tr.slices.depth_of(i));
      uint32_t corr = 0;
      uint64_t bytes = 0;
      bool has_bytes = false;
      int64_t src = -1, dst = -1;
      if (ref.has_detail()) {
        switch (ref.kind()) {
          case SliceKind::kKernel: corr = t.kernels[ref.index()].correlation; break;
          case SliceKind::kMemcpy: {
            const MemcpyInfo& m = t.memcpys[ref.index()];
            corr = m.correlation;
            bytes = m.bytes.get();
            has_bytes = true;
            src = ordinal(m.src_device);
            dst = ordinal(m.dst_device);
            break;
          }
          case SliceKind::kMemset:
            corr = t.memsets[ref.index()].correlation;
            bytes = t.memsets[ref.index()].bytes.get();
            has_bytes = true;
            break;
          case SliceKind::kSync: corr = t.syncs[ref.index()].correlation; break;
          case SliceKind::kRuntimeApi: corr = t.api_calls[ref.index()].correlation; break;
          default: break;
        }
      }
      if (corr) r.unum(corr);
      else r.empty();
      if (has_bytes) r.unum(bytes);
      else r.empty();
      if (src >= 0) r.num(src);
      else r.empty();
      if (dst >= 0) r.num(dst);
      else r.empty();
      auto it = collective_by_kernel.find((static_cast<uint64_t>(ti) << 32) | i);
      if (it != collective_by_kernel.end()) {
        const CollectiveInfo& c = t.collectives[it->second];
        r.text(to_string(c.op)).unum(collective_bytes(c)).num(collective_group_size(t, c));
      } else {
        r.empty().empty().empty();
      }
      r.end();
      if (out.size() > (1u << 20)) {
        file.write(out);
        out.clear();
        if (progress) progress(id, total);
      }
    }
  }
  file.write(out);
  file.commit();
  if (progress) progress(total, total);
}

void write_kernel_stats_csv(const Trace& t, const KernelStats& stats, const std::string& path) {
  AtomicFile file(path);
  std::string out = "scope,rank,device,name,category,count,total_ns,mean_ns,p50_ns,p95_ns,min_ns,max_ns\r\n";
  auto table = [&](const KernelStatsTable& tab) {
    const Device* d = tab.device >= 0 ? &t.devices[static_cast<size_t>(tab.device)] : nullptr;
    const Process* p = d && d->process < t.processes.size() ? &t.processes[d->process] : nullptr;
    for (const KernelStat& s : tab.rows) {
      Row r(out);
      r.text(d ? "device" : "all");
      if (p && p->rank >= 0) r.num(p->rank);
      else r.empty();
      if (d) r.num(d->ordinal);
      else r.empty();
      r.text(t.str(s.name)).text(to_string(s.category)).num(s.count).num(s.total_ns).real(s.mean_ns);
      r.num(s.p50_ns).num(s.p95_ns).num(s.min_ns).num(s.max_ns);
      r.end();
    }
  };
  for (const KernelStatsTable& tab : stats.per_device) table(tab);
  table(stats.overall);
  file.write(out);
  file.commit();
}

}  // namespace parascope
