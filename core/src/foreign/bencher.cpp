#include "foreign/bencher.h"

#include <nlohmann/json.hpp>

#include "foreign/exported_value.h"

namespace storh::foreign {

std::string bmf_json(const result::ResultFile& result) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const ExportedValue& value : exported_values(result)) {
    root[value.name][value.higher_is_better ? "throughput" : "latency"] = {
        {"value", value.value}, {"lower_value", value.lower}, {"upper_value", value.upper}};
  }
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace storh::foreign
