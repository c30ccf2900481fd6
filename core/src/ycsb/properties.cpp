#include "ycsb/properties.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "util/text.h"

namespace storh::ycsb {
namespace {

constexpr std::array kRequestDistributions = {Distribution::uniform,     Distribution::zipfian,
                                              Distribution::latest,      Distribution::hotspot,
                                              Distribution::exponential, Distribution::sequential};
constexpr std::array kFieldLengthDistributions = {Distribution::constant, Distribution::uniform,
                                                  Distribution::zipfian};
constexpr std::array kScanLengthDistributions = {Distribution::uniform, Distribution::zipfian};

template <typename Container>
std::string distribution_list(const Container& allowed) {
  std::string out;
  for (Distribution d : allowed) {
    if (!out.empty()) out += ", ";
    out += distribution_name(d);
  }
  return out;
}

template <typename Unsigned>
std::string parse_whole(std::string_view name, std::string_view text, Unsigned& out) {
  const std::string_view v = trim(text);
  Unsigned parsed{};
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), parsed);
  if (v.empty() || ec == std::errc::invalid_argument || end != v.data() + v.size()) {
    return fmt::format("{}: \"{}\" is not a whole number >= 0", name, text);
  }
  if (ec == std::errc::result_out_of_range) {
    return fmt::format("{}: {} is out of range (at most {})", name, v,
                       std::numeric_limits<Unsigned>::max());
  }
  out = parsed;
  return {};
}

template <std::uint64_t Properties::*kMember>
std::string set_u64(Properties& p, std::string_view name, std::string_view text) {
  return parse_whole(name, text, p.*kMember);
}

template <std::uint32_t Properties::*kMember>
std::string set_u32(Properties& p, std::string_view name, std::string_view text) {
  return parse_whole(name, text, p.*kMember);
}

template <double Properties::*kMember>
std::string set_double(Properties& p, std::string_view name, std::string_view text) {
  const std::string_view v = trim(text);
  double parsed = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), parsed);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || !std::isfinite(parsed)) {
    return fmt::format("{}: \"{}\" is not a number", name, text);
  }
  p.*kMember = parsed;
  return {};
}

template <bool Properties::*kMember>
std::string set_bool(Properties& p, std::string_view name, std::string_view text) {
  std::string v(trim(text));
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (v != "true" && v != "false") {
    return fmt::format("{}: \"{}\" is not a boolean (valid: true, false)", name, text);
  }
  p.*kMember = v == "true";
  return {};
}

template <Distribution Properties::*kMember, const auto& kAllowed>
std::string set_distribution(Properties& p, std::string_view name, std::string_view text) {
  const std::string_view v = trim(text);
  for (Distribution d : kAllowed) {
    if (distribution_name(d) == v) {
      p.*kMember = d;
      return {};
    }
  }
  return fmt::format("{}: unknown distribution \"{}\" (valid: {})", name, text,
                     distribution_list(kAllowed));
}

std::string set_insertorder(Properties& p, std::string_view name, std::string_view text) {
  const std::string_view v = trim(text);
  if (v != "hashed" && v != "ordered") {
    return fmt::format("{}: unknown order \"{}\" (valid: hashed, ordered)", name, text);
  }
  p.orderedinserts = v == "ordered";
  return {};
}

using Setter = std::string (*)(Properties&, std::string_view, std::string_view);

struct PropertySpec {
  std::string_view name;
  Setter set;
};

