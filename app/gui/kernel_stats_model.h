// KernelStatsModel: the statistics table (model/view) over trace/core's kernel_stats() — one row
// per kernel name, for the whole trace or one device: category, count, total, mean, p50, p95,
// min, max and share of the table's kernel time. The display role is formatted text; SortRole
// gives the raw number so sorting is numeric. The statistics are computed by the library, on the
// loader thread; this only presents them.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "trace/core/analysis/kernel_stats.h"

namespace parascope::gui {

class KernelStatsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kName, kCategory, kCount, kTotal, kShare, kMean, kP50, kP95, kMin, kMax, kColumns };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit KernelStatsModel(QObject* parent = nullptr);
  void set_stats(std::shared_ptr<const Trace> trace, std::shared_ptr<const KernelStats> stats);
  // -1: the whole trace; else a trace device index.
  void set_device(int32_t device);
  int32_t device() const { return device_; }
  const KernelStatsTable* table() const { return table_; }
  QString name_at(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const KernelStats> stats_;
  const KernelStatsTable* table_ = nullptr;
  int32_t device_ = -1;
};

}  // namespace parascope::gui
