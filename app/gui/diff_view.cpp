#include "gui/diff_view.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <cstdio>
#include <regex>

#include "gui/data_table_model.h"
#include "gui/message_label.h"
#include "gui/open_dialogs.h"
#include "gui/timeline_view.h"
#include "models/timeline_index.h"

namespace parascope::gui {

std::map<int32_t, render::TrackMark> diff_track_marks(const TraceDiff& d, bool side_b, double threshold) {
  std::map<int32_t, render::TrackMark> out;
  for (const TrackDiff& t : d.tracks) {
    const int64_t track = side_b ? t.track_b : t.track_a;
    if (track < 0) continue;
    const bool one_side = t.track_a < 0 || t.track_b < 0;
    const double r = t.busy_a > 0 ? static_cast<double>(t.busy_b - t.busy_a) / static_cast<double>(t.busy_a) : 0;
    if (!one_side && std::abs(r) <= threshold) continue;
    render::TrackMark m;
    m.color = one_side ? QColor(0x88, 0x88, 0x88) : r > 0 ? QColor(0xd6, 0x45, 0x45) : QColor(0x2e, 0x9e, 0x57);
    char buf[32];
    if (one_side) std::snprintf(buf, sizeof buf, "%s", side_b ? "only B" : "only A");
    else std::snprintf(buf, sizeof buf, "%+.1f %%", r * 100);
    m.text = buf;
    out.emplace(static_cast<int32_t>(track), m);
  }
  return out;
}

DiffView::DiffView(QWidget* parent) : QWidget(parent) {
  open_ = new QPushButton(tr("Compare With…"), this);
  open_->setToolTip(tr("Open a second trace (B), as File → Open: another run's files or its folder of per-rank files, "
                       "or a predicted trace from `parascope-cli whatif -o`"));
  auto* pick = new QMenu(open_);
  pick->addAction(tr("Trace Files…"), this, [this] { open_b(ask_trace_files(this, tr("Compare with: B's trace files (every rank's)"))); });
  pick->addAction(tr("Folder of Per-Rank Files…"), this, [this] { open_b(ask_trace_folder(this, tr("Compare with: B's folder of per-rank traces"))); });
  open_->setMenu(pick);
  loader_ = new TraceLoader(this);
  connect(loader_, &TraceLoader::progress, this, [this](int, QString, double f) {
    if (loading_) status_->set_message(tr("loading B (%1): %2 %").arg(loading_label_).arg(static_cast<int>(f * 100)));
  });
  connect(loader_, &TraceLoader::loaded, this, [this](int, LoadedTrace t, QStringList) {
    if (!loading_) return;  // A changed meanwhile
    loading_ = false;
    diff_with(t.trace, t.index, loading_label_);
  });
  connect(loader_, &TraceLoader::failed, this, [this](int, QString message, QStringList) {
    if (!loading_) return;
    loading_ = false;
    status_->set_message(tr("Could not read B: %1").arg(message));
  });
  connect(loader_, &TraceLoader::cancelled, this, [this](int) { loading_ = false; });
  // a long message (a B that cannot be read, under a long path) wraps instead of widening the window
  status_ = new MessageLabel(this);
  status_->setObjectName("diff_status");
  status_->set_message(tr("Open a second trace to compare with the loaded one"));
  status_->setStyleSheet("color: #666");
  step_ = new QLineEdit(this);
  step_->setPlaceholderText(tr("step ranges: ProfilerStep#N"));
  step_->setToolTip(tr("A regular expression for step ranges (NVTX, annotations) when the traces have no ProfilerStep#N, "
                       "as `parascope-cli diff --step`; empty: ProfilerStep#N, else the whole trace"));
  step_->setMaximumWidth(260);
  connect(step_, &QLineEdit::editingFinished, this, [this] { set_step_pattern(step_->text()); });
  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 2, 4, 2);
  top->addWidget(open_);
  top->addWidget(step_);
  top->addWidget(status_, 1);
  mismatch_ = new MessageLabel(this);
  mismatch_->setObjectName("diff_rank_mismatch");
  mismatch_->setStyleSheet("color: #a04000; font-weight: bold; padding: 2px 4px");
  mismatch_->hide();

  timeline_b_ = new TimelineView(this);
  timeline_b_->set_empty_text(tr("B's timeline: Compare With… another run (its files or folder), or Open in Diff from the What-if dock"));
  timeline_b_->setMinimumHeight(60);  // the bottom dock fits under the timeline at 720 px (issue 18 item 9)
  tabs_ = new QTabWidget(this);
  const char* names[kTableCount] = {"Steps", "Kernels", "Collectives", "Streams", "Links"};
  for (int i = 0; i < kTableCount; ++i) {
    models_[i] = new DataTableModel(this);
    auto* t = make_data_table_view(models_[i], this, &proxies_[i], /*keep_model_order=*/true);  // the library's order until a header is clicked
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setToolTip(tr("Select a row to show it in both timelines"));
    connect(t->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this, i](const QModelIndex& cur) {
      if (cur.isValid()) activate(i, proxies_[i]->mapToSource(cur).row());
    });
    tables_[i] = t;
    tabs_->addTab(t, tr(names[i]));
  }
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(timeline_b_);
  split->addWidget(tabs_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addLayout(top);
  v->addWidget(mismatch_);
  v->addWidget(split, 1);
}

