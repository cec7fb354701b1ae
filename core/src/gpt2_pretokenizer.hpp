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

}  // namespace blockscope::gpt2
