// YCSB's core workload (core/src/ycsb/): properties and presets, key names and values,
// verification, and what a client draws. The generators' distributions are in
// ycsb_generators_test.cpp. Sources of the expected numbers:
//   [py]    Python 3: FNV-1a 64 and Java's String.hashCode written out from their
//           definitions, and YCSB's buildDeterministicValue loop on top of them.
//   [ycsb]  YCSB's workloads/workloada .. workloadf.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ycsb/core_workload.h"
#include "ycsb/properties.h"
#include "ycsb/values.h"

namespace storh::ycsb::workload_test {
namespace {

constexpr std::uint64_t kSeed = 20240521;
Properties valid_properties() {
  Properties p;
  p.recordcount = 1000;
  return p;
}

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& m) { return m.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("ycsb: key names are user plus the hashed or ordered number, zero-padded", "[ycsb]") {
  CHECK(build_key_name(5, 1, true) == "user5");
  CHECK(build_key_name(5, 6, true) == "user000005");
  CHECK(build_key_name(123456, 3, true) == "user123456");
  CHECK(build_key_name(0, 1, false) == "user6284781860667377211");
  CHECK(build_key_name(1, 25, false) == "user0000008517097267634966620");

  Properties p = valid_properties();
  CHECK(CoreWorkload(p, 1).key_name(1000) == "user5952875239596136740");
  p.orderedinserts = true;
  p.zeropadding = 4;
  CHECK(CoreWorkload(p, 1).key_name(7) == "user0007");
}

TEST_CASE("ycsb: a deterministic value is key:field then the Java hashes, cut to length",
          "[ycsb]") {
  CHECK(java_string_hash("abc") == 96354);       // Java: "abc".hashCode()
  CHECK(java_string_hash("hello") == 99162322);  // Java: "hello".hashCode()
  // "user1:field0" is 12 bytes; append ":" and hashCode("user1:field0:") = -1268391216,
  // then ":" and the hash of all that (957204686), then ":" and -1707... cut at 40 [py].
  CHECK(java_string_hash("user1:field0:") == -1268391216);
  CHECK(deterministic_value("user1", "field0", 40) == "user1:field0:-1268391216:957204686:-1707");
  CHECK(deterministic_value("user1", "field0", 5) == "user1");
  CHECK(deterministic_value("user6284781860667377211", "field3", 100) ==
        "user6284781860667377211:field3:-56807784:-1874878672:1967282817:-1787301858:"
        "-652319809:-382740913:-6");
  const std::string longer = deterministic_value("user9", "field2", 1000);
  CHECK(longer.size() == 1000);
  CHECK(longer.substr(0, 100) == deterministic_value("user9", "field2", 100));
}

TEST_CASE("ycsb: verify accepts the loaded record and names what is wrong", "[ycsb]") {
  const CoreWorkload w(valid_properties(), kSeed);
  Rng rng(kSeed);
  const std::string key = w.key_name(123);
  storh::KvRecord record = w.build_record(key, rng);
  REQUIRE(record.size() == 10);
  CHECK(record[3].name == "field3");
  CHECK(record[3].value == deterministic_value(key, "field3", 100));
  CHECK(w.verify(key, record, {}).empty());
  CHECK(w.verify(key, {record[3]}, {"field3"}).empty());

  storh::KvRecord changed = record;
  changed[3].value[57] = changed[3].value[57] == 'x' ? 'y' : 'x';
  const std::string bad_byte = w.verify(key, changed, {});
  CHECK(bad_byte.find("field3 of " + key) == 0);
  CHECK(bad_byte.find("first difference at byte 57") != std::string::npos);

  storh::KvRecord missing = record;
  missing.erase(missing.begin() + 6);
  CHECK(w.verify(key, missing, {}).find("field6 of " + key + ": missing") == 0);
  CHECK(w.verify(key, {record[3]}, {"field4"}).find("field3 of " + key + ": returned but not") ==
        0);
  CHECK(w.verify(key, {{"field3", "short"}}, {"field3"}).find("expected 100 bytes") !=
        std::string::npos);

  Properties unchecked = valid_properties();
  unchecked.dataintegrity = false;
  const CoreWorkload w2(unchecked, kSeed);
  CHECK(w2.verify(key, changed, {}).empty());
  CHECK(!w2.verify(key, missing, {}).empty());
}

TEST_CASE("ycsb: workloads A-F run their operation mix", "[ycsb]") {
  for (char letter : {'a', 'b', 'c', 'd', 'e', 'f'}) {
    const std::optional<Properties> p = workload_preset(letter);
    REQUIRE(p);
    CoreWorkload w(*p, kSeed);
    CoreWorkload::Client client = w.client(0);
    constexpr int kOps = 100000;
    std::vector<int> counts(5);
    for (int i = 0; i < kOps; ++i) ++counts[static_cast<std::size_t>(client.next_op())];
    const double expected[] = {p->readproportion, p->updateproportion, p->insertproportion,
                               p->scanproportion, p->readmodifywriteproportion};
    for (std::size_t op = 0; op < 5; ++op) {
      INFO("workload " << letter << ", " << op_name(static_cast<Op>(op)));
      CHECK(std::abs(static_cast<double>(counts[op]) / kOps - expected[op]) < 0.01);
    }
  }
}

TEST_CASE("ycsb: presets a-f have YCSB's properties", "[ycsb]") {
  const Properties a = *workload_preset('A');
  CHECK((a.readproportion == 0.5 && a.updateproportion == 0.5));
  CHECK(a.requestdistribution == Distribution::zipfian);
  CHECK((a.recordcount == 1000 && a.operationcount == 1000 && a.readallfields));
  CHECK(workload_preset('b')->readproportion == 0.95);
  CHECK(workload_preset('b')->updateproportion == 0.05);
  CHECK(workload_preset('c')->readproportion == 1);
  const Properties d = *workload_preset('d');
  CHECK((d.readproportion == 0.95 && d.insertproportion == 0.05 && d.updateproportion == 0));
  CHECK(d.requestdistribution == Distribution::latest);
  const Properties e = *workload_preset('e');
  CHECK((e.scanproportion == 0.95 && e.insertproportion == 0.05 && e.readproportion == 0));
  CHECK((e.maxscanlength == 100 && e.scanlengthdistribution == Distribution::uniform));
  const Properties f = *workload_preset('f');
  CHECK((f.readproportion == 0.5 && f.readmodifywriteproportion == 0.5 && f.updateproportion == 0));
  CHECK(!workload_preset('g'));
  for (char letter : std::string("abcdefABCDEF"))
    CHECK(check_properties(*workload_preset(letter)).empty());
  CHECK(check_properties(Properties{}).empty());
}

TEST_CASE("ycsb: bad properties are rejected with the property named", "[ycsb]") {
  Properties p = valid_properties();
  CHECK(set_property(p, "requestdistribution", "zipf") ==
        "requestdistribution: unknown distribution \"zipf\" (valid: uniform, zipfian, latest, "
        "hotspot, exponential, sequential)");
  CHECK(set_property(p, "scanlengthdistribution", "latest").find("scanlengthdistribution:") == 0);
  CHECK(set_property(p, "fieldcnt", "3") == "unknown property \"fieldcnt\"");
  const std::string not_number = set_property(p, "readproportion", "abc");
  CHECK(not_number.find("readproportion") == 0);
  CHECK(not_number.find("\"abc\"") != std::string::npos);
  CHECK(p.readproportion == 0.95);  // unchanged
  CHECK(set_property(p, "fieldcount", "-1").find("fieldcount") == 0);
  CHECK(set_property(p, "readallfields", "yes").find("readallfields") == 0);
  CHECK(set_property(p, "insertorder", "random").find("insertorder") == 0);

  REQUIRE(set_property(p, "readproportion", "0.5") == "");
  REQUIRE(set_property(p, "updateproportion", "0.4") == "");
  CHECK(mentions(check_properties(p), "readproportion + updateproportion"));
  REQUIRE(set_property(p, "updateproportion", "0.5") == "");
  CHECK(check_properties(p).empty());

  REQUIRE(set_property(p, "fieldcount", "0") == "");
  REQUIRE(set_property(p, "maxscanlength", "2000") == "");
  // Without scans a maxscanlength over recordcount is never drawn: not a problem.
  CHECK_FALSE(mentions(check_properties(p), "maxscanlength"));
  REQUIRE(set_property(p, "updateproportion", "0.4") == "");
  REQUIRE(set_property(p, "scanproportion", "0.1") == "");
  const std::vector<std::string> problems = check_properties(p);
  CHECK(mentions(problems, "fieldcount:"));
  CHECK(mentions(problems, "maxscanlength: 2000 exceeds recordcount 1000"));
  CHECK(problems.size() == 2);
  CHECK(!CoreWorkload::create(p, 1).ok());
  CHECK(CoreWorkload::create(p, 1).error().find("maxscanlength") != std::string::npos);

  Properties q = valid_properties();
  q.insertstart = 500;
  q.insertcount = 600;
  q.hotspotopnfraction = 1.5;
  CHECK(mentions(check_properties(q), "insertcount:"));
  CHECK(mentions(check_properties(q), "hotspotopnfraction:"));
}

TEST_CASE("ycsb: every property name can be set", "[ycsb]") {
  const std::vector<std::string>& names = property_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  Properties p;
  CHECK(set_property(p, "insertorder", "ordered") == "");
  CHECK(p.orderedinserts);
  CHECK(set_property(p, "exponential.percentile", "90") == "");
  CHECK(p.exponential_percentile == 90);
  CHECK(set_property(p, "fieldlengthdistribution", "zipfian") == "");
  CHECK(p.fieldlengthdistribution == Distribution::zipfian);
  CHECK(set_property(p, "dataintegrity", "FALSE") == "");
  CHECK(!p.dataintegrity);
  for (const std::string& name : names) {
    Properties scratch;
    // Every name is known: a bad value gets a message about the value, naming it.
    CHECK(set_property(scratch, name, "?").find(name + ":") == 0);
  }
}

TEST_CASE("ycsb: a client draws keys, lengths and fields within the workload", "[ycsb]") {
  Properties p = *workload_preset('e');
  p.recordcount = 500;
  p.insertstart = 100;
  p.orderedinserts = true;
  CoreWorkload w(p, kSeed);
  CoreWorkload::Client c = w.client(3);
  CHECK(c.next_load_keynum() == 100);
  CHECK(w.client(4).next_load_keynum() == 101);  // one shared load sequence
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t k = c.next_keynum();
    REQUIRE((k >= 100 && k < 500));
    const std::uint32_t len = c.next_scan_length();
    REQUIRE((len >= 1 && len <= 100));
  }
  CHECK(c.read_fields().empty());
  const std::uint64_t inserted = c.next_insert_keynum();
  CHECK(inserted == 500);
  CHECK(c.acknowledge_insert(inserted));
  const storh::KvRecord update = c.update_values(w.key_name(inserted));
  REQUIRE(update.size() == 1);
  CHECK(w.verify(w.key_name(inserted), update, {update[0].name}).empty());

  Properties latest = *workload_preset('d');
  latest.readallfields = false;
  latest.writeallfields = true;
  CoreWorkload wl(latest, kSeed);
  CoreWorkload::Client cl = wl.client(0);
  CHECK(cl.read_fields().size() == 1);
  CHECK(cl.update_values("user1").size() == 10);
  std::uint64_t newest = 0;
  for (int i = 0; i < 1000; ++i) newest = std::max(newest, cl.next_keynum());
  CHECK(newest == 999);

  Properties exponential = valid_properties();
  exponential.requestdistribution = Distribution::exponential;
  CoreWorkload we(exponential, kSeed);
  CoreWorkload::Client ce = we.client(0);
  for (int i = 0; i < 10000; ++i) REQUIRE(ce.next_keynum() <= 999);
}

TEST_CASE("ycsb: clients with the same seed and index draw the same", "[ycsb]") {
  const Properties p = *workload_preset('a');
  CoreWorkload w1(p, kSeed);
  CoreWorkload w2(p, kSeed);
  CoreWorkload::Client a = w1.client(2);
  CoreWorkload::Client b = w2.client(2);
  CoreWorkload::Client other = w1.client(3);
  int same_as_other = 0;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t k = a.next_keynum();
    CHECK(k == b.next_keynum());
    if (k == other.next_keynum()) ++same_as_other;
  }
  CHECK(same_as_other < 50);
  Rng rng(kSeed);
  for (int i = 0; i < 1000; ++i) {
    const double d = rng.next_double();
    REQUIRE((d >= 0 && d < 1));
  }
}

