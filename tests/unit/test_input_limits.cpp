// Hostile and oversized input: JSON nesting and duplicate keys in every JSON file the core reads, integers
// beyond int64, short error messages, file reading (directories, devices, size limits, a sparse 20 GB
// weights file refused from its size), and BPE on very long words against a reference implementation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/safetensors.hpp"
#include "blockscope/tokenizer.hpp"
#include "json_reader.hpp"

using namespace blockscope;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

const std::string kGpt2Dir = BLOCKSCOPE_GPT2_TOKENIZER_DIR;

std::string nested(size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

// The message of the Error `f` throws (fails the test if it throws nothing).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no Error thrown");
  return {};
}

const std::string kBookConfig =
    R"({"vocab_size": 16, "context_length": 8, "emb_dim": 8, "n_heads": 2, "n_layers": 1, "drop_rate": 0.0,
        "qkv_bias": false})";

// A scratch directory removed at the end of the test.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const char* name)
      : path(fs::temp_directory_path() / (std::string("blockscope_") + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return path / name;
  }
};

}  // namespace

TEST_CASE("parse_json bounds nesting and rejects duplicate keys at every level", "[input]") {
  using detail::parse_json;
  CHECK_NOTHROW(parse_json(nested(64), "doc"));
  CHECK_THROWS_WITH(parse_json(nested(65), "doc"), Contains("doc nests deeper than 64 levels (depth 65)"));
  CHECK_THROWS_WITH(parse_json(nested(100000), "doc"), Contains("nests deeper than 64 levels"));
  CHECK_THROWS_WITH(parse_json(std::string(100000, '['), "doc"), Contains("nests deeper"));
  CHECK_THROWS_WITH(parse_json(R"({"a": 1, "a": 2})", "doc"), Contains("doc has the key 'a' twice"));
  CHECK_THROWS_WITH(parse_json(R"({"a": {"b": 1, "b": 1}})", "doc"), Contains("the key 'b' twice"));
  CHECK_NOTHROW(parse_json(R"({"a": {"b": 1}, "c": {"b": 1}})", "doc"));  // same key in different objects
  CHECK_THROWS_WITH(parse_json("{\"a\": ", "doc"), Contains("doc is not valid JSON"));
  const std::string long_key(100000, 'k');
  const std::string m = error_of([&] { parse_json("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}", "doc"); });
  CHECK(m.size() < 200);
}

TEST_CASE("short_dump and excerpt keep values in error messages short", "[input]") {
  using detail::json;
  CHECK(detail::short_dump(json::parse(nested(60))) == "an array");
  CHECK(detail::short_dump(json::parse("[2,-3]")) == "[2,-3]");
  CHECK(detail::short_dump(json::parse("{\"a\": 1}")) == "an object");
  CHECK(detail::short_dump(json(std::string(1 << 20, 'x'))).size() <= 60);
  CHECK(detail::short_dump(json(std::vector<int>(100000, 7))).size() <= 60);
  CHECK(detail::excerpt(std::string(1000, 'y')).size() == 60);
}

TEST_CASE("config.json: deep values, duplicate keys and integers beyond int64 give clear errors", "[input]") {
  SECTION("a value nested 100,000 deep, book or Hugging Face keys") {
    for (const char* key : {"emb_dim", "vocab_size"})
      CHECK_THROWS_WITH(read_config("{\"" + std::string(key) + "\": " + nested(100000) + "}"),
                        Contains("config.json nests deeper than 64 levels"));
    CHECK_THROWS_WITH(read_config(R"({"n_embd": 8, "model_type": )" + nested(100000, "\"gpt2\"") + "}"),
                      Contains("nests deeper"));
  }
  SECTION("a structured value within the depth limit is named, not serialized") {
    const std::string m = error_of([] { read_config(R"({"n_embd": 8, "model_type": )" + nested(60) + "}"); });
    CHECK_THAT(m, Contains("config key 'model_type' is an array"));
    const std::string big = error_of([] {
      read_config(R"({"n_embd": 8, "model_type": ")" + std::string(200000, 'x') + "\"}");
    });
    CHECK(big.size() < 300);
  }
  SECTION("duplicate keys") {
    CHECK_THROWS_WITH(read_config(R"({"emb_dim": 8, "emb_dim": 16})"), Contains("has the key 'emb_dim' twice"));
    CHECK_THROWS_WITH(read_config(R"({"n_embd": 8, "n_embd": 16})"), Contains("has the key 'n_embd' twice"));
  }
  SECTION("integers beyond int64 are too large, not negative") {
    for (const char* v : {"18446744073709551615", "9223372036854775808", "1e300", "-1e300"}) {
      const std::string text = std::string(kBookConfig).replace(kBookConfig.find("\"emb_dim\": 8"), 12,
                                                                std::string("\"emb_dim\": ") + v);
      CHECK_THROWS_WITH(read_config(text), Contains("'emb_dim' must be an integer") && Contains("too large"));
    }
    CHECK_THROWS_WITH(read_config(R"({"n_embd": 18446744073709551615, "n_layer": 1, "n_head": 1,
                                      "n_positions": 8, "vocab_size": 16})"),
                      Contains("'n_embd' must be an integer") && Contains("too large"));
    CHECK_NOTHROW(read_config(kBookConfig));
  }
}

