// Tests for bpe_trainer.hpp: merge sequences worked out by hand, every merge checked against a naive recount of
// all pairs, the files loaded by Gpt2Tokenizer (which then encodes the training text as training segmented it),
// GPT-2's byte ids, round trips of any bytes, and the errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "blockscope/bpe_trainer.hpp"
#include "blockscope/error.hpp"
#include "gpt2_pretokenizer.hpp"
#include "support/files.hpp"

using namespace blockscope;
using Catch::Matchers::Contains;

namespace {

BpeVocabulary train(const std::string& text, int64_t merges, int64_t min_frequency = 2, bool eot = false) {
  BpeTrainer trainer({merges, min_frequency, eot});
  trainer.add_text(text);
  return trainer.train();
}

// The merges as (left bytes, right bytes, count).
using ByteMerge = std::tuple<std::string, std::string, int64_t>;
std::vector<ByteMerge> byte_merges(const BpeVocabulary& v) {
  std::vector<ByteMerge> out;
  for (const auto& m : v.merges) out.emplace_back(v.tokens[m.left], v.tokens[m.right], m.count);
  return out;
}

// Words of random length over a small alphabet with two-byte 'é' and a stray 0xFF byte (so the tie-break's
// unsigned byte order matters), separated by spaces and newlines.
std::string random_corpus(std::mt19937& rng, size_t bytes) {
  const std::vector<std::string> letters = {"a", "b", "c", "\xC3\xA9", "\xFF", "1"};
  std::string text;
  while (text.size() < bytes) {
    const int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) text += letters[rng() % letters.size()];
    text += rng() % 5 == 0 ? "\n" : " ";
  }
  return text;
}

// Naive BPE: every word occurrence as a list of token byte strings; pairs are recounted from scratch.
struct NaiveBpe {
  std::vector<std::vector<std::string>> words;

  explicit NaiveBpe(const std::string& text) {
    for (std::string_view w : gpt2::split_words(text)) {
      std::vector<std::string> symbols;
      for (char c : w) symbols.emplace_back(1, c);
      words.push_back(symbols);
    }
  }
  std::map<std::pair<std::string, std::string>, int64_t> pair_counts() const {
    std::map<std::pair<std::string, std::string>, int64_t> counts;
    for (const auto& w : words)
      for (size_t i = 0; i + 1 < w.size(); ++i) ++counts[{w[i], w[i + 1]}];
    return counts;
  }
  void merge(const std::string& left, const std::string& right) {
    for (auto& w : words) {
      std::vector<std::string> out;
      for (size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == left && w[i + 1] == right) {
          out.push_back(left + right);
          ++i;
        } else {
          out.push_back(w[i]);
        }
      }
      w = out;
    }
  }
};

std::string random_bytes(std::mt19937& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  for (char& c : s) c = static_cast<char>(rng() % 256);
  return s;
}

}  // namespace

TEST_CASE("bpe trainer: merges aaabdaaabac as worked by hand, ties going to the smaller bytes", "[bpe]") {
  // The example of Wikipedia's "Byte pair encoding" page. Pairs: aa 4, ab 2, ... -> Z=aa: "ZabdZabac". Then Za
  // and ab tie at 2: "a" sorts before "aa", so Y=ab: "ZYdZYac"; then X=ZY (2): "XdXac". All remaining pairs occur
  // once: a+c ("a" is the smallest left token), then aaab+ac ("ac" < "d"), aaab+d, and the whole word.
  const BpeVocabulary v = train("aaabdaaabac", 100, /*min_frequency=*/1);
  const std::vector<ByteMerge> expected = {{"a", "a", 4},        {"a", "b", 2},     {"aa", "ab", 2},
                                           {"a", "c", 1},        {"aaab", "ac", 1}, {"aaab", "d", 1},
                                           {"aaabd", "aaabac", 1}};
  CHECK(byte_merges(v) == expected);
  REQUIRE(v.vocab_size() == 256 + 7);
  CHECK(v.tokens[256] == "aa");
  CHECK(v.tokens.back() == "aaabdaaabac");
  CHECK(v.text_bytes == 11);
  CHECK(v.text_tokens == 1);
  CHECK(v.tokenizer().encode("aaabdaaabac") == std::vector<int32_t>{262});

  // With the default minimum frequency of 2, training stops after the first three.
  const BpeVocabulary v2 = train("aaabdaaabac", 100);
  CHECK(byte_merges(v2) == std::vector<ByteMerge>(expected.begin(), expected.begin() + 3));
  CHECK(v2.text_tokens == 5);  // X d X a c
}

TEST_CASE("bpe trainer: merges stay inside GPT-2's pre-tokenizer words", "[bpe]") {
  // Words: "ab", " ab", " ab", "\n", "ab": the pair (b, ' ') never exists; (' ', a) occurs twice.
  const BpeVocabulary v = train("ab ab ab\nab", 10);
  CHECK(byte_merges(v) == std::vector<ByteMerge>{{"a", "b", 4}, {" ", "ab", 2}});
  const Gpt2Tokenizer tok = v.tokenizer();
  CHECK(tok.encode("ab ab") == std::vector<int32_t>{256, 257});
  CHECK(tok.encode("ba") == std::vector<int32_t>{tok.encode("b")[0], tok.encode("a")[0]});
}

