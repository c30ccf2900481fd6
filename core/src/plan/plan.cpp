#include "plan/plan.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>
#include <xxhash.h>

#include "result/engine_values.h"
#include "result/metric_key.h"
#include "suite/parse.h"
#include "util/secrets.h"
#include "ycsb/cell.h"

namespace storh::plan {
namespace {

// One matrix dimension: a parameter and its values, already typed as declared.
struct Dimension {
  std::string name;
  std::vector<ParamValue> values;
};

// An integer written where a number is declared becomes that number.
ParamValue as_declared(const ParamValue& value, ParamType type) {
  if (type == ParamType::number && std::holds_alternative<std::int64_t>(value)) {
    return static_cast<double>(std::get<std::int64_t>(value));
  }
  return value;
}

std::vector<Dimension> dimensions_of(const suite::EngineSetting& setting, const EngineInfo& info) {
  std::vector<Dimension> dims;
  for (const ParamSpec& spec : info.params) {
    auto it = std::find_if(setting.params.begin(), setting.params.end(),
                           [&](const suite::ParamSetting& p) { return p.name == spec.name; });
    if (it == setting.params.end()) continue;
    Dimension dim{spec.name, {}};
    for (const auto& located : it->values) {
      // [1, 1.0] for a number parameter is one value, not two cells with one key.
      ParamValue value = as_declared(located.value, spec.type);
      if (std::find(dim.values.begin(), dim.values.end(), value) == dim.values.end()) {
        dim.values.push_back(std::move(value));
      }
    }
    dims.push_back(std::move(dim));
  }
  return dims;
}

std::vector<OperationSpec> selected_operations(const suite::EngineSetting& setting,
                                               const EngineInfo& info) {
  std::vector<OperationSpec> ops;
  for (const OperationSpec& op : info.operations) {
    const bool chosen = setting.operations.empty() ||
                        std::any_of(setting.operations.begin(), setting.operations.end(),
                                    [&](const auto& located) { return located.value == op.name; });
    if (chosen) ops.push_back(op);
  }
  return ops;
}

std::string fingerprint_of(const Plan& plan) {
  nlohmann::ordered_json j = {{"repeat", plan.repeat}, {"warmup", plan.warmup}};
  // Only adaptive plans have the key, so other fingerprints stay as they were.
  if (plan.repeat_until) {
    j["repeat_until"] = {{"min", plan.repeat_until->min},
                         {"max", plan.repeat_until->max},
                         {"until", plan.repeat_until->until}};
  }
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const Cell& cell : plan.cells) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [name, value] : cell.params) params[name] = result::param_value_json(value);
    nlohmann::ordered_json described = {{"engine", cell.engine},
                                        {"version", cell.engine_version},
                                        {"dataset", cell.dataset},
                                        {"params", params},
                                        {"operations", cell.operation_names()}};
    // Only load cells have the key, so scenario fingerprints stay as they were.
    if (cell.load) described["load"] = load::to_json(*cell.load);
    cells.push_back(std::move(described));
  }
  j["cells"] = cells;
  const std::string text = j.dump();
  return fmt::format("{:016x}", XXH64(text.data(), text.size(), 0));
}

// One load cell of a parameter combination: how it runs and, for a bench point, the
// transaction types of the benches that list it (none: every selected type).
struct LoadCell {
  load::LoadConfig config;
  std::optional<std::vector<std::string>> operations;
};

load::LoadConfig base_config(const suite::LoadSetting& setting,
                             const suite::EngineSetting& engine) {
  load::LoadConfig base;
  base.rate = setting.rate;
  base.warmup_transactions = setting.warmup_transactions;
  base.warmup_seconds = setting.warmup_seconds;
  base.mode = engine.load_mode ? engine.load_mode->value : setting.mode;
  base.progress_seconds = setting.progress_seconds;
  base.interval_seconds = setting.interval_seconds;
  base.latency_limit = setting.latency_limit;
  return base;
}

// The union of the benches' points, in order of first appearance; a point in several
// benches is one cell running the union of their operations.
std::vector<LoadCell> bench_cells(const suite::LoadSetting& setting,
                                  const suite::EngineSetting& engine) {
  std::vector<LoadCell> cells;
  std::vector<load::Point> points;  // of `cells`, by index
  for (const suite::BenchSetting& bench : setting.benches) {
    for (const auto& [point, pos] : bench.points) {
      auto at = std::find(points.begin(), points.end(), point);
      if (at == points.end()) {
        load::LoadConfig config = base_config(setting, engine);
        config.clients = point.clients;
        config.transactions = point.transactions;
        cells.push_back({config, std::vector<std::string>{}});
        at = points.insert(points.end(), point);
      }
      std::vector<std::string>& operations = *cells[at - points.begin()].operations;
      for (const auto& operation : bench.operations) {
        if (std::find(operations.begin(), operations.end(), operation.value) == operations.end()) {
          operations.push_back(operation.value);
        }
      }
    }
  }
  return cells;
}

