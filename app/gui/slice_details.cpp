#include "gui/slice_details.h"

#include "trace/core/classify.h"

namespace parascope::gui {

namespace {
QString esc(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())).toHtmlEscaped(); }
QString row(const QString& k, const QString& v) { return "<tr><td><b>" + k + "</b></td><td>" + v + "</td></tr>"; }
QString num(uint64_t v) { return QString::number(v); }
}  // namespace

QString slice_details_html(const Trace& t, EventRef ref) {
  if (!ref.valid() || ref.track >= t.tracks.size() || ref.index >= t.tracks[ref.track].slices.size())
    return "<i>Nothing selected. Click a slice in the timeline.</i>";
  const Track& tr = t.tracks[ref.track];
  const auto& s = tr.slices;
  const uint32_t i = ref.index;
  const SliceRef sr = s.ref[i];
  const auto [origin, end] = t.time_span();
  (void)end;
  QString h = "<h3>" + esc(t.str(s.name[i])) + "</h3><table cellspacing=4>";
  h += row("kind", esc(to_string(sr.kind())));
  h += row("category", esc(to_string(SliceClassifier(t).category(ref))));
  h += row("start", esc(format_duration(s.start[i] - origin)) + " after trace start");
  h += row("duration", esc(format_duration(s.dur[i])) + " (" + num(static_cast<uint64_t>(s.dur[i])) + " ns)");
  h += row("track", esc(t.str(tr.name)));
  const Process& p = t.processes[tr.key.process];
  h += row("rank", p.rank >= 0 ? QString::number(p.rank) : QString("?"));
  if (tr.key.device >= 0) {
    const Device& d = t.devices[static_cast<size_t>(tr.key.device)];
    h += row("device", "GPU " + QString::number(d.ordinal) + " " + esc(d.name));
  }
  if (sr.has_detail()) {
    switch (sr.kind()) {
      case SliceKind::kKernel: {
        const KernelInfo& k = t.kernels[sr.index()];
        if (const LaunchConfig* lc = t.launch_config(k)) {
          h += row("grid", QString("[%1, %2, %3]").arg(lc->grid[0]).arg(lc->grid[1]).arg(lc->grid[2]));
          h += row("block", QString("[%1, %2, %3]").arg(lc->block[0]).arg(lc->block[1]).arg(lc->block[2]));
          h += row("registers/thread", num(lc->registers_per_thread));
          h += row("shared memory", num(lc->static_smem + lc->dynamic_smem) + " B");
        }
        h += row("correlation", num(k.correlation));
        if (k.graph_id) h += row("CUDA graph", num(k.graph_id) + " node " + num(k.graph_node_id.get()));
        for (const CollectiveInfo& c : t.collectives) {
          if (!(c.kernel == ref)) continue;
          h += row("collective", esc(to_string(c.op)) + " " + esc(t.str(c.dtype)) + " × " + num(c.in_elements) +
                                     " in / " + num(c.out_elements) + " out");
          h += row("group", esc(t.str(c.group)) + " " + esc(t.str(c.group_ranks)) + " size " + QString::number(c.group_size));
          if (c.sequence >= 0) h += row("sequence", QString::number(c.sequence));
          if (c.algorithm != kEmptyString) h += row("algorithm", esc(t.str(c.algorithm)) + " " + esc(t.str(c.protocol)));
        }
        break;
      }
      case SliceKind::kMemcpy: {
        const MemcpyInfo& m = t.memcpys[sr.index()];
        h += row("bytes", num(m.bytes.get()));
        h += row("copy kind", esc(to_string(m.copy_kind)));
        if (s.dur[i] > 0)
          h += row("bandwidth", QString::number(static_cast<double>(m.bytes.get()) / static_cast<double>(s.dur[i]), 'f', 1) + " GB/s");
        if (m.src_device != kNoDevice) h += row("from", "GPU " + QString::number(t.devices[m.src_device].ordinal));
        if (m.dst_device != kNoDevice) h += row("to", "GPU " + QString::number(t.devices[m.dst_device].ordinal));
        break;
      }
      case SliceKind::kMemset: h += row("bytes", num(t.memsets[sr.index()].bytes.get())); break;
      case SliceKind::kCpuOp: {
        const CpuOpInfo& c = t.cpu_ops[sr.index()];
        if (c.external_id.get()) h += row("external id", num(c.external_id.get()));
        if (c.flops.get()) h += row("FLOPs", num(c.flops.get()));
        break;
      }
      case SliceKind::kRuntimeApi: h += row("correlation", num(t.api_calls[sr.index()].correlation)); break;
      case SliceKind::kSmSpan: {
        const SmSpanInfo& sp = t.sm_spans[sr.index()];
        h += row("role", esc(to_string(sp.role)));
        h += row("block / warp", num(sp.block) + " / " + num(sp.warp));
        h += row("tag", num(sp.tag));
        break;
      }
      default: break;
    }
  }
  for (const Arg& a : t.args.get(s.args_of(i))) h += row(esc(t.str(a.key)), esc(format_arg(t.strings, a.value)));
  for (const Flow& f : t.flows) {
    if (f.to == ref && f.from.valid())
      h += row("from (" + esc(to_string(f.kind)) + ")", esc(t.str(t.tracks[f.from.track].slices.name[f.from.index])));
    if (f.from == ref && f.to.valid())
      h += row("to (" + esc(to_string(f.kind)) + ")", esc(t.str(t.tracks[f.to.track].slices.name[f.to.index])));
  }
  return h + "</table>";
}

}  // namespace parascope::gui
