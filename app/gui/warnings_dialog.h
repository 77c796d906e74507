// WarningsDialog: the warnings of the loaded trace (Trace::warnings: what was skipped, repaired or
// noted while loading — the lines `parascope-cli info` prints under "warnings"), one row each
// with the file it is about, opened from the status bar's warnings button. Non-modal, so the
// trace stays usable beside it; Copy puts the list on the clipboard as the CLI prints it.
#pragma once

#include <QDialog>
#include <string>
#include <vector>

class QTreeWidget;

namespace parascope::gui {

class WarningsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit WarningsDialog(QWidget* parent = nullptr);
  void set_warnings(const std::vector<std::string>& warnings);
  QTreeWidget* list() const { return list_; }
  // The warnings as the CLI prints them, one a line.
  QString text() const;

 private:
  QTreeWidget* list_ = nullptr;
  std::vector<std::string> warnings_;
};

// A warning's file and message: "DIR/r0.pstrace: has no end index" is {"DIR/r0.pstrace", "has no
// end index"} when the part before the first ": " names a file or folder on disk, else {"", the
// warning}.
std::pair<QString, QString> split_warning(const QString& warning);

// The status bar button's tooltip: the first `shown` warnings, long ones cut, and how many more.
QString warnings_tooltip(const std::vector<std::string>& warnings, size_t shown = 3);

}  // namespace parascope::gui
