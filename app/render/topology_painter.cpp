#include "render/topology_painter.h"

#include <QFontMetricsF>
#include <QPainterPath>
#include <cmath>

namespace parascope::render {

namespace {

constexpr double kTitleH = 22, kScaleH = 30;

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString pct(double f) { return QString::number(f * 100, 'f', f < 0.1 ? 1 : 0) + " %"; }

Qt::PenStyle pen_style(CounterSource s) {
  switch (s) {
    case CounterSource::kMeasured: return Qt::SolidLine;
    case CounterSource::kEstimated: return Qt::DashLine;
    case CounterSource::kSimulated: return Qt::DashDotLine;
  }
  return Qt::SolidLine;
}

}  // namespace

TopologyTransform fit_topology(const models::TopologyLayout& layout, const QRectF& area) {
  TopologyTransform tf;
  const QRectF inner = area.adjusted(12, 12 + kTitleH, -12, -12 - kScaleH);
  const double w = std::max(layout.width, 1.0), h = std::max(layout.height, 1.0);
  tf.scale = std::min(inner.width() / w, inner.height() / h);
  tf.scale = std::min(tf.scale, 2.0);
  tf.dx = inner.left() + (inner.width() - w * tf.scale) / 2;
  tf.dy = inner.top() + (inner.height() - h * tf.scale) / 2;
  return tf;
}

QColor utilization_color(double u) {
  u = std::clamp(u, 0.0, 1.0);
  // green (0x2ca02c) → amber (0xf0a020) → red (0xd62728)
  auto mix = [](QColor a, QColor b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t), static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
  };
  const QColor g(0x2c, 0xa0, 0x2c), y(0xf0, 0xa0, 0x20), r(0xd6, 0x27, 0x28);
  return u < 0.5 ? mix(g, y, u * 2) : mix(y, r, (u - 0.5) * 2);
}

