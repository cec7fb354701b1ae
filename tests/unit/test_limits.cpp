// Tests for size limits, checked size arithmetic and the memory budget: configs whose sizes overflow int64
// are refused by name, every buffer is budgeted before it is allocated (and a refused call leaves the model
// working), integer generation options are range-checked, and deep models build in linear time.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "blockscope/checked.hpp"
#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/linear.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/trainer.hpp"
#include "blockscope/transformer_block.hpp"

using namespace blockscope;
using Catch::Contains;

namespace {
constexpr int64_t kGiB = int64_t{1} << 30;

GPTConfig gpt(int64_t vocab, int64_t ctx, int64_t emb, int64_t heads, int64_t layers) {
  GPTConfig c;
  c.vocab_size = vocab;
  c.context_length = ctx;
  c.emb_dim = emb;
  c.n_heads = heads;
  c.n_layers = layers;
  c.drop_rate = 0.0;
  return c;
}

GPTConfig gpt2_xl() {
  GPTConfig c = gpt(50257, 1024, 1600, 25, 48);
  c.qkv_bias = true;
  c.tie_weights = true;
  return c;
}

std::vector<int32_t> ids_of(int64_t n, int64_t vocab) {
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7 + 3) % static_cast<size_t>(vocab));
  return ids;
}
}  // namespace

TEST_CASE("checked arithmetic throws naming the quantity instead of wrapping", "[limits]") {
  constexpr int64_t big = std::numeric_limits<int64_t>::max();
  CHECK(checked_mul(int64_t{1} << 31, int64_t{1} << 31, "x") == int64_t{1} << 62);
  CHECK_THROWS_WITH(checked_mul(88888888888888881, 12345, "the widget count"),
                    Contains("the widget count overflows int64 (88888888888888881 x 12345)"));
  CHECK_THROWS_WITH(checked_add(big, 1, "a sum"), Contains("a sum overflows int64"));
  CHECK_THROWS_WITH(checked_product("a product", {1 << 20, 1 << 20, 1 << 20, 1 << 20}), Contains("a product overflows"));
  CHECK(to_size(12, "n") == 12u);
  CHECK_THROWS_WITH(to_size(-1, "the buffer"), Contains("the buffer must be >= 0, got -1"));
  // wasm32's size_t: 2^32 and 2^32 + 1 are refused, never wrapped to 0 or 1.
  CHECK(to_unsigned<uint32_t>((int64_t{1} << 32) - 1, "n") == 0xFFFFFFFFu);
  CHECK_THROWS_WITH(to_unsigned<uint32_t>(int64_t{1} << 32, "the logits"),
                    Contains("the logits (4294967296) does not fit a 32-bit size"));
  CHECK_THROWS(to_unsigned<uint32_t>((int64_t{1} << 32) + 1, "n"));
  CHECK(bytes_str(976.6 * kGiB) == "976.6 GiB");
  CHECK(bytes_str(512) == "512 bytes");
}

