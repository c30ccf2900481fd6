// A small XML 1.0 reader for tests that hold written XML (JUnit reports) to
// well-formedness and then look at its elements.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace storh::test {

// A small XML 1.0 reader, enough to hold JUnit files to well-formedness: a prolog,
// one root, matched tags, quoted attributes without '<', and only the predefined or
// numeric entities in text and attributes. Throws std::runtime_error on anything else.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;  // unescaped
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // unescaped
};

class XmlReader {
 public:
  explicit XmlReader(std::string text) : text_(std::move(text)) {}

  std::unique_ptr<XmlElement> document() {
    expect("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    skip_space();
    auto root = element();
    skip_space();
    if (at_ != text_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML at byte " + std::to_string(at_) + ": " + what);
  }
  void expect(std::string_view literal) {
    if (text_.compare(at_, literal.size(), literal) != 0) fail("expected " + std::string(literal));
    at_ += literal.size();
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  std::string name() {
    const std::size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) ||
                                  text_[at_] == '-' || text_[at_] == '_')) {
      ++at_;
    }
    if (at_ == start) fail("expected a name");
    return text_.substr(start, at_ - start);
  }
  // Text up to `stop`, entities resolved.
  std::string characters(char stop) {
    std::string out;
    while (at_ < text_.size() && text_[at_] != stop) {
      const char c = text_[at_];
      if (c == '<') fail("'<' in text or an attribute");
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
        fail("a control character");
      }
      if (c != '&') {
        out += c;
        ++at_;
        continue;
      }
      const std::size_t end = text_.find(';', at_);
      if (end == std::string::npos) fail("an unterminated entity");
      const std::string entity = text_.substr(at_ + 1, end - at_ - 1);
      static const std::map<std::string, std::string> predefined = {
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
      if (const auto known = predefined.find(entity); known != predefined.end()) {
        out += known->second;
      } else if (entity.size() > 1 && entity[0] == '#' &&
                 entity.find_first_not_of("0123456789", 1) == std::string::npos) {
        out += static_cast<char>(std::stoi(entity.substr(1)));
      } else {
        fail("unknown entity &" + entity + ";");
      }
      at_ = end + 1;
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    auto node = std::make_unique<XmlElement>();
    expect("<");
    node->name = name();
    while (true) {
      skip_space();
      if (text_.compare(at_, 2, "/>") == 0) {
        at_ += 2;
        return node;
      }
      if (text_.compare(at_, 1, ">") == 0) break;
      const std::string attribute = name();
      expect("=\"");
      if (node->attributes.count(attribute) != 0) fail("a repeated attribute " + attribute);
      node->attributes[attribute] = characters('"');
      expect("\"");
    }
    ++at_;
    while (true) {
      node->text += characters('<');
      if (text_.compare(at_, 2, "</") == 0) break;
      node->children.push_back(element());
    }
    at_ += 2;
    if (name() != node->name) fail("an end tag that does not match <" + node->name + ">");
    expect(">");
    return node;
  }

  std::string text_;
  std::size_t at_ = 0;
};

}  // namespace storh::test
