// publish/junit.h: a gate's or an A/B run's verdict as JUnit XML, the report format CI
// systems show as tests (GitHub Actions test reporters, GitLab's artifacts:reports:junit,
// Jenkins' junit step).
//
// The shape, as the common JUnit schema (Jenkins' junit-10.xsd) has it:
//   <?xml version="1.0" encoding="UTF-8"?>
//   <testsuites name="storh-host gate" tests="N" failures="F" errors="0" skipped="S">
//     <testsuite name="storh-host gate base.json new.json" tests="N" failures="F"
//                errors="0" skipped="S">
//       <testcase classname="storh-host.gate" name="doc.put"/>
//       <testcase classname="storh-host.gate" name="log.append">
//         <failure type="regression" message="log.append: 25.00% slower ...">...</failure>
//       </testcase>
//       <testcase classname="storh-host.gate" name="cache.get">
//         <skipped message="missing in current (lenient: not a failure)"/>
//       </testcase>
//     </testsuite>
//   </testsuites>
// One test case per checked metric (and per checked counter), in checked order; a
// failure per failed check, whose message holds the verdict's figures; a check that is
// reported but not judged (a lenient missing metric, too few pairs when lenient) is
// skipped. Text is escaped for XML 1.0 (& < > " ', and control characters it cannot
// hold become U+FFFD), so any metric name gives a well-formed file.
#pragma once

#include <string>

#include "ab/verdict.h"
#include "gate/gate.h"

namespace storh::publish {

// `gate` run on two files: the suite is named after them.
std::string gate_junit(const gate::GateOutcome& outcome);

// An A/B verdict; `origin` names the run or file it judged ("ab suites/x.toml").
std::string ab_junit(const ab::AbOutcome& outcome, const std::string& origin);

}  // namespace storh::publish
