// TopologyView: the "Topology" dock — the machine behind the trace (its own topology, one inferred
// from its devices and NVLink counters, or a simulator preset chosen in the box; by default the
// trace's, else a preset matching its GPUs) with each link direction coloured and labelled by its
// mean / peak utilization over the box-selected range (else the timeline's view). Hover a link or
// a node for its numbers. Layout and loads are computed on a worker thread; painting only draws.
#pragma once

#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>

#include "gui/job_tracker.h"
#include "models/topology_layout.h"
#include "trace/core/trace_machine.h"

class QComboBox;

namespace parascope::gui {

class TopologyView : public QWidget {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  void set_windows(Interval view, std::optional<Interval> range);
  // -1: the trace's own (or inferred) machine; else an index into topology_presets().
  void set_source(int preset);
  int source() const;
  Interval window() const { return range_ ? *range_ : view_; }

  const TraceMachine& machine() const { return machine_; }
  const models::TopologyLayout& layout() const { return layout_; }
  const std::vector<TopoLinkLoad>& loads() const { return loads_; }
  QString title() const;
  QString tooltip_at(const QPoint& pos) const;
  QImage render_image(QSize size) const;
  bool busy() const;
  void wait();

 signals:
  void updated();

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  QSize sizeHint() const override { return {460, 340}; }

 private:
  struct Result {
    TraceMachine machine;
    models::TopologyLayout layout;
    std::vector<TopoLinkLoad> loads;
    std::shared_ptr<const std::vector<LinkCounter>> counters;
  };
  void recompute();
  QRectF area() const;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const std::vector<LinkCounter>> counters_;
  QComboBox* source_ = nullptr;
  QTimer debounce_;
  Interval view_{};
  std::optional<Interval> range_;
  TraceMachine machine_;
  models::TopologyLayout layout_;
  std::vector<TopoLinkLoad> loads_;
  int hover_link_ = -1;
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
