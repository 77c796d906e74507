#include "gui/slice_details.h"

#include <algorithm>

#include "render/qstr.h"
#include "trace/core/data_table.h"

namespace parascope::gui {

namespace {
QString esc(std::string_view s) { return qstr(s).toHtmlEscaped(); }
QString row(const QString& k, const QString& v) { return "<tr><td><b>" + k + "</b></td><td>" + v + "</td></tr>"; }
QString num(uint64_t v) { return QString::number(v); }
QString dur(TimeNs ns) { return esc(format_duration(ns)); }
// "1.2 ms after trace start"; a range dragged left of the first event: "881.2 us before trace start"
QString since_start(TimeNs ns) { return ns < 0 ? dur(-ns) + " before trace start" : dur(ns) + " after trace start"; }
QString pct(TimeNs part, TimeNs whole) {
  return QString::number(whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0, 'f', 1) + " %";
}
QString gpu(const Trace& t, uint16_t d) {
  if (d == kNoDevice || d >= t.devices.size()) return "host";
  const Device& dev = t.devices[d];
  return QString("rank %1 GPU %2").arg(t.processes[dev.process].rank).arg(dev.ordinal);
}
}  // namespace

QString slice_details_html(const Trace& t, const SliceClassifier& classify, EventRef ref, TimeNs origin) {
  if (!ref.valid() || ref.track >= t.tracks.size() || ref.index >= t.tracks[ref.track].slices.size())
    return "<i>Nothing selected. Click a slice in the timeline, or Shift+drag to select a range.</i>";
  const Track& tr = t.tracks[ref.track];
  const auto& s = tr.slices;
  const uint32_t i = ref.index;
  const SliceRef sr = s.ref[i];
  QString h = "<h3>" + esc(t.str(s.name[i])) + "</h3><table cellspacing=4>";
  h += row("kind", esc(to_string(sr.kind())));
  h += row("category", esc(to_string(classify.category(ref))));
  h += row("start", since_start(s.start[i] - origin));
  h += row("duration", dur(s.dur[i]) + " (" + QString::number(s.dur[i]) + " ns)");
  h += row("track", esc(t.str(tr.name)) + (s.depth_of(i) ? QString(" (depth %1)").arg(s.depth_of(i)) : QString()));
  const Process& p = t.processes[tr.key.process];
  h += row("rank", p.rank >= 0 ? QString::number(p.rank) : QString("?"));
  if (tr.key.device >= 0) {
    const Device& d = t.devices[static_cast<size_t>(tr.key.device)];
    h += row("device", "GPU " + QString::number(d.ordinal) + " " + esc(d.name) +
                           (d.pci_bus_id.empty() ? QString() : " (" + esc(d.pci_bus_id) + ")"));
  }
  if (sr.has_detail()) {
    switch (sr.kind()) {
      case SliceKind::kKernel: {
        const KernelInfo& k = t.kernels[sr.index()];
        if (const LaunchConfig* lc = t.launch_config(k)) {
          h += row("grid", QString("[%1, %2, %3]").arg(lc->grid[0]).arg(lc->grid[1]).arg(lc->grid[2]));
          h += row("block", QString("[%1, %2, %3]").arg(lc->block[0]).arg(lc->block[1]).arg(lc->block[2]));
          h += row("registers/thread", num(lc->registers_per_thread));
          h += row("shared memory", num(lc->static_smem) + " B static + " + num(lc->dynamic_smem) + " B dynamic");
        }
        h += row("correlation", num(k.correlation));
        h += row("CUDA graph", k.graph_id ? num(k.graph_id) + ", node " + num(k.graph_node_id.get()) : QString("none"));
        for (const CollectiveInfo& c : t.collectives) {
          if (!(c.kernel == ref)) continue;
          h += row("collective", esc(to_string(c.op)) + " " + esc(t.str(c.dtype)) + " × " + num(c.in_elements) + " in / " +
                                     num(c.out_elements) + " out");
          h += row("group", esc(t.str(c.group)) + " " + esc(t.str(c.group_ranks)) + " size " + QString::number(c.group_size) +
                                (c.rank >= 0 ? ", rank " + QString::number(c.rank) : QString()));
          if (c.sequence >= 0) h += row("sequence", QString::number(c.sequence));
          if (c.algorithm != kEmptyString || c.protocol != kEmptyString)
            h += row("algorithm", esc(t.str(c.algorithm)) + " " + esc(t.str(c.protocol)));
          if (c.channels) h += row("channels", QString::number(c.channels));
          if (c.peer >= 0) h += row("peer", QString::number(c.peer));
        }
        break;
      }
      case SliceKind::kMemcpy: {
        const MemcpyInfo& m = t.memcpys[sr.index()];
        h += row("bytes", num(m.bytes.get()));
        h += row("copy kind", esc(to_string(m.copy_kind)) + ", " + esc(to_string(m.mechanism)));
        if (s.dur[i] > 0)
          h += row("bandwidth", QString::number(static_cast<double>(m.bytes.get()) / static_cast<double>(s.dur[i]), 'f', 1) + " GB/s");
        h += row("from", gpu(t, m.src_device));
        h += row("to", gpu(t, m.dst_device));
        break;
      }
      case SliceKind::kMemset: h += row("bytes", num(t.memsets[sr.index()].bytes.get())); break;
      case SliceKind::kSync: {
        const SyncInfo& y = t.syncs[sr.index()];
        h += row("sync", esc(to_string(y.kind)));
        if (y.event_id != kNone32) h += row("event", num(y.event_id));
        if (y.stream >= 0) h += row("waits for stream", QString::number(y.stream));
        break;
      }
      case SliceKind::kNvtxRange: {
        const NvtxInfo& n = t.nvtx[sr.index()];
        h += row("domain", esc(t.str(n.domain)));
        if (n.category != kEmptyString) h += row("category", esc(t.str(n.category)));
        if (n.color_argb) h += row("colour", QString("#%1").arg(n.color_argb & 0xffffff, 6, 16, QChar('0')));
        break;
      }
      case SliceKind::kCpuOp: {
        const CpuOpInfo& c = t.cpu_ops[sr.index()];
        if (c.external_id.get()) h += row("external id", num(c.external_id.get()));
        if (c.flops.get()) h += row("FLOPs", esc(format_flop_count(static_cast<double>(c.flops.get()))) + " (" + num(c.flops.get()) + ")");
        if (c.sequence != kNone32) h += row("sequence", num(c.sequence));
        break;
      }
      case SliceKind::kRuntimeApi: {
        const ApiInfo& a = t.api_calls[sr.index()];
        h += row("correlation", num(a.correlation));
        if (a.cbid) h += row("callback id", num(a.cbid));
        break;
      }
      case SliceKind::kSmSpan: {
        const SmSpanInfo& sp = t.sm_spans[sr.index()];
        h += row("role", esc(to_string(sp.role)));
        h += row("block / warp", num(sp.block) + " / " + num(sp.warp));
        h += row("tag", num(sp.tag));
        if (sp.kernel.valid() && sp.kernel.track < t.tracks.size() && sp.kernel.index < t.tracks[sp.kernel.track].slices.size())
          h += row("inside kernel", esc(t.str(t.tracks[sp.kernel.track].slices.name[sp.kernel.index])));
        break;
      }
      default: break;
    }
  }
  const auto args = t.args.get(s.args_of(i));
  if (!args.empty()) {
    h += "<tr><td colspan=2><b><i>args</i></b></td></tr>";
    for (const Arg& a : args) h += row(esc(t.str(a.key)), esc(format_arg(t.strings, a.value)));
  }
  int shown = 0;
  for (const Flow& f : t.flows) {
    if (shown >= 20) break;
    if (f.to == ref && f.from.valid() && f.from.track < t.tracks.size()) {
      h += row("from (" + esc(to_string(f.kind)) + ")", esc(t.str(t.tracks[f.from.track].slices.name[f.from.index])) + " on " +
                                                          esc(t.str(t.tracks[f.from.track].name)));
      ++shown;
    }
    if (f.from == ref && f.to.valid() && f.to.track < t.tracks.size()) {
      h += row("to (" + esc(to_string(f.kind)) + ")", esc(t.str(t.tracks[f.to.track].slices.name[f.to.index])) + " on " +
                                                        esc(t.str(t.tracks[f.to.track].name)));
      ++shown;
    }
  }
  return h + "</table>";
}

QString kernel_sm_lanes_html(const Trace& t, EventRef kernel, const std::vector<SmWindowShare>& shares) {
  if (shares.empty() || !kernel.valid()) return {};
  const Track& tr = t.tracks[kernel.track];
  const TimeNs w = tr.slices.dur[kernel.index];
  TimeNs compute = 0, comm = 0, wait = 0, idle = 0;
  int busy = 0, communicating = 0;
  int64_t first_comm = -1, last_comm = -1;
  for (const auto& s : shares) {
    compute += s.compute_ns;
    comm += s.communicate_ns;
    wait += s.wait_ns;
    idle += s.idle_ns;
    busy += s.idle_ns < w;
    if (s.communicate_ns > 0) {
      ++communicating;
      if (first_comm < 0) first_comm = s.sm;
      last_comm = s.sm;
    }
  }
  const TimeNs all = w * static_cast<TimeNs>(shares.size());
  QString h = "<h4>SM lanes during this kernel</h4><table cellspacing=4>";
  h += row("SMs with spans", QString("%1 of %2").arg(busy).arg(shares.size()));
  h += row("compute", pct(compute, all) + " of SM time");
  h += row("communicate", pct(comm, all) + (communicating ? QString(" (%1 SMs, SM %2–%3)").arg(communicating).arg(first_comm).arg(last_comm) : QString()));
  h += row("wait", pct(wait, all));
  h += row("idle", pct(idle, all));
  h += "</table><p><a href=\"sm:" + QString::number(tr.key.device) + "\">Show the SM lanes</a> · "
       "<a href=\"overlap:\">Overlap chart</a></p>";
  return h;
}

QString collective_peers_html(const Trace& t, const CollectiveMatch& match, const CollectivePeers& peers) {
  if (!peers.found() || peers.match >= match.collectives.size()) return {};
  const MatchedCollective& m = match.collectives[peers.match];
  // as `parascope-cli stats` numbers them: by sequence number, else the k-th (from 0) of its group and op
  const QString which = m.sequence >= 0 ? "seq " + QString::number(m.sequence) : "#" + QString::number(m.ordinal) + " by order";
  QString h = "<h4>Matched across ranks</h4><table cellspacing=4>";
  h += row("collective", esc(to_string(m.op)) + ", group " + esc(t.str(m.group)) + " " + esc(t.str(m.group_ranks)) + ", " + which);
  QString status = QString("%1 of %2 ranks").arg(m.members.size()).arg(std::max(m.members.size(), static_cast<size_t>(std::max(m.group_size, 0))));
  for (int32_t r : m.missing_ranks) status += ", rank " + QString::number(r) + " missing";
  if (!m.duplicate_ranks.empty()) status += ", a rank appears twice";
  if (!m.consistent) status += ", op or size differ";
  h += row("members", status);
  h += row("skew", dur(m.skew_ns()) + " (the first arrival waited this long for the last)");
  h += "</table><table cellspacing=4><tr><th align=left>rank</th><th align=left>GPU</th><th align=right>arrived</th><th "
       "align=left>slice</th></tr>";
  for (const CollectivePeer& p : peers.members) {
    const bool ok = p.slice.valid() && p.slice.track < t.tracks.size() && p.slice.index < t.tracks[p.slice.track].slices.size();
    const QString name = ok ? esc(t.str(t.tracks[p.slice.track].slices.name[p.slice.index])) : QString("?");
    const QString arrived = p.after_first_ns == 0 ? QString("first") : "+" + dur(p.after_first_ns);
    const QString gpu_text = p.device >= 0 && static_cast<size_t>(p.device) < t.devices.size()
                                 ? QString::number(t.devices[static_cast<size_t>(p.device)].ordinal)
                                 : QString("–");
    const QString link = ok ? QString("<a href=\"slice:%1.%2\">%3</a>").arg(p.slice.track).arg(p.slice.index).arg(name) : name;
    h += "<tr><td>" + QString::number(p.rank) + "</td><td>" + gpu_text + "</td><td align=right>" + arrived + "</td><td>" +
         (p.selected ? "<b>" + name + "</b> (selected)" : link) + "</td></tr>";
  }
  return h + "</table>";
}

QString range_summary_html(const Trace& t, const RangeSummary& r, TimeNs origin) {
  QString h = "<h3>Range " + dur(r.range.length()) + "</h3><table cellspacing=4>";
  h += row("from", since_start(r.range.start - origin) + " to " + since_start(r.range.end - origin));
  h += row("slices", QString::number(r.slices) + " on " + QString::number(r.tracks) + " tracks");
  for (size_t c = 0; c < r.count.size(); ++c) {
    if (!r.count[c]) continue;
    h += row(esc(to_string(static_cast<Category>(c))),
             QString::number(r.count[c]) + " slices, " + dur(r.time_ns[c]) + " (top level)");
  }
  h += "</table>";
  if (!r.top_names.empty()) {
    h += "<h4>Most time inside</h4><table cellspacing=4>";
    for (const auto& n : r.top_names)
      h += "<tr><td>" + dur(n.time_ns) + "</td><td>" + QString::number(n.count) + "×</td><td>" + esc(t.str(n.name)) + "</td></tr>";
    h += "</table>";
  }
  return h;
}

}  // namespace parascope::gui
