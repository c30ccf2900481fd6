// util/secrets.h: passwords found in every form a connection string can carry them,
// and results, JSON and displayed parameter values that never show them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "result/json.h"
#include "result/result.h"
#include "suite/parse.h"
#include "util/secrets.h"

using storh::mask_secrets;

TEST_CASE("secrets: a URI's user-info password is masked, the rest kept", "[util][secrets]") {
  CHECK(mask_secrets("postgresql://postgres:hunter2@/postgres?host=/tmp/x") ==
        "postgresql://postgres:***@/postgres?host=/tmp/x");
  CHECK(mask_secrets("postgres://u:p%40ss@db.example:5432/h") ==
        "postgres://u:***@db.example:5432/h");
  // Inside a longer text, and more than one.
  CHECK(mask_secrets("--set pg.dsn=postgresql://a:b@h/d and postgresql://c:d@h/e") ==
        "--set pg.dsn=postgresql://a:***@h/d and postgresql://c:***@h/e");
  // No password: unchanged.
  CHECK(mask_secrets("postgresql://postgres@/postgres") == "postgresql://postgres@/postgres");
  CHECK(mask_secrets("https://example.com/a:b@c") == "https://example.com/a:b@c");
  CHECK(mask_secrets("hash") == "hash");
}

TEST_CASE("secrets: password parameters are masked in URIs and keyword strings",
          "[util][secrets]") {
  CHECK(mask_secrets("postgresql:///h?user=u&password=zzz&sslmode=disable") ==
        "postgresql:///h?user=u&password=***&sslmode=disable");
  CHECK(mask_secrets("host=/var/run/postgresql dbname=hist password=zzz") ==
        "host=/var/run/postgresql dbname=hist password=***");
  CHECK(mask_secrets("password = zzz host=h") == "password = *** host=h");
  CHECK(mask_secrets("host=h password='a b\\' c' dbname=d") == "host=h password=*** dbname=d");
  // A word that merely ends in "password" is not the keyword.
  CHECK(mask_secrets("mypassword=x") == "mypassword=x");
  CHECK(storh::holds_secret("password=x"));
  CHECK_FALSE(storh::holds_secret("password="));
}

TEST_CASE("secrets: keyword connection strings are told from file names", "[util][secrets]") {
  CHECK(storh::is_keyword_connection_string("host=/var/run/postgresql dbname=hist password=zzz"));
  CHECK(storh::is_keyword_connection_string("  dbname = hist"));
  CHECK_FALSE(storh::is_keyword_connection_string("storh-history.db"));
  CHECK_FALSE(storh::is_keyword_connection_string("hosts.db"));
  CHECK_FALSE(storh::is_keyword_connection_string("dir/host=x.db"));
}

TEST_CASE("secrets: a displayed parameter value never shows a password", "[util][secrets]") {
  CHECK(storh::suite::param_value_text(storh::ParamValue(std::string("postgresql://u:pw@/d"))) ==
        "postgresql://u:***@/d");
}

TEST_CASE("secrets: a result and its JSON carry no password", "[util][secrets][result]") {
  using namespace storh::result;
  const std::string dsn = "postgresql://postgres:hunter2@/postgres";
  ResultFile file;
  file.experiment.command_line = {"storh-host", "run", "--set", "pg.dsn=" + dsn};
  file.experiment.params = {{"pg", {{"dsn", {storh::ParamValue(dsn)}}}}};
  Metric metric;
  metric.key = "pg.select_only[dsn=" + dsn + "]";
  metric.engine = "pg";
  metric.operation = "select_only";
  metric.params = {{"dsn", dsn}};
  file.metrics.push_back(metric);
  Run run;
  run.engine = "pg";
  run.params = {{"dsn", dsn}};
  file.runs.push_back(run);
  Failure failure;
  failure.params = {{"dsn", dsn}};
  failure.message = "could not connect to " + dsn;
  failure.stderr_tail = "host=h password=hunter2";
  file.failures.push_back(failure);

  // Written as it is: the writer masks every string and key.
  const std::string text = to_json_text(file);
  CHECK(text.find("hunter2") == std::string::npos);
  CHECK(text.find("postgres:***@") != std::string::npos);

  mask_secrets(file);
  CHECK(file.experiment.command_line[3] == "pg.dsn=postgresql://postgres:***@/postgres");
  CHECK(std::get<std::string>(file.experiment.params[0].second[0].second[0]) ==
        "postgresql://postgres:***@/postgres");
  CHECK(file.metrics[0].key.find("hunter2") == std::string::npos);
  CHECK(std::get<std::string>(file.runs[0].params[0].second).find("hunter2") == std::string::npos);
  CHECK(file.failures[0].message.find("hunter2") == std::string::npos);
  CHECK(file.failures[0].stderr_tail == "host=h password=***");
}
