// StatusLine: the status bar's message, one line that never widens its window. Its width is what
// the bar gives it (size hints of a few characters, horizontal policy Ignored), and a message that
// does not fit is cut in the middle, where a long path is: the head says what was done, the tail
// usually why it failed. The whole message stays in its tooltip and in message().
#pragma once

#include <QLabel>
#include <QString>

namespace parascope::gui {

class StatusLine : public QLabel {
  Q_OBJECT
 public:
  explicit StatusLine(QWidget* parent = nullptr);
  void set_message(const QString& text);
  const QString& message() const { return message_; }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  void fit();  // the shown text: message_ cut to the label's width
  QString message_;
};

}  // namespace parascope::gui
