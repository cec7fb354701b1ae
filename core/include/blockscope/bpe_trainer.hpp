// Trains a GPT-2-style byte-level BPE tokenizer on UTF-8 text (any bytes): GPT-2's pre-tokenizer splits the
// text into words, then the most frequent adjacent pair of tokens is merged, again and again. The result is
// written as GPT-2's vocab.json + merges.txt, which Gpt2Tokenizer (tokenizer.hpp) and Hugging Face load; it does
// not encode text itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "blockscope/memory_budget.hpp"
#include "blockscope/tokenizer.hpp"

namespace blockscope {

struct BpeTrainOptions {
  // GPT-2 has 50,000 merges, cl100k ~100,000; more than this is a mistake, not a tokenizer.
  static constexpr int64_t kMaxMerges = int64_t{1} << 18;

  int64_t merges = 1000;      // merges to learn, 1..kMaxMerges; fewer when no pair is frequent enough
  int64_t min_frequency = 2;  // a pair must occur at least this often (in the whole text) to be merged
  bool end_of_text = false;   // add "<|endoftext|>" as the last id; the text's own "<|endoftext|>"s then
                              // separate the words around them and are not learned as text

  // Throws Error naming the bad value.
  void validate() const;
};

// A trained tokenizer: ids 0..255 are the single bytes in GPT-2's order (encoder.json's), id 256 + r is the
// token merge r makes, and "<|endoftext|>" comes last when asked for. (Should a merge spell a token that an
// earlier merge made from other parts, it reuses that id, as Hugging Face's trainer does; then the ids after it
// shift down by one. Not seen on Brown.)
struct BpeVocabulary {
  struct Merge {
    int32_t left, right;  // the ids merged, in this order
    int64_t count;        // how often the pair occurred when it was merged
  };
  std::vector<std::string> tokens;  // id -> the token's raw bytes
  std::vector<Merge> merges;        // in rank order
  std::optional<int32_t> eot_id;
  // The training text (without its "<|endoftext|>"s when end_of_text): bytes, and tokens with these merges.
  int64_t text_bytes = 0, text_tokens = 0;

  int32_t vocab_size() const { return static_cast<int32_t>(tokens.size()); }
  // GPT-2's files: {"token": id, ...} in id order (tokens written as bytes_to_unicode characters), and
  // "#version: 0.2" then one "left right" line per merge in rank order.
  std::string vocab_json() const;
  std::string merges_txt() const;
  // The two files loaded by Gpt2Tokenizer::from_strings.
  Gpt2Tokenizer tokenizer() const;
};

// Counts words as text comes in (add_text, any number of times: one call per file), then trains. Memory is
// checked against `budget` as the word table grows and before training (an estimate of the pair tables).
class BpeTrainer {
 public:
  explicit BpeTrainer(const BpeTrainOptions& options, MemoryBudget budget = {});

  // Splits `utf8` into GPT-2 pre-tokenizer words and counts them; the text itself is not kept.
  void add_text(std::string_view utf8);

  // Learns the merges. Throws Error if no text (or only "<|endoftext|>"s) was added.
  // Merge order: the pair with the highest count; among equal counts, the pair whose left token's bytes come
  // first (compared as unsigned bytes, a prefix before its extensions), then the right token's. Deterministic,
  // and independent of how the counts were stored.
  BpeVocabulary train() const;

  int64_t text_bytes() const { return text_bytes_; }
  int64_t words() const { return words_; }
  int64_t distinct_words() const { return static_cast<int64_t>(counts_.size()); }

 private:
  void count_words(std::string_view text);
  void count_word(std::string_view word);

  BpeTrainOptions options_;
  MemoryBudget budget_;
  std::unordered_map<std::string, int64_t> counts_;  // word -> occurrences
  int64_t text_bytes_ = 0, words_ = 0;
  int64_t table_bytes_ = 0;  // estimated bytes of counts_
};

}  // namespace blockscope
