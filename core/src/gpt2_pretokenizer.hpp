// GPT-2's pre-tokenizer (internal header): splits text into the "words" that BPE then encodes one by one,
// exactly as GPT-2's regex (OpenAI encoder.py, gpt-tokenizer's R50K_TOKEN_SPLIT_REGEX) would.
#pragma once

#include <string_view>
#include <vector>

namespace blockscope::gpt2 {

// The matches of  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+  in order; they
// tile `utf8` exactly. \s is JavaScript's. Each byte of invalid UTF-8 counts as one code point that is neither
// letter, number nor space, so every byte lands in some word and any byte string round-trips.
std::vector<std::string_view> split_words(std::string_view utf8);

// The first position >= `from` where `utf8` can be cut without changing its words: split_words of the two sides,
// concatenated, equals split_words of the whole. That holds between "\n" and an ASCII non-space character when
// another ASCII non-space comes before the "\n" (the "\n" is then a word of its own, and no word reaches over
// it). utf8.size() if there is no such place.
size_t next_safe_cut(std::string_view utf8, size_t from);

// The words of split_words(utf8), in order, passed to `on_word` one by one, with the text split into pieces of
// about `piece_bytes` at safe cuts: the word list and code-point table of a large text are never built whole.
template <typename OnWord>
void for_each_word(std::string_view utf8, OnWord on_word, size_t piece_bytes = size_t{1} << 20) {
  while (!utf8.empty()) {
    const size_t cut = next_safe_cut(utf8, piece_bytes < utf8.size() ? piece_bytes : utf8.size());
    for (std::string_view word : split_words(utf8.substr(0, cut))) on_word(word);
    utf8.remove_prefix(cut);
  }
}

}  // namespace blockscope::gpt2
