// Where a tokenizer comes from: the file layouts of a tokenizer directory (GPT-2-format byte-level BPE, or a
// tokens.json of symbols), which of them a model's own tokenizer is looked for in — the one rule the CLI, the web
// runtime and the widgets share —, and a tokenizer built from a layout's files (the browser fetches the files named
// here and passes their text).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/tokenizer.hpp"

namespace blockscope {

struct TokenizerLayout {
  const char* kind;    // make_tokenizer's kind: "gpt2" or "symbols"
  const char* first;   // the file that says the layout is there: vocab.json, encoder.json or tokens.json
  const char* second;  // the file it needs next to it (merges.txt, vocab.bpe), or nullptr
};

// Every layout, in the order a tokenizer directory is searched: Hugging Face's vocab.json + merges.txt, OpenAI's
// encoder.json + vocab.bpe, then tokens.json.
std::span<const TokenizerLayout> tokenizer_layouts();

// The layouts a model's own tokenizer is looked for in (in tokenizer_layouts' order) for a vocabulary of vocab_size
// ids: only those that can fit it. A byte-level BPE has a token for each of the 256 bytes, so it is looked for from
// 256 ids up; tokens.json below 256, where no byte-level tokenizer fits (a larger symbol vocabulary is given
// explicitly: --tokenizer DIR, or loadTokenizer's source.tokenizer). Front ends look for nothing else, so a page
// never requests a file that could not be the model's tokenizer. Next in the CLI's and the runtime's order comes
// default_tokenizer_kind.
std::vector<TokenizerLayout> model_tokenizer_layouts(int64_t vocab_size);

// "vocab.json + merges.txt, encoder.json + vocab.bpe or tokens.json": layouts as a message lists them.
std::string describe_layouts(std::span<const TokenizerLayout> layouts);

// A tokenizer of `kind` from its files' text: "gpt2" (first: vocab.json or encoder.json, second: merges.txt or
// vocab.bpe), "symbols" (first: tokens.json), "bytes" or "bytes+eot" (no files). `source` names the files in errors
// (a path or URL), which then start with it; an unknown kind is an Error listing the kinds.
std::unique_ptr<Tokenizer> make_tokenizer(std::string_view kind, std::string_view first = {},
                                          std::string_view second = {}, std::string_view source = {});

#ifndef __EMSCRIPTEN__
// Native only: the tokenizer of the first of `layouts` whose first file is in `dir`, or null when none is there. A
// layout's first file without its second, and a malformed or oversized file (kMaxTokenizerFileBytes), are Errors
// naming the path.
std::unique_ptr<Tokenizer> read_tokenizer_dir(const std::string& dir, std::span<const TokenizerLayout> layouts);
#endif

}  // namespace blockscope
