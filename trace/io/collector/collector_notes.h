// Which of an older collector's warnings are notes. Collectors from before the `notes` chunk
// (.pstrace type 18) wrote their informational lines — the run summary, what NVLink PM sampling
// offers and measures, each clock sync — into the warnings chunk. The reader (and the capture
// summary) move the lines this one rule names to the notes; every other line stays a warning, and
// so does a known line that reports a loss (a summary with drops or refused buffers or of a
// process ended by a signal, a clock sync whose host window and kernel brackets disagree). Today's collector writes its notes itself.
#pragma once

#include <string_view>

namespace parascope {

// `line` as the collector wrote it (without the reader's "FILE: " in front).
bool is_collector_note(std::string_view line);

}  // namespace parascope
