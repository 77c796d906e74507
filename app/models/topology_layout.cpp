#include "models/topology_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace parascope::models {

namespace {

constexpr double kCell = 110;        // horizontal pitch of GPUs
constexpr double kGpuW = 90, kGpuH = 44;
constexpr double kNicW = 70, kNicH = 24;
constexpr double kSwitchH = 30;
constexpr double kTierGap = 46;      // vertical space between tiers (the links run there)
constexpr double kGroupPad = 14, kGroupLabel = 18, kGroupGap = 40;
constexpr size_t kPerRow = 8;

int tier_of(NodeKind k) {
  switch (k) {
    case NodeKind::kHostBridge: return 0;
    case NodeKind::kPcieSwitch:
    case NodeKind::kNvSwitch: return 1;
    case NodeKind::kGpu: return 2;
    case NodeKind::kNic: return 3;
    case NodeKind::kNetworkSwitch: return -1;
  }
  return 2;
}

// Where the segment from the centre of r towards (px, py) leaves r.
void clip_to_border(const LayoutRect& r, double px, double py, double& x, double& y) {
  const double dx = px - r.cx(), dy = py - r.cy();
  if (dx == 0 && dy == 0) {
    x = r.cx();
    y = r.cy();
    return;
  }
  const double tx = dx != 0 ? (r.w / 2) / std::fabs(dx) : 1e300;
  const double ty = dy != 0 ? (r.h / 2) / std::fabs(dy) : 1e300;
  const double t = std::min({tx, ty, 1.0});
  x = r.cx() + dx * t;
  y = r.cy() + dy * t;
}

}  // namespace