TEST_CASE("configs whose parameter counts overflow are refused by name", "[limits]") {
  GPTConfig c = gpt(50, 8, 16, 2, 88888888888888881);
  CHECK_THROWS_WITH(GPTModel::count_parameters(c), Contains("n_layers 88888888888888881 exceeds the limit of 4096"));
  c = gpt(50, 8, int64_t{1} << 32, 1, 1);  // emb_dim 2^32: refused rather than a wrapped count
  CHECK_THROWS_WITH(GPTModel::count_parameters(c), Contains("emb_dim 4294967296 exceeds the limit of 65536"));
  CHECK_THROWS_WITH(gpt(50, int64_t{1} << 21, 16, 2, 1).validate(), Contains("context_length 2097152 exceeds"));
  CHECK_THROWS_WITH(gpt(int64_t{1} << 31, 8, 16, 2, 1).validate(), Contains("vocab_size"));
  c = gpt(50, 8, 16, 2, 1);
  c.ffn_hidden = int64_t{1} << 40;
  CHECK_THROWS_WITH(c.validate(), Contains("ffn_hidden 1099511627776 exceeds the limit of 1048576"));
  CHECK_THROWS_WITH(GPTModel::count_parameters(gpt(50, 8, 16, 32, 1)), Contains("n_heads (32) must not exceed emb_dim"));

  // The modules' own counts are checked too.
  CHECK_THROWS_WITH(Linear::num_params(int64_t{1} << 40, int64_t{1} << 40, true),
                    Contains("Linear's parameter count overflows int64"));
  AttentionConfig a{int64_t{1} << 32, int64_t{1} << 32, 8, 1};
  CHECK_THROWS_WITH(MultiHeadAttention::num_params(a), Contains("attention d_in 4294967296 exceeds the limit"));
  CHECK_THROWS_WITH(FeedForward::num_params({16, int64_t{1} << 40}), Contains("hidden_dim 1099511627776 exceeds"));
  BlockConfig b;
  b.emb_dim = int64_t{1} << 62;  // 4 x emb_dim would overflow: refused before it is computed
  b.context_length = 8;
  CHECK_THROWS_WITH(TransformerBlock::num_params(b), Contains("emb_dim 4611686018427387904 exceeds the limit"));

  // The largest valid config is counted exactly (no wrap) and refused by the loaders' budget.
  GPTConfig huge = gpt(SizeLimits::kMaxVocab, SizeLimits::kMaxContext, SizeLimits::kMaxEmbDim, 1, SizeLimits::kMaxLayers);
  const int64_t C = huge.emb_dim, H = 4 * C, V = huge.vocab_size;
  const int64_t block = 3 * C * C + C * C + C + C * H + H + H * C + C + 4 * C;
  CHECK(GPTModel::count_parameters(huge) == 2 * V * C + huge.context_length * C + huge.n_layers * block + 2 * C);
  CHECK_THROWS_WITH(check_parameter_budget(huge, LoadOptions{}), Contains("the limit is"));
  CHECK_THROWS_WITH(GPTModel(huge, GPTModel::Uninitialized{}), Contains("memory budget by"));

  // The limits still admit GPT-2 XL: 1,557,611,200 parameters.
  CHECK(GPTModel::count_parameters(gpt2_xl()) == 1557611200);
  CHECK(GPTModel::parameter_bytes(gpt2_xl()) == 4 * int64_t{1557611200});
}

TEST_CASE("a model of 4,000 layers builds in linear time", "[limits]") {
  const GPTConfig c = gpt(2, 2, 1, 1, 4000);
  GPTModel model(c, 7);
  // Per layer: attention 3 + 2, feed-forward (4 + 4) + (4 + 1), two LayerNorms 4: 22.
  CHECK(model.num_parameters() == 2 + 2 + 4000 * 22 + 2 + 2);
  CHECK(model.num_parameters() == GPTModel::count_parameters(c));
  CHECK(model.params().params().size() == 2 + 4000 * 13 + 2 + 1);  // 13 tensors per block
  CHECK(model.params().find("trf_blocks.3999.norm2.shift") != nullptr);
  const Tensor logits = model.forward(std::vector<int32_t>{1, 0}, 1, 2);
  CHECK(logits.shape == Shape{1, 2, 2});
  CHECK_THROWS_WITH(GPTModel(gpt(2, 2, 1, 1, 4097)), Contains("n_layers 4097 exceeds the limit of 4096"));
}

