#include "gui/whatif_view.h"

#include <QApplication>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include "gui/data_table_model.h"
#include "gui/diff_view.h"
#include "gui/message_label.h"
#include "gui/presets.h"
#include "gui/timeline_view.h"
#include "render/qstr.h"
#include "models/sweep_chart.h"
#include "models/timeline_index.h"
#include "sim/knobs.h"
#include "sim/whatif/compare.h"
#include "sim/whatif/trace_knobs.h"
#include "sim/whatif/whatif_tables.h"

namespace parascope::gui {

struct WhatIfView::Prepared {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const whatif::DepGraph> graph;
  std::shared_ptr<whatif::CommCache> cache = std::make_shared<whatif::CommCache>();  // shared by every run on this trace
  std::vector<std::pair<std::string, std::string>> trace_values;
  QString step_pattern;  // what the graph's steps were found with
  QString error;
};

struct WhatIfView::RunResult {
  whatif::WhatIfSummary summary;
  std::string headline;  // whatif::comparison_headline
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const models::TimelineIndex> index;
  TraceDiff diff;
  DataTable comparison, links;
  QString error;
  bool cancelled = false;
};

struct WhatIfView::SweepResult {
  std::vector<whatif::SweepRow> rows;
  double reference_step_ns = 0;
  size_t cancelled = 0;
  QString error;
};

namespace {

// The range beside a numeric knob's field (an enum's or a bool's choices are its combo box).
QString field_range(const sim::KnobSpec& k) {
  if (k.type == sim::KnobType::kEnum || k.type == sim::KnobType::kBool) return {};
  return qstr(sim::range_text(k));
}

std::vector<std::string> split_specs(const QString& text) {
  std::vector<std::string> out;
  for (const QString& s : text.split(QRegularExpression("[\\s;]+"), Qt::SkipEmptyParts)) out.push_back(s.toStdString());
  return out;
}

}  // namespace

WhatIfView::WhatIfView(QWidget* parent) : QWidget(parent) {
  // left: machine, knobs, Run; sweep field, Sweep
  auto* left = new QWidget(this);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(4, 4, 4, 4);
  machine_ = new QComboBox(left);
  machine_->setToolTip(tr("The machine the replay runs on: the trace's own topology, the preset matching its GPUs, or any preset"));
  auto* mrow = new QHBoxLayout;
  mrow->addWidget(new QLabel(tr("Machine"), left));
  mrow->addWidget(machine_, 2);
  steps_ = new QLineEdit(left);
  steps_->setPlaceholderText(tr("ProfilerStep#N"));
  steps_->setToolTip(tr("Step ranges when the trace has no ProfilerStep#N: a regular expression for their names, as "
                        "`parascope-cli whatif --step` (\"^step \" for NVTX ranges \"step 0\", \"step 1\", ...)"));
  // beside the machine, not a row of its own: the dock's minimum height is what the 1280x720 layout has
  mrow->addWidget(new QLabel(tr("Steps"), left));
  mrow->addWidget(steps_, 1);
  lv->addLayout(mrow);
  connect(steps_, &QLineEdit::editingFinished, this, [this] { set_step_pattern(steps_->text()); });
  auto* form_host = new QWidget(left);
  form_ = new QGridLayout(form_host);
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setVerticalSpacing(2);
  build_form();
  auto* scroll = new QScrollArea(left);
  scroll->setWidget(form_host);
  scroll->setWidgetResizable(true);
  lv->addWidget(scroll, 1);
  run_ = new QPushButton(tr("Run"), left);
  run_->setToolTip(tr("Predict with the knobs set above (none: replay the trace unchanged)"));
  compare_ = new QPushButton(tr("Open in Diff"), left);
  compare_->setToolTip(tr("Show the prediction in the Diff dock, against the measurement"));
  compare_->setEnabled(false);
  auto* brow = new QHBoxLayout;
  brow->addWidget(run_);
  brow->addWidget(compare_);
  lv->addLayout(brow);
  sweep_spec_ = new QLineEdit(left);
  sweep_spec_->setPlaceholderText(tr("channels=2,4,8,16 comm_stream=trace,side"));
  sweep_spec_->setToolTip(tr("One or two knob=v1,v2,... (as `whatif --sweep`): step time against the first, one line per value of the second"));
  sweep_ = new QPushButton(tr("Sweep"), left);
  auto* srow = new QHBoxLayout;
  srow->addWidget(sweep_spec_, 1);
  srow->addWidget(sweep_);
  lv->addLayout(srow);
  connect(run_, &QPushButton::clicked, this, &WhatIfView::run);
  connect(sweep_, &QPushButton::clicked, this, &WhatIfView::run_sweep);
  connect(sweep_spec_, &QLineEdit::returnPressed, this, &WhatIfView::run_sweep);
  connect(compare_, &QPushButton::clicked, this, [this] {
    if (predicted_trace_) emit compare_requested(predicted_trace_, label_);
  });

  // right: results
  tabs_ = new QTabWidget(this);
  predicted_ = new TimelineView(tabs_);
  predicted_->set_empty_text(tr("The predicted timeline: set knobs on the left and Run"));
  predicted_->setMinimumHeight(80);  // a timeline's own 200 px kept the bottom docks at 270 px (issue 18 item 9)
  tabs_->addTab(predicted_, tr("Predicted timeline"));
  auto make_table = [this](DataTableModel*& model, QWidget* host) {
    model = new DataTableModel(this);
    auto* t = make_data_table_view(model, host, nullptr, /*keep_model_order=*/true);
    connect(model, &QAbstractItemModel::modelReset, t, [t] { t->resizeColumnsToContents(); });
    return t;
  };
  auto* cmp = new QSplitter(Qt::Vertical, tabs_);
  cmp->addWidget(make_table(comparison_, cmp));
  cmp->addWidget(make_table(links_, cmp));
  tabs_->addTab(cmp, tr("Predicted vs measured"));
  auto* sw = new QSplitter(Qt::Horizontal, tabs_);
  chart_ = render::make_chart_view(sw);
  chart_->widget()->setMinimumHeight(90);  // the bottom dock fits under the timeline at 720 px (issue 18 item 9)
  models::ChartSpec empty;
  empty.empty_text = tr("Run a sweep to see the step time against a knob").toStdString();
  chart_->set_spec(empty);
  sw->addWidget(chart_->widget());
  sw->addWidget(make_table(sweep_model_, sw));
  sw->setStretchFactor(0, 3);
  sw->setStretchFactor(1, 2);
  tabs_->addTab(sw, tr("Sweep"));

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(tabs_);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({480, 900});

  status_ = new MessageLabel(this);  // a bad knob or a trace without a what-if can be a long line
  status_->set_message(tr("No trace loaded"));
  status_->setStyleSheet("color: #666");
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(200);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->hide();
  connect(cancel_, &QPushButton::clicked, this, &WhatIfView::cancel);
  auto* bottom = new QHBoxLayout;
  bottom->setContentsMargins(4, 0, 4, 2);
  bottom->addWidget(status_, 1);
  bottom->addWidget(progress_);
  bottom->addWidget(cancel_);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(split, 1);
  v->addLayout(bottom);
  set_running(false, false);
  run_->setEnabled(false);
  sweep_->setEnabled(false);
}

void WhatIfView::build_form() {
  int row = 0;
  for (const sim::KnobSpec& k : sim::knob_registry().all()) {
    auto* name = new QLabel(qstr(k.name), form_->parentWidget());
    name->setToolTip(qstr(k.help));
    QWidget* editor = nullptr;
    const std::string def = sim::knob_registry().format(k, k.default_value);
    if (k.type == sim::KnobType::kEnum || k.type == sim::KnobType::kBool) {
      auto* c = new QComboBox(form_->parentWidget());
      c->addItem(tr("default (%1)").arg(qstr(def)), QString());
      const std::vector<std::string> choices = k.type == sim::KnobType::kBool ? std::vector<std::string>{"true", "false"} : k.choices;
      for (const std::string& ch : choices) c->addItem(qstr(ch), qstr(ch));
      editor = c;
    } else {
      auto* e = new QLineEdit(form_->parentWidget());
      e->setPlaceholderText(tr("default %1").arg(qstr(def)));
      e->setClearButtonEnabled(true);
      editor = e;
    }
    editor->setToolTip(qstr(k.help) + "\n" + tr("range: %1").arg(field_range(k).isEmpty() ? qstr(def) : field_range(k)));
    auto* info = new QLabel(form_->parentWidget());
    info->setStyleSheet("color: #666");
    info->setText(field_range(k));
    form_->addWidget(name, row, 0);
    form_->addWidget(editor, row, 1);
    form_->addWidget(info, row, 2);
    editors_[k.name] = editor;
    trace_labels_[k.name] = info;
    ++row;
  }
  form_->setColumnStretch(1, 1);
}

void WhatIfView::set_default_text(const std::string& knob, const QString& text) {
  const auto it = editors_.find(knob);
  if (it == editors_.end()) return;
  if (auto* e = qobject_cast<QLineEdit*>(it->second)) e->setPlaceholderText(tr("default %1").arg(text));
  else if (auto* c = qobject_cast<QComboBox*>(it->second)) c->setItemText(0, tr("default (%1)").arg(text));
}

void WhatIfView::set_trace(std::shared_ptr<const Trace> trace) {
  cancel();
  jobs_.drop();  // results of work on the previous trace are dropped
  trace_ = std::move(trace);
  prepared_.reset();
  predicted_trace_.reset();
  diff_ = {};
  sweep_rows_.clear();
  predicted_->set_trace(nullptr);
  comparison_->set_table({});
  links_->set_table({});
  sweep_model_->set_table({});
  models::ChartSpec empty;
  empty.empty_text = tr("Run a sweep to see the step time against a knob").toStdString();
  chart_->set_spec(empty);
  compare_->setEnabled(false);
  run_->setEnabled(false);
  sweep_->setEnabled(false);
  trace_values_.clear();
  for (const sim::KnobSpec& k : sim::knob_registry().all()) {
    trace_labels_[k.name]->setText(field_range(k));
    set_default_text(k.name, qstr(sim::knob_registry().format(k, k.default_value)));
  }
  machine_->clear();
  if (!trace_) {
    status_->set_message(tr("No trace loaded"));
    return;
  }
  machine_->addItem(automatic_machine_text(0), QString());
  for (const Preset& p : topology_presets()) machine_->addItem(qstr(p.name), qstr(p.name));
  preparing_ = false;
  status_->set_message(tr("The dependency graph is built when this dock is shown"));
  if (isVisible()) prepare();
}

void WhatIfView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (trace_ && !prepared_ && !preparing_) prepare();
}

