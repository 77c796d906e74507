#include "render/timeline_painter.h"

#include <QFontMetrics>
#include <QPainterPath>
#include <algorithm>
#include <array>

namespace parascope::render {

QColor category_color(Category c) {
  switch (c) {
    case Category::kCompute: return QColor(0x3b, 0x7d, 0xd8);        // blue
    case Category::kCommunication: return QColor(0xe8, 0x6a, 0x1c);  // orange
    case Category::kMemory: return QColor(0x2e, 0xa0, 0x4f);         // green
    case Category::kSync: return QColor(0x9a, 0x5c, 0xc6);           // purple
    case Category::kHost: return QColor(0x5f, 0x8f, 0x94);           // slate teal
    case Category::kAnnotation: return QColor(0xb8, 0xb8, 0xb0);     // light grey
    case Category::kIdle: return QColor(0xee, 0xee, 0xee);
    case Category::kOther: return QColor(0x80, 0x80, 0x80);
  }
  return Qt::gray;
}

QColor name_color(std::string_view name) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return QColor::fromHsv(static_cast<int>(h % 360), 110 + static_cast<int>((h >> 9) % 80), 200 + static_cast<int>((h >> 17) % 40));
}

TimelinePainter::TimelinePainter(const Trace& trace) : trace_(trace), classify_(trace) {
  max_dur_.resize(trace.tracks.size(), 0);
  counter_max_.resize(trace.tracks.size(), 0);
  for (size_t t = 0; t < trace.tracks.size(); ++t) {
    const auto& s = trace.tracks[t].slices;
    if (!s.dur.empty()) max_dur_[t] = *std::max_element(s.dur.begin(), s.dur.end());
    const auto& c = trace.tracks[t].counter;
    if (!c.value.empty()) counter_max_[t] = *std::max_element(c.value.begin(), c.value.end());
  }
}

size_t TimelinePainter::first_visible(uint32_t track, TimeNs t) const {
  const auto& st = trace_.tracks[track].slices.start;
  // a slice ending at or after t started at or after t - longest
  return static_cast<size_t>(std::lower_bound(st.begin(), st.end(), t - max_dur_[track]) - st.begin());
}

QColor TimelinePainter::slice_color(uint32_t track, uint32_t index, ColorMode mode) const {
  switch (mode) {
    case ColorMode::kName: return name_color(trace_.str(trace_.tracks[track].slices.name[index]));
    case ColorMode::kRank: {
      const int32_t rank = trace_.processes[trace_.tracks[track].key.process].rank;
      return QColor::fromHsv((rank < 0 ? 0 : rank * 67) % 360, 140, 210);
    }
    case ColorMode::kCategory: break;
  }
  return category_color(classify_.category(track, index));
}

