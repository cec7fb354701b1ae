// The tokenizer-file rule of tokenizer_files.hpp: one table of layouts, the vocabulary sizes each can fit, the
// factory every front end builds tokenizers through, and (native only) reading a directory.
#include "blockscope/tokenizer_files.hpp"

#include <array>

#include "blockscope/error.hpp"
#include "blockscope/symbol_tokenizer.hpp"
#include "json_reader.hpp"  // detail::excerpt
#ifndef __EMSCRIPTEN__
#include <filesystem>
#include <optional>

#include "blockscope/checkpoint.hpp"  // read_file_bytes, kMaxTokenizerFileBytes
#endif

namespace blockscope {
namespace {

constexpr std::array<TokenizerLayout, 3> kLayouts = {{
    {"gpt2", "vocab.json", "merges.txt"},    // Hugging Face (what `blockscope tokenizer train` writes)
    {"gpt2", "encoder.json", "vocab.bpe"},   // OpenAI's GPT-2 release
    {"symbols", "tokens.json", nullptr},     // a task vocabulary of named symbols
}};

// Byte-level tokenizers need an id for every byte value.
constexpr int64_t kByteIds = 256;

bool fits(const TokenizerLayout& layout, int64_t vocab_size) {
  const bool byte_level = std::string_view(layout.kind) == "gpt2";
  return byte_level ? vocab_size >= kByteIds : vocab_size > 0 && vocab_size < kByteIds;
}

}  // namespace

std::span<const TokenizerLayout> tokenizer_layouts() { return kLayouts; }

std::vector<TokenizerLayout> model_tokenizer_layouts(int64_t vocab_size) {
  std::vector<TokenizerLayout> out;
  for (const TokenizerLayout& layout : kLayouts)
    if (fits(layout, vocab_size)) out.push_back(layout);
  return out;
}

std::string describe_layouts(std::span<const TokenizerLayout> layouts) {
  std::string text;
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (i > 0) text += i + 1 == layouts.size() ? " or " : ", ";
    text += layouts[i].first;
    if (layouts[i].second) text += std::string(" + ") + layouts[i].second;
  }
  return text;
}

std::unique_ptr<Tokenizer> make_tokenizer(std::string_view kind, std::string_view first, std::string_view second,
                                          std::string_view source) {
  if (kind == "bytes" || kind == "bytes+eot") return std::make_unique<ByteTokenizer>(kind == "bytes+eot");
  if (kind == "symbols")
    return std::make_unique<SymbolTokenizer>(SymbolTokenizer::from_json(first, source.empty() ? "tokens.json" : source));
  if (kind == "gpt2") {
    try {
      return std::make_unique<Gpt2Tokenizer>(Gpt2Tokenizer::from_strings(first, second));
    } catch (const Error& e) {
      if (source.empty()) throw;
      throw Error(detail::concat(source, ": ", e.what()));
    }
  }
  throw Error(detail::concat("unknown tokenizer kind '", detail::excerpt(kind),
                             "' (expected gpt2, symbols, bytes or bytes+eot)"));
}

#ifndef __EMSCRIPTEN__
namespace {

// The whole file (a regular file of at most kMaxTokenizerFileBytes), or nullopt if nothing is at `path`.
std::optional<std::string> read_if_there(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const std::vector<uint8_t> bytes = read_file_bytes(path, kMaxTokenizerFileBytes, "a tokenizer file");
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

std::unique_ptr<Tokenizer> read_tokenizer_dir(const std::string& dir, std::span<const TokenizerLayout> layouts) {
  for (const TokenizerLayout& layout : layouts) {
    const std::string first_path = dir + "/" + layout.first;
    const std::optional<std::string> first = read_if_there(first_path);
    if (!first) continue;
    std::string source = first_path, second;
    if (layout.second) {
      const std::string second_path = dir + "/" + layout.second;
      std::optional<std::string> text = read_if_there(second_path);
      require(text.has_value(), "found ", first_path, " but not ", second_path);
      second = std::move(*text);
      source += std::string(" + ") + layout.second;
    }
    return make_tokenizer(layout.kind, *first, second, source);
  }
  return nullptr;
}
#endif

}  // namespace blockscope
