#include "common/bench/durability.h"

#include <utility>

namespace storh::engines::bench {

ParamSpec durability_param(std::string description) {
  return {"durability",
          ParamType::string,
          std::string("durable"),
          {std::string("durable"), std::string("none")},
          std::move(description)};
}

Sync durability(const RunContext& ctx) {
  return parse_sync(ctx.string_param("durability", "durable"));
}

}  // namespace storh::engines::bench
