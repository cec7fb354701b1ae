// GPT-2's byte-level BPE tokenizer (encoder.json + vocab.bpe, loaded once) and small tokenizers built from
// the input. Byte 0 picks the mode:
//   0: the rest is text: GPT-2 encode / encode_ordinary / ByteTokenizer must round-trip it exactly.
//   1: the rest is little-endian int32 ids: decode / token_text (Error for an id outside the vocabulary).
//   2: a tokenizer from the input: bytes 1-2 and 3-4 (little-endian) are the lengths of the vocab JSON and the
//      merges text that follow; the rest is text to encode (round trip) with it, if from_strings accepts them.
//   3: a valid tokenizer whose merges come from the input: byte 1 % 65 merges, each two little-endian u16
//      naming the two tokens merged (ids modulo the vocabulary so far; tokens stay <= 64 bytes); written as vocab.json +
//      merges.txt (bytes_to_unicode form) and loaded by from_strings. The rest is text: round trip.
// Text to encode is capped at 4 KiB per exec: BPE is super-linear in the length of a word (ASan build: a
// random 1/2/4 KiB letter word takes 0.2/0.6/1.8 s), so longer inputs would only hit the 10 s timeout
// (a known issue being fixed separately). Vocab and merges are not capped.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/tokenizer.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

const Gpt2Tokenizer& gpt2() {
  static const Gpt2Tokenizer t = [] {
    const std::string dir = BLOCKSCOPE_GPT2_TOKENIZER_DIR;
    return Gpt2Tokenizer::from_strings(fuzz::read_text(dir + "/encoder.json"), fuzz::read_text(dir + "/vocab.bpe"));
  }();
  return t;
}

void check_ids(const Tokenizer& t, const std::vector<int32_t>& ids) {
  for (const int32_t id : ids)
    if (id < 0 || id >= t.vocab_size()) fuzz::fail("encode returned an id outside the vocabulary");
}

void round_trip(const Tokenizer& t, std::string_view text) {
  const std::vector<int32_t> ids = t.encode(text);
  check_ids(t, ids);
  if (t.decode(ids) != text) fuzz::fail("decode(encode(text)) != text");
}

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// GPT-2's bytes_to_unicode: how vocab.json and merges.txt write each byte (printable Latin-1 as itself, the
// other 68 bytes as U+0100 + n), UTF-8 encoded.
std::string written(std::string_view bytes) {
  std::string out;
  for (const unsigned char b : bytes) {
    unsigned cp = b;
    if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)) {
      unsigned n = 0;
      for (unsigned c = 0; c < b; ++c) n += !((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174);
      cp = 256 + n;
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

// Mode 3's tokenizer: the 256 byte tokens plus the merges the input names.
Gpt2Tokenizer tokenizer_from_merges(const uint8_t*& data, size_t& size) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  std::string merges = "#version: 0.2\n";
  std::vector<std::pair<size_t, size_t>> seen;
  const size_t n = size > 0 ? data[0] % 65 : 0;
  size_t i = 1;
  for (size_t m = 0; m < n && i + 4 <= size; ++m, i += 4) {
    const size_t a = u16(data + i) % tokens.size(), b = u16(data + i + 2) % tokens.size();
    const std::string merged = tokens[a] + tokens[b];
    if (merged.size() > 64 || std::find(seen.begin(), seen.end(), std::pair(a, b)) != seen.end()) continue;
    seen.emplace_back(a, b);
    merges += written(tokens[a]) + " " + written(tokens[b]) + "\n";
    if (std::find(tokens.begin(), tokens.end(), merged) == tokens.end()) tokens.push_back(merged);
  }
  std::string vocab = "{";
  for (size_t id = 0; id < tokens.size(); ++id) {
    vocab += (id ? ", " : "") + nlohmann::json(written(tokens[id])).dump() + ": " + std::to_string(id);
  }
  vocab += "}";
  i = std::min(i, size);
  data += i, size -= i;
  return Gpt2Tokenizer::from_strings(vocab, merges);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0] % 4;
  ++data, --size;
  const auto capped = [](const uint8_t* p, size_t n) {
    return std::string_view(reinterpret_cast<const char*>(p), std::min<size_t>(n, 4096));
  };
  try {
    if (mode == 0) {
      const std::string_view text = capped(data, size);
      round_trip(gpt2(), text);
      if (text.find("<|") != std::string_view::npos) {  // otherwise encode_ordinary is encode: skip the cost
        const std::vector<int32_t> plain = gpt2().encode_ordinary(text);
        check_ids(gpt2(), plain);
        if (gpt2().decode(plain) != text) fuzz::fail("decode(encode_ordinary(text)) != text");
      }
      round_trip(ByteTokenizer(true), text);
      round_trip(ByteTokenizer(false), text);
    } else if (mode == 1) {
      std::vector<int32_t> ids(std::min<size_t>(size, 4096) / 4);
      if (!ids.empty()) std::memcpy(ids.data(), data, ids.size() * 4);
      try {
        (void)gpt2().decode(ids);
      } catch (const Error&) {
      }
      for (const int32_t id : ids) {
        try {
          (void)gpt2().token_text(id);
        } catch (const Error&) {
        }
      }
      (void)ByteTokenizer(true).decode(ids);
    } else if (mode == 3) {
      const Gpt2Tokenizer t = tokenizer_from_merges(data, size);
      round_trip(t, capped(data, size));
    } else {
      if (size < 4) return 0;
      size_t vocab_len = std::min<size_t>(u16(data), size - 4);
      size_t merges_len = std::min<size_t>(u16(data + 2), size - 4 - vocab_len);
      const char* p = reinterpret_cast<const char*>(data + 4);
      const std::string_view vocab(p, vocab_len), merges(p + vocab_len, merges_len);
      const std::string_view text = capped(data + 4 + vocab_len + merges_len, size - 4 - vocab_len - merges_len);
      const Gpt2Tokenizer t = Gpt2Tokenizer::from_strings(vocab, merges);
      round_trip(t, text);
    }
  } catch (const Error&) {
  }
  return 0;
}
