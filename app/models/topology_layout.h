// Where the topology view draws each element: a pure function of a Topology (no Qt, tested
// without a window). Nodes are grouped by host (one box per machine), each host in tiers from the
// top — host bridge, switches (an NVSwitch spans the GPUs under it), GPUs (8 per row), NICs — and
// hosts on a grid; network switches sit above the hosts (spines over leaves/rails). Links are
// segments between the boxes' borders. Units are abstract (a GPU box is 90 × 44); painters scale.
// Invariants: node boxes never overlap; a host's nodes lie inside its group box; groups never overlap.
#pragma once

#include <string>
#include <vector>

#include "trace/core/topology.h"

namespace parascope::models {

struct LayoutRect {
  double x = 0, y = 0, w = 0, h = 0;
  double cx() const { return x + w / 2; }
  double cy() const { return y + h / 2; }
  double right() const { return x + w; }
  double bottom() const { return y + h; }
  bool contains(const LayoutRect& o) const { return o.x >= x && o.y >= y && o.right() <= right() && o.bottom() <= bottom(); }
  bool overlaps(const LayoutRect& o) const { return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom(); }
};

struct TopologyLayout {
  struct Group {
    int32_t host = 0;
    LayoutRect box;
    std::string label;  // "node 0"
  };
  struct Edge {
    int32_t link = 0;   // index into Topology::links
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // from node a's border to node b's
  };
  std::vector<LayoutRect> nodes;  // per Topology::nodes index
  std::vector<Group> groups;      // per host, by host number
  std::vector<Edge> edges;        // per Topology::links index
  double width = 0, height = 0;
};

TopologyLayout layout_topology(const Topology& topology);

}  // namespace parascope::models
