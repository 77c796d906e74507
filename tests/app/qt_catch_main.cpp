// main() for Qt test binaries: the QApplication lives on main's stack so it is destroyed before
// exit handlers run (a static QApplication crashes at exit). Offscreen unless told otherwise.
// Skips are reported to ctest (skip.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "skip_main.h"

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  // tests never touch the user's settings (recent files, window layout)
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName("ParascopeTests");
  QApplication::setApplicationName("parascope-tests");
  // ... and never each other's: ctest runs every TEST_CASE as its own process, in parallel with
  // -j; one shared settings file let one test's "recent files" overtake another's between its
  // write and its check. Each process gets its own settings folder, removed at exit.
  const auto settings = std::filesystem::temp_directory_path() / ("parascope-test-settings-" + std::to_string(::getpid()));
  std::filesystem::create_directories(settings);
  for (const auto format : {QSettings::NativeFormat, QSettings::IniFormat})
    QSettings::setPath(format, QSettings::UserScope, QString::fromStdString(settings.string()));
  const int rc = parascope::test::skip_aware_result(Catch::Session().run(argc, argv));
  std::error_code ec;
  std::filesystem::remove_all(settings, ec);
  return rc;
}