void paint_topology(QPainter& p, const QRectF& area, const Topology& topo, const models::TopologyLayout& layout,
                    const std::vector<TopoLinkLoad>& loads, const QString& title, int highlight) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(area, QColor(0xfb, 0xfb, 0xf9));
  const TopologyTransform tf = fit_topology(layout, area);
  QFont font = p.font();
  font.setPointSizeF(std::clamp(8.0 * std::sqrt(tf.scale), 5.0, 9.0));
  p.setFont(font);
  const QFontMetricsF fm(font);
  p.setPen(QColor(0x30, 0x30, 0x30));
  QFont bold = font;
  bold.setBold(true);
  bold.setPointSizeF(9);
  p.setFont(bold);
  p.drawText(QRectF(area.left() + 8, area.top() + 4, area.width() - 16, kTitleH), Qt::AlignLeft | Qt::AlignVCenter, title);
  p.setFont(font);

  for (const auto& g : layout.groups) {
    const QRectF r(tf.map(g.box.x, g.box.y), QSizeF(g.box.w * tf.scale, g.box.h * tf.scale));
    p.setPen(QPen(QColor(0xa0, 0xa0, 0xa8), 1, Qt::DashLine));
    p.setBrush(QColor(0xf2, 0xf3, 0xf6));
    p.drawRoundedRect(r, 6, 6);
    if (r.height() > 30) {
      p.setPen(QColor(0x60, 0x60, 0x70));
      p.drawText(r.adjusted(6, 2, -6, 0), Qt::AlignLeft | Qt::AlignTop, qs(g.label));
    }
  }
  // links: two parallel strokes, a→b and b→a, each coloured by its own load
  const bool labels = tf.scale > 0.45;
  for (const auto& e : layout.edges) {
    const TopoLink& l = topo.links[static_cast<size_t>(e.link)];
    const QPointF a = tf.map(e.x1, e.y1), b = tf.map(e.x2, e.y2);
    const QPointF d = b - a;
    const double len = std::hypot(d.x(), d.y());
    if (len < 1e-6) continue;
    const QPointF n(-d.y() / len, d.x() / len);
    const double width = std::clamp(1.0 + std::log10(std::max(l.bandwidth_bytes_per_s, 1e9) / 1e9), 1.0, 4.0) * std::clamp(tf.scale, 0.5, 1.5);
    const double off = width * 0.5 + 0.8;
    const TopoLinkLoad* load = static_cast<size_t>(e.link) < loads.size() ? &loads[static_cast<size_t>(e.link)] : nullptr;
    for (int dir = 0; dir < 2; ++dir) {
      const LinkDirectionLoad* dl = load ? (dir == 0 ? &load->a_to_b : &load->b_to_a) : nullptr;
      QColor c(0xb8, 0xb8, 0xbc);
      Qt::PenStyle style = Qt::SolidLine;
      if (dl && dl->has_data) {
        c = load->capacity_bytes_per_s > 0 ? utilization_color(dl->mean_bytes_per_s / load->capacity_bytes_per_s) : QColor(0x50, 0x70, 0xa0);
        style = pen_style(dl->source);
      }
      QPen pen(c, width, style, Qt::FlatCap);
      if (e.link == highlight) pen.setWidthF(width + 2);
      p.setPen(pen);
      const QPointF o = n * (dir == 0 ? off : -off);
      p.drawLine(a + o, b + o);
    }
    if (labels && load && (load->a_to_b.has_data || load->b_to_a.has_data) && load->capacity_bytes_per_s > 0) {
      const QString text = pct(load->mean_utilization()) + " · pk " + pct(load->peak_utilization());
      const QPointF mid = (a + b) / 2 + n * (off + 2);
      const QRectF tr(mid.x() + 3, mid.y() - fm.height() / 2, fm.horizontalAdvance(text) + 4, fm.height());
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(255, 255, 255, 210));
      p.drawRect(tr);
      p.setPen(QColor(0x20, 0x20, 0x20));
      p.drawText(tr, Qt::AlignCenter, text);
    }
  }
  for (size_t i = 0; i < topo.nodes.size() && i < layout.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    const models::LayoutRect& lr = layout.nodes[i];
    const QRectF r(tf.map(lr.x, lr.y), QSizeF(lr.w * tf.scale, lr.h * tf.scale));
    QColor fill, border;
    switch (n.kind) {
      case NodeKind::kGpu: fill = QColor(0xdc, 0xea, 0xd4); border = QColor(0x4a, 0x7a, 0x3a); break;
      case NodeKind::kNvSwitch: fill = QColor(0xd6, 0xe2, 0xf2); border = QColor(0x3a, 0x5a, 0x8a); break;
      case NodeKind::kPcieSwitch:
      case NodeKind::kHostBridge: fill = QColor(0xe8, 0xe4, 0xd8); border = QColor(0x7a, 0x6a, 0x4a); break;
      case NodeKind::kNic: fill = QColor(0xf2, 0xdc, 0xd6); border = QColor(0x8a, 0x4a, 0x3a); break;
      case NodeKind::kNetworkSwitch: fill = QColor(0xe6, 0xd8, 0xee); border = QColor(0x6a, 0x4a, 0x8a); break;
    }
    p.setPen(QPen(border, 1.2));
    p.setBrush(fill);
    p.drawRoundedRect(r, 4, 4);
    if (r.height() < fm.height() * 0.9 || r.width() < 18) continue;
    p.setPen(QColor(0x20, 0x20, 0x20));
    QString text = qs(n.name.substr(n.name.rfind('/') == std::string::npos ? 0 : n.name.rfind('/') + 1));
    if (n.kind == NodeKind::kGpu && n.gpu && !n.gpu->model.empty() && r.height() > 2.2 * fm.height())
      text += "\n" + qs(n.gpu->model).remove("NVIDIA ");
    p.drawText(r, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, r.width()).isEmpty() ? QString() : text);
  }
  // colour scale
  const QRectF scale(area.left() + 12, area.bottom() - kScaleH + 8, 160, 10);
  for (int i = 0; i < 160; ++i) p.fillRect(QRectF(scale.left() + i, scale.top(), 1, scale.height()), utilization_color(i / 159.0));
  p.setPen(QColor(0x40, 0x40, 0x40));
  p.drawText(QPointF(scale.left(), scale.bottom() + fm.ascent() + 1), "0 %");
  p.drawText(QPointF(scale.right() - fm.horizontalAdvance("100 %"), scale.bottom() + fm.ascent() + 1), "100 %");
  p.drawText(QPointF(scale.right() + 10, scale.bottom()),
             QStringLiteral("mean utilization per direction · grey: no counter · solid measured, dashed estimated, dash-dot simulated"));
  p.restore();
}