void WhatIfView::set_step_pattern(const QString& pattern) {
  if (steps_->text() != pattern) steps_->setText(pattern);
  const QString built = prepared_ ? prepared_->step_pattern : QString();
  if (!trace_ || (prepared_ && built == pattern)) return;
  if (!prepared_ && !preparing_) return;  // built with it when the dock is first shown
  prepared_.reset();
  run_->setEnabled(false);
  sweep_->setEnabled(false);
  prepare();
}

QString WhatIfView::step_pattern() const { return steps_->text(); }  // as typed: "^step " ends in a space

void WhatIfView::prepare() {
  preparing_ = true;
  status_->set_message(tr("building the dependency graph…"));
  auto t = trace_;
  const QString pattern = step_pattern();
  jobs_.start(
      [t, pattern]() -> std::shared_ptr<const Prepared> {
        auto p = std::make_shared<Prepared>();
        p->trace = t;
        p->step_pattern = pattern;
        try {
          whatif::GraphOptions go;
          go.step_regex = pattern.toStdString();
          p->graph = std::make_shared<const whatif::DepGraph>(whatif::build_dep_graph(*t, go));
          p->trace_values = whatif::trace_knob_values(*p->graph);
        } catch (const std::exception& e) {
          p->error = QString::fromUtf8(e.what());
        }
        return p;
      },
      [this](std::shared_ptr<const Prepared> result) {
        preparing_ = false;
        prepared_ = std::move(result);
        if (!prepared_->error.isEmpty()) {
          status_->set_message(tr("No what-if for this trace: %1").arg(prepared_->error));
        } else {
          for (const auto& [k, v] : prepared_->trace_values) {
            trace_values_[k] = v;
            const sim::KnobSpec* spec = sim::knob_registry().find(k);
            const QString range = spec ? field_range(*spec) : QString();
            trace_labels_[k]->setText(tr("trace: %1").arg(qstr(v)) + (range.isEmpty() ? QString() : "  ·  " + range));
            trace_labels_[k]->setToolTip(tr("the trace's value: %1").arg(qstr(v)));
            // left empty, a knob keeps the trace's value (a 2-GPU trace replays on 2, not the registry's 8)
            set_default_text(k, tr("as the trace: %1").arg(qstr(v)));
          }
          const auto& g = *prepared_->graph;
          machine_->setItemText(0, automatic_machine_text(std::max(1, g.gpu_count())));
          QString step_note;  // a pattern that is bad or matches nothing: the graph's warning says so
          for (const std::string& w : g.diagnostics.warnings)
            if (step_note.isEmpty() && w.find("--step") != std::string::npos) step_note = " (" + qstr(w) + ")";
          status_->set_message(tr("%1 graph nodes, %2 collectives on %3 GPUs, %4 steps%5: set knobs and Run, or Sweep")
                               .arg(g.nodes.size())
                               .arg(g.groups.size())
                               .arg(g.gpu_count())
                               .arg(g.steps.size())
                               .arg(step_note));
          run_->setEnabled(true);
          sweep_->setEnabled(true);
        }
        emit finished();
      });
}

