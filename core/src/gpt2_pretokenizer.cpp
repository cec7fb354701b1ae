// GPT-2's pre-tokenization regex implemented by hand over decoded code points (no std::regex: it has no
// Unicode classes, is slow, and is large in wasm), plus the code-point classifier over the generated tables.
#include "gpt2_pretokenizer.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "unicode_tables.hpp"

namespace blockscope::unicode {
namespace {

bool in_ranges(std::span<const CodePointRange> ranges, char32_t cp) {
  // First range whose last >= cp; cp is inside iff that range also starts at or before it.
  auto it = std::lower_bound(ranges.begin(), ranges.end(), cp,
                             [](const CodePointRange& r, char32_t c) { return r.last < c; });
  return it != ranges.end() && it->first <= cp;
}

CharClass classify_slow(char32_t cp) {
  if (in_ranges(space_ranges(), cp)) return CharClass::kSpace;
  if (in_ranges(letter_ranges(), cp)) return CharClass::kLetter;
  if (in_ranges(number_ranges(), cp)) return CharClass::kNumber;
  return CharClass::kOther;
}

}  // namespace

CharClass classify(char32_t cp) {
  // ASCII is most of most text: a table built once from the same ranges.
  static const std::array<CharClass, 128> ascii = [] {
    std::array<CharClass, 128> table{};
    for (char32_t c = 0; c < 128; ++c) table[c] = classify_slow(c);
    return table;
  }();
  return cp < 128 ? ascii[cp] : classify_slow(cp);
}

}  // namespace blockscope::unicode

namespace blockscope::gpt2 {
namespace {

using unicode::CharClass;

// One code point of the input: where it starts, and its class.
struct Unit {
  uint32_t begin;
  CharClass cls;
  bool is_space_char;  // U+0020 exactly: the optional ' ' prefix of the regex's word alternatives
};

bool is_continuation(unsigned char b, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
  return b >= lo && b <= hi;
}

// Length of the well-formed UTF-8 sequence at s[i], storing its code point in *cp; 0 if the bytes there are not
// one (overlong forms, surrogates, code points above U+10FFFF and truncated sequences are rejected).
int utf8_length(std::string_view s, size_t i, char32_t* cp) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = at(i);
  const size_t left = s.size() - i;
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF && left >= 2 && is_continuation(at(i + 1))) {
    *cp = (char32_t(b0 & 0x1F) << 6) | (at(i + 1) & 0x3F);
    return 2;
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && left >= 3) {
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    if (!is_continuation(at(i + 1), lo, hi) || !is_continuation(at(i + 2))) return 0;
    *cp = (char32_t(b0 & 0x0F) << 12) | (char32_t(at(i + 1) & 0x3F) << 6) | (at(i + 2) & 0x3F);
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && left >= 4) {
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    if (!is_continuation(at(i + 1), lo, hi) || !is_continuation(at(i + 2)) || !is_continuation(at(i + 3))) return 0;
    *cp = (char32_t(b0 & 0x07) << 18) | (char32_t(at(i + 1) & 0x3F) << 12) | (char32_t(at(i + 2) & 0x3F) << 6) |
          (at(i + 3) & 0x3F);
    return 4;
  }
  return 0;
}

// The text as code points, plus a sentinel unit at the end (begin = size) so every word is [u[i], u[j]).
std::vector<Unit> decode_units(std::string_view s) {
  std::vector<Unit> units;
  units.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const int len = utf8_length(s, i, &cp);
    if (len == 0) {  // an invalid byte is its own "other" code point
      units.push_back({static_cast<uint32_t>(i), CharClass::kOther, false});
      ++i;
      continue;
    }
    units.push_back({static_cast<uint32_t>(i), unicode::classify(cp), cp == U' '});
    i += static_cast<size_t>(len);
  }
  units.push_back({static_cast<uint32_t>(s.size()), CharClass::kOther, false});
  return units;
}

// Byte length of 's|'t|'re|'ve|'m|'ll|'d at s[i] (case-sensitive, as in GPT-2), or 0.
size_t contraction_length(std::string_view s, size_t i) {
  if (s[i] != '\'') return 0;
  const std::string_view rest = s.substr(i + 1);
  for (std::string_view suffix : {"s", "t", "re", "ve", "m", "ll", "d"}) {
    if (rest.starts_with(suffix)) return 1 + suffix.size();
  }
  return 0;
}

// End (unit index) of the run of `cls` starting at unit i.
size_t run_end(const std::vector<Unit>& u, size_t n, size_t i, CharClass cls) {
  while (i < n && u[i].cls == cls) ++i;
  return i;
}

// End (unit index) of the regex match starting at unit i of n.
size_t match_end(std::string_view s, const std::vector<Unit>& u, size_t n, size_t i) {
  if (const size_t len = contraction_length(s, u[i].begin)) return i + len;  // contractions are ASCII: 1 unit/byte
  // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional single space, then a run of one class.
  if (u[i].is_space_char && i + 1 < n && u[i + 1].cls != CharClass::kSpace) {
    return run_end(u, n, i + 1, u[i + 1].cls);
  }
  if (u[i].cls != CharClass::kSpace) return run_end(u, n, i, u[i].cls);
  // '\s+(?!\S)': the whitespace run, minus its last character when a non-space follows; else '\s+'.
  const size_t end = run_end(u, n, i, CharClass::kSpace);
  if (end == n || end - i == 1) return end;
  return end - 1;
}

}  // namespace

std::vector<std::string_view> split_words(std::string_view utf8) {
  const std::vector<Unit> units = decode_units(utf8);
  const size_t n = units.size() - 1;  // without the sentinel
  std::vector<std::string_view> words;
  for (size_t i = 0; i < n;) {
    const size_t j = match_end(utf8, units, n, i);
    words.push_back(utf8.substr(units[i].begin, units[j].begin - units[i].begin));
    i = j;
  }
  return words;
}

size_t split_words_bytes(size_t bytes) { return (bytes + 1) * (sizeof(Unit) + sizeof(std::string_view)); }

size_t next_safe_cut(std::string_view utf8, size_t from) {
  const auto cuttable = [&](size_t i, CharClass& cls) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    if (b >= 0x80 || b == '\'') return false;
    cls = unicode::classify(b);
    return cls != CharClass::kSpace;
  };
  CharClass before{}, after{};
  for (size_t p = from < 1 ? 1 : from; p < utf8.size(); ++p) {
    if (cuttable(p - 1, before) && cuttable(p, after) && before != after) return p;
  }
  return utf8.size();
}

}  // namespace blockscope::gpt2
