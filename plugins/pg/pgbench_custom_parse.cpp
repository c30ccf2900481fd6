// The custom-script parser: psql's lexer as pgbench uses it for SQL (quotes, dollar
// quotes, comments and parentheses decide where a ';' ends a command), then
// pgbench's meta-command checks (process_backslash_command, ParseScript,
// CheckConditional), each error with the line and column it is about.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pg/pgbench_custom.h"

namespace storh::engines::pg {
namespace {

struct Failure {
  std::size_t offset;
  std::string message;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool is_ident_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool is_ident(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

class ScriptParser {
 public:
  ScriptParser(std::string_view source, std::string_view text) : source_(source), text_(text) {}

  CustomScript parse() {
    CustomScript script;
    script.name = std::string(source_);
    while (pos_ < text_.size()) {
      if (std::optional<ScriptCommand> sql = scan_sql()) script.commands.push_back(std::move(*sql));
      if (pos_ < text_.size() && text_[pos_] == '\\') meta_command(script);
    }
    if (script.commands.empty()) throw Failure{0, "the script has no command"};
    check_conditionals(script);
    return script;
  }

  std::string located(const Failure& failure) const {
    const auto [line, column] = position(failure.offset);
    return fmt::format("{}:{}:{}: {}", source_, line, column, failure.message);
  }

 private:
  std::pair<int, int> position(std::size_t offset) const {
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    return {line, static_cast<int>(offset - line_start) + 1};
  }

  std::string line_from(std::size_t offset) const {
    const std::size_t end = text_.find('\n', offset);
    std::string_view line =
        text_.substr(offset, end == std::string_view::npos ? end : end - offset);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return std::string(line);
  }

  // Collects SQL up to a ';' at depth 0, a meta-command's backslash or the end.
  std::optional<ScriptCommand> scan_sql() {
    std::string buffer;
    std::size_t start = std::string_view::npos;
    int depth = 0;
    auto take = [&](std::size_t length) {
      if (start == std::string_view::npos) start = pos_;
      buffer.append(text_.substr(pos_, length));
      pos_ += length;
    };
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
      if (buffer.empty() && (is_space(c) || c == '\n')) {
        ++pos_;
      } else if (c == '-' && next == '-') {
        const std::size_t end = text_.find('\n', pos_);
        const std::size_t length = (end == std::string_view::npos ? text_.size() : end) - pos_;
        if (buffer.empty()) {
          pos_ += length;
        } else {
          take(length);
        }
      } else if (c == '/' && next == '*') {
        skip_block_comment(take);
      } else if (c == '\'' || c == '"') {
        const bool escapes = c == '\'' && !buffer.empty() &&
                             (buffer.back() == 'e' || buffer.back() == 'E') &&
                             (buffer.size() < 2 || !is_ident(buffer[buffer.size() - 2]));
        quoted(c, escapes, take);
      } else if (c == '$' && (buffer.empty() || !is_ident(buffer.back())) && dollar_quote(take)) {
      } else if (c == '\\') {
        if (next == ';' || next == ':') {
          if (start == std::string_view::npos) start = pos_;
          buffer.push_back(next);
          pos_ += 2;
        } else {
          break;  // a meta-command
        }
      } else {
        if (c == '(') ++depth;
        if (c == ')' && depth > 0) --depth;
        take(1);
        if (c == ';' && depth == 0) break;
      }
    }
    if (start == std::string_view::npos) return std::nullopt;
    ScriptCommand command;
    const auto [line, column] = position(start);
    command.line = line;
    command.column = column;
    command.first_line = buffer.substr(0, buffer.find_first_of("\r\n"));
    command.sql = std::move(buffer);
    return command;
  }

  template <typename Take>
  void skip_block_comment(Take& take) {
    const std::size_t open = pos_;
    int nesting = 0;
    while (pos_ < text_.size()) {
      if (text_.compare(pos_, 2, "/*") == 0) {
        ++nesting;
        take(2);
      } else if (text_.compare(pos_, 2, "*/") == 0) {
        take(2);
        if (--nesting == 0) return;
      } else {
        take(1);
      }
    }
    throw Failure{open, "unterminated /* comment that starts here"};
  }

  template <typename Take>
  void quoted(char quote, bool escapes, Take& take) {
    const std::size_t open = pos_;
    take(1);
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (escapes && c == '\\' && pos_ + 1 < text_.size()) {
        take(2);
      } else if (c == quote) {
        take(1);
        if (pos_ < text_.size() && text_[pos_] == quote) {
          take(1);  // a doubled quote stays inside
        } else {
          return;
        }
      } else {
        take(1);
      }
    }
    throw Failure{open, quote == '"' ? "unterminated quoted identifier that starts here"
                                     : "unterminated quoted string that starts here"};
  }

