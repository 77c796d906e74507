// ReportDocument: what a Parascope report says, as plain data the writers lay out — sections of
// text, facts (key/value lines), tables (DataTable, the same rows the CLI and the GUI show) and
// figures (a paint function at a logical size, so PNG, SVG and PDF draw the same pixels through
// the render library). Built by report_builder.h; written by report_html.h, report_pdf.h and
// report_files.h. Table and figure ids are unique in a document and file-name safe.
#pragma once

#include <QPainter>
#include <QSize>
#include <QString>
#include <functional>
#include <utility>
#include <vector>

#include "trace/core/data_table.h"

namespace parascope::report {

struct Figure {
  QString id;        // "timeline", "link_chart"... (file names, HTML anchors)
  QString caption;
  QSize size;        // logical pixels: paint() draws into QRectF(0, 0, size)
  bool raster = false;  // mostly a bitmap (timelines): HTML shows the PNG and links the SVG
  std::function<void(QPainter&, const QRectF&)> paint;
};

struct Fact {
  QString key, value;
};

struct Block {
  enum class Kind : uint8_t { kText, kFacts, kTable, kFigure };
  Kind kind = Kind::kText;
  QString text;              // kText: one paragraph (plain text)
  std::vector<Fact> facts;   // kFacts
  DataTable table;           // kTable (CSV has every row)
  size_t shown_rows = 0;     // kTable: rows the PDF shows (0: all; the HTML and CSV have all)
  Figure figure;             // kFigure
};

struct Section {
  QString id;  // "metadata", "timeline", "overlap", "links", "roofline", "kernels", "whatif", "notes"
  QString title;
  std::vector<Block> blocks;

  Section& text(QString t);
  Section& facts(std::vector<Fact> f);
  Section& table(DataTable t, size_t shown_rows = 0);
  Section& figure(Figure f);
};

struct ReportDocument {
  QString title;
  QString subtitle;  // inputs and when it was made
  std::vector<Section> sections;

  Section& add_section(QString id, QString heading);
  std::vector<const DataTable*> tables() const;
  std::vector<const Figure*> figures() const;
};

// A figure drawn at `scale` × its logical size onto white.
QImage figure_image(const Figure& f, double scale = 1.0);
QByteArray figure_png(const Figure& f, double scale = 1.0);
// SVG 1.2 tiny from QSvgGenerator (vector where the render library draws vectors).
QByteArray figure_svg(const Figure& f);

}  // namespace parascope::report