void DiffView::set_trace(std::shared_ptr<const Trace> a) {
  a_ = std::move(a);
  jobs_.drop();
  diff_ = {};
  b_.reset();
  b_index_.reset();
  offset_ = 0;
  loader_->cancel();
  loading_ = false;
  mismatch_->set_message(QString());
  mismatch_->hide();
  timeline_b_->set_trace(nullptr);
  for (DataTableModel* m : models_) m->set_table({});
  status_->set_message(tr("Open a second trace to compare with the loaded one"));
}

void DiffView::open_b(const QStringList& inputs) {
  if (!a_ || inputs.isEmpty()) return;
  jobs_.drop();
  loading_ = true;
  loading_label_ = inputs_label(inputs);
  status_->set_message(tr("loading B (%1)…").arg(loading_label_));
  loader_->load(inputs);
}

void DiffView::set_b(std::shared_ptr<const Trace> b, const QString& label) {
  if (!b) return;
  diff_with(b, b == b_ ? b_index_ : nullptr, label);
}

void DiffView::diff_with(std::shared_ptr<const Trace> b, std::shared_ptr<const models::TimelineIndex> index, const QString& label) {
  if (!a_ || !b) return;
  auto a = a_;
  DiffOptions o;
  o.step_pattern = step_->text().toStdString();
  start([a, b, label, index, o] {
    Result r;
    r.label = label;
    r.b = b;
    try {
      r.index = index ? index : std::make_shared<const models::TimelineIndex>(*b);
      r.diff = diff_traces(*a, *b, o);
    } catch (const std::regex_error&) {
      r.error = tr("'%1' is not a valid regular expression").arg(QString::fromStdString(o.step_pattern));
      return r;
    } catch (const std::exception& e) {
      r.error = tr("Could not compare: %1").arg(QString::fromUtf8(e.what()));
      return r;
    }
    r.tables[kLinks] = diff_links_table(*a, *b, r.diff);
    return r;
  });
}

void DiffView::start(std::function<Result()> work) {
  status_->set_message(tr("comparing…"));
  jobs_.start(
      std::move(work),
      [this](Result r) {
        if (!r.error.isEmpty()) {
          status_->set_message(r.error);
        } else {
          b_ = r.b;
          b_index_ = r.index;
          b_label_ = r.label;
          diff_ = std::move(r.diff);
          offset_ = diff_.offset();
          const DataTable tables[kTableCount] = {diff_steps_table(diff_), diff_kernels_table(diff_), diff_collectives_table(diff_),
                                                 diff_tracks_table(diff_), std::move(r.tables[kLinks])};
          for (int i = 0; i < kTableCount; ++i) {
            models_[i]->set_table(tables[i]);
            tables_[i]->resizeColumnsToContents();
            tables_[i]->setColumnWidth(0, std::min(tables_[i]->columnWidth(0), 360));
          }
          mismatch_->set_message(diff_.rank_mismatch.empty() ? QString() : tr("⚠ The rank counts differ: %1").arg(QString::fromStdString(diff_.rank_mismatch)));
          mismatch_->setVisible(!diff_.rank_mismatch.empty());
          timeline_b_->set_trace(b_, r.index);
          timeline_b_->set_track_marks(diff_track_marks(diff_, true));
          status_->set_message(tr("B: %1  ·  %2 steps paired by %3 (A by %4, B by %5)%6")
                               .arg(r.label)
                               .arg(diff_.paired_steps())
                               .arg(QString::fromStdString(diff_.paired_by), QString::fromStdString(diff_.steps_a),
                                    QString::fromStdString(diff_.steps_b))
                               .arg(diff_.unpaired_a || diff_.unpaired_b
                                        ? tr("; %1 of A and %2 of B unpaired").arg(diff_.unpaired_a).arg(diff_.unpaired_b)
                                        : QString()));
          emit updated();
        }
      });
}

QString DiffView::status() const { return status_->message(); }

QString DiffView::rank_warning() const { return mismatch_->message(); }

void DiffView::set_step_pattern(const QString& pattern) {
  if (step_->text() != pattern) step_->setText(pattern);
  if (b_) set_b(b_, b_label_);
}

void DiffView::follow(TimeNs start, TimeNs end) {
  if (b_ && end > start) timeline_b_->set_view(start + offset_, end + offset_);
}

void DiffView::activate(int table, int row) {
  if (row < 0) return;
  const auto r = static_cast<size_t>(row);
  switch (table) {
    case kSteps: {
      if (r >= diff_.steps.size()) return;
      const StepDiff& s = diff_.steps[r];
      offset_ = s.start_b - s.start_a;
      emit range_activated(s.start_a, s.end_a);
      timeline_b_->set_view(s.start_b, s.end_b);
      timeline_b_->set_range(s.start_b, s.end_b);
      break;
    }
    case kKernels:
    case kCollectives: {
      EventRef ea, eb;
      if (table == kKernels && r < diff_.kernels.size()) {
        ea = diff_.kernels[r].example_a;
        eb = diff_.kernels[r].example_b;
      } else if (table == kCollectives && r < diff_.collectives.size()) {
        ea = diff_.collectives[r].example_a;
        eb = diff_.collectives[r].example_b;
      }
      if (ea.valid()) emit event_activated(ea);
      if (eb.valid()) {
        timeline_b_->zoom_to(eb);
        timeline_b_->select(eb);
      }
      break;
    }
    default: break;
  }
}

void DiffView::wait() {
  while (busy()) QApplication::processEvents(QEventLoop::AllEvents, 20);
}

}  // namespace parascope::gui