TEST_CASE("GPT-2 vocabulary: deep ids and duplicate tokens are rejected without serializing them", "[input]") {
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings("{\"a\": " + nested(100000) + "}", ""), Contains("nests deeper"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings("{\"a\": " + nested(10) + "}", ""),
                    Contains("token 'a' has id an array, which is not an integer"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": 0, "a": 1})", ""), Contains("the key 'a' twice"));
  const std::string m = error_of([] { Gpt2Tokenizer::from_strings("{\"" + std::string(100000, 'a') + "\": -1}", ""); });
  CHECK(m.size() < 300);
}

TEST_CASE("safetensors headers: bounded length, nesting and offsets", "[input]") {
  const auto file = [](const std::string& header, size_t data_bytes = 0) {
    std::vector<uint8_t> bytes(8 + header.size() + data_bytes, 0);
    const uint64_t n = header.size();
    std::memcpy(bytes.data(), &n, 8);
    std::memcpy(bytes.data() + 8, header.data(), header.size());
    return bytes;
  };
  const auto bytes = file("{\"w\": " + nested(100000) + "}");
  CHECK_THROWS_WITH(SafetensorsFile::parse(bytes), Contains("nests deeper"));
  std::vector<uint8_t> huge_len(16, 0);
  const uint64_t n = ~uint64_t{0};
  std::memcpy(huge_len.data(), &n, 8);
  CHECK_THROWS_WITH(SafetensorsFile::parse(huge_len), Contains("exceeds the limit"));
  const auto past = file(R"({"w": {"dtype": "F32", "shape": [1],
                                    "data_offsets": [18446744073709551612, 18446744073709551616]}})");
  CHECK_THROWS_AS(SafetensorsFile::parse(past), Error);
  const auto wrap = file(R"({"w": {"dtype": "F64", "shape": [4611686018427387904, 4], "data_offsets": [0, 0]}})");
  CHECK_THROWS_WITH(SafetensorsFile::parse(wrap), Contains("more"));
}

TEST_CASE("read_file_bytes reads regular files only, within a size limit", "[input]") {
  const ScratchDir dir("input_files");
  CHECK_THROWS_WITH(read_file_bytes(dir.path.string()), Contains("is a directory"));
  CHECK_THROWS_WITH(read_file_bytes("/dev/zero"), Contains("is not a regular file (a character device)"));
  const fs::path small = dir.write("small.txt", std::string(100, 'x'));
  CHECK(read_file_bytes(small.string(), 100).size() == 100);
  CHECK_THROWS_WITH(read_file_bytes(small.string(), 99, "a test file"),
                    Contains("is 100 bytes; the limit for a test file is 99 bytes"));
  CHECK_THROWS_WITH(read_file_bytes((dir.path / "missing").string()), Contains("cannot open"));
}

