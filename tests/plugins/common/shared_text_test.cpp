// SharedText: copies share one allocation, the text never changes, and copies made and
// dropped on several threads at once are safe (run under ThreadSanitizer by tsan.sh).
#include <catch2/catch.hpp>

#include <cstddef>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/shared_text.h"

using storh::engines::SharedText;

TEST_CASE("shared text: a copy shares the characters, equality compares the text",
          "[shared_text]") {
  std::string source = R"({"n":1})";
  const SharedText text(source);
  source[2] = 'x';  // the text is a copy of the source, not a view of it
  CHECK(text == std::string_view(R"({"n":1})"));
  CHECK(text.size() == 7);
  CHECK_FALSE(text.empty());

  const SharedText copy = text;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(copy.same_storage(text));
  CHECK(copy.data() == text.data());

  const SharedText twin(R"({"n":1})");
  CHECK(twin == text);
  CHECK_FALSE(twin.same_storage(text));
  CHECK_FALSE(SharedText("{}") == text);
}

TEST_CASE("shared text: the empty text allocates nothing and reads as empty", "[shared_text]") {
  const SharedText none;
  const SharedText empty{std::string_view()};
  CHECK(none.empty());
  CHECK(empty.empty());
  CHECK(none.data() == nullptr);
  CHECK(empty.data() == nullptr);
  CHECK(none == empty);
  CHECK(none == std::string_view());
  CHECK(none.str().empty());
}

TEST_CASE("shared text: a moved-from text is empty, its copies keep the text", "[shared_text]") {
  SharedText source("abc");
  const SharedText copy = source;
  const SharedText moved = std::move(source);
  CHECK(moved == std::string_view("abc"));
  CHECK(moved.same_storage(copy));
  CHECK(source.empty());  // NOLINT(bugprone-use-after-move): the state a move leaves
  CHECK(source.view().empty());
  CHECK_FALSE(source.same_storage(SharedText()));
  SharedText target("y");
  SharedText from("z");
  target = std::move(from);
  CHECK(target == std::string_view("z"));
  CHECK(from.size() == 0);  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("shared text: a copy outlives the original and prints its text", "[shared_text]") {
  SharedText kept;
  {
    const SharedText original(std::string(1000, 'a'));
    kept = original;
  }
  CHECK(kept.view() == std::string(1000, 'a'));
  std::ostringstream out;
  out << SharedText("[]");
  CHECK(out.str() == "[]");
}

TEST_CASE("shared text: threads copy and drop copies of one text concurrently", "[shared_text]") {
  const SharedText text(std::string(200, 'q'));
  constexpr int kThreads = 4;
  constexpr int kCopies = 20000;
  std::vector<std::size_t> sizes(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&text, &sizes, t] {
      std::vector<SharedText> copies;
      for (int i = 0; i < kCopies; ++i) {
        copies.push_back(text);
        if (copies.size() == 64) copies.clear();
      }
      sizes[t] = copies.empty() ? text.size() : copies.back().view().size();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::size_t size : sizes) CHECK(size == 200);
  CHECK(text == std::string(200, 'q'));
}

TEST_CASE("shared text: an arena's texts share blocks and outlive the arena", "[shared_text]") {
  using storh::engines::SharedTextArena;
  std::vector<SharedText> texts;
  {
    SharedTextArena arena;
    // More than a block's worth of small texts, then one too large for a block.
    for (int i = 0; i < 2000; ++i) texts.push_back(arena.copy("text-" + std::to_string(i)));
    texts.push_back(arena.copy(std::string(SharedTextArena::kLargeText + 1, 'L')));
    CHECK(arena.copy("").empty());
    CHECK(arena.copy("").data() == nullptr);
    // Texts next to each other in one block are not the same storage; a copy is.
    CHECK(texts[1].data() == texts[0].data() + texts[0].size());
    CHECK_FALSE(texts[1].same_storage(texts[0]));
    const SharedText copy = texts[1];  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(copy.same_storage(texts[1]));
  }
  for (int i = 0; i < 2000; ++i) {
    INFO(i);
    CHECK(texts[static_cast<std::size_t>(i)] == "text-" + std::to_string(i));
  }
  CHECK(texts.back() == std::string(SharedTextArena::kLargeText + 1, 'L'));
  // Dropping most texts keeps the others' blocks alive.
  texts.erase(texts.begin(), texts.begin() + 1999);
  CHECK(texts.front() == std::string_view("text-1999"));
}
