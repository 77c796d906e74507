// The dialogs that pick a trace to load — File → Open (several files), File → Open Directory (a
// folder of per-rank files) and the Diff dock's Compare With… — one filter and one remembered
// folder for all of them, so B can be chosen exactly as A was. What they return goes to
// TraceLoader::load (a file, several files, or a folder).
#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace parascope::gui {

// The trace files picked (one or several: a multi-rank run's per-rank files); empty when cancelled.
QStringList ask_trace_files(QWidget* parent, const QString& title);
// A folder of per-rank files, as a one-entry list; empty when cancelled.
QStringList ask_trace_folder(QWidget* parent, const QString& title);
// "tp_serial_b1" for a folder or one file's name, "tp_serial_b1 (2 files)" for several files.
QString inputs_label(const QStringList& inputs);

}  // namespace parascope::gui