TEST_CASE("model directories: symlinks to devices and oversized files are refused before reading", "[input]") {
  const ScratchDir dir("input_model");
  SECTION("config.json linked to /dev/zero") {
    fs::create_symlink("/dev/zero", dir.path / "config.json");
    CHECK_THROWS_WITH(load_model_dir(dir.path.string()), Contains("not a regular file"));
  }
  SECTION("config.json is a directory") {
    fs::create_directory(dir.path / "config.json");
    CHECK_THROWS_WITH(load_model_dir(dir.path.string()), Contains("config.json' is a directory"));
  }
  SECTION("config.json over 16 MiB") {
    std::filesystem::resize_file(dir.write("config.json", "{}"), kMaxConfigFileBytes + 1);
    CHECK_THROWS_WITH(load_model_dir(dir.path.string()), Contains("the limit for config.json is 16777216 bytes"));
  }
  SECTION("a sparse 20 GB model.safetensors for a tiny config") {
    dir.write("config.json", kBookConfig);
    std::filesystem::resize_file(dir.write("model.safetensors", ""), uint64_t{20} << 30);
    const std::string m = error_of([&] { load_model_dir(dir.path.string()); });
    // The loader's message, the one a page gets for the same file.
    CHECK_THAT(m, Contains("model.safetensors is 20.0 GiB (21474836480 bytes), more than any checkpoint of this config"));
  }
  SECTION("model.safetensors linked to /dev/zero") {
    dir.write("config.json", kBookConfig);
    fs::create_symlink("/dev/zero", dir.path / "model.safetensors");
    CHECK_THROWS_WITH(load_model_dir(dir.path.string()), Contains("not a regular file"));
  }
}

TEST_CASE("max_safetensors_bytes bounds a checkpoint by its config", "[input]") {
  const GPTConfig cfg = read_config(kBookConfig);
  const uint64_t bound = max_safetensors_bytes(cfg);
  CHECK(bound > kMaxSafetensorsHeaderBytes);
  CHECK(bound < kMaxSafetensorsHeaderBytes + 100000);
}

TEST_CASE("tokenizer files: device links and oversized files are refused", "[input]") {
  const ScratchDir dir("input_tokenizer");
  SECTION("encoder.json linked to /dev/zero") {
    fs::create_symlink("/dev/zero", dir.path / "encoder.json");
    dir.write("vocab.bpe", "");
    CHECK_THROWS_WITH(Gpt2Tokenizer::from_directory(dir.path.string()), Contains("not a regular file"));
  }
  SECTION("vocab.json over 64 MiB") {
    std::filesystem::resize_file(dir.write("vocab.json", "{}"), kMaxTokenizerFileBytes + 1);
    dir.write("merges.txt", "");
    CHECK_THROWS_WITH(Gpt2Tokenizer::from_directory(dir.path.string()),
                      Contains("the limit for a tokenizer file is 67108864 bytes"));
  }
}

// ---- BPE ------------------------------------------------------------------------------------------------

namespace {

// OpenAI encoder.py's bpe(), verbatim in structure: the word as single characters; while some adjacent pair
// has a merge, take the lowest-ranked pair and merge all its non-overlapping occurrences, left to right.
std::vector<std::string> reference_bpe(const std::string& word,
                                       const std::map<std::pair<std::string, std::string>, int>& ranks) {
  std::vector<std::string> parts;
  for (char c : word) parts.emplace_back(1, c);
  while (parts.size() > 1) {
    int best = -1;
    std::pair<std::string, std::string> bigram;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      const auto it = ranks.find({parts[i], parts[i + 1]});
      if (it != ranks.end() && (best < 0 || it->second < best)) {
        best = it->second;
        bigram = it->first;
      }
    }
    if (best < 0) break;
    std::vector<std::string> merged;
    for (size_t i = 0; i < parts.size();) {
      if (i + 1 < parts.size() && parts[i] == bigram.first && parts[i + 1] == bigram.second) {
        merged.push_back(parts[i] + parts[i + 1]);
        i += 2;
      } else {
        merged.push_back(parts[i++]);
      }
    }
    parts = std::move(merged);
  }
  return parts;
}

