// Tests for tokenizer_files.hpp: which tokenizer files a model's vocabulary is looked for in (BPE from 256 ids up,
// tokens.json below), building tokenizers by kind from file text, and reading a directory (first layout wins, a
// missing second file and malformed files are errors naming the path).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/tokenizer_files.hpp"
#include "support/files.hpp"

using namespace blockscope;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> names(const std::vector<TokenizerLayout>& layouts) {
  std::vector<std::string> out;
  for (const TokenizerLayout& l : layouts) out.push_back(l.first);
  return out;
}

// A fresh directory under the system's temporary directory, removed with the object.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name) : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

// The tiny BPE fixture next to tests/golden/models/bpe_tiny (262 ids), as file text.
std::string bpe_file(const std::string& name) {
  return test_files::read_text(std::string(BLOCKSCOPE_GOLDEN_DIR) + "/models/bpe_tiny/" + name);
}

}  // namespace

TEST_CASE("a model's tokenizer files are looked for only where they can fit its vocabulary") {
  // Below 256 ids no byte-level tokenizer fits: only a symbol vocabulary can.
  CHECK(names(model_tokenizer_layouts(17)) == std::vector<std::string>{"tokens.json"});
  CHECK(names(model_tokenizer_layouts(255)) == std::vector<std::string>{"tokens.json"});
  // From 256 up: a byte-level BPE (Hugging Face's names first, then OpenAI's), never tokens.json, so a page asks for
  // no file a bytes or GPT-2 model cannot use.
  for (const int64_t v : {256, 257, 262, 50257, 50304})
    CHECK(names(model_tokenizer_layouts(v)) == std::vector<std::string>{"vocab.json", "encoder.json"});
  CHECK(model_tokenizer_layouts(0).empty());
  CHECK(describe_layouts(tokenizer_layouts()) == "vocab.json + merges.txt, encoder.json + vocab.bpe or tokens.json");
  CHECK(describe_layouts(model_tokenizer_layouts(17)) == "tokens.json");
}

TEST_CASE("make_tokenizer builds every kind from its files' text, and an unknown kind lists the kinds") {
  CHECK(make_tokenizer("bytes")->vocab_size() == 256);
  CHECK(make_tokenizer("bytes+eot")->eot_id() == 256);
  const auto symbols = make_tokenizer("symbols", "[\"0\", \"1\", \"SEP\"]");
  CHECK(symbols->name() == "symbols");
  CHECK(symbols->encode("1 0 SEP") == std::vector<int32_t>{1, 0, 2});
  const auto bpe = make_tokenizer("gpt2", bpe_file("vocab.json"), bpe_file("merges.txt"));
  CHECK(bpe->vocab_size() == 262);
  CHECK(bpe->separator().empty());
  CHECK_THROWS_WITH(make_tokenizer("words"), Contains("unknown tokenizer kind 'words' (expected gpt2, symbols, bytes or bytes+eot)"));
  // The source names the files in errors.
  CHECK_THROWS_WITH(make_tokenizer("symbols", "[1]", "", "https://x/tokens.json"), Contains("https://x/tokens.json: entry 0 is 1"));
  CHECK_THROWS_WITH(make_tokenizer("gpt2", "{}", "", "d/vocab.json + merges.txt"),
                    Contains("d/vocab.json + merges.txt: GPT-2 vocabulary has no tokens"));
}

TEST_CASE("a tokenizer directory: the first layout present wins, none present gives null") {
  ScratchDir dir("blockscope-tokenizer-files");
  CHECK(read_tokenizer_dir(dir.path.string(), tokenizer_layouts()) == nullptr);
  dir.write("tokens.json", "[\"a\", \"b\"]");
  CHECK(read_tokenizer_dir(dir.path.string(), tokenizer_layouts())->name() == "symbols");
  // Not looked for where it cannot fit: a 256-id model's directory only has byte-level BPE layouts.
  CHECK(read_tokenizer_dir(dir.path.string(), model_tokenizer_layouts(256)) == nullptr);
  CHECK(read_tokenizer_dir(dir.path.string(), model_tokenizer_layouts(2))->vocab_size() == 2);
  dir.write("vocab.json", bpe_file("vocab.json"));
  dir.write("merges.txt", bpe_file("merges.txt"));
  CHECK(read_tokenizer_dir(dir.path.string(), tokenizer_layouts())->name() == "gpt2");
}

TEST_CASE("a tokenizer directory's missing second file or malformed file is an error naming the path") {
  ScratchDir dir("blockscope-tokenizer-files-bad");
  const std::string d = dir.path.string();
  dir.write("vocab.json", bpe_file("vocab.json"));
  CHECK_THROWS_WITH(read_tokenizer_dir(d, tokenizer_layouts()), Contains("found " + d + "/vocab.json but not " + d + "/merges.txt"));
  std::filesystem::remove(dir.path / "vocab.json");
  dir.write("tokens.json", "[\"a\", \"a\"]");
  CHECK_THROWS_WITH(read_tokenizer_dir(d, tokenizer_layouts()), Contains(d + "/tokens.json: entry 1 (\"a\") repeats entry 0"));
  std::filesystem::remove(dir.path / "tokens.json");
  std::filesystem::create_directory(dir.path / "tokens.json");
  CHECK_THROWS_WITH(read_tokenizer_dir(d, tokenizer_layouts()), Contains(d + "/tokens.json") && Contains("is a directory"));
}
