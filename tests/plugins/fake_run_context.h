// fake_run_context.h: a RunContext for driving engine plugins in tests, and a loader
// for plugin modules (the host's real loader lives in core/; this one only needs the
// factory).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "storh/engine.h"
#include "storh/plugin.h"

namespace storh_test {

struct Measurement {
  std::string operation;
  std::uint64_t items = 0;
  double seconds = 0;
};

struct EngineCounterCall {
  std::string operation;
  std::string name;
  std::string unit;
  double total = 0;
  bool repeats = false;
};

class FakeRunContext final : public storh::RunContext {
 public:
  // `selected` empty means every operation is selected.
  explicit FakeRunContext(std::uint64_t dataset_size, std::set<std::string> selected = {})
      : dataset_size_(dataset_size), selected_(std::move(selected)) {}

  std::uint64_t dataset_size() const noexcept override { return dataset_size_; }
  const storh::ParamValue* param(std::string_view name) const noexcept override {
    auto found = params_.find(std::string(name));
    return found == params_.end() ? nullptr : &found->second;
  }
  const std::filesystem::path& work_dir() const noexcept override { return work_dir_; }

  // Test set-up: a parameter the engine will see, and the directory it writes in (the
  // host gives every run a fresh one; tests pass a ScratchDir).
  FakeRunContext& set_param(std::string name, storh::ParamValue value) {
    params_[std::move(name)] = std::move(value);
    return *this;
  }
  FakeRunContext& set_work_dir(std::filesystem::path dir) {
    work_dir_ = std::move(dir);
    return *this;
  }
  bool selected(std::string_view operation) const noexcept override {
    return selected_.empty() || selected_.count(std::string(operation)) > 0;
  }

  storh::Status do_measure(std::string_view operation, std::uint64_t items,
                           storh::FunctionRef<storh::Status()> step) noexcept override {
    const auto start = std::chrono::steady_clock::now();
    storh::Status status = step();
    const auto stop = std::chrono::steady_clock::now();
    if (status.ok()) {
      measurements.push_back(
          {std::string(operation), items, std::chrono::duration<double>(stop - start).count()});
    }
    return status;
  }

  storh::Status do_measure_each(
      std::string_view operation, std::uint64_t items,
      storh::FunctionRef<storh::Status(std::uint64_t)> item) noexcept override {
    return do_measure(operation, items, [&]() -> storh::Status {
      for (std::uint64_t i = 0; i < items; ++i) {
        if (storh::Status status = item(i); !status.ok()) return status;
      }
      return {};
    });
  }

  // Three calls, so a plugin test catches a step that is not repeatable (its answer
  // check fails on the second call); the measurement is the time per call.
  storh::Status do_measure_repeated(std::string_view operation, std::uint64_t items,
                                    storh::FunctionRef<storh::Status()> step) noexcept override {
    constexpr int kCalls = 3;
    const auto start = std::chrono::steady_clock::now();
    storh::Status status;
    for (int call = 0; call < kCalls && status.ok(); ++call) status = step();
    const auto stop = std::chrono::steady_clock::now();
    if (status.ok()) {
      measurements.push_back({std::string(operation), items,
                              std::chrono::duration<double>(stop - start).count() / kCalls});
      repeated.emplace_back(operation);
    }
    return status;
  }

  void progress(std::string_view message) noexcept override {
    progress_messages.emplace_back(message);
  }

  // Kept as the engine gave it (the host divides by the step's items).
  void engine_counter(std::string_view operation, std::string_view name, std::string_view unit,
                      double total, bool repeats) noexcept override {
    engine_counters.push_back(
        {std::string(operation), std::string(name), std::string(unit), total, repeats});
  }

  // The total of counter `name` of step `operation`; -1 when the engine gave none.
  double engine_count(std::string_view operation, std::string_view name) const {
    for (const EngineCounterCall& call : engine_counters) {
      if (call.operation == operation && call.name == name) return call.total;
    }
    return -1;
  }

  // The operations measured, in the order they were.
  std::vector<std::string> measured() const {
    std::vector<std::string> names;
    names.reserve(measurements.size());
    for (const Measurement& m : measurements) names.push_back(m.operation);
    return names;
  }

  std::vector<Measurement> measurements;
  std::vector<std::string> progress_messages;
  std::vector<std::string> repeated;  // operations timed with measure_repeated
  std::vector<EngineCounterCall> engine_counters;

 private:
  std::uint64_t dataset_size_;
  std::set<std::string> selected_;
  std::map<std::string, storh::ParamValue> params_;
  std::filesystem::path work_dir_ = std::filesystem::temp_directory_path();
};

// A loaded plugin module and one engine from it. Members are destroyed in reverse
// order, so the engine dies before its library is unloaded.
struct LoadedPlugin {
  explicit LoadedPlugin(const std::string& path)
      : library(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local),
        manifest(library.get<StorhManifestFunction>(storh::kManifestSymbol)()),
        engine(library.get_alias<storh::EngineFactory>(storh::kFactorySymbol)()) {}

  boost::dll::shared_library library;
  const StorhManifest* manifest;
  std::unique_ptr<storh::Engine> engine;
};

}  // namespace storh_test