// bytes_to_unicode() as UTF-8 text: how each byte is written in vocabulary files.
std::string written_byte(int b) {
  const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  int cp = b;
  if (!printable) {
    cp = 256;
    for (int k = 0; k < b; ++k)
      if (!((k >= 0x21 && k <= 0x7E) || (k >= 0xA1 && k <= 0xAC) || (k >= 0xAE && k <= 0xFF))) ++cp;
  }
  if (cp < 0x80) return std::string(1, static_cast<char>(cp));
  return {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
}

// A random byte-level BPE over the letters a-c: all 256 bytes, then `n_merges` merges of random existing
// tokens, listed in random order, so a merge may outrank the merge that creates one of its parts.
struct RandomBpe {
  Gpt2Tokenizer tokenizer;
  std::map<std::pair<std::string, std::string>, int> ranks;
};

RandomBpe random_bpe(std::mt19937& rng, int n_merges) {
  std::vector<std::string> pool = {"a", "b", "c"};
  std::vector<std::pair<std::string, std::string>> merges;
  std::map<std::pair<std::string, std::string>, int> seen;
  while (static_cast<int>(merges.size()) < n_merges) {
    const std::string& x = pool[rng() % pool.size()];
    const std::string& y = pool[rng() % pool.size()];
    if (x.size() + y.size() > 12 || !seen.emplace(std::make_pair(x, y), 0).second) continue;
    merges.emplace_back(x, y);
    if (std::find(pool.begin(), pool.end(), x + y) == pool.end()) pool.push_back(x + y);
  }
  std::shuffle(merges.begin(), merges.end(), rng);
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[written_byte(b)] = vocab.size();
  for (const std::string& t : pool)
    if (!vocab.contains(t)) vocab[t] = vocab.size();
  std::string merges_txt = "#version: 0.2\n";
  RandomBpe out{Gpt2Tokenizer::from_strings(vocab.dump(), ""), {}};
  for (size_t i = 0; i < merges.size(); ++i) {
    merges_txt += merges[i].first + " " + merges[i].second + "\n";
    out.ranks[merges[i]] = static_cast<int>(i);
  }
  out.tokenizer = Gpt2Tokenizer::from_strings(vocab.dump(), merges_txt);
  return out;
}

std::vector<std::string> token_texts(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  std::vector<std::string> texts;
  for (int32_t id : ids) texts.push_back(tok.token_text(id));
  return texts;
}

}  // namespace

TEST_CASE("BPE agrees with encoder.py's algorithm on random words and random merge tables", "[input][bpe]") {
  std::mt19937 rng(20240601);
  for (int table = 0; table < 6; ++table) {
    const RandomBpe bpe = random_bpe(rng, 10 + 25 * table);
    for (int w = 0; w < 100; ++w) {
      std::string word(1 + rng() % 60, 'a');
      for (char& c : word) c = static_cast<char>('a' + rng() % (table % 2 == 0 ? 2 : 3));
      INFO("table " << table << ", word " << word);
      REQUIRE(token_texts(bpe.tokenizer, bpe.tokenizer.encode_ordinary(word)) == reference_bpe(word, bpe.ranks));
    }
  }
}

TEST_CASE("GPT-2 BPE agrees with encoder.py's algorithm on random words", "[input][bpe]") {
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_directory(kGpt2Dir);
  std::map<std::pair<std::string, std::string>, int> ranks;  // over raw bytes
  {
    std::ifstream in(kGpt2Dir + "/vocab.bpe");
    std::string line;
    int rank = 0;
    std::map<std::string, std::string> raw;  // written form -> bytes
    for (int b = 0; b < 256; ++b) raw[written_byte(b)] = std::string(1, static_cast<char>(b));
    const auto to_raw = [&](const std::string& written) {
      std::string bytes;
      for (size_t i = 0; i < written.size();) {
        const size_t len = static_cast<unsigned char>(written[i]) >= 0x80 ? 2 : 1;
        bytes += raw.at(written.substr(i, len));
        i += len;
      }
      return bytes;
    };
    while (std::getline(in, line)) {
      if (line.empty() || line.starts_with("#version")) continue;
      const size_t space = line.find(' ');
      ranks[{to_raw(line.substr(0, space)), to_raw(line.substr(space + 1))}] = rank++;
    }
  }
  std::mt19937 rng(7);
  for (int w = 0; w < 300; ++w) {
    const char* alphabets[] = {"ab", "aeiou", "abcdefghijklmnopqrstuvwxyz", "lo"};
    const std::string alphabet = alphabets[w % 4];
    std::string word(1 + rng() % 80, 'a');
    for (char& c : word) c = alphabet[rng() % alphabet.size()];
    INFO("word " << word);
    REQUIRE(token_texts(tok, tok.encode_ordinary(word)) == reference_bpe(word, ranks));
  }
}

TEST_CASE("GPT-2 BPE encodes a single 131,072-byte word", "[input][bpe]") {
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_directory(kGpt2Dir);
  std::mt19937 rng(11);
  std::string letters(131072, 'a');
  for (char& c : letters) c = static_cast<char>('a' + rng() % 26);
  for (const std::string& word : {std::string(131072, 'a'), letters}) {
    const std::vector<int32_t> ids = tok.encode_ordinary(word);
    CHECK(tok.decode(ids) == word);
    CHECK(ids.size() < word.size());
  }
}