// The load cells of one parameter combination in suite order: clients, then amounts;
// or the benches' points.
std::vector<LoadCell> load_cells(const suite::LoadSetting& setting,
                                 const suite::EngineSetting& engine) {
  if (!setting.benches.empty()) return bench_cells(setting, engine);
  std::vector<LoadCell> cells;
  for (const auto& clients : setting.clients) {
    load::LoadConfig base = base_config(setting, engine);
    base.clients = clients.value;
    for (const auto& transactions : setting.transactions) {
      load::LoadConfig config = base;
      config.transactions = transactions.value;
      cells.push_back({config, std::nullopt});
    }
    for (const auto& duration : setting.durations) {
      load::LoadConfig config = base;
      config.duration_seconds = duration.value;
      cells.push_back({config, std::nullopt});
    }
  }
  return cells;
}

// The YCSB cells of one parameter combination: workloads (suite order), then clients.
// Each keeps the engine's selected operations of its workload.
void add_ycsb_cells(const suite::YcsbSetting& ycsb, const suite::LoadSetting& setting,
                    const suite::EngineSetting& engine, const Cell& cell, std::vector<Cell>& out) {
  for (const auto& workload : ycsb.workloads) {
    // A copy, not a structured binding: C++20 lets a lambda capture a binding, but not
    // every compiler the tools use (clang 14) does.
    const auto letter = workload.value;
    for (const auto& [clients, clients_pos] : setting.clients) {
      Cell ycsb_cell = cell;
      std::erase_if(ycsb_cell.operations,
                    [&](const OperationSpec& op) { return ycsb::workload_of(op.name) != letter; });
      if (ycsb_cell.operations.empty()) continue;
      load::LoadConfig config = base_config(setting, engine);
      config.mode = load::ClientMode::threads;
      config.clients = clients;
      config.ycsb = ycsb_spec(ycsb, letter);
      for (std::string& qualifier : config.qualifiers()) {
        ycsb_cell.qualifiers.push_back(std::move(qualifier));
      }
      ycsb_cell.load = std::move(config);
      out.push_back(std::move(ycsb_cell));
    }
  }
}

// The counting instruments of `engine`'s cells: its own, else the suite's.
std::vector<std::string> instruments_of(const suite::Suite& suite, std::string_view engine) {
  std::vector<std::string> names;
  for (const auto& counter : suite::counters_for(suite, engine)) names.push_back(counter.value);
  return names;
}

SuiteRecord record_of(const suite::Suite& suite) {
  SuiteRecord record{suite.name, suite.file, {}, {}};
  for (const auto& dataset : suite.datasets) record.datasets.push_back(dataset.value);
  if (!suite.load) return record;
  for (const suite::BenchSetting& bench : suite.load->benches) {
    result::LoadBench recorded{bench.name.value, {}, {}};
    for (const auto& operation : bench.operations) recorded.operations.push_back(operation.value);
    for (const auto& [point, pos] : bench.points) {
      recorded.points.push_back({point.clients, point.transactions});
    }
    record.load_benches.push_back(std::move(recorded));
  }
  return record;
}

}  // namespace

load::YcsbSpec ycsb_spec(const suite::YcsbSetting& ycsb, char letter) {
  load::YcsbSpec spec;
  spec.workload = letter;
  for (const auto& [name, value] : ycsb.properties) {
    spec.properties.emplace_back(name.value, value.value);
  }
  return spec;
}

bool use_ycsb_as_operations(const suite::YcsbSetting& ycsb, plugin::Description& description) {
  if (!description.key_value) return false;
  description.info.operations.clear();
  for (const auto& [letter, pos] : ycsb.workloads) {
    Expected<ycsb::Properties> properties = ycsb::cell_properties(ycsb_spec(ycsb, letter));
    if (!properties) continue;
    for (OperationSpec& op : ycsb::workload_operations(letter, *properties)) {
      description.info.operations.push_back(std::move(op));
    }
  }
  return true;
}

bool use_transactions_as_operations(plugin::Description& description) {
  if (description.transactions.empty()) return false;
  description.info.operations.clear();
  for (const TransactionSpec& t : description.transactions) {
    description.info.operations.push_back(
        {t.name, "transactions", Direction::lower_is_better, t.description});
  }
  return true;
}

