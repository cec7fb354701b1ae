// SymbolTokenizer: tokens.json read through the core's one JSON parser and validated entry by entry, then encode as
// a whitespace split and a table lookup, decode as a join with single spaces.
#include "blockscope/symbol_tokenizer.hpp"

#include <utility>

#include "blockscope/error.hpp"
#include "json_reader.hpp"

namespace blockscope {
namespace {

// The first character of `s` a symbol may not hold (a separator encode splits on, or another control character),
// or npos.
size_t forbidden_at(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (is_symbol_separator(s[i]) || c < 0x20 || c == 0x7f) return i;
  }
  return std::string_view::npos;
}

// Unicode characters in `bytes` (UTF-8: every byte but a continuation byte starts one).
int64_t characters(std::string_view bytes) {
  int64_t n = 0;
  for (const char c : bytes) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string quote_symbol(std::string_view s) { return "\"" + detail::excerpt(s) + "\""; }

}  // namespace

SymbolTokenizer SymbolTokenizer::from_json(std::string_view tokens_json, std::string_view what) {
  const std::string name(what);
  const detail::json j = detail::parse_json(tokens_json, name.c_str());
  require(j.is_array(), what, " must be a JSON array of symbols such as [\"0\", \"1\", \"SEP\"], got ", j.type_name());
  require(j.size() <= kMaxSymbols, what, " has ", j.size(), " entries; a symbol vocabulary has at most ", kMaxSymbols);
  std::vector<std::string> symbols;
  symbols.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    require(j[i].is_string(), what, ": entry ", i, " is ", detail::short_dump(j[i]), ", not a string");
    symbols.push_back(j[i].get<std::string>());
  }
  return SymbolTokenizer(std::move(symbols), what);
}

SymbolTokenizer::SymbolTokenizer(std::vector<std::string> symbols, std::string_view what) : symbols_(std::move(symbols)) {
  require(!symbols_.empty(), what, " has no symbols");
  require(symbols_.size() <= kMaxSymbols, what, " has ", symbols_.size(), " symbols; at most ", kMaxSymbols);
  ids_.reserve(symbols_.size());
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const std::string& s = symbols_[i];
    require(!s.empty(), what, ": entry ", i, " is the empty string; every symbol needs at least one character");
    require(s.size() <= kMaxSymbolBytes, what, ": entry ", i, " (", quote_symbol(s), ") has ", s.size(),
            " bytes; a symbol has at most ", kMaxSymbolBytes);
    const size_t bad = forbidden_at(s);
    if (bad != std::string::npos) {
      const bool space = is_symbol_separator(s[bad]);
      throw Error(detail::concat(what, ": entry ", i, " (", quote_symbol(s), ") contains ",
                                 space ? "whitespace" : "a control character", " at byte ", bad,
                                 space ? "; text splits into symbols at whitespace, so no symbol can hold it" : ""));
    }
    const auto [it, fresh] = ids_.emplace(s, static_cast<int32_t>(i));
    require(fresh, what, ": entry ", i, " (", quote_symbol(s), ") repeats entry ", it->second,
            "; each symbol must have one id");
  }
}

std::vector<int32_t> SymbolTokenizer::encode(std::string_view utf8) const {
  std::vector<int32_t> ids;
  size_t i = 0;
  while (i < utf8.size()) {
    while (i < utf8.size() && is_symbol_separator(utf8[i])) ++i;
    const size_t begin = i;
    while (i < utf8.size() && !is_symbol_separator(utf8[i])) ++i;
    if (begin == i) break;
    const std::string_view word = utf8.substr(begin, i - begin);
    const auto it = ids_.find(std::string(word));
    if (it == ids_.end()) {
      throw Error(detail::concat(quote_symbol(word), " (at character ", characters(utf8.substr(0, begin)),
                                 ") is not a symbol of this tokenizer; its ", symbols_.size(), " symbols are ",
                                 some_symbols(), ", separated by spaces"));
    }
    ids.push_back(it->second);
  }
  return ids;
}

std::string SymbolTokenizer::decode(std::span<const int32_t> ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    check_id(ids[i], static_cast<int64_t>(i));
    if (i > 0) text += separator();
    text += symbols_[static_cast<size_t>(ids[i])];
  }
  return text;
}

std::string SymbolTokenizer::token_text(int32_t id) const {
  check_id(id);
  return symbols_[static_cast<size_t>(id)];
}

std::string SymbolTokenizer::some_symbols() const {
  constexpr size_t kShown = 8;  // the first few, then the last: enough to see what kind of symbols they are
  std::string list;
  const size_t n = symbols_.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > kShown + 1 && i == kShown) {
      list += ", …";
      i = n - 1;
    }
    list += (i == 0 ? "" : ", ") + detail::excerpt(symbols_[i]);
  }
  return list;
}

}  // namespace blockscope