int topology_link_at(const models::TopologyLayout& layout, const TopologyTransform& tf, QPointF pos, double tol) {
  int best = -1;
  double best_d = tol;
  for (const auto& e : layout.edges) {
    const QPointF a = tf.map(e.x1, e.y1), b = tf.map(e.x2, e.y2);
    const QPointF d = b - a;
    const double len2 = d.x() * d.x() + d.y() * d.y();
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(pos - a, d) / len2, 0.0, 1.0) : 0.0;
    const QPointF c = a + d * t;
    const double dist = std::hypot(pos.x() - c.x(), pos.y() - c.y());
    if (dist <= best_d) {
      best_d = dist;
      best = e.link;
    }
  }
  return best;
}

int topology_node_at(const models::TopologyLayout& layout, const TopologyTransform& tf, QPointF pos) {
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const models::LayoutRect& lr = layout.nodes[i];
    if (QRectF(tf.map(lr.x, lr.y), QSizeF(lr.w * tf.scale, lr.h * tf.scale)).contains(pos)) return static_cast<int>(i);
  }
  return -1;
}

QString topology_link_tooltip(const Topology& topo, const std::vector<TopoLinkLoad>& loads, int link) {
  if (link < 0 || static_cast<size_t>(link) >= topo.links.size()) return {};
  const TopoLink& l = topo.links[static_cast<size_t>(link)];
  const QString a = qs(topo.nodes[l.a].name), b = qs(topo.nodes[l.b].name);
  QString s = QString("<b>%1 ⇄ %2</b><br>%3, %4 per direction").arg(a, b, qs(medium_label(l.medium)), qs(format_rate(l.bandwidth_bytes_per_s)));
  if (static_cast<size_t>(link) >= loads.size()) return s;
  const TopoLinkLoad& load = loads[static_cast<size_t>(link)];
  if (!load.capacity_source.empty()) s += " (" + qs(load.capacity_source) + ")";
  for (int dir = 0; dir < 2; ++dir) {
    const LinkDirectionLoad& d = dir == 0 ? load.a_to_b : load.b_to_a;
    const QString arrow = dir == 0 ? a + " → " + b : b + " → " + a;
    if (!d.has_data) {
      s += "<br>" + arrow + ": no counter";
      continue;
    }
    s += QString("<br>%1: mean %2, peak %3").arg(arrow, qs(format_rate(d.mean_bytes_per_s)), qs(format_rate(d.peak_bytes_per_s)));
    if (load.capacity_bytes_per_s > 0)
      s += QString(" (%1 / %2)").arg(pct(d.mean_bytes_per_s / load.capacity_bytes_per_s), pct(d.peak_bytes_per_s / load.capacity_bytes_per_s));
    s += QString(", %1 from %2 counter%3").arg(qs(std::string(to_string(d.source)))).arg(d.counters.size()).arg(d.counters.size() == 1 ? "" : "s");
  }
  return s;
}

QString topology_node_tooltip(const Topology& topo, int node) {
  if (node < 0 || static_cast<size_t>(node) >= topo.nodes.size()) return {};
  const TopoNode& n = topo.nodes[static_cast<size_t>(node)];
  QString s = QString("<b>%1</b> (%2, node %3)").arg(qs(n.name), qs(std::string(to_string(n.kind)))).arg(n.host);
  if (n.gpu) {
    const GpuSpec& g = *n.gpu;
    s += "<br>" + qs(g.model);
    if (g.sm_count) s += QString(", %1 SMs").arg(g.sm_count);
    if (g.hbm_bytes_per_s > 0) s += "<br>HBM " + qs(format_rate(g.hbm_bytes_per_s));
    if (g.bf16_flops > 0) s += "<br>bf16 " + qs(format_flops(g.bf16_flops));
  }
  if (n.nic_bytes_per_s > 0) s += "<br>NIC " + qs(format_rate(n.nic_bytes_per_s)) + " per direction";
  return s;
}

}  // namespace parascope::render