TEST_CASE("bpe trainer: each merge is the most frequent pair at its step (naive recount)", "[bpe]") {
  std::mt19937 rng(26);
  for (int trial = 0; trial < 4; ++trial) {
    const std::string text = random_corpus(rng, 3000);
    const int64_t min_frequency = 1 + trial;
    const BpeVocabulary v = train(text, 300, min_frequency);
    const std::vector<ByteMerge> merges = byte_merges(v);
    NaiveBpe naive(text);
    INFO("trial " << trial);
    for (size_t r = 0; r < v.merges.size(); ++r) {
      const auto counts = naive.pair_counts();
      // The most frequent pair; std::map orders equal counts' pairs by (left, right) bytes, so the first wins.
      auto best = counts.begin();
      for (auto it = counts.begin(); it != counts.end(); ++it)
        if (it->second > best->second) best = it;
      const auto& [left, right, count] = merges[r];
      INFO("merge " << r);
      REQUIRE(left == best->first.first);
      REQUIRE(right == best->first.second);
      REQUIRE(count == best->second);
      naive.merge(left, right);
    }
    // It stopped only because no pair was frequent enough.
    REQUIRE(static_cast<int64_t>(v.merges.size()) < 300);
    for (const auto& [pair, count] : naive.pair_counts()) CHECK(count < min_frequency);
    // The trainer's token count is the naive segmentation's.
    int64_t tokens = 0;
    for (const auto& w : naive.words) tokens += static_cast<int64_t>(w.size());
    CHECK(v.text_tokens == tokens);
  }
}

TEST_CASE("bpe trainer: Gpt2Tokenizer loads the files and encodes the training text as training segmented it",
          "[bpe]") {
  std::mt19937 rng(7);
  const std::string text = random_corpus(rng, 20000) + "The quick brown fox, the lazy dog's 1234 bones.\n";
  const BpeVocabulary v = train(text, 200, 2, /*eot=*/true);
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_strings(v.vocab_json(), v.merges_txt());
  REQUIRE(tok.vocab_size() == v.vocab_size());
  CHECK(tok.eot_id() == v.eot_id);
  CHECK(*v.eot_id == v.vocab_size() - 1);
  CHECK(tok.token_text(*v.eot_id) == "<|endoftext|>");
  for (int32_t id = 0; id < v.vocab_size(); ++id) REQUIRE(tok.token_text(id) == v.tokens[id]);
  CHECK(static_cast<int64_t>(tok.encode(text).size()) == v.text_tokens);
  CHECK(tok.encode("a<|endoftext|>b") == std::vector<int32_t>{tok.encode("a")[0], *v.eot_id, tok.encode("b")[0]});

  // From a directory, as `blockscope tokenize --tokenizer DIR` reads it.
  const auto dir = std::filesystem::temp_directory_path() / "blockscope_test_bpe_trainer";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "vocab.json", std::ios::binary) << v.vocab_json();
  std::ofstream(dir / "merges.txt", std::ios::binary) << v.merges_txt();
  const Gpt2Tokenizer from_dir = Gpt2Tokenizer::from_directory(dir.string());
  std::filesystem::remove_all(dir);
  CHECK(from_dir.encode(text) == tok.encode(text));
  CHECK(v.merges_txt().starts_with("#version: 0.2\n"));
}

TEST_CASE("bpe trainer: ids 0..255 are the single bytes in GPT-2's encoder.json order", "[bpe]") {
  const nlohmann::json gpt2 = nlohmann::json::parse(
      test_files::read_text(std::string(BLOCKSCOPE_GPT2_TOKENIZER_DIR) + "/encoder.json"));
  const nlohmann::json ours = nlohmann::json::parse(train("hello hello", 1).vocab_json());
  int matched = 0;
  for (const auto& [token, id] : ours.items()) {
    if (id.get<int>() >= 256) continue;
    CHECK(gpt2.at(token) == id);
    ++matched;
  }
  CHECK(matched == 256);
}

TEST_CASE("bpe trainer: decode(encode(bytes)) is the bytes, for any bytes", "[bpe]") {
  std::mt19937 rng(99);
  std::string corpus;
  for (int i = 0; i < 300; ++i) corpus += random_bytes(rng, 40);
  const Gpt2Tokenizer tok = train(corpus + random_corpus(rng, 5000), 400).tokenizer();
  for (int i = 0; i < 2000; ++i) {
    const std::string bytes = random_bytes(rng, 64);
    const std::vector<int32_t> ids = tok.encode(bytes);
    REQUIRE(tok.decode(ids) == bytes);
  }
}

