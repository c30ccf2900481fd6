// ycsb/properties.h: the properties of YCSB's CoreWorkload, its presets (workloads/
// workloada .. workloadf) and their checks.
//
// Names and defaults are YCSB's, with one exception: dataintegrity defaults to true
// (every read is verified). Values are plain data; set_property and check_properties
// never throw and report problems as messages that name the property.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storh::ycsb {

enum class Distribution { uniform, zipfian, latest, hotspot, exponential, sequential, constant };

// The distribution's YCSB name ("uniform", ..., "constant").
std::string_view distribution_name(Distribution d);

struct Properties {
  std::uint64_t recordcount = 1000;
  std::uint64_t operationcount = 1000;
  std::uint64_t insertstart = 0;
  std::uint64_t insertcount = 0;  // 0: recordcount - insertstart
  std::uint32_t fieldcount = 10;
  std::uint32_t fieldlength = 100;
  std::uint32_t minfieldlength = 1;
  Distribution fieldlengthdistribution = Distribution::constant;  // constant, uniform, zipfian
  bool readallfields = true;
  bool writeallfields = false;
  double readproportion = 0.95, updateproportion = 0.05, insertproportion = 0, scanproportion = 0,
         readmodifywriteproportion = 0;
  // uniform, zipfian, latest, hotspot, exponential, sequential
  Distribution requestdistribution = Distribution::uniform;
  std::uint32_t minscanlength = 1, maxscanlength = 1000;
  Distribution scanlengthdistribution = Distribution::uniform;  // uniform, zipfian
  bool orderedinserts = false;  // insertorder = "ordered" (default "hashed")
  std::uint32_t zeropadding = 1;
  double hotspotdatafraction = 0.2, hotspotopnfraction = 0.8;
  double exponential_percentile = 95, exponential_frac = 0.8571428571;
  // Every zipfian of the workload (request keys, latest, scan and field lengths).
  double zipfian_constant = 0.99;  // YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT
  bool dataintegrity = true;       // our default: every read is verified

  // insertcount, or recordcount - insertstart when it is 0.
  std::uint64_t effective_insertcount() const {
    return insertcount != 0 ? insertcount
                            : (recordcount > insertstart ? recordcount - insertstart : 0);
  }
};

// The presets of YCSB's workloads/workloada .. workloadf ('a'..'f', either case): the
// defaults above with that file's properties set; nullopt for any other letter.
std::optional<Properties> workload_preset(char letter);

// Sets one property from its YCSB name ("readproportion", "requestdistribution",
// "insertorder", "fieldlengthdistribution", "exponential.percentile", ...) and its value
// as text. Returns an empty string on success, else a message naming the property, the
// bad value and the valid choices:
//   requestdistribution: unknown distribution "zipf" (valid: uniform, zipfian, latest,
//   hotspot, exponential, sequential)
// An unknown name gives `unknown property "x"`; the caller may add a did-you-mean from
// property_names(). On failure `p` is unchanged. Only the value is checked here;
// check_properties checks the whole set.
std::string set_property(Properties& p, std::string_view name, std::string_view value);

// The property names set_property knows, sorted (for did-you-mean messages).
const std::vector<std::string>& property_names();

// Checks the whole set: proportions >= 0 summing to 1 (within 1e-9), fieldcount >= 1,
// fieldlength >= 1, minfieldlength <= fieldlength, 1 <= minscanlength <= maxscanlength,
// maxscanlength <= recordcount when scanproportion > 0, recordcount >= 1, insertstart <
// recordcount, insertstart + insertcount <= recordcount, fractions in [0, 1], 0 <
// exponential.percentile < 100, exponential.frac > 0, 0 < zipfian.constant < 1, and each
// distribution one its property allows. Returns every problem found, each naming the property
// (empty: valid).
std::vector<std::string> check_properties(const Properties& p);

}  // namespace storh::ycsb
