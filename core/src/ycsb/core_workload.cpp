#include "ycsb/core_workload.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "ycsb/generators.h"
#include "ycsb/values.h"

namespace storh::ycsb {
namespace {

// The request distribution. Sequential is shared by every client (one counter, as in
// YCSB), the others are per-client copies of one prototype.
using KeyChooser =
    std::variant<UniformLongGenerator, ScrambledZipfianGenerator, SkewedLatestGenerator,
                 HotspotIntegerGenerator, ExponentialGenerator, SequentialGenerator*>;
using LengthGenerator =
    std::variant<ConstantIntegerGenerator, UniformLongGenerator, ZipfianGenerator>;

std::int64_t draw(LengthGenerator& generator, Rng& rng) {
  return std::visit([&](auto& g) { return g.next(rng); }, generator);
}

LengthGenerator make_length_generator(Distribution d, std::int64_t min, std::int64_t max,
                                      double zipfian_constant) {
  switch (d) {
    case Distribution::uniform:
      return UniformLongGenerator(min, max);
    case Distribution::zipfian:
      return ZipfianGenerator(min, max, zipfian_constant);
    default:
      return ConstantIntegerGenerator(max);
  }
}

std::string quoted_excerpt(std::string_view s, std::size_t from) {
  constexpr std::size_t kShown = 24;
  std::string out = from > 0 ? "\"..." : "\"";
  for (char c : s.substr(from, kShown)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  out += from + kShown < s.size() ? "...\"" : "\"";
  return out;
}

// "fieldN" with N < count, as N; else -1.
std::int64_t field_index(std::string_view name, std::uint32_t count) {
  constexpr std::string_view kPrefix = "field";
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits[0] == '0')) return -1;
  std::int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n < count ? n : -1;
}

}  // namespace

std::string_view op_name(Op op) {
  switch (op) {
    case Op::read:
      return "read";
    case Op::update:
      return "update";
    case Op::insert:
      return "insert";
    case Op::scan:
      return "scan";
    case Op::read_modify_write:
      return "read_modify_write";
  }
  return "unknown";
}

struct CoreWorkload::Shared {
  Shared(const Properties& p, std::uint64_t s)
      : props(p),
        seed(s),
        load_sequence(static_cast<std::int64_t>(p.insertstart)),
        insert_sequence(static_cast<std::int64_t>(p.recordcount)),
        key_chooser(UniformLongGenerator(0, 0)),
        field_length(make_length_generator(p.fieldlengthdistribution, p.minfieldlength,
                                           p.fieldlength, p.zipfian_constant)),
        scan_length(make_length_generator(p.scanlengthdistribution, p.minscanlength,
                                          p.maxscanlength, p.zipfian_constant)),
        field_chooser(0, std::int64_t{p.fieldcount} - 1) {}

  Properties props;
  std::uint64_t seed;
  std::vector<std::string> field_names;
  DiscreteGenerator<Op> op_chooser;
  CounterGenerator load_sequence;                // YCSB's keysequence
  AcknowledgedCounterGenerator insert_sequence;  // YCSB's transactioninsertkeysequence
  std::unique_ptr<SequentialGenerator> sequential;
  // Prototypes each client copies.
  KeyChooser key_chooser;
  LengthGenerator field_length;
  LengthGenerator scan_length;
  UniformLongGenerator field_chooser;
  // The last generation an update took (values.h): one counter for every client, so
  // no two updates write the same bytes.
  std::atomic<std::uint64_t> last_generation{0};

  // With dataintegrity, generation_value(key, name, generation, a drawn length).
  storh::KvField make_field(std::string_view key, std::size_t field, LengthGenerator& length,
                            Rng& rng, std::uint64_t generation) const {
    const auto size = static_cast<std::size_t>(std::max<std::int64_t>(0, draw(length, rng)));
    const std::string& name = field_names[field];
    return {name, props.dataintegrity ? generation_value(key, name, generation, size)
                                      : random_value(rng, size)};
  }
};

