#include "gui/name_delegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

#include "render/elided_name.h"

namespace parascope::gui {

namespace {

// What QCommonStyle leaves of a cell for its text: a focus-frame margin (+1) on either side.
int text_margin(const QWidget* widget) {
  const QStyle* style = widget ? widget->style() : QApplication::style();
  return style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
}

// Beyond this many rows a column's names are shortened one by one (the column-wide rule measures
// every row once per width).
constexpr int kMaxColumnRows = 5000;

}  // namespace

QString NameDelegate::shown_text(const QString& text, const QFont& font, int width, const QWidget* widget) {
  return render::elide_name(text, QFontMetricsF(font), width - 2 * text_margin(widget));
}

QStringList NameDelegate::shown_texts(const QStringList& texts, const QFont& font, int width, const QWidget* widget) {
  return render::elide_names(texts, QFontMetricsF(font), width - 2 * text_margin(widget));
}

void NameDelegate::watch(const QAbstractItemModel* model) const {
  if (model_ == model) return;
  for (const auto& c : connections_) QObject::disconnect(c);
  connections_.clear();
  columns_.clear();
  model_ = model;
  if (!model) return;
  auto drop = [this] { columns_.clear(); };
  connections_ << connect(model, &QAbstractItemModel::modelReset, this, drop)
               << connect(model, &QAbstractItemModel::layoutChanged, this, drop)
               << connect(model, &QAbstractItemModel::rowsInserted, this, drop)
               << connect(model, &QAbstractItemModel::rowsRemoved, this, drop)
               << connect(model, &QAbstractItemModel::dataChanged, this, drop);
}

QString NameDelegate::column_text(const QModelIndex& index, const QString& text, const QFont& font, int width,
                                  const QWidget* widget) const {
  const QAbstractItemModel* model = index.model();
  const int rows = model ? model->rowCount(index.parent()) : 0;
  if (rows > kMaxColumnRows) return shown_text(text, font, width, widget);
  watch(model);
  const QString key = QString("%1/%2/%3").arg(index.column()).arg(width).arg(font.key());
  auto it = columns_.find(key);
  if (it == columns_.end()) {
    QStringList texts;
    texts.reserve(rows);
    for (int r = 0; r < rows; ++r) texts << model->index(r, index.column(), index.parent()).data(Qt::DisplayRole).toString();
    const QStringList shown = shown_texts(texts, font, width, widget);
    QHash<QString, QString> map;
    for (int r = 0; r < rows; ++r) map.insert(texts[r], shown[r]);
    it = columns_.insert(key, std::move(map));
  }
  const auto found = it->constFind(text);
  return found != it->constEnd() ? *found : shown_text(text, font, width, widget);
}

void NameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  int width = opt.rect.width();
  if (opt.features & QStyleOptionViewItem::HasDecoration) width -= opt.decorationSize.width() + text_margin(opt.widget);
  opt.text = column_text(index, opt.text, opt.font, width, opt.widget);
  const QWidget* w = opt.widget;
  (w ? w->style() : QApplication::style())->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
}

}  // namespace parascope::gui
