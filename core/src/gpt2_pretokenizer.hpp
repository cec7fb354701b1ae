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

// At most the bytes split_words allocates for a text of `bytes` bytes (its code-point table and word list).
size_t split_words_bytes(size_t bytes);

// The first position >= `from` where `utf8` can be cut without changing its words: split_words of the two sides,
// concatenated, equals split_words of the whole; utf8.size() if there is no such place. Cuts are made between two
// ASCII characters that are neither whitespace nor an apostrophe and differ in class (letter, digit, other), as
// in "word." or "1st": no word spans such a place, and the regex looks neither behind nor (outside whitespace)
// ahead. Lets a large text be split a piece at a time.
size_t next_safe_cut(std::string_view utf8, size_t from);

}  // namespace blockscope::gpt2
