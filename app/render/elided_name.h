// Names shortened for painting: models::elide_name and models::elide_names (models/name_elide.h: a
// kernel keeps its own name, losing return type, arguments, namespaces and template arguments before
// being cut; names of one column that would then read alike keep where they differ) measured in a
// font. The timeline's labels, the GUI's tables and the PDF report's tables use it.
#pragma once

#include <QFontMetricsF>
#include <QString>
#include <QStringList>
#include <string>
#include <string_view>
#include <vector>

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

// The rows of one column, each in `width`, kept apart where they would read alike.
inline QStringList elide_names(const QStringList& names, const QFontMetricsF& fm, double width) {
  std::vector<std::string> utf8;
  utf8.reserve(static_cast<size_t>(names.size()));
  for (const QString& n : names) utf8.push_back(n.toStdString());
  const std::vector<std::string_view> views(utf8.begin(), utf8.end());
  QStringList out;
  for (const std::string& s : models::elide_names(views, width, [&fm](std::string_view t) { return fm.horizontalAdvance(qstr(t)); }))
    out << qstr(s);
  return out;
}

}  // namespace parascope::render
