// OverlapChart: "overlap at a glance" for a window — a selected kernel or a box-selected range —
// on one device. Top: per SM, the share of the window spent computing, communicating and waiting
// (stacked bars from the probe lanes; roles that ran at the same time both count). Bottom: for the
// device and each stream, communication time split into the part hidden under compute and the
// exposed part. The numbers come from trace/core (window_overlap.h); this only draws.
#pragma once

#include <QFont>
#include <QPainter>
#include <QString>
#include <vector>

#include "trace/core/analysis/window_activity.h"

namespace parascope::render {

struct OverlapChartData {
  QString title;
  Interval window;
  std::vector<SmWindowShare> sms;
  struct CommBar {
    QString label;
    TimeNs communication_ns = 0;
    TimeNs hidden_ns = 0;  // under compute on the device
    TimeNs exposed_ns() const { return communication_ns - hidden_ns; }
  };
  std::vector<CommBar> bars;  // the device first, then its streams with communication
  // means over the SMs, as shares of the window
  double compute = 0, communicate = 0, wait = 0, idle = 0;
  bool spans_only = false;  // WindowOverlap::spans_only: no kernel records, the SM spans alone
};

OverlapChartData overlap_chart_data(const Trace& trace, const SliceClassifier& classify, uint32_t device,
                                    Interval window, const QString& title);
void paint_overlap_chart(QPainter& p, const QRectF& r, const OverlapChartData& d, const QFont& font);

}  // namespace parascope::render
