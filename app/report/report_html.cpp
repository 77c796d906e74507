#include "report/report_html.h"

#include <charconv>
#include <cmath>

namespace parascope::report {

namespace {

void escape_into(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // XML 1.0 forbids most control characters
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += c;
    }
  }
}
std::string esc(std::string_view s) {
  std::string out;
  escape_into(out, s);
  return out;
}
std::string esc(const QString& s) { return esc(s.toStdString()); }

// Shortest text that reads back as the same double (integers without exponent or point).
std::string exact(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::trunc(v) && std::fabs(v) < 9.007199254740992e15) return std::to_string(static_cast<int64_t>(v));
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;font-size:14px;color:#222;margin:0 auto;max-width:1260px;padding:16px 24px}
h1{font-size:24px;margin:8px 0 2px}h2{font-size:19px;border-bottom:2px solid #3366cc;padding-bottom:3px;margin-top:34px}
h3{font-size:15px;margin:18px 0 2px}.sub{color:#666;margin:0 0 12px}nav a{margin-right:14px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:3px 16px;margin:8px 0}dl.facts dt{font-weight:bold}dl.facts dd{margin:0}
.note{color:#666;font-size:12px;margin:2px 0 6px}.scroll{max-height:520px;overflow:auto;border:1px solid #ddd;margin-bottom:10px}
table.data{border-collapse:collapse;font-size:12px;width:100%}table.data caption{display:none}
table.data th{position:sticky;top:0;background:#eef1f7;text-align:left;padding:4px 8px;border-bottom:1px solid #bbb;white-space:nowrap}
table.data td{padding:3px 8px;border-bottom:1px solid #eee;white-space:nowrap;max-width:520px;overflow:hidden;text-overflow:ellipsis}
table.data td.num,table.data th.num{text-align:right;font-variant-numeric:tabular-nums}
table.data tr:nth-child(even) td{background:#fafafa}
figure{margin:12px 0 18px}figure img,figure svg{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:12px;color:#444;margin-top:3px}figcaption a{margin-left:10px}
)";

void table_html(std::string& out, const DataTable& t) {
  out += "<h3 id=\"h-" + esc(t.id) + "\">" + esc(t.title) + "</h3>\n";
  if (!t.note.empty()) out += "<p class=\"note\">" + esc(t.note) + "</p>\n";
  out += "<div class=\"scroll\"><table class=\"data\" id=\"t-" + esc(t.id) + "\" data-rows=\"" + std::to_string(t.rows.size()) +
         "\"><caption>" + esc(t.title) + "</caption>\n<thead><tr>";
  for (const DataColumn& c : t.columns) {
    out += "<th data-key=\"" + esc(c.key()) + "\"";
    if (!c.unit.empty()) out += " data-unit=\"" + esc(c.unit) + "\"";
    out += c.numeric ? " class=\"num\">" : ">";
    out += esc(c.title) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const DataCell& c = row[i];
      if (c.numeric()) out += "<td class=\"num\" data-value=\"" + exact(c.value) + "\">";
      else out += "<td>";
      escape_into(out, c.text);
      out += "</td>";
    }
    out += "</tr>\n";
  }
  if (t.rows.empty()) out += "<tr><td colspan=\"" + std::to_string(std::max<size_t>(1, t.columns.size())) + "\">(none)</td></tr>\n";
  out += "</tbody></table></div>\n";
}

void figure_html(std::string& out, const Figure& f) {
  const std::string id = esc(f.id);
  const QByteArray svg = figure_svg(f);
  const QByteArray png = figure_png(f);
  out += "<figure id=\"f-" + id + "\" data-width=\"" + std::to_string(f.size.width()) + "\" data-height=\"" +
         std::to_string(f.size.height()) + "\">\n";
  if (f.raster) {
    out += "<img src=\"data:image/png;base64," + png.toBase64().toStdString() + "\" width=\"" + std::to_string(f.size.width()) +
           "\" height=\"" + std::to_string(f.size.height()) + "\" alt=\"" + esc(f.caption) + "\"/>\n";
  } else {
    // inline SVG: QSvgGenerator's document without its XML declaration
    const qsizetype at = svg.indexOf("<svg");
    out += at >= 0 ? svg.mid(at).toStdString() : std::string();
    out += "\n";
  }
  out += "<figcaption>" + esc(f.caption);
  if (!f.raster)  // a raster figure's PNG is the image above
    out += "<a download=\"" + id + ".png\" href=\"data:image/png;base64," + png.toBase64().toStdString() + "\">PNG</a>";
  out += "<a download=\"" + id + ".svg\" href=\"data:image/svg+xml;base64," + svg.toBase64().toStdString() + "\">SVG</a>";
  out += "</figcaption>\n</figure>\n";
}

}  // namespace

std::string report_html(const ReportDocument& doc) {
  std::string out;
  out.reserve(1 << 20);
  out += "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += "<meta name=\"generator\" content=\"Parascope 0.1.0\"/>\n<title>" + esc(doc.title) + "</title>\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n";
  out += "<h1>" + esc(doc.title) + "</h1>\n<p class=\"sub\">" + esc(doc.subtitle) + "</p>\n<nav>";
  for (const Section& s : doc.sections) out += "<a href=\"#" + esc(s.id) + "\">" + esc(s.title) + "</a>";
  out += "</nav>\n";
  for (const Section& s : doc.sections) {
    out += "<section id=\"" + esc(s.id) + "\">\n<h2>" + esc(s.title) + "</h2>\n";
    for (const Block& b : s.blocks) {
      switch (b.kind) {
        case Block::Kind::kText: out += "<p>" + esc(b.text) + "</p>\n"; break;
        case Block::Kind::kFacts:
          out += "<dl class=\"facts\">\n";
          for (const Fact& f : b.facts) out += "<dt>" + esc(f.key) + "</dt><dd>" + esc(f.value) + "</dd>\n";
          out += "</dl>\n";
          break;
        case Block::Kind::kTable: table_html(out, b.table); break;
        case Block::Kind::kFigure: figure_html(out, b.figure); break;
      }
    }
    out += "</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace parascope::report
