// The one seam between Parascope and a charting library. ChartView is an interactive chart widget
// (hover tooltips, clicks reported in data coordinates); render_chart draws the same ChartSpec into
// any QPainter (images, SVG, PDF reports). The implementation (qt_charts_view.cpp) uses Qt Charts;
// replacing it means reimplementing these three functions, nothing else. Needs a QApplication.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>
#include <QWidget>
#include <functional>
#include <memory>

#include "models/chart_spec.h"

namespace parascope::render {

struct ChartHit {
  int series = -1;       // index into ChartSpec::series; -1: no series point under the cursor
  int point = -1;
  models::ChartPoint value;  // data coordinates of the click (the point's own for a hit)
};

inline QColor to_qcolor(models::ChartColor c) { return QColor(c.r, c.g, c.b); }

class ChartView {
 public:
  virtual ~ChartView() = default;
  virtual QWidget* widget() = 0;
  virtual void set_spec(const models::ChartSpec& spec) = 0;
  virtual const models::ChartSpec& spec() const = 0;
  // Data coordinates of a widget point (NaN outside the plot area).
  virtual QPointF value_at(const QPoint& pos) const = 0;
  // Called on a left click inside the plot area.
  std::function<void(const ChartHit&)> on_click;
};

std::unique_ptr<ChartView> make_chart_view(QWidget* parent = nullptr);
void render_chart(const models::ChartSpec& spec, QPainter& painter, const QRectF& rect);
QImage render_chart_image(const models::ChartSpec& spec, QSize size);

}  // namespace parascope::render
