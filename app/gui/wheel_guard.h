// The mouse wheel over a form: a combo box, spin box or slider changes its value by the wheel only
// while it has keyboard focus (clicked or tabbed to); otherwise the wheel scrolls what holds it, as
// a form in a scroll area should. Without this, scrolling the What-if form past its knobs changed
// whichever knob passed under the pointer, and the next Run used it.
#pragma once

class QWidget;

namespace parascope::gui {

// Guards every combo box, spin box and slider under `root` that exists now: their focus policy
// becomes Qt::StrongFocus (the wheel no longer gives them focus) and a wheel event that reaches one
// without focus goes to the scroll area holding it, which scrolls. Call it again after adding such
// widgets.
void guard_wheel(QWidget* root);

}  // namespace parascope::gui
