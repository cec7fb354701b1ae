// Builds a Gpt2Tokenizer from GPT-2's vocabulary (vocab.json / encoder.json) and merge list (merges.txt /
// vocab.bpe), validating both before trusting them; from_directory (native only) reads the files. Also defines
// gpt2_format.hpp's rules of those files (bytes_to_unicode and the byte ids).
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <utility>

#include "blockscope/error.hpp"
#include "blockscope/tokenizer.hpp"
#include "blockscope/tokenizer_files.hpp"
#include "gpt2_format.hpp"
#include "json_reader.hpp"
#ifndef __EMSCRIPTEN__
#include <filesystem>

#include "blockscope/checkpoint.hpp"  // read_file_bytes
#endif

namespace blockscope::gpt2 {

std::array<char32_t, 256> bytes_to_unicode() {
  std::array<char32_t, 256> map{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    map[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return map;
}

std::array<uint8_t, 256> bytes_in_id_order() {
  // Printable bytes keep their own code points (< 256) and the rest get 256.. in byte order, so ordering the
  // bytes by character is encoder.py's `bs` order.
  const std::array<char32_t, 256> map = bytes_to_unicode();
  std::array<uint8_t, 256> order{};
  for (int b = 0; b < 256; ++b) {
    int id = 0;
    for (int c = 0; c < 256; ++c) id += map[c] < map[b] ? 1 : 0;
    order[id] = static_cast<uint8_t>(b);
  }
  return order;
}

namespace {
// The inverse of bytes_to_unicode: code point (< 0x144) -> byte, or -1.
std::array<int16_t, 0x144> unicode_to_bytes() {
  std::array<int16_t, 0x144> inverse;
  inverse.fill(-1);
  const std::array<char32_t, 256> map = bytes_to_unicode();
  for (int b = 0; b < 256; ++b) inverse[map[b]] = static_cast<int16_t>(b);
  return inverse;
}
}  // namespace

std::optional<std::string> token_bytes_of(std::string_view written) {
  static const std::array<int16_t, 0x144> inverse = unicode_to_bytes();
  std::string bytes;
  for (size_t i = 0; i < written.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(written[i]);
    char32_t cp = b0;
    if (b0 >= 0x80) {  // every one of the 256 characters is 1- or 2-byte UTF-8
      if ((b0 & 0xE0) != 0xC0 || i + 1 == written.size()) return std::nullopt;
      cp = (char32_t(b0 & 0x1F) << 6) | (static_cast<unsigned char>(written[++i]) & 0x3F);
    }
    if (cp >= inverse.size() || inverse[cp] < 0) return std::nullopt;
    bytes += static_cast<char>(inverse[cp]);
  }
  return bytes;
}

std::string written_form(std::string_view bytes) {
  static const std::array<char32_t, 256> map = bytes_to_unicode();
  std::string written;
  for (const char c : bytes) {
    const char32_t cp = map[static_cast<unsigned char>(c)];  // < 0x800: one or two UTF-8 bytes
    if (cp < 0x80) {
      written += static_cast<char>(cp);
    } else {
      written += static_cast<char>(0xC0 | (cp >> 6));
      written += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return written;
}

}  // namespace blockscope::gpt2

namespace blockscope {
namespace {

using gpt2::token_bytes_of;
using gpt2::written_form;

// The vocabulary: each id's raw bytes, and the id of each byte string.
struct Vocab {
  std::vector<std::string> tokens;
  std::unordered_map<std::string, int32_t> ids;
};

nlohmann::json parse_json(std::string_view text) {
  return detail::parse_json(text, "GPT-2 vocabulary (vocab.json / encoder.json)");
}

// Adds one "token": id entry, requiring an integer id in [0, n) that no other token has.
void add_vocab_entry(Vocab& vocab, const std::string& written, const nlohmann::json& value) {
  const size_t n = vocab.tokens.size();
  // (if-throw rather than require() where building the message costs: this runs for all 50257 tokens.)
  if (!value.is_number_integer()) {
    throw Error(detail::concat("GPT-2 vocabulary: token '", detail::excerpt(written), "' has id ",
                               detail::short_dump(value), ", which is not an integer"));
  }
  // nlohmann stores non-negative integers as unsigned, so a signed one is negative.
  if (!value.is_number_unsigned() || value.get<uint64_t>() >= n) {
    throw Error(detail::concat("GPT-2 vocabulary: token '", detail::excerpt(written), "' has id ",
                               detail::short_dump(value), ", outside [0, ", n,
                               ") (the ", n, " tokens must have ids 0..", n - 1, ")"));
  }
  const auto id = static_cast<int32_t>(value.get<uint64_t>());
  std::optional<std::string> bytes = token_bytes_of(written);
  require(bytes.has_value() && !bytes->empty(), "GPT-2 vocabulary: token '", detail::excerpt(written), "' (id ", id,
          ") is empty or has a character outside GPT-2's 256 byte characters (bytes_to_unicode)");
  if (!vocab.tokens[id].empty()) {
    throw Error(detail::concat("GPT-2 vocabulary: id ", id, " is given to two tokens, '",
                               detail::excerpt(written_form(vocab.tokens[id])), "' and '", detail::excerpt(written),
                               "'"));
  }
  vocab.ids.emplace(*bytes, id);
  vocab.tokens[id] = std::move(*bytes);
}

Vocab parse_vocab(std::string_view vocab_json) {
  const nlohmann::json json = parse_json(vocab_json);
  require(json.is_object(), "GPT-2 vocabulary must be a JSON object {\"token\": id, ...}, got ", json.type_name());
  require(!json.empty(), "GPT-2 vocabulary has no tokens");
  Vocab vocab;
  vocab.tokens.resize(json.size());
  vocab.ids.reserve(json.size());
  for (const auto& [written, value] : json.items()) add_vocab_entry(vocab, written, value);
  return vocab;
}

std::string_view strip_cr(std::string_view line) {
  return line.ends_with('\r') ? line.substr(0, line.size() - 1) : line;
}

// The id of one token of a merge line, which must be in the vocabulary.
int32_t merge_token_id(const Vocab& vocab, std::string_view written, size_t line_no) {
  const std::optional<std::string> bytes = token_bytes_of(written);
  const auto it = bytes ? vocab.ids.find(*bytes) : vocab.ids.end();
  require(it != vocab.ids.end(), "GPT-2 merges line ", line_no, ": token '", detail::excerpt(written),
          "' is not in the vocabulary");
  return it->second;
}

// Adds the merge on one line, "first second", with the next rank.
void add_merge(std::unordered_map<uint64_t, Gpt2Tokenizer::Merge>& merges, const Vocab& vocab,
               std::string_view line, size_t line_no) {
  const size_t space = line.find(' ');
  require(space != std::string_view::npos && space > 0 && space + 1 < line.size() &&
              line.find(' ', space + 1) == std::string_view::npos,
          "GPT-2 merges line ", line_no, ": expected two tokens separated by one space, got '", detail::excerpt(line),
          "'");
  const std::string_view first = line.substr(0, space), second = line.substr(space + 1);
  const int32_t a = merge_token_id(vocab, first, line_no), b = merge_token_id(vocab, second, line_no);
  const auto merged = vocab.ids.find(vocab.tokens[a] + vocab.tokens[b]);
  require(merged != vocab.ids.end(), "GPT-2 merges line ", line_no, ": the merge of '", detail::excerpt(first),
          "' and '", detail::excerpt(second),
          "' is not in the vocabulary");
  const Gpt2Tokenizer::Merge merge{static_cast<int32_t>(merges.size()), merged->second};
  require(merges.emplace(Gpt2Tokenizer::merge_key(a, b), merge).second, "GPT-2 merges line ", line_no,
          ": the merge '", detail::excerpt(line), "' repeats an earlier line");
}

// merges.txt / vocab.bpe: an optional "#version" first line, then one merge per line in rank order.
// CRLF line ends and blank lines (e.g. the trailing newline) are tolerated.
std::unordered_map<uint64_t, Gpt2Tokenizer::Merge> parse_merges(std::string_view text, const Vocab& vocab) {
  std::unordered_map<uint64_t, Gpt2Tokenizer::Merge> merges;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = strip_cr(text.substr(0, eol));
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;
    if (line.empty() || (line_no == 1 && line.starts_with("#version"))) continue;
    add_merge(merges, vocab, line, line_no);
  }
  return merges;
}

}  // namespace

Gpt2Tokenizer Gpt2Tokenizer::from_strings(std::string_view vocab_json, std::string_view merges_txt) {
  const Vocab vocab = parse_vocab(vocab_json);
  Gpt2Tokenizer tokenizer;
  tokenizer.token_offsets_.reserve(vocab.tokens.size() + 1);
  tokenizer.token_offsets_.push_back(0);
  for (const std::string& token : vocab.tokens) {
    tokenizer.token_data_ += token;
    tokenizer.token_offsets_.push_back(static_cast<uint32_t>(tokenizer.token_data_.size()));
  }
  for (int b = 0; b < 256; ++b) {
    const auto it = vocab.ids.find(std::string(1, static_cast<char>(b)));
    require(it != vocab.ids.end(), "GPT-2 vocabulary has no token for byte ", b,
            "; a byte-level BPE vocabulary needs all 256");
    tokenizer.byte_ids_[b] = it->second;
  }
  tokenizer.merges_ = parse_merges(merges_txt, vocab);
  const auto eot = vocab.ids.find(std::string(gpt2::kEndOfText));
  if (eot != vocab.ids.end()) tokenizer.eot_id_ = eot->second;
  return tokenizer;
}

#ifndef __EMSCRIPTEN__
namespace {

// The whole file (a regular file of at most kMaxTokenizerFileBytes), or nullopt if nothing is at `path`.
std::optional<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const std::vector<uint8_t> bytes = read_file_bytes(path, kMaxTokenizerFileBytes, "a tokenizer file");
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

Gpt2Tokenizer Gpt2Tokenizer::from_directory(const std::string& dir) {
  for (const TokenizerLayout& layout : tokenizer_layouts()) {  // Hugging Face's names, then OpenAI's
    if (std::string_view(layout.kind) != "gpt2") continue;
    const std::string vocab_path = dir + "/" + layout.first, merges_path = dir + "/" + layout.second;
    const std::optional<std::string> vocab = read_file(vocab_path);
    if (!vocab) continue;
    const std::optional<std::string> merges = read_file(merges_path);
    require(merges.has_value(), "found ", vocab_path, " but not ", merges_path);
    try {
      return from_strings(*vocab, *merges);
    } catch (const Error& e) {
      throw Error(detail::concat(vocab_path, " + ", layout.second, ": ", e.what()));
    }
  }
  throw Error(detail::concat("no GPT-2 tokenizer files in '", dir,
                             "': expected vocab.json + merges.txt or encoder.json + vocab.bpe"));
}
#endif

}  // namespace blockscope
