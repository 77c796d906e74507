// FindBar: find slices by name — a case-insensitive substring or a regular expression — and step
// through the matches in time order with Next / Previous (Enter / Shift+Enter, F3 / Shift+F3).
// Matching is trace/core's SliceSearch; the bar asks the window where to start (the selection, or
// the start of the view) and reports what it found through found().
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "trace/core/slice_search.h"

class QCheckBox;
class QLabel;
class QLineEdit;

namespace parascope::gui {

class FindBar : public QWidget {
  Q_OBJECT
 public:
  explicit FindBar(QWidget* parent = nullptr);
  void set_trace(std::shared_ptr<const Trace> trace);
  // Where searches start: the current selection (if valid) else the view's start time.
  void set_position_source(std::function<EventRef()> selection, std::function<TimeNs()> view_start);
  void set_pattern(const QString& text, MatchMode mode);
  QLineEdit* edit() const { return edit_; }
  QString status() const;
  int64_t match_count() const { return search_ ? search_->count() : 0; }

  EventRef find_next();
  EventRef find_previous();

 signals:
  void found(parascope::EventRef ref);

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  bool prepare();
  void report(EventRef r, bool forward);

  std::shared_ptr<const Trace> trace_;
  std::optional<SliceSearch> search_;
  QString searched_text_;
  MatchMode searched_mode_ = MatchMode::kSubstring;
  std::function<EventRef()> selection_;
  std::function<TimeNs()> view_start_;
  QLineEdit* edit_ = nullptr;
  QCheckBox* regex_ = nullptr;
  QLabel* status_ = nullptr;
};

}  // namespace parascope::gui
