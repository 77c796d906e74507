// main() for Qt test binaries: the QApplication lives on main's stack so it is destroyed before
// exit handlers run (a static QApplication crashes at exit). Offscreen unless told otherwise.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QStandardPaths>
#include <cstdlib>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  // tests never touch the user's settings (recent files, window layout)
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName("ParascopeTests");
  QApplication::setApplicationName("parascope-tests");
  return Catch::Session().run(argc, argv);
}
