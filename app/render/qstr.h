// Text out of the libraries as a QString: trace names, labels and messages are UTF-8 std::string /
// string_view; the GUI, the reports and the render library convert them here, in one way.
#pragma once

#include <QString>
#include <string_view>

namespace parascope {

inline QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace parascope
