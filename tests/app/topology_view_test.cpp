#include <catch2/catch.hpp>

#include <QSignalSpy>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "gui/main_window.h"
#include "gui/presets.h"
#include "gui/timeline_view.h"
#include "gui/topology_view.h"
#include "render/topology_painter.h"

using namespace parascope;

namespace {

void open_and_wait(gui::MainWindow& w, const QStringList& inputs) {
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  w.open_inputs(inputs);
  REQUIRE(loaded.wait(30000));
}

}  // namespace

TEST_CASE("The topology dock shows the collector sample's GPUs with measured link loads", "[app][views][topology]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1500, 950);
  w.show();
  w.raise_dock("topology");
  const test::InputCopy copy("views-topology", "resources/samples/record_torch_nccl_2xh200");
  open_and_wait(w, {test::qpath(copy.path())});
  gui::TopologyView* v = w.topology();
  v->wait();
  CHECK(v->source() == -1);  // the trace has NVLink counters: its own machine, not a preset
  REQUIRE(v->machine().topology.nodes.size() == 3);
  REQUIRE(v->loads().size() == 2);
  CHECK(v->title().startsWith("inferred from the trace"));

  SECTION("hovering a link names both directions with their measured numbers") {
    // the whole trace, so the numbers are parascope-cli links' ones: rank 0 tx peak 117.5 GB/s
    const auto [s, e] = w.timeline()->trace()->time_span();
    v->set_windows({s, e}, std::nullopt);
    v->wait();
    const int gpu0 = v->machine().device_node[0];
    int link = -1;
    for (size_t i = 0; i < v->machine().topology.links.size(); ++i)
      if (static_cast<int>(v->machine().topology.links[i].a) == gpu0 || static_cast<int>(v->machine().topology.links[i].b) == gpu0)
        link = static_cast<int>(i);
    REQUIRE(link >= 0);
    // find the point by scanning the widget for where the hit test lands on this link
    QString tip;
    for (int y = 0; y < v->height() && tip.isEmpty(); y += 2)
      for (int x = 0; x < v->width() && tip.isEmpty(); x += 2) {
        const QString t = v->tooltip_at(QPoint(x, y));
        if (t.contains("\xE2\x87\x84") && t.contains(QString::fromStdString(v->machine().topology.nodes[static_cast<size_t>(gpu0)].name) + " \xE2\x86\x92")) tip = t;
      }
    REQUIRE(!tip.isEmpty());
    CHECK(tip.contains("peak 117.5 GB/s"));
    CHECK(tip.contains("measured from 1 counter"));
    CHECK(tip.contains("425.0 GB/s per direction"));
  }
  SECTION("a preset replaces the machine; the estimates land on its links") {
    const auto& presets = gui::topology_presets();
    const auto it = std::find_if(presets.begin(), presets.end(), [](const gui::Preset& p) { return p.name == "hgx_h200x8"; });
    REQUIRE(it != presets.end());
    v->set_source(static_cast<int>(it - presets.begin()));
    v->wait();
    CHECK(v->machine().origin == TraceMachine::Origin::kPreset);
    CHECK(v->machine().topology.gpu_count() == 8);
    const QImage img = v->render_image(QSize(900, 500));
    CHECK(img.pixelColor(10, 10) != img.pixelColor(450, 250));  // something was drawn
  }
}
