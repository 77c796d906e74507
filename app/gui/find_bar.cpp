#include "gui/find_bar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace parascope::gui {

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(4, 2, 4, 2);
  l->addWidget(new QLabel(tr("Find:"), this));
  edit_ = new QLineEdit(this);
  edit_->setObjectName("find_edit");
  edit_->setPlaceholderText(tr("slice name (substring) or regular expression"));
  edit_->setClearButtonEnabled(true);
  edit_->setMinimumWidth(260);
  l->addWidget(edit_, 1);
  regex_ = new QCheckBox(tr("Regex"), this);
  l->addWidget(regex_);
  auto* prev = new QToolButton(this);
  prev->setText(tr("Previous"));
  auto* next = new QToolButton(this);
  next->setText(tr("Next"));
  l->addWidget(prev);
  l->addWidget(next);
  status_ = new QLabel(this);
  status_->setMinimumWidth(180);
  l->addWidget(status_);
  connect(next, &QToolButton::clicked, this, [this] { find_next(); });
  connect(prev, &QToolButton::clicked, this, [this] { find_previous(); });
  connect(edit_, &QLineEdit::returnPressed, this, [this] { find_next(); });
  connect(regex_, &QCheckBox::toggled, this, [this] { search_.reset(); });
}

void FindBar::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  search_.reset();
  status_->clear();
}

void FindBar::set_position_source(std::function<EventRef()> selection, std::function<TimeNs()> view_start) {
  selection_ = std::move(selection);
  view_start_ = std::move(view_start);
}

void FindBar::set_pattern(const QString& text, MatchMode mode) {
  edit_->setText(text);
  regex_->setChecked(mode == MatchMode::kRegex);
  searched_text_.clear();
  search_.reset();
  if (mode == MatchMode::kExact && trace_) {
    search_.emplace(*trace_, text.toStdString(), MatchMode::kExact);
    searched_text_ = text;
    searched_mode_ = MatchMode::kExact;
  }
}

QString FindBar::status() const { return status_->text(); }

bool FindBar::prepare() {
  if (!trace_) return false;
  const QString text = edit_->text();
  const MatchMode mode = regex_->isChecked() ? MatchMode::kRegex : MatchMode::kSubstring;
  if (!search_ || text != searched_text_ || (mode != searched_mode_ && searched_mode_ != MatchMode::kExact)) {
    search_.emplace(*trace_, text.toStdString(), mode);
    searched_text_ = text;
    searched_mode_ = mode;
  }
  if (!search_->error().empty()) {
    status_->setText(QString::fromStdString(search_->error()));
    return false;
  }
  if (search_->count() == 0) {
    status_->setText(text.isEmpty() ? QString() : tr("no match"));
    return false;
  }
  return true;
}

void FindBar::report(EventRef r, bool forward) {
  if (!r.valid()) {
    status_->setText(tr("%1 matches · no more %2").arg(search_->count()).arg(forward ? tr("after this") : tr("before this")));
    return;
  }
  status_->setText(tr("%1 of %2").arg(search_->position(r)).arg(search_->count()));
  emit found(r);
}

EventRef FindBar::find_next() {
  if (!prepare()) return {};
  const EventRef cur = selection_ ? selection_() : EventRef{};
  const EventRef r = cur.valid() ? search_->next(cur) : search_->first_at_or_after(view_start_ ? view_start_() : INT64_MIN);
  report(r, true);
  return r;
}

EventRef FindBar::find_previous() {
  if (!prepare()) return {};
  const EventRef cur = selection_ ? selection_() : EventRef{};
  const EventRef r = search_->previous(cur);
  report(r, false);
  return r;
}

void FindBar::keyPressEvent(QKeyEvent* e) {
  if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && (e->modifiers() & Qt::ShiftModifier)) {
    find_previous();
    return;
  }
  if (e->key() == Qt::Key_Escape) {
    edit_->clear();
    status_->clear();
    return;
  }
  QWidget::keyPressEvent(e);
}

}  // namespace parascope::gui
