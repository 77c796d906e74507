// WarningsDialog: the loaded trace's warnings (Trace::warnings: something may be wrong with the
// data — what was skipped, repaired, lost or cut short) and, in a section of their own below, its
// notes (Trace::notes: how the trace was made — a collector's run summary, NVLink sampling's
// setup): the lines `parascope-cli info` prints under "warnings" and "notes", one row each with the
// file it is about, opened from the status bar's button. Non-modal, so the trace stays usable
// beside it; Copy puts both lists on the clipboard as the CLI prints them.
#pragma once

#include <QDialog>
#include <string>
#include <vector>

class QLabel;
class QTreeWidget;

namespace parascope::gui {

class WarningsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit WarningsDialog(QWidget* parent = nullptr);
  void set_messages(const std::vector<std::string>& warnings, const std::vector<std::string>& notes);
  QTreeWidget* list() const { return list_; }              // the warnings
  QTreeWidget* notes_list() const { return notes_list_; }  // the notes
  // "warnings\n  ...\nnotes\n  ..." as the CLI prints them (an empty list: no block).
  QString text() const;

 private:
  QTreeWidget* list_ = nullptr;
  QTreeWidget* notes_list_ = nullptr;
  QLabel* warnings_label_ = nullptr;
  QLabel* notes_label_ = nullptr;
  std::vector<std::string> warnings_, notes_;
};

// A warning's (or note's) file and message: "DIR/r0.pstrace: has no end index" is
// {"DIR/r0.pstrace", "has no end index"} when the part before the first ": " names a file or
// folder on disk, else {"", the warning}.
std::pair<QString, QString> split_warning(const QString& warning);

// The status bar button: "5 warnings, 5 notes", "1 warning", "3 notes"; "" when there are none.
QString warnings_button_text(size_t warnings, size_t notes);
// Its tooltip: the first `shown` warnings, long ones cut, how many more, and how many notes.
QString warnings_tooltip(const std::vector<std::string>& warnings, const std::vector<std::string>& notes,
                         size_t shown = 3);

}  // namespace parascope::gui
