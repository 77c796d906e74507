// Draws a machine (topology_layout.h) with each link direction coloured by its load over a window
// (trace_machine.h: mean utilization, grey without data; measured lines solid, estimated dashed,
// simulated dash-dot) and labelled with its mean and peak utilization where there is room. Used by
// the GUI's topology dock and by reports; hit-testing maps a point back to a link or a node.
#pragma once

#include <QColor>
#include <QPainter>
#include <QString>

#include "models/topology_layout.h"
#include "trace/core/trace_machine.h"

namespace parascope::render {

// Layout units → pixels: scale to fit `area` with a margin, centred.
struct TopologyTransform {
  double scale = 1, dx = 0, dy = 0;
  QPointF map(double x, double y) const { return {dx + x * scale, dy + y * scale}; }
};
TopologyTransform fit_topology(const models::TopologyLayout& layout, const QRectF& area);

QColor utilization_color(double utilization);  // 0 green → 0.5 amber → 1 red

// `loads`: one per topology link, or empty (links drawn by capacity only). `title` above, a
// colour scale below.
void paint_topology(QPainter& p, const QRectF& area, const Topology& topology, const models::TopologyLayout& layout,
                    const std::vector<TopoLinkLoad>& loads, const QString& title, int highlight_link = -1);

int topology_link_at(const models::TopologyLayout& layout, const TopologyTransform& tf, QPointF pos, double tolerance_px = 5);
int topology_node_at(const models::TopologyLayout& layout, const TopologyTransform& tf, QPointF pos);
// "gpu0 ⇄ nvswitch (NVLink, 425 GB/s per direction)" and per direction mean, peak, utilization, source.
QString topology_link_tooltip(const Topology& topology, const std::vector<TopoLinkLoad>& loads, int link);
QString topology_node_tooltip(const Topology& topology, int node);

}  // namespace parascope::render