bool WhatIfView::set_knob(const QString& name, const QString& text) {
  const auto it = editors_.find(name.toStdString());
  if (it == editors_.end()) return false;
  if (auto* c = qobject_cast<QComboBox*>(it->second)) {
    const int i = text.isEmpty() ? 0 : c->findData(text);
    if (i < 0) return false;
    c->setCurrentIndex(i);
  } else if (auto* e = qobject_cast<QLineEdit*>(it->second)) {
    e->setText(text);
  }
  return true;
}

QWidget* WhatIfView::knob_editor(const QString& name) const {
  const auto it = editors_.find(name.toStdString());
  return it == editors_.end() ? nullptr : it->second;
}

QString WhatIfView::trace_value(const QString& name) const {
  const auto it = trace_values_.find(name.toStdString());
  return it == trace_values_.end() ? QString() : qstr(it->second);
}

std::vector<std::pair<std::string, std::string>> WhatIfView::overrides() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const sim::KnobSpec& k : sim::knob_registry().all()) {
    QWidget* w = editors_.at(k.name);
    QString v;
    if (auto* c = qobject_cast<QComboBox*>(w)) v = c->currentData().toString();
    else if (auto* e = qobject_cast<QLineEdit*>(w)) v = e->text().trimmed();
    if (!v.isEmpty()) out.emplace_back(k.name, v.toStdString());
  }
  return out;
}

