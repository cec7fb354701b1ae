// Tokenizers: text (UTF-8 bytes) <-> token ids. Gpt2Tokenizer is GPT-2's byte-level BPE, id for id;
// ByteTokenizer maps each byte to its own id. Both round-trip any byte string, valid UTF-8 or not. A task vocabulary
// of named symbols is symbol_tokenizer.hpp's; which tokenizer a model directory gets is tokenizer_files.hpp's rule.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace blockscope {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Token ids of `utf8`; the text "<|endoftext|>" becomes eot_id() when the tokenizer has one.
  virtual std::vector<int32_t> encode(std::string_view utf8) const = 0;
  // The bytes the ids stand for (not necessarily valid UTF-8 for a partial sequence of ids).
  // Throws Error naming an id outside [0, vocab_size()) and its position.
  virtual std::string decode(std::span<const int32_t> ids) const = 0;
  virtual int32_t vocab_size() const = 0;
  virtual std::optional<int32_t> eot_id() const = 0;  // "<|endoftext|>"
  // The raw bytes of one token, for display; throws Error for an id outside the vocabulary.
  virtual std::string token_text(int32_t id) const = 0;
  virtual std::string name() const = 0;
  // What decode() puts between two tokens' texts: nothing for the byte-level tokenizers (their tokens are pieces of
  // the text), one space for symbols. A front end showing a continuation after its prompt (or streaming tokens one
  // by one) joins them with it.
  virtual std::string_view separator() const { return {}; }

 protected:
  // Throws Error unless 0 <= id < vocab_size(); `position` is the id's index in a decode() call, or -1.
  void check_id(int32_t id, int64_t position = -1) const;
};

// GPT-2's tokenizer (OpenAI encoder.py): bytes -> printable characters (bytes_to_unicode), the pre-tokenizer
// regex, then BPE merges by rank within each word. 50257 ids, "<|endoftext|>" = 50256.
class Gpt2Tokenizer : public Tokenizer {
 public:
  // From file contents (so the browser can pass fetched bytes): Hugging Face vocab.json + merges.txt, or
  // OpenAI encoder.json + vocab.bpe (same formats). Validates both and throws Error naming the bad token/line.
  static Gpt2Tokenizer from_strings(std::string_view vocab_json, std::string_view merges_txt);
#ifndef __EMSCRIPTEN__
  // Native only: reads vocab.json + merges.txt, or else encoder.json + vocab.bpe, from `dir`.
  static Gpt2Tokenizer from_directory(const std::string& dir);
#endif

  // "<|endoftext|>" in the text is the single eot id, as in Hugging Face's GPT2Tokenizer and tiktoken's
  // encode(allowed_special="all"); the rest is encode_ordinary().
  std::vector<int32_t> encode(std::string_view utf8) const override;
  // Plain BPE: "<|endoftext|>" is just text (7 tokens), as in OpenAI's encoder.py and tiktoken's encode_ordinary.
  std::vector<int32_t> encode_ordinary(std::string_view utf8) const;
  std::string decode(std::span<const int32_t> ids) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(token_offsets_.size()) - 1; }
  std::optional<int32_t> eot_id() const override { return eot_id_; }
  std::string token_text(int32_t id) const override;
  std::string name() const override { return "gpt2"; }

  // A merge rule (first, second) -> merged token, with its priority (lower merges first).
  struct Merge {
    int32_t rank;
    int32_t merged;
  };
  static uint64_t merge_key(int32_t first, int32_t second) {
    return static_cast<uint64_t>(static_cast<uint32_t>(first)) << 32 | static_cast<uint32_t>(second);
  }

 private:
  class WordCache;

  Gpt2Tokenizer();
  std::string_view token_bytes(int32_t id) const;
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;
  std::vector<int32_t> bpe(std::string_view word) const;

  std::string token_data_;               // every token's bytes, concatenated in id order
  std::vector<uint32_t> token_offsets_;  // (vocab_size + 1): token id's bytes are [offsets[id], offsets[id + 1])
  int32_t byte_ids_[256] = {};           // the single-byte token of each byte value
  std::unordered_map<uint64_t, Merge> merges_;  // key: merge_key(first, second)
  std::optional<int32_t> eot_id_;
  std::shared_ptr<WordCache> cache_;  // bounded per-word cache; shared by copies, internally locked
};

// One id per byte value (0..255), plus "<|endoftext|>" = 256 when `with_eot`: vocab_size 256 or 257.
class ByteTokenizer : public Tokenizer {
 public:
  explicit ByteTokenizer(bool with_eot = false) : with_eot_(with_eot) {}

  // With eot, the text "<|endoftext|>" becomes id 256 (as in Gpt2Tokenizer); every other byte is its own id.
  std::vector<int32_t> encode(std::string_view utf8) const override;
  std::string decode(std::span<const int32_t> ids) const override;
  int32_t vocab_size() const override { return with_eot_ ? 257 : 256; }
  std::optional<int32_t> eot_id() const override;
  std::string token_text(int32_t id) const override;
  std::string name() const override { return with_eot_ ? "bytes+eot" : "bytes"; }

 private:
  bool with_eot_;
};

// The tokenizer a model's vocabulary gets when nothing else says which (no tokenizer files, no choice
// given): "gpt2" for 50257 ids or more (GPT-2's BPE; a padded vocabulary such as nanoGPT's 50304 included),
// "bytes+eot" for exactly 257 (bytes and <|endoftext|>), "bytes" for 256 to 50256, and null below 256, where
// no tokenizer Blockscope has fits (ids would fall outside the vocabulary).
const char* default_tokenizer_kind(int64_t vocab_size);

}  // namespace blockscope
