#include "report/report_document.h"

#include <QBuffer>
#include <QImage>
#include <QSvgGenerator>

namespace parascope::report {

Section& Section::text(QString t) {
  Block b;
  b.kind = Block::Kind::kText;
  b.text = std::move(t);
  blocks.push_back(std::move(b));
  return *this;
}

Section& Section::facts(std::vector<Fact> f) {
  Block b;
  b.kind = Block::Kind::kFacts;
  b.facts = std::move(f);
  blocks.push_back(std::move(b));
  return *this;
}

Section& Section::table(DataTable t, size_t shown_rows) {
  Block b;
  b.kind = Block::Kind::kTable;
  b.table = std::move(t);
  b.shown_rows = shown_rows;
  blocks.push_back(std::move(b));
  return *this;
}

Section& Section::figure(Figure f) {
  Block b;
  b.kind = Block::Kind::kFigure;
  b.figure = std::move(f);
  blocks.push_back(std::move(b));
  return *this;
}

Section& ReportDocument::add_section(QString id, QString heading) {
  sections.push_back({std::move(id), std::move(heading), {}});
  return sections.back();
}

std::vector<const DataTable*> ReportDocument::tables() const {
  std::vector<const DataTable*> out;
  for (const Section& s : sections)
    for (const Block& b : s.blocks)
      if (b.kind == Block::Kind::kTable) out.push_back(&b.table);
  return out;
}

std::vector<const Figure*> ReportDocument::figures() const {
  std::vector<const Figure*> out;
  for (const Section& s : sections)
    for (const Block& b : s.blocks)
      if (b.kind == Block::Kind::kFigure) out.push_back(&b.figure);
  return out;
}

QImage figure_image(const Figure& f, double scale) {
  QImage img((QSizeF(f.size) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  p.scale(scale, scale);
  if (f.paint) f.paint(p, QRectF(QPointF(0, 0), QSizeF(f.size)));
  p.end();
  return img;
}

QByteArray figure_png(const Figure& f, double scale) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  figure_image(f, scale).save(&buf, "PNG");
  return bytes;
}

QByteArray figure_svg(const Figure& f) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  QSvgGenerator gen;
  gen.setOutputDevice(&buf);
  gen.setSize(f.size);
  gen.setViewBox(QRect(QPoint(0, 0), f.size));
  gen.setTitle(f.caption);
  gen.setDescription(QStringLiteral("Parascope report figure %1").arg(f.id));
  QPainter p(&gen);
  p.fillRect(QRectF(QPointF(0, 0), QSizeF(f.size)), Qt::white);
  if (f.paint) f.paint(p, QRectF(QPointF(0, 0), QSizeF(f.size)));
  p.end();
  return bytes;
}

}  // namespace parascope::report