TopologyLayout layout_topology(const Topology& topo) {
  TopologyLayout out;
  out.nodes.resize(topo.nodes.size());
  // hosts and, per host, its nodes by tier (in node order)
  std::map<int32_t, std::vector<std::vector<size_t>>> hosts;
  std::vector<size_t> network;
  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    const int tier = tier_of(n.kind);
    if (tier < 0) {
      network.push_back(i);
      continue;
    }
    auto& tiers = hosts[n.host];
    tiers.resize(4);
    tiers[static_cast<size_t>(tier)].push_back(i);
  }
  // a host's inner width: its widest tier in GPU cells (GPUs and NICs wrap at kPerRow)
  auto rows_of = [](size_t n) { return n == 0 ? 0 : (n + kPerRow - 1) / kPerRow; };
  double group_w = 0, group_h = 0;
  for (auto& [host, tiers] : hosts) {
    size_t cells = 1;
    for (size_t t = 0; t < tiers.size(); ++t) cells = std::max(cells, t >= 2 ? std::min(tiers[t].size(), kPerRow) : tiers[t].size());
    double h = 0;
    for (size_t t = 0; t < tiers.size(); ++t) {
      if (tiers[t].empty()) continue;
      const double row_h = t == 2 ? kGpuH : t == 3 ? kNicH : kSwitchH;
      const size_t rows = t >= 2 ? rows_of(tiers[t].size()) : 1;
      h += static_cast<double>(rows) * row_h + static_cast<double>(rows - 1) * (kTierGap / 2) + kTierGap;
    }
    group_w = std::max(group_w, static_cast<double>(cells) * kCell);
    group_h = std::max(group_h, h - kTierGap);
  }
  const double box_w = group_w + 2 * kGroupPad, box_h = group_h + 2 * kGroupPad + kGroupLabel;
  // hosts on a grid about as wide as tall overall (a host box is ~3x wider than tall)
  const size_t n_hosts = hosts.size();
  const size_t cols = n_hosts <= 1 ? 1 : std::max<size_t>(1, static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n_hosts) * box_h / box_w))));
  // network switches above: spines (no NIC link) over leaves/rails
  std::vector<size_t> spines, leaves;
  for (size_t i : network) {
    bool to_nic = false;
    for (const TopoLink& l : topo.links) {
      const size_t other = l.a == i ? l.b : l.b == i ? l.a : topo.nodes.size();
      if (other < topo.nodes.size() && topo.nodes[other].kind == NodeKind::kNic) to_nic = true;
    }
    (to_nic ? leaves : spines).push_back(i);
  }
  const double total_w = std::max(static_cast<double>(cols) * box_w + static_cast<double>(cols - 1) * kGroupGap, 1.0);
  double y = 0;
  for (const auto* row : {&spines, &leaves}) {
    if (row->empty()) continue;
    const double pitch = total_w / static_cast<double>(row->size());
    const double w = std::min(kCell * 1.2, pitch - 10);
    for (size_t k = 0; k < row->size(); ++k)
      out.nodes[(*row)[k]] = {pitch * (static_cast<double>(k) + 0.5) - w / 2, y, w, kSwitchH};
    y += kSwitchH + kTierGap * 1.5;
  }
  const double hosts_top = y;
  size_t gi = 0;
  for (auto& [host, tiers] : hosts) {
    const size_t col = gi % cols, row = gi / cols;
    ++gi;
    const double gx = static_cast<double>(col) * (box_w + kGroupGap), gy = hosts_top + static_cast<double>(row) * (box_h + kGroupGap);
    out.groups.push_back({host, {gx, gy, box_w, box_h}, "node " + std::to_string(host)});
    const double ix = gx + kGroupPad;
    double ty = gy + kGroupPad + kGroupLabel;
    for (size_t t = 0; t < tiers.size(); ++t) {
      const auto& items = tiers[t];
      if (items.empty()) continue;
      if (t <= 1) {
        // switches and bridges: one row spread over the width; a lone NVSwitch spans the GPUs
        const double pitch = group_w / static_cast<double>(items.size());
        for (size_t k = 0; k < items.size(); ++k) {
          const bool span = items.size() == 1 && topo.nodes[items[k]].kind == NodeKind::kNvSwitch;
          const double w = span ? group_w - (kCell - kGpuW) : std::min(kCell * 1.4, pitch - 10);
          out.nodes[items[k]] = {ix + pitch * (static_cast<double>(k) + 0.5) - w / 2, ty, w, kSwitchH};
        }
        ty += kSwitchH + kTierGap;
        continue;
      }
      const double w = t == 2 ? kGpuW : kNicW, h = t == 2 ? kGpuH : kNicH;
      const size_t rows = rows_of(items.size());
      const size_t per_row = std::min(items.size(), kPerRow);
      const double pitch = group_w / static_cast<double>(per_row);
      for (size_t k = 0; k < items.size(); ++k) {
        const size_t r = k / kPerRow, c = k % kPerRow;
        out.nodes[items[k]] = {ix + pitch * (static_cast<double>(c) + 0.5) - w / 2, ty + static_cast<double>(r) * (h + kTierGap / 2), w, h};
      }
      ty += static_cast<double>(rows) * h + static_cast<double>(rows - 1) * (kTierGap / 2) + kTierGap;
    }
  }
  out.width = total_w;
  out.height = hosts.empty() ? y - kTierGap * 1.5 : hosts_top + static_cast<double>((n_hosts + cols - 1) / cols) * (box_h + kGroupGap) - kGroupGap;
  for (size_t i = 0; i < topo.links.size(); ++i) {
    const TopoLink& l = topo.links[i];
    if (l.a >= out.nodes.size() || l.b >= out.nodes.size()) continue;
    const LayoutRect& a = out.nodes[l.a];
    const LayoutRect& b = out.nodes[l.b];
    TopologyLayout::Edge e;
    e.link = static_cast<int32_t>(i);
    // a wide switch meets each node straight above or below it, not at its centre
    const bool wide_a = a.w > 1.5 * kGpuW, wide_b = b.w > 1.5 * kGpuW;
    const double ax = wide_a ? std::clamp(b.cx(), a.x + 10, a.right() - 10) : a.cx();
    const double bx = wide_b ? std::clamp(a.cx(), b.x + 10, b.right() - 10) : b.cx();
    auto endpoint = [](const LayoutRect& r, bool wide, double rx, double ox, double oy, double& px, double& py) {
      if (wide) {
        px = rx;
        py = oy < r.cy() ? r.y : r.bottom();
      } else {
        clip_to_border(r, ox, oy, px, py);
      }
    };
    endpoint(a, wide_a, ax, bx, b.cy(), e.x1, e.y1);
    endpoint(b, wide_b, bx, ax, a.cy(), e.x2, e.y2);
    out.edges.push_back(e);
  }
  return out;
}

}  // namespace parascope::models
