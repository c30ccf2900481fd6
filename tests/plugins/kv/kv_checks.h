// kv_checks.h: the key-value capability (storh/key_value.h) of an engine plugin, checked
// through its module as the host loads it: the store made by storh_create_key_value,
// opened on a FakeRunContext with the cell's parameters. Each check is one engine-neutral
// behaviour; an engine's test file calls them with its module and parameters.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fake_run_context.h"
#include "storh/key_value.h"

namespace storh_test::kv {

using Params = std::vector<std::pair<std::string, storh::ParamValue>>;

// The steps of every db_bench-style scenario, in order.
inline const std::vector<std::string> kDbBenchSteps{"fillseq", "fillrandom", "readrandom",
                                                    "readseq"};

// A plugin module and its key-value factory.
class KvPlugin {
 public:
  explicit KvPlugin(const std::string& module_path);
  // A new store, not yet opened.
  std::unique_ptr<storh::KeyValueStore> make() const;
  const LoadedPlugin& loaded() const { return plugin_; }

 private:
  LoadedPlugin plugin_;
  storh::KeyValueFactory* factory_ = nullptr;
};

// A store opened (REQUIREd ok) on `dir` with `params`; close() REQUIREs ok too.
struct OpenStore {
  OpenStore(const KvPlugin& plugin, const std::filesystem::path& dir, const Params& params);
  ~OpenStore();
  // One session (REQUIREd).
  std::unique_ptr<storh::KeyValueSession> session(std::uint32_t client = 0);
  storh::Status close();

  FakeRunContext ctx;
  std::unique_ptr<storh::KeyValueStore> store;
  bool closed = false;
};

// A record of `count` fields "field0" .. with values "<prefix>-<i>".
storh::KvRecord record(const std::string& prefix, int count);

// The checks, each in a fresh store under `dir`.
void read_returns_fields(const KvPlugin& plugin, const std::filesystem::path& dir,
                         const Params& params);
void update_keeps_other_fields(const KvPlugin& plugin, const std::filesystem::path& dir,
                               const Params& params);
void insert_overwrites(const KvPlugin& plugin, const std::filesystem::path& dir,
                       const Params& params);
void scan_in_key_order(const KvPlugin& plugin, const std::filesystem::path& dir,
                       const Params& params);
void remove_then_not_found(const KvPlugin& plugin, const std::filesystem::path& dir,
                           const Params& params);
// Stores and reads back one record; with `reopen`, also after close and a new open.
void stores_and_keeps(const KvPlugin& plugin, const std::filesystem::path& dir,
                      const Params& params, bool reopen);
// `threads` sessions on as many threads, each inserting and reading its own keys.
void concurrent_sessions(const KvPlugin& plugin, const std::filesystem::path& dir,
                         const Params& params, int threads);
// With the value of key "damaged" not a record encoding (written by the caller into
// the store at `dir`), a read and a scan over it fail with an error naming it.
void damaged_value_is_an_error(const KvPlugin& plugin, const std::filesystem::path& dir,
                               const Params& params);

// The five record checks above (read, update, insert, scan, remove) and
// concurrent_sessions at `threads`, each in a fresh scratch directory: what every
// key-value engine passes with `params`.
void every_record_check(const KvPlugin& plugin, const Params& params, int threads = 4);

// The plugin is `name` and describes `operations` and `params` (their names), in order.
void describes(const KvPlugin& plugin, const std::string& name,
               const std::vector<std::string>& operations, const std::vector<std::string>& params);

// The scenario with `step` alone (a read step) at 50 keys runs ok and measures only it.
void step_alone_runs(const KvPlugin& plugin, const std::string& step, const Params& params);

// stores_and_keeps at every durability level, each in a fresh scratch directory with
// params_of(level); a reopen checked for os and fsync, and for none when `none_keeps`.
void every_durability_keeps(const KvPlugin& plugin,
                            const std::function<Params(const std::string&)>& params_of,
                            bool none_keeps);

// Writes `value` under `key` straight into the engine's store under `dir`, where the
// adapter opens it.
using RawPut = std::function<void(const std::filesystem::path& dir, const std::string& key,
                                  const std::string& value)>;
// damaged_value_is_an_error in a fresh scratch directory, after `put` wrote a value of
// "damaged" that is no record encoding (a field of 5 + 5 bytes with 2 left).
void damaged_value_is_an_error(const KvPlugin& plugin, const Params& params, const RawPut& put);

// Runs the plugin's scenario at `n` with `params`; REQUIREs ok and returns the
// operations measured, in order, each checked to count n items.
std::vector<std::string> run_scenario(const KvPlugin& plugin, const std::filesystem::path& dir,
                                      std::uint64_t n, const Params& params);

}  // namespace storh_test::kv