PaintStats TimelinePainter::paint(QPainter& p, const QRect& area, const TrackLayout& layout, const TimelineMapping& m,
                                  double scroll_y, const TimelineStyle& style, EventRef selected) const {
  PaintStats stats;
  p.save();
  p.setFont(style.font);
  p.fillRect(area, QColor(0xfb, 0xfb, 0xf9));
  const double lw = style.label_width;
  const double rh = style.ruler_height;
  const double data_x0 = area.left() + lw;
  const double data_w = area.width() - lw;
  const double data_y0 = area.top() + rh;
  const QRectF data_rect(data_x0, data_y0, data_w, area.height() - rh);

  // rows
  const auto& rows = layout.rows();
  const double view_top = scroll_y, view_bottom = scroll_y + data_rect.height();
  auto it = std::lower_bound(rows.begin(), rows.end(), view_top,
                             [](const TimelineRow& r, double v) { return r.y + r.height <= v; });
  const QFontMetrics fm(style.font);
  for (; it != rows.end() && it->y < view_bottom; ++it) {
    const TimelineRow& row = *it;
    const double top = data_y0 + row.y - scroll_y;
    const QRectF label_rect(area.left(), top, lw, row.height);
    if (row.kind != TimelineRow::Kind::kTrack) {
      p.fillRect(QRectF(area.left(), top, area.width(), row.height),
                 row.kind == TimelineRow::Kind::kProcess ? QColor(0xdd, 0xe3, 0xea) : QColor(0xe9, 0xed, 0xf1));
      p.setPen(QColor(0x20, 0x20, 0x20));
      QFont bold = style.font;
      bold.setBold(true);
      p.setFont(bold);
      const QString text = QString(row.collapsed ? "\u25b8 " : "\u25be ") + QString::fromStdString(row.label);
      p.drawText(label_rect.adjusted(4 + row.indent * 12, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
      p.setFont(style.font);
      continue;
    }
    p.setClipRect(data_rect);
    const Track& tr = trace_.tracks[static_cast<size_t>(row.track)];
    if (!tr.slices.empty()) paint_slices(p, row, top, data_x0, data_w, m, style, selected, stats);
    else if (tr.counter.size()) paint_counter(p, row, top, data_x0, data_w, m);
    p.setClipping(false);
    p.fillRect(label_rect, QColor(0xf3, 0xf4, 0xf6));
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(label_rect.adjusted(4 + row.indent * 12, 0, -4, 0), Qt::AlignTop | Qt::AlignLeft,
               fm.elidedText(QString::fromStdString(row.label), Qt::ElideRight, static_cast<int>(lw - 8 - row.indent * 12)));
    p.setPen(QColor(0xe2, 0xe2, 0xe2));
    p.drawLine(QPointF(area.left(), top + row.height - 0.5), QPointF(area.right(), top + row.height - 0.5));
  }
  p.setPen(QColor(0xc8, 0xc8, 0xc8));
  p.drawLine(QPointF(data_x0 - 0.5, area.top()), QPointF(data_x0 - 0.5, area.bottom()));

  // ruler
  const QRectF ruler(data_x0, area.top(), data_w, rh);
  p.fillRect(QRectF(area.left(), area.top(), area.width(), rh), QColor(0xf0, 0xf1, 0xf3));
  const TimeNs step = tick_step(m, 90);
  const TimeNs origin = style.relative_time ? trace_.time_span().first : 0;
  const TimeNs first = ((m.start() - origin) / step) * step + origin;
  p.setPen(QColor(0x50, 0x50, 0x50));
  for (TimeNs t = first; t <= m.end(); t += step) {
    const double x = data_x0 + m.x_of(t);
    if (x < data_x0) continue;
    p.drawLine(QPointF(x, ruler.bottom() - 6), QPointF(x, ruler.bottom()));
    p.drawText(QRectF(x + 3, ruler.top(), 120, rh - 4), Qt::AlignVCenter | Qt::AlignLeft,
               QString::fromStdString(tick_label(t, origin, step)));
  }
  p.setPen(QColor(0x30, 0x30, 0x30));
  p.drawText(QRectF(area.left() + 4, area.top(), lw - 8, rh), Qt::AlignVCenter | Qt::AlignLeft,
             QString::fromStdString("view " + format_duration(m.duration())));
  p.restore();
  return stats;
}

void TimelinePainter::paint_slices(QPainter& p, const TimelineRow& row, double top, double data_x0, double data_w,
                                   const TimelineMapping& m, const TimelineStyle& style, EventRef selected,
                                   PaintStats& stats) const {
  const auto t = static_cast<uint32_t>(row.track);
  const auto& s = trace_.tracks[t].slices;
  const double sub_h = row.height / row.sub_rows;
  const bool sm_lane = trace_.tracks[t].key.kind == TrackKind::kSmLane;
  // one pending merged bar per sub-row
  struct Pending {
    double x0 = 0, x1 = -1;
    std::array<double, 8> weight{};  // per Category
    uint32_t index = 0;
    bool single = true;
  };
  std::vector<Pending> pend(static_cast<size_t>(row.sub_rows));
  const QFontMetrics fm(style.font);
  auto flush = [&](int sub, Pending& pb) {
    if (pb.x1 < pb.x0) return;
    const double y = top + sub * sub_h + 1;
    QColor c;
    if (pb.single) {
      c = slice_color(t, pb.index, style.color_mode);
    } else {
      const auto best = std::max_element(pb.weight.begin(), pb.weight.end()) - pb.weight.begin();
      c = category_color(static_cast<Category>(best));
    }
    const QRectF r(data_x0 + pb.x0, y, std::max(pb.x1 - pb.x0, 1.0), sub_h - 2);
    p.fillRect(r, c);
    ++stats.bars_drawn;
    if (pb.single && r.width() > 30) {
      p.setPen(c.lightness() > 150 ? QColor(0x10, 0x10, 0x10) : QColor(0xff, 0xff, 0xff));
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(QString::fromUtf8(trace_.str(s.name[pb.index]).data(),
                                                 static_cast<int>(trace_.str(s.name[pb.index]).size())),
                               Qt::ElideRight, static_cast<int>(r.width() - 5)));
    }
    pb = Pending{};
  };
  const TimeNs t1 = m.end();
  for (size_t i = first_visible(t, m.start()); i < s.size() && s.start[i] <= t1; ++i) {
    const TimeNs end = s.start[i] + s.dur[i];
    if (end < m.start()) continue;
    ++stats.slices_visited;
    int sub = sm_lane && s.ref[i].has_detail() && s.ref[i].kind() == SliceKind::kSmSpan
                  ? static_cast<int>(trace_.sm_spans[s.ref[i].index()].role)
                  : s.depth_of(i);
    sub = std::min(sub, row.sub_rows - 1);
    const double x0 = std::max(m.x_of(s.start[i]), -2.0);
    const double x1 = std::min(m.x_of(end), data_w + 2);
    Pending& pb = pend[static_cast<size_t>(sub)];
    const auto cat = static_cast<size_t>(classify_.category(t, static_cast<uint32_t>(i)));
    if (pb.x1 >= pb.x0 && x0 - pb.x1 < 1.0 && (x1 - x0 < 1.0 || pb.x1 - pb.x0 < 1.0)) {
      // fold: this slice or the pending bar is thinner than a pixel and they touch
      pb.x1 = std::max(pb.x1, x1);
      pb.weight[cat] += std::max(x1 - x0, 0.05);
      pb.single = false;
      continue;
    }
    flush(sub, pb);
    pb.x0 = x0;
    pb.x1 = x1;
    pb.weight[cat] += std::max(x1 - x0, 0.05);
    pb.index = static_cast<uint32_t>(i);
  }
  for (int sub = 0; sub < row.sub_rows; ++sub) flush(sub, pend[static_cast<size_t>(sub)]);
  if (selected.valid() && selected.track == t && selected.index < s.size()) {
    const auto i = selected.index;
    const int sub = std::min<int>(s.depth_of(i), row.sub_rows - 1);
    const QRectF r(data_x0 + m.x_of(s.start[i]), top + sub * sub_h + 0.5,
                   std::max(m.x_of(s.start[i] + s.dur[i]) - m.x_of(s.start[i]), 2.0), sub_h - 1);
    p.setPen(QPen(QColor(0, 0, 0), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
  }
}

void TimelinePainter::paint_counter(QPainter& p, const TimelineRow& row, double top, double data_x0, double data_w,
                                    const TimelineMapping& m) const {
  const auto t = static_cast<uint32_t>(row.track);
  const Track& tr = trace_.tracks[t];
  const auto& c = tr.counter;
  const double maxv = counter_max_[t] > 0 ? counter_max_[t] : 1.0;
  QPainterPath path;
  const double base = top + row.height - 1;
  path.moveTo(data_x0, base);
  auto it = std::upper_bound(c.time.begin(), c.time.end(), m.start());
  size_t i = it == c.time.begin() ? 0 : static_cast<size_t>(it - c.time.begin() - 1);
  for (; i < c.size(); ++i) {
    const double x = data_x0 + std::clamp(m.x_of(c.time[i]), 0.0, data_w);
    const double y = base - (row.height - 3) * (c.value[i] / maxv);
    path.lineTo(x, path.currentPosition().y());
    path.lineTo(x, y);
    if (c.time[i] > m.end()) break;
  }
  path.lineTo(data_x0 + data_w, path.currentPosition().y());
  path.lineTo(data_x0 + data_w, base);
  path.closeSubpath();
  const bool measured = tr.counter_source == CounterSource::kMeasured;
  QColor fill = measured ? QColor(0xe8, 0x6a, 0x1c, 150) : QColor(0xe8, 0x6a, 0x1c, 60);
  p.setPen(measured ? QPen(QColor(0xb0, 0x48, 0x10), 1) : QPen(QColor(0xb0, 0x48, 0x10), 1, Qt::DashLine));
  p.setBrush(fill);
  p.drawPath(path);
}

EventRef TimelinePainter::slice_at(const TrackLayout& layout, const TimelineMapping& m, double x, double layout_y) const {
  const int ri = layout.row_at(layout_y);
  if (ri < 0) return {};
  const TimelineRow& row = layout.rows()[static_cast<size_t>(ri)];
  if (row.kind != TimelineRow::Kind::kTrack) return {};
  const auto t = static_cast<uint32_t>(row.track);
  const auto& s = trace_.tracks[t].slices;
  const int sub = static_cast<int>((layout_y - row.y) / (row.height / row.sub_rows));
  const TimeNs at = m.time_at(x);
  const TimeNs slop = static_cast<TimeNs>(m.ns_per_px() * 2);  // 2 px of grace for thin slices
  EventRef best;
  TimeNs best_dist = slop + 1;
  for (size_t i = first_visible(t, at - slop); i < s.size() && s.start[i] <= at + slop; ++i) {
    if (std::min<int>(s.depth_of(i), row.sub_rows - 1) != sub) continue;
    const TimeNs end = s.start[i] + s.dur[i];
    const TimeNs d = at < s.start[i] ? s.start[i] - at : (at > end ? at - end : 0);
    if (d < best_dist || (d == 0 && best_dist == 0 && s.dur[i] < s.dur[best.index])) {
      best = EventRef{t, static_cast<uint32_t>(i)};
      best_dist = d;
    }
  }
  return best;
}

QImage render_timeline_image(const Trace& trace, QSize size, const TimelineStyle& style, TimeNs start, TimeNs end) {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing, false);
  const TrackLayout layout(trace, LayoutOptions{});
  auto [s0, s1] = trace.time_span();
  if (end <= start) {
    start = s0;
    end = s1;
  }
  const TimelineMapping m(start, end, size.width() - style.label_width);
  TimelinePainter(trace).paint(p, QRect(QPoint(0, 0), size), layout, m, 0, style);
  return img;
}

}  // namespace parascope::render
