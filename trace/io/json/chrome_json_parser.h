// Streaming parser for the Chrome trace-event JSON format (and Kineto's flavour of it). It walks
// the top level ({"traceEvents": [...], ...} or a bare array, whose final ']' may be missing as
// Chrome allows), hands each event to a handler as a RawEvent of views into its buffer, and hands
// every other top-level member over as a small JsonValue. The file is read in blocks: memory stays
// at one block plus the largest event, whatever the file size.
// Timestamps ("ts", "dur", microseconds) are converted to integer nanoseconds exactly from their
// decimal text, never through a double.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/core/json.h"
#include "trace/core/time.h"
#include "trace/io/common/file_import.h"
#include "trace/io/json/byte_source.h"

namespace parascope {

// A JSON value as it appeared: its type and text (strings decoded; objects/arrays raw).
struct JsonToken {
  enum class Type : uint8_t { kAbsent, kNull, kBool, kNumber, kString, kObject, kArray } type = Type::kAbsent;
  bool plain_integer = false;  // a number written as digits with an optional '-' (no '.', 'e', 'E')
  std::string_view text;
  bool present() const { return type != Type::kAbsent; }
  bool is_number() const { return type == Type::kNumber; }
  bool is_string() const { return type == Type::kString; }
  // Integer value of a number (or of a string holding one, or a "0x.." hex string); false if not integral.
  bool to_int(int64_t& out) const;
  bool to_uint(uint64_t& out) const;
  bool to_double(double& out) const;
};

struct RawArg {
  std::string_view key;
  JsonToken value;
};

struct RawEvent {
  int64_t index = 0;        // position in traceEvents
  int64_t byte_offset = 0;  // of the event's '{' in the (decompressed) stream
  std::string_view ph, name, cat, scope, bp;
  JsonToken pid, tid, id, id2, bind_id;
  bool has_ts = false, has_dur = false;
  TimeNs ts = 0, dur = 0;
  bool flow_in = false, flow_out = false;
  std::vector<RawArg> args;
  const RawArg* arg(std::string_view key) const {
    for (const auto& a : args)
      if (a.key == key) return &a;
    return nullptr;
  }
};

class ChromeJsonHandler {
 public:
  virtual ~ChromeJsonHandler() = default;
  virtual void on_event(const RawEvent& e) = 0;
  // Any top-level member other than traceEvents ("deviceProperties", "baseTimeNanoseconds"...).
  virtual void on_metadata(std::string_view key, const JsonValue& value) = 0;
};

struct ChromeJsonOptions {
  size_t block_bytes = 4 << 20;
  size_t max_event_bytes = 256 << 20;  // an event larger than this is an error, not an allocation
  bool lenient = false;                // skip malformed events (counted) instead of failing
  std::function<void(uint64_t done, uint64_t total)> progress;  // file bytes consumed
  const std::atomic<bool>* cancel = nullptr;  // checked between blocks
};

struct ChromeJsonStats {
  int64_t events = 0;
  int64_t skipped_malformed = 0;
  uint64_t json_bytes = 0;  // decompressed bytes parsed
  bool missing_array_end = false;
  std::vector<std::string> warnings;
};

// Parses the whole source, calling the handler; throws InputError on malformed input (unless
// lenient, where only structural damage outside events is fatal) and OperationCancelled (file_import.h) on cancel.
ChromeJsonStats parse_chrome_json(ByteSource& source, ChromeJsonHandler& handler, const ChromeJsonOptions& options = {});

// Exact decimal microseconds text → nanoseconds ("12.3456" → 12346, rounding half away from zero).
// Returns false on malformed text or overflow.
bool parse_us_to_ns(std::string_view text, TimeNs& out);

}  // namespace parascope
