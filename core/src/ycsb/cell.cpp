#include "ycsb/cell.h"

#include <cctype>

#include <fmt/format.h>

namespace storh::ycsb {

Expected<Properties> cell_properties(const load::YcsbSpec& spec) {
  std::optional<Properties> properties = workload_preset(spec.workload);
  if (!properties) {
    return Error{fmt::format("unknown YCSB workload \"{}\" (valid: a, b, c, d, e, f)",
                             std::string(1, spec.workload))};
  }
  for (const auto& [name, value] : spec.properties) {
    if (std::string problem = set_property(*properties, name, value); !problem.empty()) {
      return Error{std::move(problem)};
    }
  }
  return *properties;
}

std::vector<Op> mixed_kinds(const Properties& p) {
  const std::pair<Op, double> all[] = {{Op::read, p.readproportion},
                                       {Op::update, p.updateproportion},
                                       {Op::insert, p.insertproportion},
                                       {Op::scan, p.scanproportion},
                                       {Op::read_modify_write, p.readmodifywriteproportion}};
  std::vector<Op> kinds;
  // A read-modify-write's read and update are reported under read and update too.
  const bool rmw = p.readmodifywriteproportion > 0;
  for (const auto& [op, proportion] : all) {
    if (proportion > 0 || (rmw && (op == Op::read || op == Op::update))) kinds.push_back(op);
  }
  return kinds;
}

std::string workload_operation(char letter) {
  return fmt::format("ycsb_{}",
                     static_cast<char>(std::tolower(static_cast<unsigned char>(letter))));
}

std::string phase_operation(char letter, std::string_view phase) {
  return fmt::format("{}.{}", workload_operation(letter), phase);
}

std::vector<OperationSpec> workload_operations(char letter, const Properties& properties) {
  const auto spec = [](std::string name, std::string description) {
    OperationSpec op;
    op.name = std::move(name);
    op.unit = "operations";
    op.direction = Direction::lower_is_better;
    op.description = std::move(description);
    return op;
  };
  std::vector<OperationSpec> ops;
  ops.push_back(spec(phase_operation(letter, "load"),
                     fmt::format("YCSB load phase: {} inserts", properties.recordcount)));
  ops.push_back(spec(workload_operation(letter),
                     fmt::format("YCSB workload {}: {} operations of the whole mix", letter,
                                 properties.operationcount)));
  for (const Op kind : mixed_kinds(properties)) {
    const bool rmw =
        properties.readmodifywriteproportion > 0 && (kind == Op::read || kind == Op::update);
    ops.push_back(spec(phase_operation(letter, op_name(kind)),
                       fmt::format("YCSB workload {}: its {} operations{}", letter, op_name(kind),
                                   rmw ? ", those of its read-modify-writes included" : "")));
  }
  return ops;
}

char workload_of(std::string_view operation) {
  if (!operation.starts_with("ycsb_") || operation.size() < 6) return 0;
  if (operation.size() > 6 && operation[6] != '.') return 0;
  return operation[5];
}

}  // namespace storh::ycsb
