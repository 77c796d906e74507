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

}  // namespace

QString NameDelegate::shown_text(const QString& text, const QFont& font, int width, const QWidget* widget) {
  return render::elide_name(text, QFontMetricsF(font), width - 2 * text_margin(widget));
}

void NameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  int width = opt.rect.width();
  if (opt.features & QStyleOptionViewItem::HasDecoration) width -= opt.decorationSize.width() + text_margin(opt.widget);
  opt.text = shown_text(opt.text, opt.font, width, opt.widget);
  const QWidget* w = opt.widget;
  (w ? w->style() : QApplication::style())->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
}

}  // namespace parascope::gui
