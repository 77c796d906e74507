// TraceNotes: what a user adds to a trace — bookmarks (a time and a label) and notes on slices —
// kept in a JSON file beside the trace (TRACE.parascope-notes.json), written only once there is one
// (a read-only or shared trace folder gets no file from looking around), so they come back when it
// is opened again and travel with it; and the track tree's state (hidden tracks, order, folded
// ranks/GPUs, expanded SM lanes), a view rather than an addition, kept in the user's settings
// (QSettings) under the trace's path and size. Slices and tracks are stored by identity (TrackKey,
// start, name), not by index, so a re-import that orders tracks differently still finds them; what
// no longer resolves is kept in the file and reported, never dropped silently.
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

  // The settings key of a set of inputs' view state: their absolute paths and sizes (a directory's:
  // the sizes of the files in it), hashed; empty when the first input is not on disk.
  static QString view_key(const QStringList& inputs);

  // Reads `path` if it exists (a missing file is an empty set of notes). Returns false and sets
  // error() when the file exists but cannot be read or parsed. A file written before the view
  // state moved to the settings also fills `view`.
  bool load(const QString& path, const Trace& trace);
  // Writes the bookmarks and notes atomically (a temporary file renamed over the old one).
  // Returns false and sets error().
  bool save(const QString& path, const Trace& trace);
  // Whether there is anything for the file: bookmarks, notes, or notes it had that did not resolve.
  bool has_file_content() const { return !bookmarks.empty() || !notes.empty() || unresolved_notes_ > 0; }

  // The view state in the user's settings under `key` (view_key): false, `view` untouched, when
  // there is none.
  bool load_view(const QString& key, const Trace& trace);
  void save_view(const QString& key, const Trace& trace) const;
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
  int unresolved_notes_ = 0;
};

}  // namespace parascope::gui