void WhatIfView::set_sweep_spec(const QString& spec) { sweep_spec_->setText(spec); }

QString WhatIfView::machine() const { return machine_->currentText(); }

QString WhatIfView::automatic_machine_text(int32_t gpus) const {
  try {
    const MachineChoice c = choose_machine(*trace_, topology_presets(), {"", gpus, true});
    return tr("automatic: %1 (%2)").arg(qstr(c.topology.name), qstr(c.reason));
  } catch (const MachineError& e) {
    return tr("automatic: none (%1)").arg(QString::fromUtf8(e.what()));
  }
}

bool WhatIfView::set_machine(const QString& preset) {
  const int i = machine_->findData(preset);
  if (i < 0) return false;
  machine_->setCurrentIndex(i);
  return true;
}

bool WhatIfView::topology(Topology& out, QString& why) const {
  try {
    out = whatif::whatif_machine(*trace_, *prepared_->graph, &topology_presets(), machine_->currentData().toString().toStdString()).topology;
    return true;
  } catch (const MachineError& e) {
    why = QString::fromUtf8(e.what());
    return false;
  }
}

bool WhatIfView::knobs(sim::KnobSettings& out) const {
  try {
    for (const auto& [k, v] : overrides()) out.set(k, v);
    return true;
  } catch (const sim::KnobError& e) {
    status_->set_message(tr("bad knob: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
}

void WhatIfView::set_running(bool on, bool determinate) {
  progress_->setVisible(on);
  cancel_->setVisible(on);
  cancel_->setEnabled(on);
  progress_->setRange(0, determinate ? 1000 : 0);
  progress_->setValue(0);
  run_->setEnabled(!on && prepared_ && prepared_->error.isEmpty());
  sweep_->setEnabled(!on && prepared_ && prepared_->error.isEmpty());
}

void WhatIfView::cancel() {
  jobs_.cancel();
  if (busy()) {
    status_->set_message(tr("cancelling…"));
    cancel_->setEnabled(false);
  }
}

void WhatIfView::run() {
  if (!prepared_ || !prepared_->error.isEmpty() || busy()) return;
  sim::KnobSettings knobs;
  if (!this->knobs(knobs)) return;
  const auto overrides = this->overrides();
  std::string label;
  for (const auto& [k, v] : overrides) label += (label.empty() ? "" : " ") + k + "=" + v;
  label_ = label.empty() ? tr("replay") : qstr(label);
  QStringList run_knobs;
  for (const auto& [k, v] : overrides) run_knobs << qstr(k + "=" + v);
  set_running(true, false);
  status_->set_message(label.empty() ? tr("replaying the trace…") : tr("predicting %1…").arg(qstr(label)));
  auto prepared = prepared_;
  const std::string machine = machine_->currentData().toString().toStdString();
  jobs_.start(
      [prepared, machine, knobs](const JobToken& job) -> std::shared_ptr<RunResult> {
        auto r = std::make_shared<RunResult>();
        try {
          whatif::CompareSettings cs;
          cs.knobs = knobs;
          cs.machine = machine;
          cs.presets = &topology_presets();
          cs.graph = prepared->graph;
          cs.want_trace = true;
          cs.cache = prepared->cache;
          cs.cancel = job.cancel.get();
          whatif::Comparison c = whatif::compare(*prepared->trace, cs);
          whatif::WhatIfOutput& shown = c.prediction ? *c.prediction : c.replay;
          r->summary = shown.summary;
          r->headline = whatif::comparison_headline(c);
          r->trace = std::make_shared<const Trace>(std::move(*shown.trace));
          if (job.cancelled()) throw whatif::Cancelled();
          r->index = std::make_shared<const models::TimelineIndex>(*r->trace);
          r->diff = diff_traces(*prepared->trace, *r->trace);
          r->comparison = std::move(c.tables.comparison);
          r->links = diff_links_table(*prepared->trace, *r->trace, r->diff);  // A: measured, B: predicted
        } catch (const whatif::Cancelled&) {
          r->cancelled = true;
        } catch (const std::exception& e) {
          r->error = QString::fromUtf8(e.what());
        }
        return r;
      },
      [this, run_knobs](std::shared_ptr<RunResult> r) {
        set_running(false, false);
        if (r->cancelled) {
          status_->set_message(tr("cancelled"));
        } else if (!r->error.isEmpty()) {
          status_->set_message(tr("what-if failed: %1").arg(r->error));
        } else {
          predicted_trace_ = r->trace;
          last_run_knobs_ = run_knobs;
          diff_ = std::move(r->diff);
          comparison_->set_table(std::move(r->comparison));
          links_->set_table(std::move(r->links));
          predicted_->set_trace(predicted_trace_, r->index);
          predicted_->set_track_marks(diff_track_marks(diff_, true));
          compare_->setEnabled(true);
          const auto& s = r->summary;
          QString text = qstr(r->headline);
          if (!s.warnings.empty()) text += tr("  (%1 warnings)").arg(s.warnings.size());
          status_->set_message(text);
        }
        emit finished();
      });
}

void WhatIfView::run_sweep() {
  if (!prepared_ || !prepared_->error.isEmpty() || busy()) return;
  Topology topo;
  QString why;
  if (!topology(topo, why)) {
    status_->set_message(why);
    return;
  }
  std::vector<whatif::KnobPoint> grid;
  try {
    const auto specs = split_specs(sweep_spec_->text());
    if (specs.empty()) {
      status_->set_message(tr("Enter a sweep, e.g. %1").arg(sweep_spec_->placeholderText()));
      return;
    }
    grid = whatif::sweep_grid(specs);
  } catch (const std::exception& e) {
    status_->set_message(tr("bad sweep: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  sim::KnobSettings knobs;
  if (!this->knobs(knobs)) return;
  set_running(true, true);
  status_->set_message(tr("sweeping %1 variants…").arg(grid.size()));
  tabs_->setCurrentIndex(kSweepTab);
  auto prepared = prepared_;
  const size_t threads = static_cast<size_t>(std::max(1, QThread::idealThreadCount()));
  jobs_.start(
      [this, prepared, topo, knobs, grid, threads](const JobToken& job) -> std::shared_ptr<SweepResult> {
        auto r = std::make_shared<SweepResult>();
        try {
          whatif::WhatIfInput in;
          in.measured = prepared->trace.get();
          in.graph = prepared->graph.get();
          in.topology = topo;
          in.cancel = job.cancel.get();
          in.want_analyses = true;
          in.cache = prepared->cache;
          r->reference_step_ns = whatif::run_whatif(in).summary.step_ns;  // the unchanged replay
          in.knobs = knobs;
          r->rows = whatif::run_sweep(in, grid, threads, [this, id = job.id](size_t done, size_t total) {
            QMetaObject::invokeMethod(this, [this, id, done, total] {
              if (!jobs_.is_current(id)) return;
              progress_->setValue(static_cast<int>(1000 * done / std::max<size_t>(total, 1)));
              status_->set_message(tr("sweeping: %1 of %2 variants").arg(done).arg(total));
            }, Qt::QueuedConnection);
          });
          for (const auto& row : r->rows) r->cancelled += row.error == "cancelled";
        } catch (const std::exception& e) {
          r->error = QString::fromUtf8(e.what());
        }
        return r;
      },
      [this](std::shared_ptr<SweepResult> r) {
        set_running(false, true);
        if (!r->error.isEmpty()) {
          status_->set_message(r->error == "cancelled" ? tr("cancelled") : tr("sweep failed: %1").arg(r->error));
        } else {
          sweep_rows_ = std::move(r->rows);
          const DataTable table = whatif::sweep_table(sweep_rows_, r->reference_step_ns);
          sweep_model_->set_table(table);
          chart_->set_spec(models::sweep_chart_spec(table, r->reference_step_ns));
          status_->set_message(r->cancelled ? tr("sweep cancelled: %1 of %2 variants ran").arg(sweep_rows_.size() - r->cancelled).arg(sweep_rows_.size())
                                        : tr("sweep: %1 variants").arg(sweep_rows_.size()));
        }
        emit finished();
      });
}

void WhatIfView::follow(TimeNs start, TimeNs end) {
  if (predicted_trace_ && end > start) predicted_->set_view(start, end);
}

void WhatIfView::wait() {
  while (busy()) QApplication::processEvents(QEventLoop::AllEvents, 20);
}

QString WhatIfView::status() const { return status_->message(); }

const DataTable& WhatIfView::comparison_table() const { return comparison_->table(); }
const DataTable& WhatIfView::links_table() const { return links_->table(); }
const DataTable& WhatIfView::sweep_table() const { return sweep_model_->table(); }

}  // namespace parascope::gui
