#include "trace/collector/other_cupti_clients.h"

#include <sstream>

namespace parascope::collector {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_subscribe(const std::string& f) { return f == "cuptiSubscribe" || f == "cuptiSubscribe_v2"; }

}  // namespace

std::string encode_other_cupti_call(const OtherCuptiCall& c) {
  return c.function + "\t" + c.caller + "\t" + std::to_string(c.result) + "\t" + c.result_name + "\t" +
         std::to_string(c.argument) + "\t" + std::to_string(c.calls) + "\t" + std::to_string(c.first_unix_ns);
}

std::optional<OtherCuptiCall> decode_other_cupti_call(const std::string& value) {
  std::vector<std::string> f;
  std::istringstream in(value);
  for (std::string part; std::getline(in, part, '\t');) f.push_back(part);
  if (f.size() != 7 || f[0].empty()) return std::nullopt;
  OtherCuptiCall c;
  c.function = f[0];
  c.caller = f[1];
  c.result_name = f[3];
  try {
    size_t used = 0;
    c.result = std::stoi(f[2], &used);
    if (used != f[2].size()) return std::nullopt;
    c.argument = std::stoi(f[4], &used);
    if (used != f[4].size()) return std::nullopt;
    c.calls = std::stoull(f[5], &used);
    if (used != f[5].size()) return std::nullopt;
    c.first_unix_ns = std::stoull(f[6], &used);
    if (used != f[6].size()) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return c;
}

std::string other_cupti_client_name(const std::string& caller) {
  const std::string lib = base_name(caller);
  if (lib.find("torch") != std::string::npos || lib.find("kineto") != std::string::npos)
    return "torch.profiler (Kineto, in " + lib + ")";
  return lib.empty() ? std::string("an unknown library") : lib;
}

std::string describe_other_cupti_call(const OtherCuptiCall& c) {
  const std::string who = other_cupti_client_name(c.caller);
  const std::string got = c.result_name.empty() ? "result " + std::to_string(c.result) : c.result_name;
  const std::string times = c.calls > 1 ? " (" + std::to_string(c.calls) + " times)" : "";
  if (is_subscribe(c.function) && c.result == kCuptiMultipleSubscribers)
    return who + " called " + c.function + times + " and CUPTI refused it (" + got +
           "): CUPTI serves one subscriber and the collector holds it, so that profiler's own trace lacks the GPU "
           "activity it needed CUPTI for; this trace has it";
  if (is_subscribe(c.function))
    return who + " called " + c.function + times + ": " + got;
  if (c.function == "cuptiActivityRegisterCallbacks")
    return who + " registered its own CUPTI activity buffers" + times + " (" + got +
           "): CUPTI hands activity records to one set of buffers, so from then on they go to one of the two "
           "traces only (the collector warns when its kernel records stop arriving)";
  if (c.function == "cuptiActivityEnable")
    return who + " enabled CUPTI activity kind " + std::to_string(c.argument) + times + " (" + got + ")";
  return who + " called " + c.function + times + ": " + got;
}

std::string both_views_advice() {
  return "to see the program's own profile (its CPU side) beside the collector's GPU records, open both together: "
         "parascope RECORD_DIR PROGRAM_TRACE.json (parascope-cli info and stats take both too; docs/collector.md, "
         "\"Beside the program's own profiler\")";
}

JsonValue to_json_value(const OtherCuptiCall& c) {
  return JsonValue::object({{"function", JsonValue::string(c.function)},
                            {"caller", JsonValue::string(c.caller)},
                            {"client", JsonValue::string(other_cupti_client_name(c.caller))},
                            {"result", JsonValue::number(static_cast<int64_t>(c.result))},
                            {"result_name", JsonValue::string(c.result_name)},
                            {"argument", JsonValue::number(static_cast<int64_t>(c.argument))},
                            {"calls", JsonValue::number(std::to_string(c.calls))},
                            {"first_unix_ns", JsonValue::number(std::to_string(c.first_unix_ns))},
                            {"meaning", JsonValue::string(describe_other_cupti_call(c))}});
}

}  // namespace parascope::collector
