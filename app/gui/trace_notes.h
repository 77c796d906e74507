// TraceNotes: what a user adds to a trace — bookmarks (a time and a label), notes on slices, and
// the track tree's state (hidden tracks, order, folded ranks/GPUs, expanded SM lanes) — kept in a
// JSON file beside the trace (TRACE.parascope-notes.json), so they come back when it is opened
// again and travel with it. Slices and tracks are stored by identity (TrackKey, start, name), not
// by index, so a re-import that orders tracks differently still finds them; what no longer
// resolves is kept in the file and reported, never dropped silently.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "render/timeline_painter.h"
#include "models/track_layout.h"
#include "trace/core/trace.h"

namespace parascope::gui {

struct SliceNote {
  EventRef slice;     // resolved in the current trace; invalid when it did not resolve
  TrackKey track;
  TimeNs start = 0;
  QString name;
  QString text;
};

class TraceNotes {
 public:
  // The notes file for a set of inputs: the first input (a file or a directory) + ".parascope-notes.json";
  // empty when the first input is not on disk.
  static QString path_for(const QStringList& inputs);

  // Reads `path` if it exists (a missing file is an empty set of notes). Returns false and sets
  // error() when the file exists but cannot be read or parsed.
  bool load(const QString& path, const Trace& trace);
  // Writes atomically (a temporary file renamed over the old one). Returns false and sets error().
  bool save(const QString& path, const Trace& trace);
  const QString& error() const { return error_; }

  std::vector<render::Bookmark> bookmarks;
  std::vector<SliceNote> notes;
  models::LayoutOptions view;   // hidden tracks, order, collapsed and expanded state
  int unresolved = 0;           // notes and tracks in the file that this trace does not have

  const SliceNote* note_for(EventRef r) const;
  void set_note(const Trace& trace, EventRef r, const QString& text);  // empty text removes it

 private:
  QString error_;
  QByteArray unresolved_json_;  // entries kept as they were
};

}  // namespace parascope::gui
