#include "worker/event.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/shorten.h"

namespace storh::worker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json as_json(const LoadedEvent&) {
  return {{"event", "loaded"}};
}
ordered_json as_json(const BeginEvent& e) {
  return {{"event", "begin"}, {"op", e.op}};
}
ordered_json as_json(const SampleEvent& e) {
  ordered_json j = {{"event", "sample"}, {"op", e.op}, {"seconds", e.seconds}, {"items", e.items}};
  if (e.calls != 1) j["calls"] = e.calls;
  if (!e.latency.is_null()) j["latency"] = e.latency;
  return j;
}
ordered_json as_json(const FailEvent& e) {
  return {{"event", "fail"}, {"op", e.op}, {"message", e.message}};
}
ordered_json as_json(const ProgressEvent& e) {
  return {{"event", "progress"}, {"message", e.message}};
}
ordered_json as_json(const CountersEvent& e) {
  ordered_json j = {{"event", "counters"}, {"op", e.op}, {"items", e.items}};
  if (e.dump) {
    j["dump"] = *e.dump;
  } else {
    ordered_json counters = ordered_json::object();
    for (const auto& [name, delta] : e.counters) counters[name] = delta;
    j["counters"] = std::move(counters);
  }
  if (e.children) j["children"] = true;
  return j;
}
ordered_json as_json(const LoadProgressEvent& e) {
  return {{"event", "load_progress"}, {"op", e.op}, {"line", e.line}};
}
ordered_json as_json(const LoadEvent& e) {
  return {{"event", "load"}, {"op", e.op}, {"outcome", e.outcome}};
}
ordered_json as_json(const EngineCounterEvent& e) {
  return {{"event", "engine_counter"},
          {"op", e.op},
          {"items", e.items},
          {"name", e.name},
          {"unit", e.unit},
          {"total", e.total},
          {"repeats", e.repeats}};
}
ordered_json as_json(const DoneEvent& e) {
  ordered_json j = {{"event", "done"}, {"ok", e.ok}};
  if (!e.ok) {
    j["op"] = e.op;
    j["message"] = e.message;
  }
  return j;
}

// The fields of one event object (Json: nlohmann::json, or ordered_json where the
// counters must keep the order written). The first missing or mistyped field is kept
// as the error; later reads then return defaults, and the caller checks error() once.
template <typename Json>
class Fields {
 public:
  Fields(const Json& object, std::string kind) : object_(object), kind_(std::move(kind)) {}

  bool has(const char* name) const { return object_.contains(name); }

  std::string text(const char* name) {
    const Json* value = find(name, "a string", &Json::is_string);
    return value != nullptr ? value->template get<std::string>() : std::string();
  }
  double number(const char* name) {
    const Json* value = find(name, "a number", &Json::is_number);
    return value != nullptr ? value->template get<double>() : 0.0;
  }
  std::uint64_t count(const char* name) {
    const Json* value = find(name, "a whole number >= 0", &Json::is_number_unsigned);
    return value != nullptr ? value->template get<std::uint64_t>() : 0;
  }
  bool flag(const char* name) {
    const Json* value = find(name, "true or false", &Json::is_boolean);
    return value != nullptr && value->template get<bool>();
  }
  json object(const char* name) {
    const Json* value = find(name, "an object", &Json::is_object);
    return value != nullptr ? json(*value) : json();
  }
  count::Deltas deltas(const char* name) {
    count::Deltas deltas;
    const Json* counters = find(name, "an object", &Json::is_object);
    if (counters == nullptr) return deltas;
    for (const auto& [counter, delta] : counters->items()) {
      if (!delta.is_number_unsigned()) {
        fail(fmt::format("\"{}\": \"{}\" must be a whole number >= 0", name, counter));
        break;
      }
      deltas.emplace_back(counter, delta.template get<std::uint64_t>());
    }
    return deltas;
  }

  const std::string& error() const { return error_; }