constexpr std::array<PropertySpec, 27> kProperties = {{
    {"recordcount", &set_u64<&Properties::recordcount>},
    {"operationcount", &set_u64<&Properties::operationcount>},
    {"insertstart", &set_u64<&Properties::insertstart>},
    {"insertcount", &set_u64<&Properties::insertcount>},
    {"fieldcount", &set_u32<&Properties::fieldcount>},
    {"fieldlength", &set_u32<&Properties::fieldlength>},
    {"minfieldlength", &set_u32<&Properties::minfieldlength>},
    {"fieldlengthdistribution",
     &set_distribution<&Properties::fieldlengthdistribution, kFieldLengthDistributions>},
    {"readallfields", &set_bool<&Properties::readallfields>},
    {"writeallfields", &set_bool<&Properties::writeallfields>},
    {"readproportion", &set_double<&Properties::readproportion>},
    {"updateproportion", &set_double<&Properties::updateproportion>},
    {"insertproportion", &set_double<&Properties::insertproportion>},
    {"scanproportion", &set_double<&Properties::scanproportion>},
    {"readmodifywriteproportion", &set_double<&Properties::readmodifywriteproportion>},
    {"requestdistribution",
     &set_distribution<&Properties::requestdistribution, kRequestDistributions>},
    {"minscanlength", &set_u32<&Properties::minscanlength>},
    {"maxscanlength", &set_u32<&Properties::maxscanlength>},
    {"scanlengthdistribution",
     &set_distribution<&Properties::scanlengthdistribution, kScanLengthDistributions>},
    {"insertorder", &set_insertorder},
    {"zeropadding", &set_u32<&Properties::zeropadding>},
    {"hotspotdatafraction", &set_double<&Properties::hotspotdatafraction>},
    {"hotspotopnfraction", &set_double<&Properties::hotspotopnfraction>},
    {"exponential.percentile", &set_double<&Properties::exponential_percentile>},
    {"exponential.frac", &set_double<&Properties::exponential_frac>},
    {"zipfian.constant", &set_double<&Properties::zipfian_constant>},
    {"dataintegrity", &set_bool<&Properties::dataintegrity>},
}};

template <typename Container>
void check_distribution(std::vector<std::string>& problems, std::string_view name, Distribution d,
                        const Container& allowed) {
  if (std::find(allowed.begin(), allowed.end(), d) == allowed.end()) {
    problems.push_back(fmt::format("{}: {} is not allowed here (valid: {})", name,
                                   distribution_name(d), distribution_list(allowed)));
  }
}

void check_fraction(std::vector<std::string>& problems, std::string_view name, double value) {
  if (!(value >= 0 && value <= 1)) {
    problems.push_back(fmt::format("{}: {} is not in [0, 1]", name, value));
  }
}

}  // namespace

std::string_view distribution_name(Distribution d) {
  switch (d) {
    case Distribution::uniform:
      return "uniform";
    case Distribution::zipfian:
      return "zipfian";
    case Distribution::latest:
      return "latest";
    case Distribution::hotspot:
      return "hotspot";
    case Distribution::exponential:
      return "exponential";
    case Distribution::sequential:
      return "sequential";
    case Distribution::constant:
      return "constant";
  }
  return "unknown";
}

std::optional<Properties> workload_preset(char letter) {
  Properties p;
  p.recordcount = 1000;
  p.operationcount = 1000;
  p.readallfields = true;
  p.requestdistribution = Distribution::zipfian;
  p.scanproportion = 0;
  p.insertproportion = 0;
  switch (std::tolower(static_cast<unsigned char>(letter))) {
    case 'a':  // update heavy
      p.readproportion = 0.5;
      p.updateproportion = 0.5;
      break;
    case 'b':  // read mostly
      p.readproportion = 0.95;
      p.updateproportion = 0.05;
      break;
    case 'c':  // read only
      p.readproportion = 1;
      p.updateproportion = 0;
      break;
    case 'd':  // read latest
      p.readproportion = 0.95;
      p.updateproportion = 0;
      p.insertproportion = 0.05;
      p.requestdistribution = Distribution::latest;
      break;
    case 'e':  // short ranges
      p.readproportion = 0;
      p.updateproportion = 0;
      p.scanproportion = 0.95;
      p.insertproportion = 0.05;
      p.maxscanlength = 100;
      p.scanlengthdistribution = Distribution::uniform;
      break;
    case 'f':  // read-modify-write
      p.readproportion = 0.5;
      p.updateproportion = 0;
      p.readmodifywriteproportion = 0.5;
      break;
    default:
      return std::nullopt;
  }
  return p;
}

