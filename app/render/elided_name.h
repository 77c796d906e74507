// Names shortened for painting: models::elide_name (models/name_elide.h: a kernel keeps its own
// name, losing return type, arguments, namespaces and template arguments before being cut)
// measured in a font. The timeline's labels, the GUI's tables and the PDF report's tables use it.
#pragma once

#include <QFontMetricsF>
#include <QString>
#include <string_view>

#include "models/name_elide.h"
#include "render/qstr.h"

namespace parascope::render {

inline QString elide_name(std::string_view name, const QFontMetricsF& fm, double width) {
  return qstr(models::elide_name(name, width, [&fm](std::string_view s) { return fm.horizontalAdvance(qstr(s)); }));
}

inline QString elide_name(const QString& name, const QFontMetricsF& fm, double width) {
  const QByteArray utf8 = name.toUtf8();
  return elide_name(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())), fm, width);
}

}  // namespace parascope::render
