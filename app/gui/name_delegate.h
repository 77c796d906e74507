// NameDelegate: table cells whose text is shortened by the library's rule (models::elide_names via
// render/elided_name.h: a kernel keeps its own name and loses its arguments and template arguments
// first, and names of one column that would then read alike keep the part where they differ)
// instead of Qt's eliding, which cut three different NCCL kernels to the same
// 'ncclDevKerne…age<4096ul>)'. The full text stays in the model (tooltips, sorting, copying); the
// shortened texts of a column are cached per width until the model changes.
#pragma once

#include <QFont>
#include <QHash>
#include <QMetaObject>
#include <QPointer>
#include <QStringList>
#include <QStyledItemDelegate>

class QTableView;

namespace parascope::gui {

class NameDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  // The text paint() shows for one name alone in a cell `width` pixels wide (tests).
  static QString shown_text(const QString& text, const QFont& font, int width, const QWidget* widget);
  // The texts paint() shows for the names of one column in cells `width` pixels wide.
  static QStringList shown_texts(const QStringList& texts, const QFont& font, int width, const QWidget* widget);
  // What paint() shows in the cell at `index` (`text`, its display text), `width` pixels wide: as
  // shown_texts() for every row of its column, computed once per width until the model changes.
  QString column_text(const QModelIndex& index, const QString& text, const QFont& font, int width, const QWidget* widget) const;

 private:
  void watch(const QAbstractItemModel* model) const;

  mutable QPointer<const QAbstractItemModel> model_;
  mutable QList<QMetaObject::Connection> connections_;
  mutable QHash<QString, QHash<QString, QString>> columns_;  // by column, width and font: full text -> shown
};

}  // namespace parascope::gui
