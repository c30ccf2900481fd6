// plugin/check_description.h: what the host requires of a plugin's self-description
// before it trusts it. `list`, the suite checks and the metric keys all read the
// description, so a description that contradicts itself or its manifest is refused
// rather than shown or run.
#pragma once

#include <string>

#include "plugin/describe.h"

namespace storh::plugin {

// Checks that
//   - describe()'s engine name and version equal the manifest's (STORH_PLUGIN's);
//   - operation, transaction and parameter names are [a-z0-9_]+ and unique (they
//     become metric keys, suite keys and --set / --operation arguments);
//   - every parameter's default and allowed values have the declared type (an
//     integer is accepted for a number, as in a suite).
// Returns "" when it is sound, else every problem found, joined by "; ".
std::string check_description(const Description& description);

}  // namespace storh::plugin