TEST_CASE("attention and logits buffers beyond the budget are refused before allocating", "[limits]") {
  // T = 65,536 with C = NH = 1: (B, NH, T, T) is 2^32 floats, which wrapped to 0 bytes with a 32-bit size_t.
  MultiHeadAttention att(AttentionConfig{1, 1, 65536, 1});
  const Tensor x({1, 65536, 1});
  CHECK_THROWS_WITH(att.forward(x), Contains("attention over 1 x 65536 tokens with 1 heads") &&
                                        Contains("needs 16.0 GiB") && Contains("memory budget by"));

  BlockConfig bc;
  bc.emb_dim = 1;
  bc.context_length = 65536;
  TransformerBlock block(bc);
  CHECK_THROWS_WITH(block.forward(x), Contains("a TransformerBlock forward over 1 x 65536 tokens") &&
                                          Contains("memory budget by"));
  FeedForward ff(FeedForwardConfig{1, int64_t{1} << 20});
  CHECK_THROWS_WITH(ff.forward(Tensor({4096, 1})), Contains("FeedForward's hidden values for 4096 rows of width "
                                                            "1048576 needs 32.0 GiB"));
  CHECK(ff.forward(Tensor({2, 1})).shape == Shape{2, 1});

  // 16 heads x T = 16,384 in a whole model: refused, and the model still computes what it did before.
  GPTModel model(gpt(8, 16384, 16, 16, 1), 3);
  const std::vector<int32_t> small = {1, 2, 3};
  const Tensor before = model.forward(small, 1, 3);
  const std::vector<int32_t> long_ids = ids_of(16384, 8);
  CHECK(GPTModel::forward_bytes(model.config(), 1, 16384) > 16 * kGiB);
  CHECK_THROWS_WITH(model.forward(long_ids, 1, 16384),
                    Contains("the forward pass over 1 x 16384 tokens (logits 1 x 16384 x 8, attention 1 x 16 x "
                             "16384 x 16384)") &&
                        Contains("for the model's parameters") && Contains("over the 16.0 GiB memory budget by"));
  CHECK(model.forward(small, 1, 3).data == before.data);

  // B x T x vocab >= 2^32 logits.
  GPTModel wide(gpt(65536, 4, 8, 2, 1), 5);
  const std::vector<int32_t> batch = ids_of(65536 * 4, 65536);
  CHECK_THROWS_WITH(wide.forward(batch, 65536, 4), Contains("logits 65536 x 4 x 65536") && Contains("memory budget"));
  // B x T that overflows int64 is refused by name, not multiplied.
  CHECK_THROWS_WITH(wide.forward(small, int64_t{1} << 62, 4), Contains("B x T overflows int64"));
}

TEST_CASE("a huge batch is refused under the budget and the model keeps working", "[limits]") {
  GPTModel model(gpt(50, 12, 8, 2, 1), 11);
  model.set_memory_budget(MemoryBudget{2 * kGiB});  // the wasm32 default
  const std::vector<int32_t> small = ids_of(2 * 12, 50);
  const Tensor before = model.forward(small, 2, 12, true);
  const std::vector<int32_t> huge = ids_of(1000000 * int64_t{12}, 50);
  CHECK_THROWS_WITH(model.forward(huge, 1000000, 12),
                    Contains("the forward pass over 1000000 x 12 tokens") && Contains("over the 2.0 GiB memory budget by"));
  CHECK_THROWS_WITH(model.forward(huge, 1000000, 12, true), Contains("with inspection"));
  const Tensor after = model.forward(small, 2, 12, true);
  CHECK(after.data == before.data);
  CHECK(model.last_inspection().layers.size() == 1);
  // Inspection costs more than the plain pass; the largest batch the budget admits is found by its bytes.
  const GPTConfig& c = model.config();
  CHECK(GPTModel::forward_bytes(c, 4, 12, true) > GPTModel::forward_bytes(c, 4, 12, false));
  const int64_t params = GPTModel::parameter_bytes(c);
  int64_t lo = 1, hi = 1000000;  // largest B with B x 12 within the budget
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (GPTModel::forward_bytes(c, mid, 12) + params <= 2 * kGiB) lo = mid; else hi = mid - 1;
  }
  INFO("the largest batch of 12 tokens a 2 GiB budget admits: " << lo);
  CHECK(lo > 1000);
  CHECK(lo < 1000000);
  CHECK_THROWS_WITH(model.set_memory_budget(MemoryBudget{16}), Contains("parameters needs"));

  // Training: activations, parameters, gradients, AdamW moments and the rollback copy, checked against the
  // model's budget before the run state exists.
  TrainConfig tc;
  tc.batch_size = 1000000;
  tc.steps = 1;
  CHECK(Trainer::activation_bytes(c, 1000000, 12, false) > 2 * kGiB);
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(ids_of(200, 50), 0.0, 12, 50)),
                    Contains("training activations for batch_size 1000000 x seq_len 12 needs") &&
                        Contains("for the model's parameters") && Contains("over the 2.0 GiB memory budget by") &&
                        Contains(": lower batch_size or seq_len"));
  CHECK(model.forward(small, 2, 12, true).data == before.data);
}

