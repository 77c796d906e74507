// What the details dock says about one slice: every typed field (kernel launch config, graph ids,
// copy bytes and devices, collective annotation) and every free-form arg, as HTML. A plain
// function of the trace so the CLI and reports can reuse the same text.
#pragma once

#include <QString>

#include "trace/core/trace.h"

namespace parascope::gui {

QString slice_details_html(const Trace& trace, EventRef ref);

}  // namespace parascope::gui