  // $tag$ ... $tag$; false (nothing taken) when the '$' starts no dollar quote ($1).
  template <typename Take>
  bool dollar_quote(Take& take) {
    std::size_t end = pos_ + 1;
    if (end < text_.size() && is_ident_start(text_[end])) {
      while (end < text_.size() && is_ident(text_[end]) && text_[end] != '$') ++end;
    }
    if (end >= text_.size() || text_[end] != '$') return false;
    const std::string tag(text_.substr(pos_, end - pos_ + 1));
    const std::size_t close = text_.find(tag, end + 1);
    if (close == std::string_view::npos) {
      throw Failure{pos_,
                    fmt::format("unterminated dollar-quoted string {} that starts here", tag)};
    }
    take(close + tag.size() - pos_);
    return true;
  }

  // The next word of a meta-command; nullopt at its end (the newline is consumed).
  std::optional<std::pair<std::string, std::size_t>> word() {
    for (;;) {
      if (pos_ >= text_.size()) return std::nullopt;
      const char c = text_[pos_];
      if (is_space(c)) {
        ++pos_;
      } else if (c == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
        pos_ += 2;
      } else if (c == '\n') {
        ++pos_;
        return std::nullopt;
      } else {
        break;
      }
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '\n') ++pos_;
    std::string result(text_.substr(start, pos_ - start));
    if (result.size() > 1 && result.back() == '\\' && pos_ < text_.size() && text_[pos_] == '\n') {
      result.pop_back();  // "word\" then a newline: the command continues
      ++pos_;
    }
    return std::make_pair(std::move(result), start);
  }

  void meta_command(CustomScript& script) {
    const std::size_t backslash = pos_++;
    ScriptCommand command;
    const auto [line, column] = position(backslash);
    command.line = line;
    command.column = column;
    command.first_line = line_from(backslash);
    std::size_t name_end = pos_;
    while (name_end < text_.size() && !is_space(text_[name_end]) && text_[name_end] != '\n') {
      ++name_end;
    }
    const std::string name = lower(text_.substr(pos_, name_end - pos_));
    pos_ = name_end;
    if (name == "set" || name == "if" || name == "elif") {
      command.meta = name == "set"  ? MetaCommand::set
                     : name == "if" ? MetaCommand::if_
                                    : MetaCommand::elif;
      if (command.meta == MetaCommand::set) {
        const auto variable = word();
        if (!variable)
          throw Failure{backslash, "\\set: expected a variable name and an expression"};
        if (!valid_variable_name(variable->first)) {
          throw Failure{variable->second,
                        fmt::format("\\set: invalid variable name \"{}\" (a letter or _ first, "
                                    "then letters, digits or _)",
                                    variable->first)};
        }
        command.variable = variable->first;
      }
      auto parsed = parse_expression(text_, pos_);
      if (const auto* error = std::get_if<ExprSyntaxError>(&parsed)) {
        throw Failure{error->offset, fmt::format("\\{}: {}", name, error->message)};
      }
      auto& expr = std::get<ParsedExpr>(parsed);
      command.expr = std::move(expr.expr);
      pos_ = expr.end;
      script.commands.push_back(std::move(command));
      return;
    }
    std::vector<std::pair<std::string, std::size_t>> args;
    while (auto next = word()) args.push_back(std::move(*next));
    if (name == "shell" || name == "setshell") {
      throw Failure{backslash, fmt::format("\\{}: a suite never runs commands; compute the value "
                                           "with \\set or read it from the database with \\gset",
                                           name)};
    }
    if (name == "sleep") {
      sleep_command(command, args, backslash);
    } else if (name == "gset" || name == "aset") {
      result_variables(script, name, args, backslash);
      return;
    } else if (name == "else" || name == "endif" || name == "startpipeline" ||
               name == "endpipeline") {
      if (!args.empty()) {
        throw Failure{args[0].second,
                      fmt::format("\\{}: unexpected argument \"{}\"", name, args[0].first)};
      }
      command.meta = name == "else"            ? MetaCommand::else_
                     : name == "endif"         ? MetaCommand::endif
                     : name == "startpipeline" ? MetaCommand::startpipeline
                                               : MetaCommand::endpipeline;
    } else {
      throw Failure{backslash,
                    fmt::format("unknown meta-command \"\\{}\" (valid: \\set, \\sleep, \\gset, "
                                "\\aset, \\if, \\elif, \\else, \\endif, \\startpipeline, "
                                "\\endpipeline)",
                                name)};
    }
    script.commands.push_back(std::move(command));
  }

