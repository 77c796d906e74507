#include "gui/trace_notes.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSettings>
#include <map>

#include "render/qstr.h"

namespace parascope::gui {

namespace {

QJsonObject key_json(const TrackKey& k) {
  return {{"kind", qstr(to_string(k.kind))},
          {"process", static_cast<qint64>(k.process)},
          {"device", k.device},
          {"id", static_cast<qint64>(k.id)}};
}

bool key_from_json(const QJsonObject& o, TrackKey& k) {
  const QString kind = o.value("kind").toString();
  for (int i = 0; i < static_cast<int>(TrackKind::kCount); ++i) {
    if (kind == qstr(to_string(static_cast<TrackKind>(i)))) {
      k.kind = static_cast<TrackKind>(i);
      k.process = static_cast<uint32_t>(o.value("process").toInteger());
      k.device = static_cast<int32_t>(o.value("device").toInteger(-1));
      k.id = o.value("id").toInteger();
      return true;
    }
  }
  return false;
}

struct KeyLess {
  bool operator()(const TrackKey& a, const TrackKey& b) const {
    return std::tie(a.kind, a.process, a.device, a.id) < std::tie(b.kind, b.process, b.device, b.id);
  }
};

std::map<TrackKey, uint32_t, KeyLess> track_index(const Trace& t) {
  std::map<TrackKey, uint32_t, KeyLess> m;
  for (uint32_t i = 0; i < t.tracks.size(); ++i) m.emplace(t.tracks[i].key, i);
  return m;
}



// The track tree's state as JSON, tracks by identity (TrackKey).
QJsonObject view_to_json(const models::LayoutOptions& view, const Trace& trace) {
  QJsonObject v;
  QJsonArray hidden, order, porder, cp, cd, sm;
  for (int32_t t : view.hidden_tracks)
    if (t >= 0 && static_cast<size_t>(t) < trace.tracks.size()) hidden.append(key_json(trace.tracks[static_cast<size_t>(t)].key));
  for (const auto& [t, pos] : view.track_order)
    if (t >= 0 && static_cast<size_t>(t) < trace.tracks.size())
      order.append(QJsonObject{{"track", key_json(trace.tracks[static_cast<size_t>(t)].key)}, {"position", pos}});
  for (const auto& [p, pos] : view.process_order) porder.append(QJsonObject{{"process", static_cast<qint64>(p)}, {"position", pos}});
  for (uint32_t p = 0; p < trace.processes.size(); ++p)
    if (view.collapsed.count(models::process_key(p))) cp.append(static_cast<qint64>(p));
  for (uint32_t d = 0; d < trace.devices.size(); ++d)
    if (view.collapsed.count(models::device_key(static_cast<int32_t>(d)))) cd.append(static_cast<qint64>(d));
  for (int32_t d : view.expanded_sm) sm.append(d);
  v.insert("hidden", hidden);
  v.insert("order", order);
  v.insert("process_order", porder);
  v.insert("collapsed_processes", cp);
  v.insert("collapsed_devices", cd);
  v.insert("expanded_sm", sm);
  return v;
}

// The track a saved key names in this trace (false: the key is malformed or the trace lacks it).
bool find_track(const std::map<TrackKey, uint32_t, KeyLess>& index, const QJsonValue& v, uint32_t& out) {
  TrackKey k;
  if (!key_from_json(v.toObject(), k)) return false;
  const auto it = index.find(k);
  if (it == index.end()) return false;
  out = it->second;
  return true;
}

// Fills `view` from view_to_json's object; returns the hidden tracks this trace does not have.
int view_from_json(const QJsonObject& vj, const Trace& trace, models::LayoutOptions& view) {
  const auto index = track_index(trace);
  auto track_of = [&](const QJsonValue& v, uint32_t& out) { return find_track(index, v, out); };
  int unresolved = 0;
  for (const QJsonValue& v : vj.value("hidden").toArray()) {
    uint32_t t = 0;
    if (track_of(v, t)) view.hidden_tracks.insert(static_cast<int32_t>(t));
    else ++unresolved;
  }
  for (const QJsonValue& v : vj.value("order").toArray()) {
    uint32_t t = 0;
    if (track_of(v.toObject().value("track"), t)) view.track_order[static_cast<int32_t>(t)] = v.toObject().value("position").toInt();
  }
  for (const QJsonValue& v : vj.value("process_order").toArray()) {
    const auto p = static_cast<uint32_t>(v.toObject().value("process").toInteger());
    if (p < trace.processes.size()) view.process_order[p] = v.toObject().value("position").toInt();
  }
  for (const QJsonValue& v : vj.value("collapsed_processes").toArray())
    view.collapsed.insert(models::process_key(static_cast<uint32_t>(v.toInteger())));
  for (const QJsonValue& v : vj.value("collapsed_devices").toArray())
    view.collapsed.insert(models::device_key(static_cast<int32_t>(v.toInteger())));
  for (const QJsonValue& v : vj.value("expanded_sm").toArray()) view.expanded_sm.insert(static_cast<int32_t>(v.toInteger()));
  return unresolved;
}

// Where the views live in the settings, and how many traces' views are kept (oldest dropped).
constexpr const char* kViewsGroup = "trace_views";
constexpr int kViewsKept = 200;

EventRef resolve(const Trace& t, uint32_t track, TimeNs start, const QString& name) {
  const auto& s = t.tracks[track].slices;
  for (auto i = static_cast<size_t>(std::lower_bound(s.start.begin(), s.start.end(), start) - s.start.begin());
       i < s.size() && s.start[i] == start; ++i)
    if (qstr(t.str(s.name[i])) == name) return {track, static_cast<uint32_t>(i)};
  return {};
}

}  // namespace

QString TraceNotes::path_for(const QStringList& inputs) {
  if (inputs.isEmpty()) return {};
  QString first = inputs.front();
  while (first.size() > 1 && first.endsWith('/')) first.chop(1);
  if (!QFileInfo::exists(first)) return {};  // not a file (a generated trace): nowhere to keep notes
  return first + ".parascope-notes.json";
}

QString TraceNotes::view_key(const QStringList& inputs) {
  if (inputs.isEmpty() || !QFileInfo::exists(inputs.front())) return {};
  QCryptographicHash h(QCryptographicHash::Sha1);
  for (const QString& in : inputs) {
    const QFileInfo fi(in);
    qint64 size = 0;
    if (fi.isDir()) {
      for (const QFileInfo& f : QDir(fi.absoluteFilePath()).entryInfoList(QDir::Files, QDir::Name)) size += f.size();
    } else {
      size = fi.size();
    }
    h.addData((fi.absoluteFilePath() + '\n' + QString::number(size) + '\n').toUtf8());
  }
  return QString::fromLatin1(h.result().toHex());
}

bool TraceNotes::load_view(const QString& key, const Trace& trace) {
  if (key.isEmpty()) return false;
  QSettings settings;
  const QByteArray json = settings.value(QString("%1/%2/view").arg(kViewsGroup, key)).toString().toUtf8();
  if (json.isEmpty()) return false;
  const QJsonDocument doc = QJsonDocument::fromJson(json);
  if (!doc.isObject()) return false;  // not ours to complain about: the view starts as it would
  models::LayoutOptions v;
  unresolved += view_from_json(doc.object(), trace, v);
  view.hidden_tracks = v.hidden_tracks;
  view.track_order = v.track_order;
  view.process_order = v.process_order;
  view.collapsed = v.collapsed;
  view.expanded_sm = v.expanded_sm;
  return true;
}

void TraceNotes::save_view(const QString& key, const Trace& trace) const {
  if (key.isEmpty()) return;
  QSettings settings;
  settings.setValue(QString("%1/%2/view").arg(kViewsGroup, key), 
                    QString::fromUtf8(QJsonDocument(view_to_json(view, trace)).toJson(QJsonDocument::Compact)));
  QStringList order = settings.value(QString("%1/order").arg(kViewsGroup)).toStringList();
  order.removeAll(key);
  order.prepend(key);
  while (order.size() > kViewsKept) settings.remove(QString("%1/%2").arg(kViewsGroup, order.takeLast()));
  settings.setValue(QString("%1/order").arg(kViewsGroup), order);
}

bool TraceNotes::load(const QString& path, const Trace& trace) {
  *this = TraceNotes{};
  QFile f(path);
  if (!f.exists()) return true;
  if (!f.open(QIODevice::ReadOnly)) {
    error_ = path + ": cannot read (" + f.errorString() + ")";
    return false;
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
  if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
    error_ = path + " (byte " + QString::number(pe.offset) + "): " +
             (pe.error != QJsonParseError::NoError ? pe.errorString() : QString("not a JSON object"));
    return false;
  }
  const QJsonObject root = doc.object();
  const auto index = track_index(trace);
  auto track_of = [&](const QJsonValue& v, uint32_t& out) { return find_track(index, v, out); };
  QJsonArray kept;
  for (const QJsonValue& v : root.value("bookmarks").toArray()) {
    const QJsonObject o = v.toObject();
    bookmarks.push_back({o.value("time_ns").toInteger(), o.value("label").toString()});
  }
  for (const QJsonValue& v : root.value("notes").toArray()) {
    const QJsonObject o = v.toObject();
    SliceNote n;
    key_from_json(o.value("track").toObject(), n.track);
    n.start = o.value("start_ns").toInteger();
    n.name = o.value("name").toString();
    n.text = o.value("text").toString();
    uint32_t t = 0;
    if (track_of(o.value("track"), t)) n.slice = resolve(trace, t, n.start, n.name);
    if (!n.slice.valid()) {
      ++unresolved;
      ++unresolved_notes_;
      kept.append(o);
      continue;
    }
    notes.push_back(n);
  }
  if (root.contains("view")) unresolved += view_from_json(root.value("view").toObject(), trace, this->view);
  unresolved_json_ = QJsonDocument(kept).toJson(QJsonDocument::Compact);
  return true;
}

bool TraceNotes::save(const QString& path, const Trace& /*trace*/) {
  QJsonObject root;
  root.insert("schema_version", 1);
  root.insert("what", "Parascope bookmarks and notes for the trace beside this file");
  QJsonArray bm;
  for (const auto& b : bookmarks) bm.append(QJsonObject{{"time_ns", static_cast<qint64>(b.time)}, {"label", b.label}});
  root.insert("bookmarks", bm);
  QJsonArray ns = QJsonDocument::fromJson(unresolved_json_).array();
  for (const auto& n : notes)
    ns.append(QJsonObject{{"track", key_json(n.track)}, {"start_ns", static_cast<qint64>(n.start)}, {"name", n.name}, {"text", n.text}});
  root.insert("notes", ns);
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(root).toJson()) < 0 || !f.commit()) {
    error_ = path + ": cannot write (" + f.errorString() + ")";
    return false;
  }
  return true;
}

const SliceNote* TraceNotes::note_for(EventRef r) const {
  for (const auto& n : notes)
    if (n.slice == r) return &n;
  return nullptr;
}

void TraceNotes::set_note(const Trace& trace, EventRef r, const QString& text) {
  notes.erase(std::remove_if(notes.begin(), notes.end(), [&](const SliceNote& n) { return n.slice == r; }), notes.end());
  if (text.isEmpty() || !r.valid() || r.track >= trace.tracks.size()) return;
  const Track& t = trace.tracks[r.track];
  SliceNote n;
  n.slice = r;
  n.track = t.key;
  n.start = t.slices.start[r.index];
  n.name = qstr(trace.str(t.slices.name[r.index]));
  n.text = text;
  notes.push_back(n);
}

}  // namespace parascope::gui
