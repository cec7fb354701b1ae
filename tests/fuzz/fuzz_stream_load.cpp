// Streamed loading (ModelStreamLoader, what a page's download feeds) in random chunk sizes against the one-shot
// load_model of the same bytes, float32 and int8, then generation with fuzzed options on the loaded model.
// Input:
//   byte 0      golden checkpoint (tests/golden/models/, % 4); bit 0 of byte 1: int8 weights
//   byte 2      n: how many 4-byte patch records follow (% 17), applied to the safetensors bytes as in
//               fuzz_model_load (u16 offset, u8 op, u8 value)
//   6 bytes     generation: max_new_tokens (% 9), temperature (b / 32: 0 is greedy, up to 7.97), top_k (b % 70:
//               beyond the vocabulary keeps all), top_p (b / 255; 0 is refused), seed, overflow (bit 0: crop)
//   the rest    chunk sizes, cycled: 1 + byte (or 4096 when byte is 255)
// Promised: both loads agree — the same Error message, or models whose logits are the same bits —; every
// generated id is in the vocabulary and generation from the same seed repeats itself.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/generation.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<float> logits;
};

std::vector<float> logits_of(GPTModel& model) {
  const int64_t T = std::min<int64_t>(4, model.config().context_length);
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>((t * 7) % model.config().vocab_size);
  return model.forward(ids, 1, T).data;
}

template <typename Load>
Outcome attempt(Load load) {
  Outcome o;
  try {
    GPTModel model = load();
    o.logits = logits_of(model);
    o.ok = true;
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

void generate_with(GPTModel& model, const uint8_t* g) {
  GenerateOptions opts;
  opts.max_new_tokens = g[0] % 9;
  opts.sampling.temperature = static_cast<float>(g[1]) / 32.0f;
  opts.sampling.top_k = g[2] % 70;
  opts.sampling.top_p = static_cast<float>(g[3]) / 255.0f;
  opts.seed = g[4];
  opts.overflow = g[5] & 1 ? ContextOverflow::Crop : ContextOverflow::Error;
  const std::vector<int32_t> prompt = {1, 2, 3};
  std::vector<int32_t> first;
  try {
    first = generate(model, prompt, opts);
  } catch (const Error&) {
    return;  // refused options (top_p 0, a prompt past the context): the expected answer
  }
  for (const int32_t id : first) {
    if (id < 0 || id >= model.config().vocab_size) fuzz::fail("a generated id is outside the vocabulary");
  }
  if (generate(model, prompt, opts) != first) fuzz::fail("generation from the same seed differs");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const fuzz::Golden& golden = fuzz::goldens()[data[0] % 4];
  LoadOptions opts;
  opts.max_parameter_bytes = 1'000'000;
  opts.weights = data[1] & 1 ? WeightFormat::Int8 : WeightFormat::F32;
  const size_t patches = std::min<size_t>(data[2] % 17, (size - 9) / 4) * 4;
  std::vector<uint8_t> bytes = golden.weights;
  fuzz::apply_patches(bytes, data + 3, patches);
  const uint8_t* gen = data + 3 + patches;
  const uint8_t* chunks = gen + 6;
  const size_t n_chunks = size - static_cast<size_t>(chunks - data);

  const Outcome whole = attempt([&] { return load_model(golden.config, bytes, opts); });
  const Outcome streamed = attempt([&] {
    ModelStreamLoader loader(read_config(golden.config), bytes.size(), opts);
    size_t off = 0;
    for (size_t i = 0; off < bytes.size(); ++i) {
      const uint8_t b = n_chunks ? chunks[i % n_chunks] : 63;
      const size_t n = std::min<size_t>(b == 255 ? 4096 : size_t{b} + 1, bytes.size() - off);
      loader.write(std::span<const uint8_t>(bytes).subspan(off, n));
      off += n;
    }
    return loader.finish();
  });
  if (whole.ok != streamed.ok) {
    std::fprintf(stderr, "one-shot: %s\nstreamed: %s\n", whole.ok ? "loaded" : whole.error.c_str(),
                 streamed.ok ? "loaded" : streamed.error.c_str());
    fuzz::fail("the streamed load and the one-shot load disagree on whether the file loads");
  }
  if (!whole.ok) {
    if (whole.error != streamed.error) {
      std::fprintf(stderr, "one-shot: %s\nstreamed: %s\n", whole.error.c_str(), streamed.error.c_str());
      fuzz::fail("the streamed load names another problem than the one-shot load");
    }
    return 0;
  }
  if (whole.logits.size() != streamed.logits.size() ||
      std::memcmp(whole.logits.data(), streamed.logits.data(), whole.logits.size() * sizeof(float)) != 0) {
    fuzz::fail("the streamed model's logits differ from the one-shot model's");
  }
  try {
    GPTModel model = load_model(golden.config, bytes, opts);
    generate_with(model, gen);
  } catch (const Error&) {
  }
  return 0;
}