TEST_CASE("ycsb: variable field lengths stay verifiable", "[ycsb]") {
  Properties p = valid_properties();
  p.fieldlengthdistribution = Distribution::uniform;
  p.minfieldlength = 10;
  p.fieldlength = 50;
  CoreWorkload w(p, kSeed);
  Rng rng(kSeed);
  const storh::KvRecord record = w.build_record("user7", rng);
  for (const storh::KvField& f : record) CHECK((f.value.size() >= 10 && f.value.size() <= 50));
  CHECK(w.verify("user7", record, {}).empty());
  CHECK(!w.verify("user7", {{"field0", deterministic_value("user7", "field0", 60)}}, {"field0"})
             .empty());
}

TEST_CASE("ycsb: an update writes bytes that differ from the stored ones and still verify",
          "[ycsb]") {
  // Regression: updates wrote the loaded bytes again, and SQLite skips a write that
  // changes nothing, so its update cells timed no write at all.
  CHECK(generation_value("user1", "field0", 0, 40) == deterministic_value("user1", "field0", 40));
  CHECK(generation_value("user1", "field0", 7, 40).substr(0, 16) == "g7:user1:field0:");
  CHECK(claimed_generation(deterministic_value("user1", "field0", 40)) == 0);
  CHECK(claimed_generation(generation_value("user1", "field0", 123, 40)) == 123);
  CHECK(claimed_generation("g") == 1);

  Properties p = valid_properties();
  p.writeallfields = true;
  CoreWorkload w(p, kSeed);
  CoreWorkload::Client client = w.client(0);
  const std::string key = w.key_name(42);
  storh::KvRecord stored = w.build_record(key, client.rng());
  for (int round = 0; round < 3; ++round) {
    INFO("update " << round);
    const storh::KvRecord update = client.update_values(key);
    REQUIRE(update.size() == stored.size());
    for (std::size_t i = 0; i < update.size(); ++i) {
      REQUIRE(update[i].name == stored[i].name);
      CHECK(update[i].value.size() == 100);
      CHECK(update[i].value != stored[i].value);
      CHECK(claimed_generation(update[i].value) > 0);
    }
    CHECK(w.verify(key, update, {}).empty());
    stored = update;
  }
  // A second client's updates never repeat the first's bytes either.
  CoreWorkload::Client other = w.client(1);
  CHECK(other.update_values(key)[0].value != stored[0].value);

  // Still checked: a changed byte, another key's or field's value, a missing field.
  storh::KvRecord changed = stored;
  changed[2].value[60] = changed[2].value[60] == 'x' ? 'y' : 'x';
  CHECK(w.verify(key, changed, {}).find("first difference at byte 60") != std::string::npos);
  const std::string other_key = w.key_name(43);
  const std::uint64_t g = claimed_generation(stored[2].value);
  CHECK(!w.verify(key, {{"field2", generation_value(other_key, "field2", g, 100)}}, {"field2"})
             .empty());
  CHECK(!w.verify(key, {{"field2", generation_value(key, "field3", g, 100)}}, {"field2"}).empty());
  storh::KvRecord missing = stored;
  missing.pop_back();
  CHECK(w.verify(key, missing, {}).find("field9 of " + key + ": missing") == 0);
}

}  // namespace storh::ycsb::workload_test
