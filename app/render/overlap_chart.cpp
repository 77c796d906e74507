#include "render/overlap_chart.h"

#include <QFontMetrics>
#include <algorithm>

#include "render/qstr.h"
#include "render/timeline_painter.h"
#include "trace/core/analysis/window_overlap.h"

namespace parascope::render {

namespace {
QString dur(TimeNs ns) { return qstr(format_duration(ns)); }
}  // namespace

OverlapChartData overlap_chart_data(const Trace& trace, const SliceClassifier& classify, uint32_t device,
                                    Interval window, const QString& title) {
  WindowOverlap o = window_overlap(trace, classify, device, window);
  OverlapChartData d;
  d.title = title;
  d.window = window;
  d.bars.push_back({QString("GPU %1 (all streams)").arg(trace.devices[device].ordinal), o.overlap.totals.communication_ns,
                    o.overlap.totals.overlap_ns});
  for (const StreamOverlap& s : o.overlap.streams)
    if (s.communication_ns > 0)
      d.bars.push_back({qstr(trace.str(trace.tracks[s.track].name)), s.communication_ns, s.comm_under_compute_ns});
  d.sms = std::move(o.sms);
  d.compute = o.compute;
  d.communicate = o.communicate;
  d.wait = o.wait;
  d.idle = o.idle;
  d.spans_only = o.spans_only;
  return d;
}

void paint_overlap_chart(QPainter& p, const QRectF& r, const OverlapChartData& d, const QFont& font) {
  p.save();
  p.fillRect(r, QColor(0xfb, 0xfb, 0xf9));
  QFont bold = font;
  bold.setBold(true);
  const QFontMetrics fm(font);
  const double line = fm.height() + 2;
  double y = r.top() + 4;
  p.setFont(bold);
  p.setPen(QColor(0x20, 0x20, 0x20));
  p.drawText(QRectF(r.left() + 6, y, r.width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(d.title + "  ·  " + dur(d.window.length()), Qt::ElideRight, static_cast<int>(r.width() - 12)));
  y += line + 4;
  p.setFont(font);
  const QColor compute = category_color(Category::kCompute), comm = category_color(Category::kCommunication),
               wait = category_color(Category::kSync), other = category_color(Category::kOther);
  const QColor idle(0xe8, 0xe8, 0xe4);

  // per SM: stacked shares of the window
  const double bottom_part = (d.bars.empty() ? 2 * line : line * (1.5 + 1.6 * static_cast<double>(d.bars.size()))) + (d.spans_only ? line + 2 : 0);
  if (!d.sms.empty()) {
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QPointF(r.left() + 6, y + fm.ascent()),
               QString("Per SM (probe lanes), mean: compute %1 % · comm %2 % · wait %3 % · idle %4 %")
                   .arg(100 * d.compute, 0, 'f', 0).arg(100 * d.communicate, 0, 'f', 0)
                   .arg(100 * d.wait, 0, 'f', 0).arg(100 * d.idle, 0, 'f', 0));
    y += line + 2;
    const double chart_h = std::max(30.0, r.bottom() - y - bottom_part - line);
    const double axis_w = fm.horizontalAdvance("100%") + 4;  // a fixed 26 px cut it to "00%"
    const double x0 = r.left() + axis_w + 4, x1 = r.right() - 6;
    const double bw = (x1 - x0) / static_cast<double>(d.sms.size());
    const double wn = static_cast<double>(std::max<TimeNs>(d.window.length(), 1));
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawText(QRectF(r.left(), y - 2, axis_w, fm.height()), Qt::AlignRight | Qt::AlignTop, "100%");
    p.drawText(QRectF(r.left(), y + chart_h - fm.height() + 2, axis_w, fm.height()), Qt::AlignRight | Qt::AlignBottom, "0");
    for (size_t i = 0; i < d.sms.size(); ++i) {
      const SmWindowShare& s = d.sms[i];
      const double parts[4] = {static_cast<double>(s.compute_ns) / wn, static_cast<double>(s.communicate_ns) / wn,
                               static_cast<double>(s.wait_ns) / wn, static_cast<double>(s.other_ns) / wn};
      const double total = parts[0] + parts[1] + parts[2] + parts[3];
      const double scale = total > 1 ? 1 / total : 1;  // concurrent roles: shown in proportion
      const double bx = x0 + static_cast<double>(i) * bw;
      const double w = std::max(bw - (bw > 3 ? 1 : 0), 1.0);
      p.fillRect(QRectF(bx, y, w, chart_h), idle);
      double top = y + chart_h;
      const QColor colours[4] = {compute, comm, wait, other};
      for (int k = 0; k < 4; ++k) {
        const double h = chart_h * parts[k] * scale;
        top -= h;
        p.fillRect(QRectF(bx, top, w, h), colours[k]);
      }
    }
    y += chart_h + 2;
    p.setPen(QColor(0x60, 0x60, 0x60));
    p.drawText(QPointF(x0, y + fm.ascent()), QString("SM %1").arg(d.sms.front().sm));
    const QString last = QString("SM %1").arg(d.sms.back().sm);
    p.drawText(QPointF(x1 - fm.horizontalAdvance(last), y + fm.ascent()), last);
    y += line;
  } else {
    p.setPen(QColor(0x70, 0x70, 0x70));
    p.drawText(QPointF(r.left() + 6, y + fm.ascent()), "No SM lanes (probe spans) on this device in this window.");
    y += line + 4;
  }

  // communication: hidden vs exposed
  p.setPen(QColor(0x30, 0x30, 0x30));
  if (d.bars.empty() || d.bars.front().communication_ns == 0) {
    p.drawText(QPointF(r.left() + 6, y + fm.ascent()), "No communication on this device in this window.");
    p.restore();
    return;
  }
  p.drawText(QPointF(r.left() + 6, y + fm.ascent()), "Communication: hidden under compute | exposed");
  y += line + 2;
  if (d.spans_only) {
    p.setPen(QColor(0x70, 0x70, 0x70));
    p.drawText(QRectF(r.left() + 6, y, r.width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText("No kernel records: from the SM spans alone; compute on SMs without probes is not seen, so exposed is at most this",
                             Qt::ElideRight, static_cast<int>(r.width() - 12)));
    y += line + 2;
  }
  TimeNs most = 1;
  for (const auto& b : d.bars) most = std::max(most, b.communication_ns);
  const double label_w = std::min(170.0, r.width() * 0.3);
  const double bx = r.left() + 6 + label_w, full = r.right() - 6 - bx;
  const QColor hidden(0xf3, 0xc0, 0x9e), exposed(0xc6, 0x3b, 0x0c);
  for (const auto& b : d.bars) {
    if (y + line > r.bottom()) break;
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QRectF(r.left() + 6, y, label_w - 6, line), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(b.label, Qt::ElideRight, static_cast<int>(label_w - 6)));
    const double w = full * static_cast<double>(b.communication_ns) / static_cast<double>(most);
    const double wh = w * static_cast<double>(b.hidden_ns) / static_cast<double>(std::max<TimeNs>(b.communication_ns, 1));
    p.fillRect(QRectF(bx, y + 2, wh, line - 4), hidden);
    p.fillRect(QRectF(bx + wh, y + 2, w - wh, line - 4), exposed);
    const QString text = QString("exposed %1 of %2 (%3 %)")
                             .arg(dur(b.exposed_ns()), dur(b.communication_ns))
                             .arg(100.0 * static_cast<double>(b.exposed_ns()) / static_cast<double>(std::max<TimeNs>(b.communication_ns, 1)), 0, 'f', 0);
    const double tw = fm.horizontalAdvance(text);
    const bool inside = w > tw + 8;
    p.setPen(inside ? Qt::white : QColor(0x30, 0x30, 0x30));
    p.drawText(QPointF(inside ? bx + w - tw - 4 : bx + w + 4, y + (line + fm.ascent() - fm.descent()) / 2), text);
    y += line * 1.6;
  }
  p.restore();
}

}  // namespace parascope::render
