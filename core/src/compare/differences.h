// compare/differences.h: warnings that two result files did not measure the same
// thing, so a delta is not read as a code change when it is a machine change.
#pragma once

#include <string>
#include <vector>

#include "compare/comparable.h"

namespace storh::compare {

// Warnings, without a "warning: " prefix, in a fixed order:
//   1. each file's notes, "new.json: the run was interrupted: ...", in file order;
//   2. for each file after the first, each fact that both it and the first file
//      record and that differs, in the first file's fact order:
//      "different CPU model: base.json has X, new.json has Y".
// Facts only one file records are not compared (a storh PHP file has no CPU model).
std::vector<std::string> difference_warnings(const std::vector<const ComparableFile*>& files);

}  // namespace storh::compare