std::vector<std::string> Cell::operation_names() const {
  std::vector<std::string> names;
  for (const OperationSpec& op : operations) names.push_back(op.name);
  return names;
}

result::FailedRun Cell::failed_run(int repeat) const {
  return {.engine = engine, .dataset = dataset, .params = params, .repeat = repeat};
}

std::string metric_key(const Cell& cell, const std::string& operation) {
  return result::MetricKey{cell.engine, operation, cell.qualifiers}.to_string();
}

std::string progress_name(const Cell& cell) {
  std::string name = fmt::format("{} n={}", cell.engine, cell.dataset);
  for (const std::string& qualifier : cell.qualifiers) {
    if (!qualifier.starts_with("n=")) name += " " + qualifier;
  }
  return name;
}

Plan with_metrics(const Plan& plan, const std::set<std::string>& keys) {
  Plan subset = plan;
  subset.cells.clear();
  for (const Cell& cell : plan.cells) {
    const auto names = cell.operation_names();
    if (std::any_of(names.begin(), names.end(),
                    [&](const std::string& op) { return keys.count(metric_key(cell, op)) > 0; })) {
      subset.cells.push_back(cell);
    }
  }
  return subset;
}

Plan expand_plan(const suite::Suite& suite,
                 const std::map<std::string, plugin::Description>& descriptions) {
  Plan plan;
  plan.repeat = suite.repeat;
  plan.repeat_until = suite.repeat_until;
  plan.warmup = suite.warmup;
  plan.order = suite.order;
  plan.memory_limit_bytes = suite.memory_limit_bytes;
  plan.timeout_seconds = suite.timeout_seconds;
  plan.min_time_seconds = suite.min_time_seconds;
  plan.work_dir = suite.work_dir;
  plan.suite = record_of(suite);
  for (const auto& dataset : suite.datasets) {
    for (const suite::EngineSetting& setting : suite.engines) {
      const plugin::Description& description = descriptions.at(setting.name);
      const EngineInfo& info = description.info;
      const std::vector<Dimension> dims = dimensions_of(setting, info);
      // Odometer over the dimensions: the last one varies fastest.
      std::vector<std::size_t> position(dims.size(), 0);
      while (true) {
        Cell cell;
        cell.engine = setting.name;
        cell.plugin = description.file;
        cell.engine_version = info.version;
        cell.build = plugin::plugin_build(description);
        cell.dataset = dataset.value;
        cell.operations = selected_operations(setting, info);
        cell.counters = instruments_of(suite, setting.name);
        if (suite.datasets.size() > 1)
          cell.qualifiers.push_back(fmt::format("n={}", dataset.value));
        for (const ParamSpec& spec : info.params)
          cell.params.emplace_back(spec.name, spec.default_value);
        for (std::size_t d = 0; d < dims.size(); ++d) {
          const ParamValue& value = dims[d].values[position[d]];
          for (auto& [name, current] : cell.params) {
            if (name == dims[d].name) current = value;
          }
          cell.chosen.emplace_back(dims[d].name, value);
          if (dims[d].values.size() > 1) {
            cell.qualifiers.push_back(
                fmt::format("{}={}", dims[d].name, mask_secrets(suite::param_value_text(value))));
          }
        }
        std::sort(cell.params.begin(), cell.params.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        std::sort(cell.chosen.begin(), cell.chosen.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        if (suite.ycsb && suite.load) {
          add_ycsb_cells(*suite.ycsb, *suite.load, setting, cell, plan.cells);
        } else if (suite.load) {
          for (const LoadCell& load : load_cells(*suite.load, setting)) {
            Cell load_cell = cell;
            if (load.operations) {  // a bench point: its benches' types, in declared order
              std::erase_if(load_cell.operations, [&](const OperationSpec& op) {
                return std::find(load.operations->begin(), load.operations->end(), op.name) ==
                       load.operations->end();
              });
              // The engine's own `operations` may leave none of them (--operation).
              if (load_cell.operations.empty()) continue;
            }
            for (std::string& qualifier : load.config.qualifiers()) {
              load_cell.qualifiers.push_back(std::move(qualifier));
            }
            load_cell.load = load.config;
            plan.cells.push_back(std::move(load_cell));
          }
        } else {
          plan.cells.push_back(std::move(cell));
        }

        std::size_t d = dims.size();
        while (d > 0 && ++position[d - 1] == dims[d - 1].values.size()) position[--d] = 0;
        if (d == 0) break;
      }
    }
  }
  plan.fingerprint = fingerprint_of(plan);
  return plan;
}

}  // namespace storh::plan
