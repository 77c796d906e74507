// Help → Keyboard Shortcuts and Help → Legend. The shortcut list is read from the window's actions
// when it opens (the menus', and those of widgets that carry their own, such as the timeline's
// keys), so it cannot drift from what the keys do; the legend draws the category and flow colours
// from the palette the timeline painter uses (render/timeline_painter.h).
#pragma once

#include <QString>

class QMainWindow;
class QWidget;

namespace parascope::gui {

// Widgets whose own actions (QWidget::addAction) belong in the shortcut list name their section in
// this property ("Timeline (when it has focus)").
inline constexpr const char* kShortcutScopeProperty = "parascope_shortcut_scope";

// One table per menu (and per widget scope) of the actions that have a shortcut: text and keys.
QString shortcuts_html(const QMainWindow& window);
// The slice categories with their colour swatches and what falls in each, then the flow arrows.
QString legend_html();
// A non-modal dialog showing `html`, owned by `parent`.
void show_help_dialog(QWidget* parent, const QString& object_name, const QString& title, const QString& html);

}  // namespace parascope::gui
