#include "report/report_pdf.h"

#include <QBuffer>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <algorithm>
#include <functional>

#include "render/elided_name.h"
#include "render/qstr.h"

namespace parascope::report {

namespace {

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

constexpr double kMinShrink = 0.8;  // a figure may shrink this far to stay on the page of its heading

class PdfLayout {
 public:
  PdfLayout(QPdfWriter& writer, QPainter& p) : writer_(writer), p_(p) {
    width_ = writer.width();
    bottom_ = writer.height() - 22;  // the footer below
    body_ = QFont("DejaVu Sans", 9);
    small_ = QFont("DejaVu Sans", 7);
    bold_ = body_;
    bold_.setBold(true);
    h1_ = QFont("DejaVu Sans", 18, QFont::Bold);
    h2_ = QFont("DejaVu Sans", 13, QFont::Bold);
    h3_ = QFont("DejaVu Sans", 10, QFont::Bold);
    footer();
  }

  void title(const QString& t, const QString& sub) {
    p_.setFont(h1_);
    p_.setPen(QColor(0x22, 0x22, 0x22));
    y_ += text_block(t, h1_, 0, width_) + 4;
    p_.setPen(QColor(0x66, 0x66, 0x66));
    y_ += text_block(sub, body_, 0, width_) + 8;
  }

  void heading(const QString& t, double keep_with = 140) {
    need(QFontMetricsF(h2_).height() + 24 + keep_with);
    y_ += 10;
    p_.setPen(QColor(0x22, 0x22, 0x22));
    const double h = text_block(t, h2_, 0, width_);
    y_ += h + 2;
    p_.fillRect(QRectF(0, y_, width_, 2), QColor(0x33, 0x66, 0xcc));
    y_ += 8;
  }

  void paragraph(const QString& t) {
    const double h = measure(t, body_, width_);
    need(h);
    p_.setPen(QColor(0x22, 0x22, 0x22));
    y_ += text_block(t, body_, 0, width_) + 6;
  }

  void facts(const std::vector<Fact>& facts) {
    const double key_w = 190;
    for (const Fact& f : facts) {
      const double h = std::max(measure(f.key, bold_, key_w - 8), measure(f.value, body_, width_ - key_w));
      need(h);
      p_.setPen(QColor(0x22, 0x22, 0x22));
      p_.setFont(bold_);
      p_.drawText(QRectF(0, y_, key_w - 8, h), Qt::TextWordWrap, f.key);
      p_.setFont(body_);
      p_.drawText(QRectF(key_w, y_, width_ - key_w, h), Qt::TextWordWrap, f.value);
      y_ += h + 2;
    }
    y_ += 6;
  }

