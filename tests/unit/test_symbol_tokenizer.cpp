// Tests for symbol_tokenizer.hpp: the sort model's tokens.json (web/models/sort) round-trips its task's text, words
// outside the vocabulary are refused by name and character offset, and malformed tokens.json files are refused
// naming the bad entry and its index.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/symbol_tokenizer.hpp"
#include "support/files.hpp"

using namespace blockscope;
using Catch::Matchers::Contains;

namespace {

// The shipped sort model's vocabulary, written by models/sort/train.mjs.
const SymbolTokenizer& sort_symbols() {
  static const SymbolTokenizer tok = SymbolTokenizer::from_json(
      test_files::read_text(std::string(BLOCKSCOPE_SOURCE_DIR) + "/web/models/sort/tokens.json"));
  return tok;
}

}  // namespace

TEST_CASE("the sort model's tokens.json: numbers 0 to 15 are ids 0 to 15, SEP is 16") {
  const SymbolTokenizer& tok = sort_symbols();
  CHECK(tok.vocab_size() == 17);
  CHECK(tok.name() == "symbols");
  CHECK_FALSE(tok.eot_id().has_value());
  for (int32_t k = 0; k < 16; ++k) CHECK(tok.token_text(k) == std::to_string(k));
  CHECK(tok.token_text(16) == "SEP");
}

TEST_CASE("symbol text round-trips: encode splits on any whitespace, decode joins with single spaces") {
  const SymbolTokenizer& tok = sort_symbols();
  const std::vector<int32_t> ids = tok.encode("9 9 9 9 3 1 1 3 SEP");
  CHECK(ids == std::vector<int32_t>{9, 9, 9, 9, 3, 1, 1, 3, 16});
  CHECK(tok.decode(ids) == "9 9 9 9 3 1 1 3 SEP");
  CHECK(tok.encode("  15\t0\n\r\nSEP  \f\v 12 ") == std::vector<int32_t>{15, 0, 16, 12});
  CHECK(tok.decode(tok.encode("  15\t0\n\r\nSEP  \f\v 12 ")) == "15 0 SEP 12");
  CHECK(tok.separator() == " ");
  for (int32_t id = 0; id < tok.vocab_size(); ++id) {
    const std::vector<int32_t> one{id};
    CHECK(tok.encode(tok.decode(one)) == one);
  }
}

TEST_CASE("an empty or all-whitespace text has no symbols") {
  CHECK(sort_symbols().encode("").empty());
  CHECK(sort_symbols().encode(" \t\n ").empty());
  CHECK(sort_symbols().decode({}).empty());
}

TEST_CASE("a word that is not a symbol is refused, naming it, its character offset and some symbols") {
  const SymbolTokenizer& tok = sort_symbols();
  CHECK_THROWS_WITH(tok.encode("3 1 16 SEP"), Contains("\"16\" (at character 4) is not a symbol of this tokenizer") &&
                                                  Contains("its 17 symbols are 0, 1, 2, 3, 4, 5, 6, 7, …, SEP"));
  CHECK_THROWS_WITH(tok.encode("3 1 sep"), Contains("\"sep\" (at character 4)"));
  // Offsets count characters, not bytes: "é" is two bytes of UTF-8 but one character.
  CHECK_THROWS_WITH(tok.encode("é 2 x"), Contains("\"é\" (at character 0)"));
  CHECK_THROWS_WITH(tok.encode("é 2 x"), !Contains("\"x\""));
  CHECK_THROWS_WITH(tok.encode("1 é x"), Contains("\"é\" (at character 2)"));
  CHECK_THROWS_WITH(tok.encode("1,2"), Contains("\"1,2\" (at character 0)"));
  const SymbolTokenizer small({"a", "b"});
  CHECK_THROWS_WITH(small.encode("a c"), Contains("its 2 symbols are a, b, separated by spaces"));
}

TEST_CASE("ids outside the symbol vocabulary are errors naming the id and its position") {
  const SymbolTokenizer& tok = sort_symbols();
  const std::vector<int32_t> bad{1, 17};
  CHECK_THROWS_WITH(tok.decode(bad), Contains("token id 17 at position 1 is outside the symbols vocabulary [0, 17)"));
  CHECK_THROWS_WITH(tok.token_text(-1), Contains("token id -1 is outside the symbols vocabulary"));
}

TEST_CASE("malformed tokens.json files are refused, naming the bad entry and its index") {
  const auto refuses = [](const std::string& json, const std::string& message) {
    INFO(json);
    CHECK_THROWS_WITH(SymbolTokenizer::from_json(json), Contains(message));
  };
  refuses("{\"0\": 0}", "tokens.json must be a JSON array of symbols");
  refuses("[\"a\", ", "tokens.json is not valid JSON");
  refuses("[]", "tokens.json has no symbols");
  refuses("[\"a\", 7]", "tokens.json: entry 1 is 7, not a string");
  refuses("[\"a\", [\"b\"]]", "tokens.json: entry 1 is");
  refuses("[\"a\", \"\"]", "tokens.json: entry 1 is the empty string");
  refuses("[\"a\", \"b c\"]", "tokens.json: entry 1 (\"b c\") contains whitespace at byte 1");
  refuses("[\"a\\tb\"]", "tokens.json: entry 0 (\"a\tb\") contains whitespace");
  refuses("[\"a\", \"b\\u0001\"]", "entry 1 (\"b\x01\") contains a control character at byte 1");
  refuses("[\"x\", \"SEP\", \"y\", \"SEP\"]", "tokens.json: entry 3 (\"SEP\") repeats entry 1");
  refuses("[\"" + std::string(SymbolTokenizer::kMaxSymbolBytes + 1, 'a') + "\"]",
          "entry 0 (\"aaaa");
  CHECK_THROWS_WITH(SymbolTokenizer::from_json("[\"a\", 1]", "models/x/tokens.json"),
                    Contains("models/x/tokens.json: entry 1"));
}

TEST_CASE("a symbol vocabulary is bounded: more than kMaxSymbols entries are refused before they are read") {
  std::string json = "[";
  for (size_t i = 0; i <= SymbolTokenizer::kMaxSymbols; ++i) json += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  json += "]";
  CHECK_THROWS_WITH(SymbolTokenizer::from_json(json), Contains("has 65537 entries; a symbol vocabulary has at most 65536"));
  // Exactly the limit is fine, and every symbol keeps its index.
  json = "[";
  for (size_t i = 0; i < SymbolTokenizer::kMaxSymbols; ++i) json += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  json += "]";
  const SymbolTokenizer big = SymbolTokenizer::from_json(json);
  CHECK(big.vocab_size() == 65536);
  CHECK(big.encode("s65535 s0") == std::vector<int32_t>{65535, 0});
}

TEST_CASE("symbols may be any non-space Unicode text: they are matched whole, never split") {
  const SymbolTokenizer tok({"⟨sep⟩", "é", "ab", "a"});
  CHECK(tok.encode("ab a ⟨sep⟩ é") == std::vector<int32_t>{2, 3, 0, 1});
  CHECK_THROWS_WITH(tok.encode("aba"), Contains("\"aba\" (at character 0)"));
}
