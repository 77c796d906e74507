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

std::pair<QString, QString> split_warning(const QString& warning) {
  const qsizetype colon = warning.indexOf(QLatin1String(": "));
  if (colon > 0) {
    const QString file = warning.left(colon);
    if (QFileInfo::exists(file)) return {file, warning.mid(colon + 2)};
  }
  return {QString(), warning};
}

QString warnings_tooltip(const std::vector<std::string>& warnings, size_t shown) {
  QStringList lines;
  for (size_t i = 0; i < warnings.size() && i < shown; ++i) {
    const auto [file, message] = split_warning(qstr(warnings[i]));
    const QString line = (file.isEmpty() ? QString() : QFileInfo(file).fileName() + ": ") + message;
    lines << (line.size() > 160 ? line.left(159) + QChar(0x2026) : line);
  }
  if (warnings.size() > shown) lines << QApplication::tr("… and %1 more: click for the list").arg(warnings.size() - shown);
  else lines << QApplication::tr("Click for the list");
  return lines.join('\n');
}

WarningsDialog::WarningsDialog(QWidget* parent) : QDialog(parent) {
  setObjectName("warnings_dialog");
  setWindowTitle(tr("Load warnings"));
  resize(900, 360);
  list_ = new QTreeWidget(this);
  list_->setObjectName("warnings_list");
  list_->setColumnCount(2);
  list_->setHeaderLabels({tr("File"), tr("Warning")});
  list_->setRootIsDecorated(false);
  list_->setWordWrap(true);
  list_->setUniformRowHeights(false);
  list_->setAlternatingRowColors(true);
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  list_->header()->setStretchLastSection(true);
  list_->setColumnWidth(0, 200);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
  copy->setToolTip(tr("Copy every warning, one a line, as `parascope-cli info` prints them"));
  connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* v = new QVBoxLayout(this);
  auto* note = new QLabel(tr("What was skipped, repaired or noted while loading the trace:"), this);
  v->addWidget(note);
  v->addWidget(list_, 1);
  v->addWidget(buttons);
}

void WarningsDialog::set_warnings(const std::vector<std::string>& warnings) {
  warnings_ = warnings;
  list_->clear();
  for (const std::string& w : warnings) {
    const QString full = qstr(w);
    const auto [file, message] = split_warning(full);
    auto* item = new QTreeWidgetItem(list_, {file.isEmpty() ? QString() : QFileInfo(file).fileName(), message});
    item->setToolTip(0, file);
    item->setToolTip(1, full);
    item->setData(1, Qt::UserRole, full);
  }
  setWindowTitle(tr("Load warnings (%1)").arg(warnings.size()));
}

QString WarningsDialog::text() const {
  QStringList lines;
  for (const std::string& w : warnings_) lines << qstr(w);
  return lines.join('\n');
}

}  // namespace parascope::gui
