// MessageLabel: a one-line-or-more status or error message that never widens its window. It wraps
// to the width it is given (its horizontal size policy is Ignored, so neither a long text nor a long
// path without spaces raises the layout's minimum width), offers a line break after each path
// separator and inside runs of unbroken text, and shows at most kShownChars characters; the whole
// message stays in its tooltip and in message().
#pragma once

#include <QLabel>
#include <QString>

namespace parascope::gui {

class MessageLabel : public QLabel {
  Q_OBJECT
 public:
  static constexpr int kShownChars = 600;
  explicit MessageLabel(QWidget* parent = nullptr);
  void set_message(const QString& text);
  const QString& message() const { return message_; }
  // `text` as the label shows it: cut after kShownChars with "…", with zero-width spaces where a
  // line may break (after '/' and '\', and every 40 characters of text without a space).
  static QString shown_text(const QString& text);

 private:
  QString message_;
};

}  // namespace parascope::gui
