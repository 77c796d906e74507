// The QApplication of a Qt test binary (created by qt_catch_main.cpp's main()).
#pragma once

#include <QApplication>

namespace parascope::test {

inline QApplication& qt_app() { return *static_cast<QApplication*>(QApplication::instance()); }

}  // namespace parascope::test