  void table(const DataTable& t, size_t shown) {
    const size_t rows = shown ? std::min(shown, t.rows.size()) : t.rows.size();
    const QFontMetricsF fm(small_), fb(bold_small());
    // column widths: the widest of header and shown cells, text columns capped at 380
    std::vector<double> w(t.columns.size(), 0);
    for (size_t c = 0; c < t.columns.size(); ++c) {
      w[c] = fb.horizontalAdvance(qstr(t.columns[c].title)) + 10;
      for (size_t r = 0; r < rows; ++r)
        if (c < t.rows[r].size()) w[c] = std::max(w[c], fm.horizontalAdvance(qstr(t.rows[r][c].text)) + 10);
      if (!t.columns[c].numeric) w[c] = std::min(w[c], 380.0);
    }
    // too wide: text columns give way down to 150 px, then the whole table is drawn smaller
    double over = sum(w) - width_;
    for (size_t c = 0; c < w.size() && over > 0; ++c) {
      if (t.columns[c].numeric || w[c] <= 150) continue;
      const double give = std::min(over, w[c] - 150);
      w[c] -= give;
      over -= give;
    }
    const double zoom = std::min(1.0, width_ / sum(w));
    const double table_w = sum(w);
    const double row_h = fm.height() + 4;
    const double title_h = measure(qstr(t.title), h3_, width_) + (t.note.empty() ? 0 : measure(qstr(t.note), small_, width_));
    need(title_h + zoom * row_h * static_cast<double>(std::min<size_t>(rows, 3) + 1));
    p_.setPen(QColor(0x22, 0x22, 0x22));
    y_ += text_block(qstr(t.title), h3_, 0, width_);
    if (!t.note.empty()) {
      p_.setPen(QColor(0x66, 0x66, 0x66));
      y_ += text_block(qstr(t.note), small_, 0, width_);
    }
    y_ += 2;
    // text cells as the column shows them (names that would read alike keep where they differ)
    std::vector<QStringList> column_text(w.size());
    for (size_t c = 0; c < w.size(); ++c) {
      if (t.columns[c].numeric) continue;
      QStringList texts;
      for (size_t r = 0; r < rows; ++r) texts << (c < t.rows[r].size() ? qstr(t.rows[r][c].text) : QString());
      column_text[c] = render::elide_names(texts, fm, w[c] - 8);
    }
    // one row at the current y, in table coordinates scaled by zoom
    auto draw_row = [&](const std::function<void(double x, size_t c, const QRectF& cell)>& cell, QColor fill) {
      p_.save();
      p_.translate(0, y_);
      p_.scale(zoom, zoom);
      if (fill.isValid()) p_.fillRect(QRectF(0, 0, table_w, row_h), fill);
      double x = 0;
      for (size_t c = 0; c < w.size(); ++c) {
        cell(x, c, QRectF(x + 4, 0, w[c] - 8, row_h));
        x += w[c];
      }
      p_.restore();
      y_ += row_h * zoom;
    };
    auto align = [&](size_t c) { return (t.columns[c].numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter; };
    auto header = [&] {
      draw_row(
          [&](double, size_t c, const QRectF& r) {
            p_.setFont(bold_small());
            p_.setPen(QColor(0x22, 0x22, 0x22));
            p_.drawText(r, align(c), fb.elidedText(qstr(t.columns[c].title), Qt::ElideRight, r.width()));
          },
          QColor(0xee, 0xf1, 0xf7));
    };
    header();
    for (size_t r = 0; r < rows; ++r) {
      if (y_ + row_h * zoom > bottom_) {
        new_page();
        p_.setPen(QColor(0x66, 0x66, 0x66));
        y_ += text_block(qstr(t.title) + " (continued)", small_, 0, width_);
        header();
      }
      const auto& row = t.rows[r];
      draw_row(
          [&](double, size_t c, const QRectF& cell) {
            if (c >= row.size()) return;
            p_.setFont(small_);
            p_.setPen(QColor(0x22, 0x22, 0x22));
            p_.drawText(cell, align(c), t.columns[c].numeric ? render::elide_name(row[c].text, fm, cell.width())
                                                             : column_text[c][static_cast<qsizetype>(r)]);
          },
          r % 2 ? QColor(0xf7, 0xf7, 0xf7) : QColor());
    }
    p_.setFont(small_);
    p_.setPen(QColor(0x66, 0x66, 0x66));
    if (t.rows.empty()) {
      p_.drawText(QRectF(4, y_, width_, row_h), Qt::AlignLeft | Qt::AlignVCenter, "(none)");
      y_ += row_h;
    }
    if (rows < t.rows.size()) {
      p_.drawText(QRectF(4, y_, width_, row_h), Qt::AlignLeft | Qt::AlignVCenter,
                  QString("… %1 more rows in the HTML report and %2.csv").arg(t.rows.size() - rows).arg(qstr(t.id)));
      y_ += row_h;
    }
    y_ += 10;
  }

  // The height a block needs before anything else may share its page (keep-with-next for headings).
  double first_height(const Block& b) const {
    switch (b.kind) {
      case Block::Kind::kText: return measure(b.text, body_, width_) + 6;
      case Block::Kind::kFacts: return 60;
      case Block::Kind::kTable: return measure(qstr(b.table.title), h3_, width_) + 5 * (QFontMetricsF(small_).height() + 4);
      case Block::Kind::kFigure: {
        const double cap_h = measure(b.figure.caption, small_, width_) + 6;
        double scale = std::min(1.0, width_ / std::max(1, b.figure.size.width()));
        if (b.figure.size.height() * scale + cap_h > bottom_) scale = (bottom_ - cap_h) / b.figure.size.height();
        return b.figure.size.height() * scale * kMinShrink + cap_h;
      }
    }
    return 0;
  }

  // A heading stays on the page of what follows it: its text blocks and the first other block.
  void heading_for(const Section& s) {
    double h = 0;
    for (const Block& b : s.blocks) {
      h += first_height(b);
      if (b.kind != Block::Kind::kText) break;
    }
    heading(s.title, std::min(h, bottom_ - 60));
  }

  void figure(const Figure& f) {
    const double cap_h = measure(f.caption, small_, width_) + 6;
    const double page_h = bottom_ - top_margin();
    double scale = std::min(1.0, width_ / std::max(1, f.size.width()));
    if (f.size.height() * scale + cap_h > page_h) scale = (page_h - cap_h) / f.size.height();
    // whole on one page: drawn a little smaller (down to kMinShrink) rather than leaving its heading alone
    const double room = bottom_ - y_ - cap_h;
    if (f.size.height() * scale > room && f.size.height() * scale * kMinShrink <= room) scale = room / f.size.height();
    const double h = f.size.height() * scale;
    need(h + cap_h);
    p_.save();
    p_.translate(0, y_);
    p_.scale(scale, scale);
    const QRectF r(QPointF(0, 0), QSizeF(f.size));
    p_.setClipRect(r);
    p_.fillRect(r, Qt::white);
    if (f.paint) f.paint(p_, r);
    p_.restore();
    p_.setPen(QColor(0xcc, 0xcc, 0xcc));
    p_.setBrush(Qt::NoBrush);
    p_.drawRect(QRectF(0, y_, f.size.width() * scale, h));
    y_ += h + 3;
    p_.setPen(QColor(0x44, 0x44, 0x44));
    y_ += text_block(f.caption, small_, 0, width_) + 10;
  }

 private:
  QFont bold_small() const {
    QFont f = small_;
    f.setBold(true);
    return f;
  }
  double top_margin() const { return 0; }
  double measure(const QString& t, const QFont& font, double w) const {
    return QFontMetricsF(font).boundingRect(QRectF(0, 0, w, 1e6), Qt::TextWordWrap, t).height();
  }
  double text_block(const QString& t, const QFont& font, double x, double w) {
    p_.setFont(font);
    const double h = measure(t, font, w);
    p_.drawText(QRectF(x, y_, w, h), Qt::TextWordWrap, t);
    return h;
  }
  void need(double h) {
    if (y_ > top_margin() && y_ + h > bottom_) new_page();
  }
  void new_page() {
    writer_.newPage();
    ++page_;
    y_ = top_margin();
    footer();
  }
  void footer() {
    p_.save();
    p_.setFont(small_);
    p_.setPen(QColor(0x88, 0x88, 0x88));
    p_.drawText(QRectF(0, writer_.height() - 16, width_, 14), Qt::AlignRight | Qt::AlignVCenter,
                QString("Parascope report · page %1").arg(page_));
    p_.restore();
  }

  QPdfWriter& writer_;
  QPainter& p_;
  double width_ = 0, bottom_ = 0, y_ = 0;
  int page_ = 1;
  QFont body_, small_, bold_, h1_, h2_, h3_;
};

}  // namespace

QByteArray report_pdf(const ReportDocument& doc) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  {
    QPdfWriter writer(&buf);
    writer.setResolution(96);  // device units = the figures' logical pixels
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(12, 12, 12, 12),
                                     QPageLayout::Millimeter));
    writer.setTitle(doc.title + (doc.subtitle.isEmpty() ? QString() : " — " + doc.subtitle));
    writer.setCreator("Parascope 0.1.0");
    QPainter p(&writer);
    PdfLayout layout(writer, p);
    layout.title(doc.title, doc.subtitle);
    for (const Section& s : doc.sections) {
      layout.heading_for(s);
      for (const Block& b : s.blocks) {
        switch (b.kind) {
          case Block::Kind::kText: layout.paragraph(b.text); break;
          case Block::Kind::kFacts: layout.facts(b.facts); break;
          case Block::Kind::kTable: layout.table(b.table, b.shown_rows); break;
          case Block::Kind::kFigure: layout.figure(b.figure); break;
        }
      }
    }
    p.end();
  }
  return bytes;
}

}  // namespace parascope::report
