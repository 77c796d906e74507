#include "gui/message_label.h"

namespace parascope::gui {

namespace {
constexpr QChar kBreak(0x200B);  // zero-width space: a line may break here
constexpr int kMaxUnbroken = 40;
}  // namespace

MessageLabel::MessageLabel(QWidget* parent) : QLabel(parent) {
  setWordWrap(true);
  setTextFormat(Qt::PlainText);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void MessageLabel::set_message(const QString& text) {
  message_ = text;
  setText(shown_text(text));
  setToolTip(text.size() > 80 ? text : QString());
}

QString MessageLabel::shown_text(const QString& text) {
  const QString cut = text.size() > kShownChars ? text.left(kShownChars - 1) + QChar(0x2026) : text;
  QString out;
  out.reserve(cut.size() + cut.size() / 16);
  int run = 0;
  for (QChar c : cut) {
    out += c;
    run = c.isSpace() ? 0 : run + 1;
    if (!c.isHighSurrogate() && (c == '/' || c == '\\' || run >= kMaxUnbroken)) {
      out += kBreak;
      run = 0;
    }
  }
  return out;
}

}  // namespace parascope::gui
