// Reads a Parascope HTML report back with an XML parser (the report is well-formed XHTML): its
// sections, every table's columns and cells (text and exact data-value) and every figure's
// embedded images, so tests check what a reader of the file sees.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QXmlStreamReader>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace parascope::test {

struct HtmlCell {
  std::string text;
  std::optional<double> value;
};
struct HtmlTable {
  std::string section;
  std::vector<std::string> keys;  // data-key of each column
  int declared_rows = -1;         // data-rows
  std::vector<std::vector<HtmlCell>> rows;
  int column(const std::string& key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return static_cast<int>(i);
    return -1;
  }
  // The row whose first cells read `a` (and `b` when given), or nullptr.
  const std::vector<HtmlCell>* row(const std::string& a, const std::string& b = {}) const {
    for (const auto& r : rows)
      if (!r.empty() && r[0].text == a && (b.empty() || (r.size() > 1 && r[1].text == b))) return &r;
    return nullptr;
  }
};
struct HtmlFigure {
  std::string section;
  bool png_image = false;   // <img src="data:image/png;base64,...">
  bool inline_svg = false;  // an <svg> element inside the figure
  bool svg_link = false;    // <a href="data:image/svg+xml;base64,...">
  bool png_link = false;
  size_t image_bytes = 0;   // base64 characters of the embedded image
  std::string svg;          // the SVG link's drawing, decoded (a raster figure's text is only here)
};
struct HtmlReport {
  bool well_formed = false;
  std::string error;
  std::string title;
  std::vector<std::string> sections;
  std::map<std::string, HtmlTable> tables;  // by id without the "t-" prefix
  std::map<std::string, HtmlFigure> figures;
};

inline HtmlReport read_html_report(const std::string& path) {
  HtmlReport out;
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly)) {
    out.error = "cannot open " + path;
    return out;
  }
  QXmlStreamReader x(&f);
  std::string section, table, figure;
  std::vector<HtmlCell>* row = nullptr;
  HtmlCell* cell = nullptr;
  bool in_th = false, in_title = false;
  while (!x.atEnd()) {
    x.readNext();
    if (x.isStartElement()) {
      const QString n = x.name().toString();
      const auto a = x.attributes();
      if (n == "title") in_title = true;
      if (n == "section") {
        section = a.value("id").toString().toStdString();
        out.sections.push_back(section);
      } else if (n == "table" && a.value("id").startsWith(QLatin1String("t-"))) {
        table = a.value("id").mid(2).toString().toStdString();
        out.tables[table].section = section;
        out.tables[table].declared_rows = a.value("data-rows").toInt();
      } else if (n == "th" && !table.empty()) {
        out.tables[table].keys.push_back(a.value("data-key").toString().toStdString());
        in_th = true;
      } else if (n == "tr" && !table.empty() && !in_th) {
        row = nullptr;
      } else if (n == "td" && !table.empty()) {
        if (!row) {
          out.tables[table].rows.emplace_back();
          row = &out.tables[table].rows.back();
        }
        row->emplace_back();
        cell = &row->back();
        if (a.hasAttribute("data-value")) cell->value = a.value("data-value").toDouble();
      } else if (n == "figure") {
        figure = a.value("id").mid(2).toString().toStdString();
        out.figures[figure].section = section;
      } else if (!figure.empty() && n == "img" && a.value("src").startsWith(QLatin1String("data:image/png;base64,"))) {
        out.figures[figure].png_image = true;
        out.figures[figure].image_bytes = static_cast<size_t>(a.value("src").size());
      } else if (!figure.empty() && n == "svg") {
        out.figures[figure].inline_svg = true;
        x.skipCurrentElement();  // the drawing itself
      } else if (!figure.empty() && n == "a") {
        const QStringView svg_prefix = u"data:image/svg+xml;base64,";
        if (a.value("href").startsWith(svg_prefix)) {
          out.figures[figure].svg_link = true;
          out.figures[figure].svg = QByteArray::fromBase64(a.value("href").mid(svg_prefix.size()).toLatin1()).toStdString();
        }
        if (a.value("href").startsWith(QLatin1String("data:image/png;base64,"))) out.figures[figure].png_link = true;
      }
    } else if (x.isEndElement()) {
      const QString n = x.name().toString();
      if (n == "title") in_title = false;
      if (n == "th") in_th = false;
      if (n == "td") cell = nullptr;
      if (n == "tr") row = nullptr;
      if (n == "table") table.clear();
      if (n == "figure") figure.clear();
      if (n == "section") section.clear();
    } else if (x.isCharacters()) {
      if (cell) cell->text += x.text().toString().toStdString();
      if (in_title) out.title += x.text().toString().toStdString();
    }
  }
  out.well_formed = !x.hasError();
  if (x.hasError()) out.error = x.errorString().toStdString() + " at line " + std::to_string(x.lineNumber());
  // the "(none)" row of an empty table is not data
  for (auto& [id, t] : out.tables)
    if (t.declared_rows == 0) t.rows.clear();
  return out;
}

}  // namespace parascope::test
