// plugin/check_description.h: what the host requires of a plugin's self-description
// before it trusts it. `list`, the suite checks and the metric keys all read the
// description, so a description that contradicts itself or its manifest is refused
// rather than shown or run.
#pragma once

#include <string>

#include "plugin/describe.h"

namespace storh::plugin {

// The value SDK 1.4 and older named Direction::higher_is_better. No SDK call could
// time such an operation correctly, so SDK 1.5 dropped the name; a plugin built
// against the older headers may still declare it, and is refused.
inline constexpr Direction kRetiredHigherIsBetter = static_cast<Direction>(1);

// Checks that
//   - describe()'s engine name and version, where it gives them, equal the manifest's
//     (STORH_PLUGIN's; LoadedPlugin::describe fills in the ones it leaves empty);
//   - every operation's direction is lower_is_better;
//   - operation, transaction and parameter names are [a-z0-9_]+ and unique (they
//     become metric keys, suite keys and --set / --operation arguments);
//   - every parameter's default and allowed values have the declared type (an
//     integer is accepted for a number, as in a suite).
// Returns "" when it is sound, else every problem found, joined by "; ".
std::string check_description(const Description& description);

}  // namespace storh::plugin