TEST_CASE("KV caches are checked against the memory budget", "[limits]") {
  // A 4 MB model with 1,000 layers x context 10^6 asked for an 8 GB cache.
  GPTModel model(gpt(4, 1000000, 1, 1, 1000), 13, MemoryBudget{2 * kGiB});
  CHECK(GPTModel::parameter_bytes(model.config()) < 5000000);
  CHECK(KVCache::bytes(model.config()) == int64_t{8000000000});
  GenerateOptions opts;
  opts.max_new_tokens = 2;
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts),
                    Contains("the KV cache for 1000 layers x context 1000000 x 1 needs 7.5 GiB") &&
                        Contains("for the model's parameters") && Contains("over the 2.0 GiB memory budget by 5.5 GiB"));
  CHECK(model.forward(std::vector<int32_t>{1, 2}, 1, 2).shape == Shape{1, 2, 4});

  // The brief's example sizes, without building the model: 1000 layers x 10^6 x 128 under the default budget.
  const GPTConfig big = gpt(4, 1000000, 128, 1, 1000);
  CHECK_THROWS_WITH(KVCache(big), Contains("the KV cache for 1000 layers x context 1000000 x 128 needs 953.7 GiB") &&
                                      Contains("memory budget by"));
  // The longest context a 2 GiB budget admits for the KV cache of 12 layers x 768.
  int64_t lo = 1, hi = SizeLimits::kMaxContext;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (KVCache::bytes(gpt(4, mid, 768, 12, 12)) <= 2 * kGiB) lo = mid; else hi = mid - 1;
  }
  INFO("the longest context whose 12 x 768 KV cache fits 2 GiB: " << lo);
  CHECK(lo == 2 * kGiB / (2 * 12 * 768 * 4));

  // Generation within the budget still works.
  GPTModel ok(gpt(10, 16, 8, 2, 2), 1, MemoryBudget{2 * kGiB});
  CHECK(generate(ok, std::vector<int32_t>{1, 2}, opts).size() == 2);
}

TEST_CASE("integer generation options are range-checked as int64", "[limits]") {
  GPTModel model(gpt(20, 16, 8, 2, 1), 17);
  GenerateOptions opts;
  opts.max_new_tokens = 6;
  opts.seed = 99;
  opts.sampling.top_k = 0;
  const std::vector<int32_t> all = generate(model, std::vector<int32_t>{1}, opts);
  // top_k >= vocab keeps every token, exactly like 0: 2^32 must not wrap to 0 or index past the vocabulary,
  // and 2^32 + 1 must not act as top-1.
  for (const int64_t k : {int64_t{20}, int64_t{1} << 32, (int64_t{1} << 32) + 1, std::numeric_limits<int64_t>::max()}) {
    opts.sampling.top_k = k;
    const std::vector<int32_t> got = generate(model, std::vector<int32_t>{1}, opts);
    CHECK(got == all);
    for (const int32_t t : got) CHECK((t >= 0 && t < 20));
  }
  opts.sampling.top_k = 1;
  opts.sampling.temperature = 1.0f;
  const std::vector<float> logits = {0.0f, 5.0f, 1.0f};
  Rng rng(1);
  SamplingOptions s;
  s.top_k = (int64_t{1} << 32) + 1;
  for (int i = 0; i < 50; ++i) {
    const int32_t t = sample_token(logits, s, rng);
    CHECK((t >= 0 && t < 3));
  }
  s.top_k = -1;
  CHECK_THROWS_WITH(sample_token(logits, s, rng), Contains("top_k must be >= 0"));
  // From JSON: topK 2^32 arrives as an int64, not truncated.
  CHECK(GenerateOptions::from_json({{"topK", int64_t{1} << 32}}).sampling.top_k == int64_t{1} << 32);

  // A stop token of 1e10 is reported as given.
  opts = GenerateOptions{};
  opts.stop_token = int64_t{10000000000};
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts),
                    Contains("stop token 10000000000 is outside the vocabulary [0, 20): out of range"));
  opts.stop_token = -1;
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts), Contains("stop token -1 is outside"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"stopToken", int64_t{10000000000}}}), Contains("10000000000"));
  opts.stop_token.reset();
  opts.max_new_tokens = int64_t{1} << 32;
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts),
                    Contains("max_new_tokens must be in [0, 2147483647], got 4294967296"));
  opts.max_new_tokens = -1;
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts), Contains("max_new_tokens must be in"));
  // Every 64-bit seed is valid and deterministic.
  opts.max_new_tokens = 3;
  opts.seed = std::numeric_limits<uint64_t>::max();
  CHECK(generate(model, std::vector<int32_t>{1}, opts) == generate(model, std::vector<int32_t>{1}, opts));
}
