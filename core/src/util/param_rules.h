// util/param_rules.h: the rules names and parameter values follow, written once for
// every place the host checks them: a plugin's description (plugin/check_description)
// and a suite (suite/), so a name a plugin may declare is always one a suite may write.
#pragma once

#include <string_view>

#include "storh/engine.h"

namespace storh {

// Engine, operation, transaction and parameter names: [a-z0-9_]+.
bool is_identifier(std::string_view name);

// Whether `value` may stand for a parameter declared `type`. An integer is accepted
// where a number is declared, as written (no conversion).
bool has_param_type(const ParamValue& value, ParamType type);

}  // namespace storh
