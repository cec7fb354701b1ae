// BpeTrainer on fuzzed text and options. Byte 0: merges = 1 + b % 64; byte 1: min_frequency = 1 + b % 4, and
// <|endoftext|> is added when its high bit is set; byte 2: where the text is cut into two add_text calls. The rest
// (at most 4 KiB) is the text. A trained vocabulary must load with Gpt2Tokenizer::from_strings, encode the
// training text into exactly the token count training reports, round-trip it, and have merge counts that never
// rise (a merge only lowers the other pairs' counts, and a pair it creates occurs at most as often as it did).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/bpe_trainer.hpp"
#include "blockscope/error.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;
constexpr size_t kMaxText = 4096;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  BpeTrainOptions options;
  options.merges = 1 + data[0] % 64;
  options.min_frequency = 1 + (data[1] & 0x7F) % 4;
  options.end_of_text = (data[1] & 0x80) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 3), std::min(size - 3, kMaxText));
  const size_t cut = std::min<size_t>(data[2] * 16, text.size());

  BpeTrainer trainer(options);
  trainer.add_text(text.substr(0, cut));
  trainer.add_text(text.substr(cut));
  BpeVocabulary vocab;
  try {
    vocab = trainer.train();
  } catch (const Error&) {
    return 0;  // no text (or only <|endoftext|>)
  }
  if (static_cast<int64_t>(vocab.merges.size()) > options.merges) fuzz::fail("more merges than asked for");
  for (size_t r = 0; r < vocab.merges.size(); ++r) {
    if (vocab.merges[r].count < options.min_frequency) fuzz::fail("a merge below the minimum frequency");
    if (r > 0 && vocab.merges[r].count > vocab.merges[r - 1].count) fuzz::fail("a merge count rose");
  }
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_strings(vocab.vocab_json(), vocab.merges_txt());
  if (tok.vocab_size() != vocab.vocab_size() || tok.eot_id() != vocab.eot_id) fuzz::fail("the files load differently");
  // Token counts are per add_text piece: the cut may split a word, so encode the two pieces apart.
  int64_t tokens = 0;
  for (const std::string_view piece : {text.substr(0, cut), text.substr(cut)}) {
    const std::vector<int32_t> ids = tok.encode(piece);
    if (tok.decode(ids) != piece) fuzz::fail("decode(encode(text)) != text");
    for (const int32_t id : ids) tokens += vocab.eot_id && id == *vocab.eot_id ? 0 : 1;
  }
  if (tokens != vocab.text_tokens) fuzz::fail("the training text encodes into another token count than reported");
  return 0;
}
