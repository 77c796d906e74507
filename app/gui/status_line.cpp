#include "gui/status_line.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace parascope::gui {

StatusLine::StatusLine(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void StatusLine::set_message(const QString& text) {
  message_ = text;
  fit();
}

QSize StatusLine::sizeHint() const { return {fontMetrics().averageCharWidth() * 20, QLabel::sizeHint().height()}; }

QSize StatusLine::minimumSizeHint() const { return {fontMetrics().averageCharWidth() * 4, QLabel::minimumSizeHint().height()}; }

void StatusLine::resizeEvent(QResizeEvent* e) {
  QLabel::resizeEvent(e);
  fit();
}

void StatusLine::fit() {
  // one line: a message's line breaks (a multi-line error) read as separators
  const QString line = QString(message_).replace('\n', QStringLiteral("  \u00B7  "));
  const int room = contentsRect().width();
  const QString shown = room > 0 ? fontMetrics().elidedText(line, Qt::ElideMiddle, room) : line;
  setText(shown);
  setToolTip(shown == message_ ? QString() : message_);
}

}  // namespace parascope::gui
