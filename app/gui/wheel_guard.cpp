#include "gui/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAbstractSlider>
#include <QComboBox>
#include <QEvent>
#include <QCoreApplication>
#include <QScrollBar>
#include <QWheelEvent>

namespace parascope::gui {

namespace {

class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (e->type() != QEvent::Wheel) return false;
    auto* w = static_cast<QWidget*>(watched);
    if (w->hasFocus()) return false;
    // to the scroll area that holds it, explicitly: Qt passes a wheel event on to the parents only
    // when it came from the window system
    const auto* wheel = static_cast<QWheelEvent*>(e);
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
      if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
        QWheelEvent copy(area->viewport()->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(), wheel->pixelDelta(),
                         wheel->angleDelta(), wheel->buttons(), wheel->modifiers(), wheel->phase(), wheel->inverted(),
                         wheel->source(), wheel->pointingDevice());
        QCoreApplication::sendEvent(area->viewport(), &copy);
        return true;
      }
    e->ignore();  // no scroll area: the parents may have it (a real wheel event goes on to them)
    return true;
  }
};

bool guarded_kind(QWidget* w) {
  if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) return true;
  // sliders, but not scroll bars: those scroll, which is what the wheel should do
  return qobject_cast<QAbstractSlider*>(w) && !qobject_cast<QScrollBar*>(w);
}

}  // namespace

void guard_wheel(QWidget* root) {
  static const char* kGuarded = "parascope_wheel_guarded";
  static const char* kGuardName = "parascope_wheel_guard";
  QObject* guard = root->findChild<QObject*>(kGuardName, Qt::FindDirectChildrenOnly);
  if (!guard) {
    guard = new WheelGuard(root);
    guard->setObjectName(kGuardName);
  }
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!guarded_kind(w) || w->property(kGuarded).toBool()) continue;
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(guard);
    w->setProperty(kGuarded, true);
  }
}

}  // namespace parascope::gui
