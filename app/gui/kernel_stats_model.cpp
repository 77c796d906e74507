#include "gui/kernel_stats_model.h"

#include <QBrush>
#include <QColor>

#include "render/qstr.h"
#include "render/timeline_painter.h"

namespace parascope::gui {

namespace {
QString dur(TimeNs ns) { return qstr(format_duration(ns)); }
}  // namespace

KernelStatsModel::KernelStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelStatsModel::set_stats(std::shared_ptr<const Trace> trace, std::shared_ptr<const KernelStats> stats) {
  beginResetModel();
  trace_ = std::move(trace);
  stats_ = std::move(stats);
  device_ = -1;
  table_ = stats_ ? &stats_->overall : nullptr;
  endResetModel();
}

void KernelStatsModel::set_device(int32_t device) {
  if (!stats_) return;
  beginResetModel();
  device_ = device;
  table_ = &stats_->overall;
  for (const auto& t : stats_->per_device)
    if (t.device == device) table_ = &t;
  if (device < 0) table_ = &stats_->overall;
  endResetModel();
}

QString KernelStatsModel::name_at(int row) const {
  if (!table_ || row < 0 || static_cast<size_t>(row) >= table_->rows.size()) return {};
  return qstr(trace_->str(table_->rows[static_cast<size_t>(row)].name));
}

int KernelStatsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !table_ ? 0 : static_cast<int>(table_->rows.size());
}

int KernelStatsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant KernelStatsModel::data(const QModelIndex& index, int role) const {
  if (!table_ || !index.isValid() || static_cast<size_t>(index.row()) >= table_->rows.size()) return {};
  const KernelStat& s = table_->rows[static_cast<size_t>(index.row())];
  const double share = table_->total_ns ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(table_->total_ns) : 0.0;
  if (role == kSortRole) {
    switch (index.column()) {
      case kName: return qstr(trace_->str(s.name));
      case kCategory: return qstr(to_string(s.category));
      case kCount: return static_cast<qlonglong>(s.count);
      case kTotal: return static_cast<qlonglong>(s.total_ns);
      case kShare: return share;
      case kMean: return s.mean_ns;
      case kP50: return static_cast<qlonglong>(s.p50_ns);
      case kP95: return static_cast<qlonglong>(s.p95_ns);
      case kMin: return static_cast<qlonglong>(s.min_ns);
      case kMax: return static_cast<qlonglong>(s.max_ns);
      default: return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case kName: return qstr(trace_->str(s.name));
      case kCategory: return qstr(to_string(s.category));
      case kCount: return static_cast<qlonglong>(s.count);
      case kTotal: return dur(s.total_ns);
      case kShare: return QString::number(share, 'f', 1) + " %";
      case kMean: return dur(static_cast<TimeNs>(s.mean_ns + 0.5));
      case kP50: return dur(s.p50_ns);
      case kP95: return dur(s.p95_ns);
      case kMin: return dur(s.min_ns);
      case kMax: return dur(s.max_ns);
      default: return {};
    }
  }
  if (role == Qt::ToolTipRole && index.column() == kName) return qstr(trace_->str(s.name));
  if (role == Qt::TextAlignmentRole && index.column() >= kCount) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::DecorationRole && index.column() == kCategory) return render::category_color(s.category);
  return {};
}

QVariant KernelStatsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[kColumns] = {"Kernel", "Category", "Count", "Total", "Share", "Mean", "p50", "p95", "Min", "Max"};
  return tr(kNames[section]);
}

}  // namespace parascope::gui