CoreWorkload::CoreWorkload(const Properties& p, std::uint64_t seed) {
  const std::vector<std::string> problems = check_properties(p);
  if (!problems.empty()) {
    std::string message = "ycsb properties:";
    for (const std::string& problem : problems) message += "\n  " + problem;
    throw std::invalid_argument(message);
  }
  shared_ = std::make_unique<Shared>(p, seed);
  Shared& s = *shared_;
  for (std::uint32_t i = 0; i < p.fieldcount; ++i)
    s.field_names.push_back(fmt::format("field{}", i));

  // createOperationGenerator: only the operations with a positive share, in this order.
  const std::pair<double, Op> ops[] = {{p.readproportion, Op::read},
                                       {p.updateproportion, Op::update},
                                       {p.insertproportion, Op::insert},
                                       {p.scanproportion, Op::scan},
                                       {p.readmodifywriteproportion, Op::read_modify_write}};
  for (const auto& [weight, op] : ops) {
    if (weight > 0) s.op_chooser.add_value(weight, op);
  }

  const auto insertstart = static_cast<std::int64_t>(p.insertstart);
  const auto insertcount = static_cast<std::int64_t>(p.effective_insertcount());
  switch (p.requestdistribution) {
    case Distribution::zipfian: {
      // Room for the keys the run will insert, so that inserts do not change which keys
      // are popular; draws beyond the inserted keys are redrawn (YCSB's int cast kept).
      const std::int64_t expectednewkeys = std::min<std::int64_t>(
          java_long(static_cast<double>(p.operationcount) * p.insertproportion * 2.0),
          std::numeric_limits<std::int32_t>::max());
      s.key_chooser = ScrambledZipfianGenerator(
          insertstart, insertstart + insertcount + expectednewkeys, p.zipfian_constant);
      break;
    }
    case Distribution::latest:
      s.key_chooser = SkewedLatestGenerator(s.insert_sequence, p.zipfian_constant);
      break;
    case Distribution::hotspot:
      s.key_chooser = HotspotIntegerGenerator(insertstart, insertstart + insertcount - 1,
                                              p.hotspotdatafraction, p.hotspotopnfraction);
      break;
    case Distribution::exponential:
      s.key_chooser = ExponentialGenerator(p.exponential_percentile,
                                           static_cast<double>(p.recordcount) * p.exponential_frac);
      break;
    case Distribution::sequential:
      s.sequential =
          std::make_unique<SequentialGenerator>(insertstart, insertstart + insertcount - 1);
      s.key_chooser = s.sequential.get();
      break;
    default:  // uniform; check_properties allows no other
      s.key_chooser = UniformLongGenerator(insertstart, insertstart + insertcount - 1);
      break;
  }
}

Expected<CoreWorkload> CoreWorkload::create(const Properties& p, std::uint64_t seed) {
  try {
    return CoreWorkload(p, seed);
  } catch (const std::exception& e) {
    return Error{e.what()};
  }
}

CoreWorkload::~CoreWorkload() = default;
CoreWorkload::CoreWorkload(CoreWorkload&&) noexcept = default;
CoreWorkload& CoreWorkload::operator=(CoreWorkload&&) noexcept = default;

const Properties& CoreWorkload::properties() const {
  return shared_->props;
}

std::string CoreWorkload::key_name(std::uint64_t keynum) const {
  return build_key_name(keynum, shared_->props.zeropadding, shared_->props.orderedinserts);
}

const std::vector<std::string>& CoreWorkload::field_names() const {
  return shared_->field_names;
}

storh::KvRecord CoreWorkload::build_record(std::string_view key, Rng& rng) const {
  LengthGenerator length = shared_->field_length;
  storh::KvRecord record;
  record.reserve(shared_->field_names.size());
  for (std::size_t i = 0; i < shared_->field_names.size(); ++i) {
    record.push_back(shared_->make_field(key, i, length, rng, 0));
  }
  return record;
}

std::string CoreWorkload::verify(std::string_view key, const storh::KvRecord& got,
                                 const std::vector<std::string>& asked) const {
  const Properties& p = shared_->props;
  std::vector<char> wanted(p.fieldcount, asked.empty() ? 1 : 0);
  for (const std::string& name : asked) {
    const std::int64_t i = field_index(name, p.fieldcount);
    if (i >= 0) wanted[static_cast<std::size_t>(i)] = 1;
  }
  std::vector<char> seen(p.fieldcount, 0);
  for (const storh::KvField& field : got) {
    const std::int64_t i = field_index(field.name, p.fieldcount);
    if (i < 0) {
      return fmt::format("{} of {}: not a field of this workload (field0 .. field{})", field.name,
                         key, p.fieldcount - 1);
    }
    const auto index = static_cast<std::size_t>(i);
    if (!wanted[index]) return fmt::format("{} of {}: returned but not asked for", field.name, key);
    if (seen[index]) return fmt::format("{} of {}: returned twice", field.name, key);
    seen[index] = 1;
    if (!p.dataintegrity) continue;

    const std::string& value = field.value;
    const bool constant = p.fieldlengthdistribution == Distribution::constant;
    const std::size_t min_size = constant ? p.fieldlength : p.minfieldlength;
    const std::size_t max_size = p.fieldlength;
    const std::size_t expected_size = std::clamp(value.size(), min_size, max_size);
    const std::string expected =
        generation_value(key, field.name, claimed_generation(value), expected_size);
    if (value == expected) continue;
    const auto mismatch =
        std::mismatch(value.begin(), value.end(), expected.begin(), expected.end());
    const auto first_difference = static_cast<std::size_t>(mismatch.first - value.begin());
    const std::size_t from = first_difference < 16 ? 0 : first_difference - 8;
    const std::string sizes = constant || value.size() == expected_size
                                  ? fmt::format("{} bytes", expected_size)
                                  : fmt::format("{} to {} bytes", min_size, max_size);
    return fmt::format(
        "{} of {}: expected {} starting {}, got {} bytes starting {} (first "
        "difference at byte {})",
        field.name, key, sizes, quoted_excerpt(expected, from), value.size(),
        quoted_excerpt(value, from), first_difference);
  }
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i] && !seen[i]) {
      return fmt::format("{} of {}: missing ({} of {} fields asked for returned)",
                         shared_->field_names[i], key, got.size(),
                         std::count(wanted.begin(), wanted.end(), 1));
    }
  }
  return {};
}