 private:
  const Json* find(const char* name, const char* expected, bool (Json::*is)() const noexcept) {
    const auto it = object_.find(name);
    if (it == object_.end()) {
      fail(fmt::format("missing \"{}\"", name));
      return nullptr;
    }
    if (!((*it).*is)()) {
      fail(fmt::format("\"{}\" must be {}, got {}", name, expected, it->type_name()));
      return nullptr;
    }
    return &*it;
  }
  void fail(const std::string& what) {
    if (error_.empty()) error_ = fmt::format("worker event \"{}\": {}", kind_, what);
  }

  const Json& object_;
  std::string kind_;
  std::string error_;
};

template <typename Json>
Event read_event(const std::string& kind, Fields<Json>& f) {
  if (kind == "loaded") return LoadedEvent{};
  if (kind == "begin") return BeginEvent{f.text("op")};
  if (kind == "sample") {
    SampleEvent e{f.text("op"), f.number("seconds"), f.count("items")};
    if (f.has("calls")) e.calls = std::max<std::uint64_t>(1, f.count("calls"));
    if (f.has("latency")) e.latency = f.object("latency");
    return e;
  }
  if (kind == "fail") return FailEvent{f.text("op"), f.text("message")};
  if (kind == "progress") return ProgressEvent{f.text("message")};
  if (kind == "counters") {
    CountersEvent e{f.text("op"), f.count("items")};
    if (f.has("dump")) {
      e.dump = static_cast<std::size_t>(f.count("dump"));
    } else {
      e.counters = f.deltas("counters");
    }
    e.children = f.has("children") && f.flag("children");
    return e;
  }
  if (kind == "load_progress") return LoadProgressEvent{f.text("op"), f.text("line")};
  if (kind == "load") return LoadEvent{f.text("op"), f.object("outcome")};
  if (kind == "engine_counter") {
    EngineCounterEvent e{f.text("op"), f.count("items"), f.text("name"), f.text("unit")};
    e.total = f.number("total");
    e.repeats = f.flag("repeats");
    return e;
  }
  // "done"; the caller checked the kind.
  DoneEvent e{f.flag("ok")};
  if (!e.ok) {
    if (f.has("op")) e.op = f.text("op");
    if (f.has("message")) e.message = f.text("message");
  }
  return e;
}

// Reads `object`'s fields as event `kind`: the event, or the first field's error.
template <typename Json>
Expected<Event> read_fields(const Json& object, const std::string& kind) {
  Fields<Json> fields(object, kind);
  Event event = read_event(kind, fields);
  if (!fields.error().empty()) return Error{fields.error()};
  return event;
}

constexpr const char* kKinds[] = {"loaded",         "begin",    "sample",        "fail",
                                  "progress",       "counters", "load_progress", "load",
                                  "engine_counter", "done"};

}  // namespace

std::string encode(const Event& event) {
  const ordered_json j = std::visit([](const auto& e) { return as_json(e); }, event);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<Event> decode(std::string_view line) {
  // Read as nlohmann::json, not ordered_json: an ordered_json object copies every
  // member read so far, deeply, each time its vector of members grows (a pair with a
  // const key cannot be moved), which made one load event's outcome cost the host more
  // than all else it decodes in a run. Only a counters event needs its members in the
  // order written; it is small, and is read again in order.
  const auto not_an_object = [&] {
    return Error{fmt::format("worker event: not a JSON object: {}", shorten(line))};
  };
  const json object = json::parse(line, nullptr, false);
  if (object.is_discarded() || !object.is_object()) return not_an_object();
  const auto kind = object.find("event");
  if (kind == object.end() || !kind->is_string()) {
    return Error{"worker event: missing \"event\" (a string)"};
  }
  const std::string name = kind->get<std::string>();
  if (std::find(std::begin(kKinds), std::end(kKinds), name) == std::end(kKinds)) {
    return Error{fmt::format("worker event: unknown event \"{}\" (known: {})", name,
                             fmt::join(kKinds, ", "))};
  }
  if (name == "counters") {
    const ordered_json in_order = ordered_json::parse(line, nullptr, false);
    if (in_order.is_discarded()) return not_an_object();
    return read_fields(in_order, name);
  }
  return read_fields(object, name);
}

}  // namespace storh::worker
