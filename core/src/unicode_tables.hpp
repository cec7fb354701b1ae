// Unicode character classes for the GPT-2 pre-tokenizer (internal header): \p{L}, \p{N} and JavaScript's \s as
// sorted code-point ranges (generated into unicode_tables.cpp by scripts/gen_unicode_tables.mjs).
#pragma once

#include <cstdint>
#include <span>

namespace blockscope::unicode {

// Inclusive range [first, last] of code points.
struct CodePointRange {
  char32_t first;
  char32_t last;
};

std::span<const CodePointRange> letter_ranges();  // /\p{L}/u
std::span<const CodePointRange> number_ranges();  // /\p{N}/u
std::span<const CodePointRange> space_ranges();   // /\s/u

enum class CharClass : uint8_t { kLetter, kNumber, kSpace, kOther };

// The class of one code point (kOther for anything outside the three tables).
CharClass classify(char32_t cp);

}  // namespace blockscope::unicode