struct CoreWorkload::Client::State {
  Shared* shared;
  Rng rng;
  KeyChooser key_chooser;
  LengthGenerator field_length;
  LengthGenerator scan_length;
  UniformLongGenerator field_chooser;
};

CoreWorkload::Client CoreWorkload::client(std::uint32_t index) {
  Shared& s = *shared_;
  return Client(std::make_unique<Client::State>(Client::State{
      &s, Rng(s.seed, index), s.key_chooser, s.field_length, s.scan_length, s.field_chooser}));
}

CoreWorkload::Client::Client(std::unique_ptr<State> state) : state_(std::move(state)) {}
CoreWorkload::Client::~Client() = default;
CoreWorkload::Client::Client(Client&&) noexcept = default;
CoreWorkload::Client& CoreWorkload::Client::operator=(Client&&) noexcept = default;

Op CoreWorkload::Client::next_op() {
  return state_->shared->op_chooser.next(state_->rng);
}

std::uint64_t CoreWorkload::Client::next_keynum() {
  State& st = *state_;
  const AcknowledgedCounterGenerator& inserted = st.shared->insert_sequence;
  if (auto* exponential = std::get_if<ExponentialGenerator>(&st.key_chooser)) {
    // The most recent key is the most popular; a draw beyond the first key is redrawn.
    std::int64_t keynum;
    do {
      keynum = inserted.last_value() - java_long(exponential->next(st.rng));
    } while (keynum < 0);
    return static_cast<std::uint64_t>(keynum);
  }
  // A key not yet inserted (zipfian's room for inserts) is redrawn.
  std::int64_t keynum;
  do {
    keynum = std::visit(
        [&](auto& g) -> std::int64_t {
          using G = std::decay_t<decltype(g)>;
          if constexpr (std::is_same_v<G, SequentialGenerator*>) {
            return g->next();
          } else if constexpr (std::is_same_v<G, ExponentialGenerator>) {
            return java_long(g.next(st.rng));  // not reached: handled above
          } else {
            return g.next(st.rng);
          }
        },
        st.key_chooser);
  } while (keynum > inserted.last_value());
  return static_cast<std::uint64_t>(keynum);
}

std::uint64_t CoreWorkload::Client::next_insert_keynum() {
  return static_cast<std::uint64_t>(state_->shared->insert_sequence.next());
}

bool CoreWorkload::Client::acknowledge_insert(std::uint64_t keynum) {
  return state_->shared->insert_sequence.acknowledge(static_cast<std::int64_t>(keynum));
}

std::uint64_t CoreWorkload::Client::next_load_keynum() {
  return static_cast<std::uint64_t>(state_->shared->load_sequence.next());
}

std::uint32_t CoreWorkload::Client::next_scan_length() {
  return static_cast<std::uint32_t>(draw(state_->scan_length, state_->rng));
}

std::vector<std::string> CoreWorkload::Client::read_fields() {
  State& st = *state_;
  if (st.shared->props.readallfields) return {};
  const auto i = static_cast<std::size_t>(st.field_chooser.next(st.rng));
  return {st.shared->field_names[i]};
}

storh::KvRecord CoreWorkload::Client::update_values(std::string_view key) {
  State& st = *state_;
  Shared& s = *st.shared;
  // Relaxed: the counter only has to hand out distinct numbers.
  const std::uint64_t generation = s.last_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  storh::KvRecord values;
  if (s.props.writeallfields) {
    values.reserve(s.field_names.size());
    for (std::size_t i = 0; i < s.field_names.size(); ++i) {
      values.push_back(s.make_field(key, i, st.field_length, st.rng, generation));
    }
  } else {
    const auto i = static_cast<std::size_t>(st.field_chooser.next(st.rng));
    values.push_back(s.make_field(key, i, st.field_length, st.rng, generation));
  }
  return values;
}

Rng& CoreWorkload::Client::rng() {
  return state_->rng;
}

}  // namespace storh::ycsb
