#include "gui/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "render/qstr.h"
#include "render/timeline_painter.h"

namespace parascope::gui {

namespace {

QString keys_text(const QAction* a) {
  QStringList keys;
  for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
  return keys.join(", ");
}

QString action_text(const QAction* a) { return a->text().remove('&').toHtmlEscaped(); }

// The rows of `menu` and its submenus ("Colour By → Name") that have a shortcut.
void menu_rows(const QMenu* menu, const QString& prefix, QString& rows) {
  for (const QAction* a : menu->actions()) {
    if (a->isSeparator()) continue;
    if (a->menu()) {
      menu_rows(a->menu(), prefix + action_text(a) + " → ", rows);
      continue;
    }
    if (a->shortcuts().isEmpty()) continue;
    rows += "<tr><td style='padding-right:24px'>" + prefix + action_text(a) + "</td><td><b>" + keys_text(a) + "</b></td></tr>";
  }
}

QString section(const QString& title, const QString& rows) {
  return rows.isEmpty() ? QString() : "<h4>" + title.toHtmlEscaped() + "</h4><table cellspacing='2'>" + rows + "</table>";
}

}  // namespace

QString shortcuts_html(const QMainWindow& window) {
  QString html = "<h3>" + QObject::tr("Keyboard shortcuts") + "</h3>";
  for (const QAction* m : window.menuBar()->actions()) {
    if (!m->menu()) continue;
    QString rows;
    menu_rows(m->menu(), QString(), rows);
    html += section(m->text().remove('&'), rows);
  }
  for (const QWidget* w : window.findChildren<QWidget*>()) {
    const QString scope = w->property(kShortcutScopeProperty).toString();
    if (scope.isEmpty()) continue;
    QString rows;
    for (const QAction* a : w->actions())
      if (!a->shortcuts().isEmpty())
        rows += "<tr><td style='padding-right:24px'>" + action_text(a) + "</td><td><b>" + keys_text(a) + "</b></td></tr>";
    html += section(scope, rows);
  }
  html += "<h4>" + QObject::tr("Mouse") + "</h4><p>" +
          QObject::tr("Wheel or pinch: zoom at the cursor; Shift+wheel: scroll the tracks; horizontal wheel or drag: pan; "
                      "Shift+drag, or drag in the ruler: select a range; click: select a slice; double-click: zoom to it; "
                      "click a rank or GPU header: fold it (the folded row shows how busy its GPUs were); right-click a track: hide or move it.")
              .toHtmlEscaped() +
          "</p>";
  return html;
}

QString legend_html() {
  auto swatch = [](const QColor& c) {
    return "<td style='background-color:" + c.name() + "' width='28'>&nbsp;</td>";
  };
  struct Entry {
    Category category;
    const char* what;
  };
  const Entry categories[] = {
      {Category::kCompute, QT_TRANSLATE_NOOP("Legend", "kernels that compute: GEMMs, attention, elementwise")},
      {Category::kCommunication, QT_TRANSLATE_NOOP("Legend", "collectives (NCCL kernels), peer-to-peer copies, communication SM spans")},
      {Category::kMemory, QT_TRANSLATE_NOOP("Legend", "host/device copies and memsets that are not peer traffic")},
      {Category::kSync, QT_TRANSLATE_NOOP("Legend", "waits, barriers and synchronisation (never counted as compute)")},
      {Category::kHost, QT_TRANSLATE_NOOP("Legend", "CPU work: operators, runtime and driver calls")},
      {Category::kAnnotation, QT_TRANSLATE_NOOP("Legend", "ranges: ProfilerStep#N, NVTX and user annotations")},
      {Category::kOther, QT_TRANSLATE_NOOP("Legend", "anything the classifier cannot place")},
  };
  QString html = "<h3>" + QObject::tr("Legend") + "</h3><p>" +
                 QObject::tr("Slices are coloured by category (View → Colour By → Category):") + "</p><table cellspacing='3'>";
  for (const Entry& e : categories)
    html += "<tr>" + swatch(render::category_color(e.category)) + "<td><b>" + qstr(to_string(e.category)) + "</b></td><td>" +
            QObject::tr(e.what).toHtmlEscaped() + "</td></tr>";
  html += "</table><p>" + QObject::tr("Arrows between slices: the selected slice's, or all in view with View → Show All Flows:") + "</p><table cellspacing='3'>";
  const std::pair<FlowKind, const char*> flows[] = {
      {FlowKind::kLaunch, QT_TRANSLATE_NOOP("Legend", "a CPU launch call to the GPU work it started")},
      {FlowKind::kSendRecv, QT_TRANSLATE_NOOP("Legend", "a send to its matching receive")},
      {FlowKind::kCollective, QT_TRANSLATE_NOOP("Legend", "the ranks' parts of one collective")},
      {FlowKind::kSignalWait, QT_TRANSLATE_NOOP("Legend", "a signal to the wait it released")},
  };
  for (const auto& [kind, what] : flows)
    html += "<tr>" + swatch(render::flow_color(kind)) + "<td><b>" + qstr(to_string(kind)) + "</b></td><td>" +
            QObject::tr(what).toHtmlEscaped() + "</td></tr>";
  html += "</table><p>" + QObject::tr("SM lanes use the same colours for their roles: compute, communicate (communication), wait (sync).") + "</p>";
  return html;
}

void show_help_dialog(QWidget* parent, const QString& object_name, const QString& title, const QString& html) {
  auto* d = parent->findChild<QDialog*>(object_name);
  if (!d) {
    d = new QDialog(parent);
    d->setObjectName(object_name);
    d->setWindowTitle(title);
    auto* text = new QTextBrowser(d);
    text->setObjectName("text");
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
    auto* v = new QVBoxLayout(d);
    v->addWidget(text);
    v->addWidget(buttons);
    d->resize(560, 520);
  }
  d->findChild<QTextBrowser*>("text")->setHtml(html);
  d->show();
  d->raise();
}

}  // namespace parascope::gui
