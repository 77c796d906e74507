// OverlapView: the "overlap at a glance" dock — for the selected kernel (its device, its span) or a
// box-selected range (on the chosen GPU): per-SM compute / communicate / wait shares and exposed
// communication per stream and device, drawn by render::paint_overlap_chart. The numbers are
// computed on a worker thread; each request has a job id and a newer one supersedes older results.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

#include "render/overlap_chart.h"

class QComboBox;

namespace parascope::gui {

class OverlapView : public QWidget {
  Q_OBJECT
 public:
  explicit OverlapView(QWidget* parent = nullptr);
  ~OverlapView() override;
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
  QFutureWatcher<render::OverlapChartData>* watcher_ = nullptr;
  int job_ = 0;
  render::OverlapChartData data_;
  bool has_data_ = false;
  int32_t device_ = -1;
  Interval last_window_;
  QString last_title_;
  QComboBox* devices_ = nullptr;
};

}  // namespace parascope::gui
