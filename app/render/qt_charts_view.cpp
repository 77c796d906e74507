// The Qt Charts implementation of chart_view.h. Qt Charts is deprecated upstream from Qt 6.10: to
// move to another library (Qt Graphs, QCustomPlot, plain QPainter), reimplement this file.
#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <limits>

#include "render/chart_view.h"

namespace parascope::render {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }
QPointF qpoint(models::ChartPoint p) { return {p.x, p.y}; }

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool log) {
    if (!std::isfinite(v) || (log && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
};

QAbstractAxis* make_axis(const models::ChartAxis& a, const Range& data, bool is_x) {
  double lo = std::isnan(a.min) ? data.lo : a.min, hi = std::isnan(a.max) ? data.hi : a.max;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = a.log ? 1 : 0, hi = a.log ? 10 : 1;
  if (!a.categories.empty()) {
    auto* axis = new QCategoryAxis;
    axis->setStartValue(-0.5);
    for (size_t i = 0; i < a.categories.size(); ++i) axis->append(text(a.categories[i]), static_cast<double>(i) + 0.5);
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setRange(-0.5, static_cast<double>(a.categories.size()) - 0.5);
    axis->setTitleText(text(a.title));
    return axis;
  }
  if (a.log) {
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setLabelFormat("%g");
    axis->setMinorTickCount(0);
    if (std::isnan(a.min)) lo = std::pow(10, std::floor(std::log10(lo)));
    if (std::isnan(a.max)) hi = std::pow(10, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
    axis->setRange(lo, hi);
    axis->setTitleText(text(a.title));
    return axis;
  }
  auto* axis = new QValueAxis;
  if (hi <= lo) hi = lo + 1;
  if (!is_x && std::isnan(a.min) && lo > 0) lo = 0;  // rates and times read from zero
  if (!is_x && std::isnan(a.max)) hi += (hi - lo) * 0.05;
  axis->setRange(lo, hi);
  if (std::isnan(a.min) && std::isnan(a.max) && !is_x) {
    axis->applyNiceNumbers();
  } else {
    // given ranges (time windows) stay exact; ticks at round multiples of 1, 2 or 5 x 10^k
    const double raw = (hi - lo) / 6, mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
  }
  axis->setTitleText(text(a.title));
  axis->setLabelFormat("%.4g");
  return axis;
}

QChart* build_chart(const models::ChartSpec& spec) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setTitle(text(spec.series.empty() && !spec.empty_text.empty()
                           ? (spec.title.empty() ? spec.empty_text : spec.title + "<br><i>" + spec.empty_text + "</i>")
                           : spec.title));
  chart->legend()->setVisible(spec.legend && !spec.series.empty());
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  Range rx, ry;
  for (const models::ChartSeries& s : spec.series) {
    for (const models::ChartPoint& p : s.points) {
      rx.add(p.x, spec.x.log);
      ry.add(p.y, spec.y.log);
    }
    for (const models::ChartPoint& p : s.lower) ry.add(p.y, spec.y.log);
  }
  QAbstractAxis* ax = make_axis(spec.x, rx, true);
  QAbstractAxis* ay = make_axis(spec.y, ry, false);
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  for (const models::ChartSeries& s : spec.series) {
    const QColor color = to_qcolor(s.color);
    QPen pen(color, s.kind == models::SeriesKind::kLine ? 2.0 : 1.2);
    if (s.style == models::SeriesStyle::kDashed) pen.setStyle(Qt::DashLine);
    QAbstractSeries* series = nullptr;
    if (s.kind == models::SeriesKind::kLine) {
      auto* l = new QLineSeries;
      for (const models::ChartPoint& p : s.points) l->append(qpoint(p));
      l->setPen(pen);
      series = l;
    } else if (s.kind == models::SeriesKind::kBand) {
      auto* upper = new QLineSeries;
      for (const models::ChartPoint& p : s.points) upper->append(qpoint(p));
      QLineSeries* lower = nullptr;
      if (!s.lower.empty()) {
        lower = new QLineSeries;
        for (const models::ChartPoint& p : s.lower) lower->append(qpoint(p));
      }
      auto* area = new QAreaSeries(upper, lower);
      area->setPen(pen);
      QColor fill = color;
      switch (s.style) {
        case models::SeriesStyle::kSolid: fill.setAlpha(140); area->setBrush(fill); break;
        case models::SeriesStyle::kDashed: fill.setAlpha(45); area->setBrush(fill); break;
        case models::SeriesStyle::kHatched: area->setBrush(QBrush(color, Qt::BDiagPattern)); break;
        case models::SeriesStyle::kHollow: area->setBrush(Qt::NoBrush); break;
      }
      series = area;
    } else {
      auto* sc = new QScatterSeries;
      for (const models::ChartPoint& p : s.points) sc->append(qpoint(p));
      sc->setMarkerSize(s.marker_size);
      sc->setMarkerShape(s.style == models::SeriesStyle::kHollow ? QScatterSeries::MarkerShapeRectangle : QScatterSeries::MarkerShapeCircle);
      sc->setPen(QPen(color.darker(130), 1));
      sc->setBrush(s.style == models::SeriesStyle::kHollow ? QBrush(Qt::white) : QBrush(color));
      series = sc;
    }
    series->setName(text(s.name));
    chart->addSeries(series);
    series->attachAxis(ax);
    series->attachAxis(ay);
    if (!s.in_legend)
      for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
  }
  return chart;
}

class QtChartsView final : public QChartView, public ChartView {
 public:
  explicit QtChartsView(QWidget* parent) : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
    set_spec({});
  }
  QWidget* widget() override { return this; }
  const models::ChartSpec& spec() const override { return spec_; }
  void set_spec(const models::ChartSpec& spec) override {
    spec_ = spec;
    QChart* old = chart();
    setChart(build_chart(spec_));
    delete old;
    update();
  }
  QPointF value_at(const QPoint& pos) const override {
    const QPointF scene = mapToScene(pos);
    const QPointF in_chart = chart()->mapFromScene(scene);
    if (!chart()->plotArea().contains(in_chart)) return {NAN, NAN};
    return chart()->mapToValue(in_chart);
  }

 protected:
  // The scatter point nearest to pos within 8 px, else {-1, -1}.
  std::pair<int, int> hit(const QPoint& pos) const {
    std::pair<int, int> best{-1, -1};
    double best_d = 64;
    const QList<QAbstractSeries*> all = chart()->series();
    for (int si = 0; si < static_cast<int>(spec_.series.size()) && si < all.size(); ++si) {
      if (spec_.series[static_cast<size_t>(si)].kind != models::SeriesKind::kScatter) continue;
      const auto& pts = spec_.series[static_cast<size_t>(si)].points;
      for (int i = 0; i < static_cast<int>(pts.size()); ++i) {
        const QPointF c = chart()->mapToPosition(qpoint(pts[static_cast<size_t>(i)]), all[si]);
        const QPointF v = mapFromScene(chart()->mapToScene(c));
        const double d = (v.x() - pos.x()) * (v.x() - pos.x()) + (v.y() - pos.y()) * (v.y() - pos.y());
        if (d < best_d) {
          best_d = d;
          best = {si, i};
        }
      }
    }
    return best;
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    const auto [s, i] = hit(e->pos());
    if (s >= 0) {
      const auto& series = spec_.series[static_cast<size_t>(s)];
      QToolTip::showText(e->globalPosition().toPoint(), text(static_cast<size_t>(i) < series.labels.size() ? series.labels[static_cast<size_t>(i)] : series.name), this);
    } else {
      const QPointF v = value_at(e->pos());
      if (std::isfinite(v.x())) setToolTip(QString("%1: %2\n%3: %4").arg(text(spec_.x.title)).arg(v.x(), 0, 'g', 5).arg(text(spec_.y.title)).arg(v.y(), 0, 'g', 4));
    }
    QChartView::mouseMoveEvent(e);
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton && on_click) {
      const QPointF v = value_at(e->pos());
      if (std::isfinite(v.x())) {
        const auto [s, i] = hit(e->pos());
        ChartHit h;
        h.series = s;
        h.point = i;
        h.value = s >= 0 ? spec_.series[static_cast<size_t>(s)].points[static_cast<size_t>(i)] : models::ChartPoint{v.x(), v.y()};
        on_click(h);
      }
    }
    QChartView::mouseReleaseEvent(e);
  }

 private:
  models::ChartSpec spec_;
};

}  // namespace

std::unique_ptr<ChartView> make_chart_view(QWidget* parent) { return std::make_unique<QtChartsView>(parent); }

void render_chart(const models::ChartSpec& spec, QPainter& painter, const QRectF& rect) {
  QChartView view;
  view.setRenderHint(QPainter::Antialiasing);
  view.setFrameShape(QFrame::NoFrame);
  view.setChart(build_chart(spec));
  view.resize(rect.size().toSize());
  view.grab();  // lays the chart out at this size
  view.render(&painter, rect, QRect(QPoint(0, 0), rect.size().toSize()));
}

QImage render_chart_image(const models::ChartSpec& spec, QSize size) {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  render_chart(spec, p, QRectF(QPointF(0, 0), QSizeF(size)));
  return img;
}

}  // namespace parascope::render
