#include "gui/open_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace parascope::gui {

namespace {

const char* const kLastDir = "main/last_dir";

QString trace_filter() {
  return QFileDialog::tr("Traces (*.json *.json.gz *.pstrace *.sqlite *.nsys-rep);;All files (*)");
}

}  // namespace

QStringList ask_trace_files(QWidget* parent, const QString& title) {
  QSettings settings;
  const QStringList files = QFileDialog::getOpenFileNames(parent, title, settings.value(kLastDir).toString(), trace_filter());
  if (!files.isEmpty()) settings.setValue(kLastDir, QFileInfo(files.front()).absolutePath());
  return files;
}

QStringList ask_trace_folder(QWidget* parent, const QString& title) {
  QSettings settings;
  const QString dir = QFileDialog::getExistingDirectory(parent, title, settings.value(kLastDir).toString());
  if (dir.isEmpty()) return {};
  settings.setValue(kLastDir, QFileInfo(dir).absolutePath());
  return {dir};
}

QString inputs_label(const QStringList& inputs) {
  if (inputs.isEmpty()) return {};
  const QFileInfo first(inputs.front());
  if (inputs.size() == 1) return first.fileName().isEmpty() ? QDir(inputs.front()).dirName() : first.fileName();
  return QFileDialog::tr("%1 (%2 files)").arg(first.absoluteDir().dirName()).arg(inputs.size());
}

}  // namespace parascope::gui
