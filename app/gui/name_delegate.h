// NameDelegate: table cells whose text is shortened by render::elide_name (a kernel keeps its own
// name and loses its arguments and template arguments first) instead of Qt's eliding, which cut
// three different NCCL kernels to the same 'ncclDevKerne…age<4096ul>)'. The full text stays in the
// model (tooltips, sorting, copying).
#pragma once

#include <QStyledItemDelegate>

class QTableView;

namespace parascope::gui {

class NameDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  // The text paint() shows in a cell `width` pixels wide (tests).
  static QString shown_text(const QString& text, const QFont& font, int width, const QWidget* widget);
};

}  // namespace parascope::gui
