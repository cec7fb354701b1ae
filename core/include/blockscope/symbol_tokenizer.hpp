// SymbolTokenizer: a word-level tokenizer for task vocabularies such as the sort model's ("0" … "15", "SEP"), read
// from a tokens.json array (id = index). Text is symbols separated by whitespace; it is not byte-level, so a word
// outside the vocabulary is refused (named, with where it is), never split into pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blockscope/tokenizer.hpp"

namespace blockscope {

class SymbolTokenizer : public Tokenizer {
 public:
  static constexpr size_t kMaxSymbols = 65536;    // ids: a task vocabulary, not a language's
  static constexpr size_t kMaxSymbolBytes = 256;  // one symbol's UTF-8 bytes

  // From the text of a tokens.json file: a JSON array of distinct, non-empty strings without whitespace or control
  // characters, at most kMaxSymbols of them; symbol i is token id i. `what` names the file in errors, which also
  // name the bad entry and its index ("tokens.json: entry 3 ("a b") contains whitespace").
  static SymbolTokenizer from_json(std::string_view tokens_json, std::string_view what = "tokens.json");
  // The same checks on symbols given directly ("the symbol list" in errors).
  explicit SymbolTokenizer(std::vector<std::string> symbols, std::string_view what = "the symbol list");

  // The ids of the whitespace-separated words of `utf8` (an empty or all-space text gives none). A word that is not a
  // symbol is an Error naming it, its character offset (counting Unicode characters from 0) and a few symbols.
  std::vector<int32_t> encode(std::string_view utf8) const override;
  // The symbols joined by single spaces.
  std::string decode(std::span<const int32_t> ids) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(symbols_.size()); }
  std::optional<int32_t> eot_id() const override { return std::nullopt; }
  std::string token_text(int32_t id) const override;
  std::string name() const override { return "symbols"; }
  std::string_view separator() const override { return " "; }

  const std::vector<std::string>& symbols() const { return symbols_; }

 private:
  // "0, 1, 2, … SEP": some symbols, for an error about a word that is not one.
  std::string some_symbols() const;

  std::vector<std::string> symbols_;
  std::unordered_map<std::string, int32_t> ids_;
};

// True for the characters SymbolTokenizer::encode splits on: space, tab, newline, vertical tab, form feed, return.
constexpr bool is_symbol_separator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace blockscope