TEST_CASE("bpe trainer: the text is split into words a piece at a time, exactly as split_words splits it whole",
          "[bpe]") {
  std::mt19937 rng(3);
  std::string text = random_corpus(rng, 4000) + "Line one.\n\nLine two!\n \nThree's\n\tfour 1st 2,000 x-y 'tis'\nfive";
  for (int i = 0; i < 300; ++i) text += random_bytes(rng, 6) + (i % 3 ? "a." : "'s ");
  const std::vector<std::string_view> whole = gpt2::split_words(text);
  for (size_t piece : {size_t{1}, size_t{7}, size_t{64}, size_t{1} << 20}) {
    std::vector<std::string_view> pieces;
    size_t cuts = 0;
    for (std::string_view rest = text; !rest.empty(); ++cuts) {
      const size_t cut = gpt2::next_safe_cut(rest, std::min(piece, rest.size()));
      for (std::string_view w : gpt2::split_words(rest.substr(0, cut))) pieces.push_back(w);
      rest.remove_prefix(cut);
    }
    INFO("piece bytes " << piece << ", " << cuts << " pieces");
    CHECK(pieces == whole);
    if (piece == 1) CHECK(cuts > 500);
  }
  // No cut inside a word, between spaces, at an apostrophe or outside ASCII.
  CHECK(gpt2::next_safe_cut("abcdef", 1) == 6);
  CHECK(gpt2::next_safe_cut("ab cd", 1) == 5);
  CHECK(gpt2::next_safe_cut("it's", 1) == 4);
  CHECK(gpt2::next_safe_cut("caf\xC3\xA9!", 1) == 6);
  CHECK(gpt2::next_safe_cut("word.", 1) == 4);
  CHECK(gpt2::next_safe_cut("1st", 1) == 1);
}

TEST_CASE("bpe trainer: several texts count like their concatenation at safe places", "[bpe]") {
  BpeTrainer two({50, 2, false});
  two.add_text("the cat sat on the mat\n");
  two.add_text("the dog sat on the log\n");
  const BpeVocabulary a = two.train();
  const BpeVocabulary b = train("the cat sat on the mat\nthe dog sat on the log\n", 50);
  CHECK(byte_merges(a) == byte_merges(b));
  CHECK(two.words() == 14);
  CHECK(two.text_bytes() == 46);
}

TEST_CASE("bpe trainer: bad options, no text and a too-small memory budget throw naming the problem", "[bpe][errors]") {
  CHECK_THROWS_WITH(BpeTrainer({0, 2, false}), Contains("merges must be in [1, 262144], got 0"));
  CHECK_THROWS_WITH(BpeTrainer({-5, 2, false}), Contains("got -5"));
  CHECK_THROWS_WITH(BpeTrainer({BpeTrainOptions::kMaxMerges + 1, 2, false}), Contains("got 262145"));
  CHECK_THROWS_WITH(BpeTrainer({10, 0, false}), Contains("minimum pair frequency") && Contains("got 0"));

  BpeTrainer empty({10, 2, false});
  empty.add_text("");
  CHECK_THROWS_WITH(empty.train(), Contains("the training text is empty"));
  BpeTrainer only_eot({10, 2, true});
  only_eot.add_text("<|endoftext|><|endoftext|>");
  CHECK_THROWS_WITH(only_eot.train(), Contains("empty") && Contains("<|endoftext|>"));

  MemoryBudget tiny;
  tiny.max_bytes = 1000;
  BpeTrainer small({10, 2, false}, tiny);
  CHECK_THROWS_WITH(small.add_text("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"),
                    Contains("word table") && Contains("memory budget"));
  MemoryBudget some;
  some.max_bytes = 4000;
  BpeTrainer pairs({10, 2, false}, some);
  pairs.add_text("antidisestablishmentarianism floccinaucinihilipilification");
  CHECK_THROWS_WITH(pairs.train(), Contains("pair tables") && Contains("memory budget"));
  // 3 MiB of letters cannot be cut into pieces: splitting it whole would need more than the budget.
  MemoryBudget ten;
  ten.max_bytes = 10 << 20;
  BpeTrainer uncut({10, 2, false}, ten);
  CHECK_THROWS_WITH(uncut.add_text(std::string(3 << 20, 'a')),
                    Contains("splitting 3.0 MiB of text with no place to cut it") && Contains("memory budget"));
  BpeTrainer cut({10, 2, false}, ten);
  std::string words;
  while (words.size() < (3 << 20)) words += "word, ";
  cut.add_text(words);  // cut at every ",": fits
  CHECK(cut.distinct_words() == 4);  // "word", ",", " word" and the final " "
}

TEST_CASE("bpe trainer: with --eot the text's <|endoftext|> separates words and is not learned", "[bpe]") {
  const std::string doc = "<|endoftext|>";
  const BpeVocabulary with = train("ab" + doc + "ab" + doc + "ab", 10, 2, true);
  CHECK(byte_merges(with) == std::vector<ByteMerge>{{"a", "b", 3}});
  CHECK(with.text_bytes == 6);
  // Without it, the marker is ordinary text: "<|", "endoftext", "|>" are words whose pairs get merged.
  const BpeVocabulary without = train("ab" + doc + "ab" + doc + "ab", 10);
  CHECK(without.merges.size() > 1);
  CHECK(!without.eot_id);
}