  static void sleep_command(ScriptCommand& command,
                            std::vector<std::pair<std::string, std::size_t>>& args,
                            std::size_t backslash) {
    command.meta = MetaCommand::sleep;
    if (args.empty()) throw Failure{backslash, "\\sleep: expected a time (\\sleep n [us|ms|s])"};
    if (args.size() > 2) {
      throw Failure{args[2].second, "\\sleep: too many arguments (\\sleep n [us|ms|s])"};
    }
    const std::string& amount = args[0].first;
    if (amount[0] == ':') {
      command.sleep_variable = amount.substr(1);
    } else {
      std::size_t i = amount[0] == '+' || amount[0] == '-' ? 1 : 0;
      const std::size_t digits = i;
      while (i < amount.size() && amount[i] >= '0' && amount[i] <= '9') ++i;
      if (i < amount.size()) {
        if (args.size() != 1 || i == digits) {
          throw Failure{args[0].second, fmt::format("\\sleep: invalid sleep time \"{}\", must be "
                                                    "an integer or a :variable",
                                                    amount)};
        }
        args.emplace_back(amount.substr(i), args[0].second + i);  // "10ms"
      }
      command.sleep_amount = std::atoi(amount.c_str());
    }
    if (args.size() == 2) {
      const std::string unit = lower(args[1].first);
      if (unit == "us") {
        command.sleep_unit_us = 1;
      } else if (unit == "ms") {
        command.sleep_unit_us = 1000;
      } else if (unit != "s") {
        throw Failure{
            args[1].second,
            fmt::format("\\sleep: unknown time unit \"{}\" (valid: us, ms, s)", args[1].first)};
      }
    }
  }

  static void result_variables(CustomScript& script, const std::string& name,
                               const std::vector<std::pair<std::string, std::size_t>>& args,
                               std::size_t backslash) {
    if (args.size() > 1) {
      throw Failure{args[1].second,
                    fmt::format("\\{}: too many arguments (\\{} [prefix])", name, name)};
    }
    if (script.commands.empty() || script.commands.back().meta != MetaCommand::sql ||
        script.commands.back().result_variables != ResultVariables::none) {
      throw Failure{backslash, fmt::format("\\{} must follow an SQL command (it stores that "
                                           "command's result)",
                                           name)};
    }
    if (!args.empty() && !valid_variable_name(args[0].first)) {
      throw Failure{args[0].second,
                    fmt::format("\\{}: the prefix \"{}\" makes invalid variable names (a letter "
                                "or _ first, then letters, digits or _)",
                                name, args[0].first)};
    }
    ScriptCommand& sql = script.commands.back();
    sql.result_variables = name == "gset" ? ResultVariables::gset : ResultVariables::aset;
    if (!args.empty()) sql.prefix = args[0].first;
  }

  void check_conditionals(CustomScript& script) const {
    std::vector<std::size_t> open;  // the \if, then its latest branch
    std::vector<std::size_t> branches;
    auto fail_at = [&](const ScriptCommand& command, std::string message) {
      return Failure{offset_of(command), std::move(message)};
    };
    for (std::size_t i = 0; i < script.commands.size(); ++i) {
      ScriptCommand& command = script.commands[i];
      switch (command.meta) {
        case MetaCommand::if_:
          open.push_back(i);
          branches.push_back(i);
          break;
        case MetaCommand::elif:
        case MetaCommand::else_: {
          const char* what = command.meta == MetaCommand::elif ? "\\elif" : "\\else";
          if (open.empty()) throw fail_at(command, fmt::format("{} without matching \\if", what));
          const ScriptCommand& last = script.commands[branches.back()];
          if (last.meta == MetaCommand::else_) {
            throw fail_at(command, fmt::format("{} after the \\else of line {}", what, last.line));
          }
          script.commands[branches.back()].next_branch = i;
          branches.back() = i;
          break;
        }
        case MetaCommand::endif: {
          if (open.empty()) throw fail_at(command, "\\endif without matching \\if");
          script.commands[branches.back()].next_branch = i;
          for (std::size_t j = open.back(); j <= i; ++j) {
            const MetaCommand meta = script.commands[j].meta;
            if (meta == MetaCommand::if_ || meta == MetaCommand::elif ||
                meta == MetaCommand::else_ || meta == MetaCommand::endif) {
              // Only this \if's own branches: inner ones were closed before and keep theirs.
              if (script.commands[j].endif == 0) script.commands[j].endif = i;
            }
          }
          open.pop_back();
          branches.pop_back();
          break;
        }
        default:
          break;
      }
    }
    if (!open.empty()) {
      throw fail_at(script.commands[open.back()], "\\if without matching \\endif");
    }
  }

  std::size_t offset_of(const ScriptCommand& command) const {
    std::size_t offset = 0;
    for (int line = 1; line < command.line; ++line) offset = text_.find('\n', offset) + 1;
    return offset + static_cast<std::size_t>(command.column) - 1;
  }

  std::string_view source_;
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

ScriptParse parse_custom_script(std::string_view source, std::string_view text) {
  ScriptParser parser(source, text);
  try {
    return {parser.parse(), {}};
  } catch (const Failure& failure) {
    return {std::nullopt, parser.located(failure)};
  }
}

ScriptParse load_custom_script(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return {std::nullopt, fmt::format("{}: cannot read the script: {}", path.string(),
                                      std::error_code(errno, std::generic_category()).message())};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_custom_script(path.string(), text.str());
}

}  // namespace storh::engines::pg