std::string set_property(Properties& p, std::string_view name, std::string_view value) {
  for (const PropertySpec& spec : kProperties) {
    if (spec.name == name) return spec.set(p, spec.name, value);
  }
  return fmt::format("unknown property \"{}\"", name);
}

const std::vector<std::string>& property_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    out.reserve(std::size(kProperties));
    for (const PropertySpec& spec : kProperties) out.emplace_back(spec.name);
    std::sort(out.begin(), out.end());
    return out;
  }();
  return names;
}

std::vector<std::string> check_properties(const Properties& p) {
  std::vector<std::string> problems;
  auto problem = [&](std::string message) { problems.push_back(std::move(message)); };

  const std::array<std::pair<std::string_view, double>, 5> proportions = {{
      {"readproportion", p.readproportion},
      {"updateproportion", p.updateproportion},
      {"insertproportion", p.insertproportion},
      {"scanproportion", p.scanproportion},
      {"readmodifywriteproportion", p.readmodifywriteproportion},
  }};
  double sum = 0;
  for (const auto& [name, value] : proportions) {
    if (!(value >= 0)) problem(fmt::format("{}: {} is negative", name, value));
    sum += value;
  }
  if (!(std::abs(sum - 1) <= 1e-9)) {
    problem(
        fmt::format("readproportion + updateproportion + insertproportion + scanproportion + "
                    "readmodifywriteproportion: the proportions sum to {}, not 1",
                    sum));
  }

  if (p.recordcount < 1) problem("recordcount: must be at least 1 (is 0)");
  if (p.recordcount >= 1 && p.insertstart >= p.recordcount) {
    problem(
        fmt::format("insertstart: {} is not below recordcount {}", p.insertstart, p.recordcount));
  } else if (p.recordcount >= 1 && p.insertcount > p.recordcount - p.insertstart) {
    problem(fmt::format("insertcount: insertstart {} + insertcount {} exceeds recordcount {}",
                        p.insertstart, p.insertcount, p.recordcount));
  }
  if (p.fieldcount < 1) problem("fieldcount: must be at least 1 (is 0)");
  if (p.fieldlength < 1) problem("fieldlength: must be at least 1 (is 0)");
  if (p.minfieldlength > p.fieldlength) {
    problem(
        fmt::format("minfieldlength: {} exceeds fieldlength {}", p.minfieldlength, p.fieldlength));
  }
  if (p.minscanlength < 1) problem("minscanlength: must be at least 1 (is 0)");
  if (p.minscanlength > p.maxscanlength) {
    problem(fmt::format("minscanlength: {} exceeds maxscanlength {}", p.minscanlength,
                        p.maxscanlength));
  }
  // Only a workload that scans draws scan lengths: workload a keeps YCSB's default
  // maxscanlength (1000) at any recordcount.
  if (p.scanproportion > 0 && p.maxscanlength > p.recordcount) {
    problem(
        fmt::format("maxscanlength: {} exceeds recordcount {}", p.maxscanlength, p.recordcount));
  }
  check_fraction(problems, "hotspotdatafraction", p.hotspotdatafraction);
  check_fraction(problems, "hotspotopnfraction", p.hotspotopnfraction);
  if (!(p.exponential_percentile > 0 && p.exponential_percentile < 100)) {
    problem(fmt::format("exponential.percentile: {} is not in (0, 100)", p.exponential_percentile));
  }
  if (!(p.exponential_frac > 0 && std::isfinite(p.exponential_frac))) {
    problem(fmt::format("exponential.frac: {} is not above 0", p.exponential_frac));
  }
  if (!(p.zipfian_constant > 0 && p.zipfian_constant < 1)) {
    problem(fmt::format("zipfian.constant: {} is not in (0, 1)", p.zipfian_constant));
  }
  check_distribution(problems, "requestdistribution", p.requestdistribution, kRequestDistributions);
  check_distribution(problems, "fieldlengthdistribution", p.fieldlengthdistribution,
                     kFieldLengthDistributions);
  check_distribution(problems, "scanlengthdistribution", p.scanlengthdistribution,
                     kScanLengthDistributions);
  return problems;
}

}  // namespace storh::ycsb
