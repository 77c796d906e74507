// DataTableModel: a read-only, sortable Qt table over a DataTable (trace/core/data_table.h) — the
// link statistics, roofline points, diff and what-if tables show the very rows the CLI prints and
// the reports export. Display role: the cell's text; kSortRole: its number (text when none).
#pragma once

#include <QAbstractTableModel>

class QSortFilterProxyModel;
class QTableView;
class QWidget;

#include "trace/core/data_table.h"

namespace parascope::gui {

class DataTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kSortRole = Qt::UserRole + 1;
  explicit DataTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void set_table(DataTable table);
  // Same columns and row count: replaces the cells in place (selection and sort survive) and
  // returns true; otherwise changes nothing and returns false.
  bool update_values(const DataTable& table);
  const DataTable& table() const { return table_; }
  // Optional per-row colour swatch in column 0 (e.g. the chart's series colour).
  void set_row_colors(std::vector<QColor> colors);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  DataTable table_;
  std::vector<QColor> colors_;
};

// A read-only table view over `model` through a proxy that sorts by kSortRole (returned in
// `proxy` when wanted): whole-row selection, no row numbers, no wrapping. With
// `keep_model_order` the rows stay in the model's order until a header is clicked.
QTableView* make_data_table_view(DataTableModel* model, QWidget* parent, QSortFilterProxyModel** proxy = nullptr,
                                 bool keep_model_order = false);

}  // namespace parascope::gui
