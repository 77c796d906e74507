#include "gui/data_table_model.h"

#include <QColor>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

#include "gui/name_delegate.h"

namespace parascope::gui {

void DataTableModel::set_table(DataTable table) {
  beginResetModel();
  table_ = std::move(table);
  if (colors_.size() != table_.rows.size()) colors_.clear();
  endResetModel();
}

bool DataTableModel::update_values(const DataTable& table) {
  if (table.rows.empty() || table.rows.size() != table_.rows.size() || table.columns.size() != table_.columns.size()) return false;
  table_ = table;
  emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
  return true;
}

void DataTableModel::set_row_colors(std::vector<QColor> colors) {
  colors_ = std::move(colors);
  if (!table_.rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, 0));
}

int DataTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int DataTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.columns.size());
}

QVariant DataTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const DataCell& cell = table_.rows[static_cast<size_t>(index.row())][static_cast<size_t>(index.column())];
  const DataColumn& col = table_.columns[static_cast<size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole: return QString::fromStdString(cell.text);
    case Qt::ToolTipRole: return QString::fromStdString(cell.text);
    case kSortRole: return cell.numeric() ? QVariant(cell.value) : QVariant(QString::fromStdString(cell.text));
    case Qt::TextAlignmentRole: return QVariant::fromValue(col.numeric ? (Qt::AlignRight | Qt::AlignVCenter) : (Qt::AlignLeft | Qt::AlignVCenter));
    case Qt::DecorationRole:
      if (index.column() == 0 && static_cast<size_t>(index.row()) < colors_.size()) return colors_[static_cast<size_t>(index.row())];
      return {};
    default: return {};
  }
}

QVariant DataTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  const DataColumn& c = table_.columns[static_cast<size_t>(section)];
  if (role == Qt::DisplayRole) return QString::fromStdString(c.title);
  if (role == Qt::ToolTipRole) return QString::fromStdString(c.unit.empty() ? c.title : c.title + " (" + c.unit + ")");
  return {};
}

QTableView* make_data_table_view(DataTableModel* model, QWidget* parent, QSortFilterProxyModel** proxy, bool keep_model_order) {
  auto* p = new QSortFilterProxyModel(parent);
  p->setSourceModel(model);
  p->setSortRole(DataTableModel::kSortRole);
  auto* t = new QTableView(parent);
  t->setModel(p);
  if (keep_model_order) t->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  t->setSortingEnabled(true);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  t->setWordWrap(false);
  t->setItemDelegate(new NameDelegate(t));  // kernels keep their own names when cut
  // a "kernel" column takes the width the numbers leave (its names are long, numbers are not)
  auto stretch = [t, model] {
    QHeaderView* h = t->horizontalHeader();
    const auto& columns = model->table().columns;
    for (int c = 0; c < h->count() && static_cast<size_t>(c) < columns.size(); ++c)
      h->setSectionResizeMode(c, columns[static_cast<size_t>(c)].title == "kernel" ? QHeaderView::Stretch : QHeaderView::Interactive);
  };
  QObject::connect(model, &QAbstractItemModel::modelReset, t, stretch);
  stretch();
  if (proxy) *proxy = p;
  return t;
}

}  // namespace parascope::gui
