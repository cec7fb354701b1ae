// SymbolTokenizer (tokens.json: a task vocabulary such as the sort model's) on untrusted files and text. Input:
//   byte 0      mode: bit 0 set: the tokens.json text is the input (after byte 0) up to the first NUL — any JSON,
//               valid or not; clear: a JSON array written here of that part's space-separated pieces (mostly accepted)
//   the rest    after the first NUL: the text to encode
// Promised: from_json either throws an Error or gives a tokenizer whose symbols are distinct, non-empty and without
// separators; encode either throws an Error or gives in-range ids whose decode is the text's words joined by single
// spaces, and encoding that again gives the same ids.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "blockscope/symbol_tokenizer.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

// The text's whitespace-separated words joined by single spaces: what decode(encode(text)) must give.
std::string words_joined(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_symbol_separator(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_symbol_separator(text[i])) ++i;
    if (i > start) {
      if (!out.empty()) out += ' ';
      out.append(text.substr(start, i - start));
    }
  }
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t nul = rest.find('\0');
  const std::string_view head = rest.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);

  std::string json_text;
  if (data[0] & 1) {
    json_text = std::string(head);
  } else {
    nlohmann::json symbols = nlohmann::json::array();
    size_t i = 0;
    while (i <= head.size()) {  // the symbol list: head's pieces between spaces
      const size_t end = std::min(head.find(' ', i), head.size());
      symbols.push_back(std::string(head.substr(i, end - i)));
      i = end + 1;
    }
    try {
      json_text = symbols.dump();
    } catch (const nlohmann::json::exception&) {
      return 0;  // not UTF-8: nothing to write as JSON
    }
  }

  SymbolTokenizer tok = [&] {
    try {
      return SymbolTokenizer::from_json(json_text);
    } catch (const Error&) {
      return SymbolTokenizer(std::vector<std::string>{"a", "b"});  // refused with a message: fall back to a valid one
    }
  }();
  std::unordered_set<std::string> seen;
  for (const std::string& s : tok.symbols()) {
    if (s.empty() || !seen.insert(s).second) fuzz::fail("an empty or repeated symbol was accepted");
    for (const char c : s)
      if (is_symbol_separator(c)) fuzz::fail("a symbol holds a separator");
  }
  std::vector<int32_t> ids;
  try {
    ids = tok.encode(text);
  } catch (const Error&) {
    return 0;  // a word that is not a symbol: named in the message
  }
  for (const int32_t id : ids)
    if (id < 0 || id >= tok.vocab_size()) fuzz::fail("encode returned an id outside the vocabulary");
  const std::string decoded = tok.decode(ids);
  if (decoded != words_joined(text)) fuzz::fail("decode(encode(text)) is not the text's words joined by spaces");
  if (tok.encode(decoded) != ids) fuzz::fail("encoding the decoded text gives other ids");
  return 0;
}
