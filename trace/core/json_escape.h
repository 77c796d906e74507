// JSON string escapes, for both JSON readers (the configuration parser in json.cpp and the
// streaming trace reader in trace/io): the one-character escapes and the UTF-8 encoding of a \u
// code point. Inline: the trace reader calls them per escaped character. Code points are not
// validated (callers pass what a \u escape or a surrogate pair decodes to, at most 0x10FFFF).
#pragma once

#include <cstdint>
#include <string>

namespace parascope {

// The character after a backslash: appends what it stands for, false when it is not a
// one-character escape ('u' and anything invalid).
inline bool append_simple_escape(std::string& out, char e) {
  switch (e) {
    case '"': out.push_back('"'); return true;
    case '\\': out.push_back('\\'); return true;
    case '/': out.push_back('/'); return true;
    case 'b': out.push_back('\b'); return true;
    case 'f': out.push_back('\f'); return true;
    case 'n': out.push_back('\n'); return true;
    case 'r': out.push_back('\r'); return true;
    case 't': out.push_back('\t'); return true;
    default: return false;
  }
}

inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace parascope
