#include "gui/warnings_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "render/qstr.h"

namespace parascope::gui {

namespace {

QTreeWidget* message_list(QWidget* parent, const QString& name, const QString& column) {
  auto* list = new QTreeWidget(parent);
  list->setObjectName(name);
  list->setColumnCount(2);
  list->setHeaderLabels({QApplication::tr("File"), column});
  list->setRootIsDecorated(false);
  list->setWordWrap(true);
  list->setUniformRowHeights(false);
  list->setAlternatingRowColors(true);
  list->setSelectionMode(QAbstractItemView::ExtendedSelection);
  list->header()->setStretchLastSection(true);
  list->setColumnWidth(0, 200);
  return list;
}

void fill(QTreeWidget* list, const std::vector<std::string>& lines) {
  list->clear();
  for (const std::string& l : lines) {
    const QString full = qstr(l);
    const auto [file, message] = split_warning(full);
    auto* item = new QTreeWidgetItem(list, {file.isEmpty() ? QString() : QFileInfo(file).fileName(), message});
    item->setToolTip(0, file);
    item->setToolTip(1, full);
    item->setData(1, Qt::UserRole, full);
  }
}

QString plural(size_t n, const char* one, const char* many) {
  return n == 1 ? QApplication::tr(one) : QApplication::tr(many).arg(n);
}

}  // namespace

std::pair<QString, QString> split_warning(const QString& warning) {
  const qsizetype colon = warning.indexOf(QLatin1String(": "));
  if (colon > 0) {
    const QString file = warning.left(colon);
    if (QFileInfo::exists(file)) return {file, warning.mid(colon + 2)};
  }
  return {QString(), warning};
}

QString warnings_button_text(size_t warnings, size_t notes) {
  QStringList parts;
  if (warnings) parts << plural(warnings, "1 warning", "%1 warnings");
  if (notes) parts << plural(notes, "1 note", "%1 notes");
  return parts.join(", ");
}

QString warnings_tooltip(const std::vector<std::string>& warnings, const std::vector<std::string>& notes, size_t shown) {
  QStringList lines;
  for (size_t i = 0; i < warnings.size() && i < shown; ++i) {
    const auto [file, message] = split_warning(qstr(warnings[i]));
    const QString line = (file.isEmpty() ? QString() : QFileInfo(file).fileName() + ": ") + message;
    lines << (line.size() > 160 ? line.left(159) + QChar(0x2026) : line);
  }
  if (warnings.size() > shown) lines << QApplication::tr("… and %1 more warnings").arg(warnings.size() - shown);
  if (!notes.empty())
    lines << plural(notes.size(), "1 note on how the trace was made (no problem)",
                    "%1 notes on how the trace was made (no problem)");
  lines << QApplication::tr("Click for the list");
  return lines.join('\n');
}

WarningsDialog::WarningsDialog(QWidget* parent) : QDialog(parent) {
  setObjectName("warnings_dialog");
  setWindowTitle(tr("Load warnings and notes"));
  resize(900, 480);
  list_ = message_list(this, "warnings_list", tr("Warning"));
  notes_list_ = message_list(this, "notes_list", tr("Note"));
  warnings_label_ = new QLabel(this);
  notes_label_ = new QLabel(this);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
  copy->setToolTip(tr("Copy the warnings and the notes, one a line, as `parascope-cli info` prints them"));
  connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* v = new QVBoxLayout(this);
  v->addWidget(warnings_label_);
  v->addWidget(list_, 3);
  v->addWidget(notes_label_);
  v->addWidget(notes_list_, 2);
  v->addWidget(buttons);
  set_messages({}, {});
}

void WarningsDialog::set_messages(const std::vector<std::string>& warnings, const std::vector<std::string>& notes) {
  warnings_ = warnings;
  notes_ = notes;
  fill(list_, warnings);
  fill(notes_list_, notes);
  warnings_label_->setText(warnings.empty() ? tr("Warnings: none (nothing was skipped, repaired or lost while loading)")
                                            : tr("Warnings (%1): something may be wrong with the data").arg(warnings.size()));
  notes_label_->setText(tr("Notes (%1): how the trace was made, no problem").arg(notes.size()));
  notes_label_->setVisible(!notes.empty());
  notes_list_->setVisible(!notes.empty());
  setWindowTitle(tr("Load warnings (%1) and notes (%2)").arg(warnings.size()).arg(notes.size()));
}

QString WarningsDialog::text() const {
  QStringList lines;
  auto block = [&lines](const char* title, const std::vector<std::string>& list) {
    if (list.empty()) return;
    lines << QString::fromLatin1(title);
    for (const std::string& l : list) lines << "  " + qstr(l);
  };
  block("warnings", warnings_);
  block("notes", notes_);
  return lines.join('\n');
}

}  // namespace parascope::gui
