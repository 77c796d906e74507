// OverlapView: the "overlap at a glance" dock — for the selected kernel (its device, its span) or a
// box-selected range (on the chosen GPU): per-SM compute / communicate / wait shares and exposed
// communication per stream and device, drawn by render::paint_overlap_chart. The numbers are
// computed on a worker thread (a JobTracker job); a newer request supersedes older results.
#pragma once

#include <QWidget>
#include <memory>

#include "gui/job_tracker.h"
#include "render/overlap_chart.h"

class QComboBox;

namespace parascope::gui {

class OverlapView : public QWidget {
  Q_OBJECT
 public:
  explicit OverlapView(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  // The chart for `window` on `device`, computed in the background.
  void show_window(uint32_t device, Interval window, const QString& title);
  void clear();
  bool has_chart() const { return has_data_; }
  const render::OverlapChartData& chart() const { return data_; }
  int32_t device() const { return device_; }
  void wait();  // tests: until the current computation ends

 signals:
  void updated();

 protected:
  void paintEvent(QPaintEvent* e) override;
  QSize sizeHint() const override { return {460, 340}; }

 private:
  std::shared_ptr<const Trace> trace_;
  render::OverlapChartData data_;
  bool has_data_ = false;
  int32_t device_ = -1;
  Interval last_window_;
  QString last_title_;
  QComboBox* devices_ = nullptr;
  JobTracker jobs_;  // last: waited for before the members above go
};

}  // namespace parascope::gui
