// Tests for the modules' backward passes against PyTorch autograd (tests/golden/grad_modules.json): the
// feed-forward network, multi-head attention (causal and not, with attention dropout), pre- and post-norm
// transformer blocks (with dropout masks shared with PyTorch), the lesson's EncoderBlock, and post-norm
// anchored to torch.nn.TransformerEncoderLayer(norm_first=False). Every input and parameter gradient within
// |a - e| <= 1e-5 + 1e-5 |e|.
#include <catch2/catch.hpp>

#include "blockscope/feed_forward.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"
#include "support/golden.hpp"

using namespace blockscope;

namespace {
const auto& modules() { return golden::cases("grad_modules.json"); }
bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
}  // namespace

TEST_CASE("feed-forward backward matches PyTorch for GELU (tanh, erf) and ReLU", "[backward][golden]") {
  int seen = 0;
  for (const auto& c : modules()) {
    if (!starts_with(c.name, "ffn_")) continue;
    ++seen;
    SECTION(c.name) {
      FeedForward ff(FeedForwardConfig::from_json(c.config()));
      c.load_params(*ff.own_params());
      const Tensor x = c.input("x"), dy = c.input("dy");
      const int64_t N = x.rows(), H = ff.config().hidden_dim;
      std::vector<float> y(x.data.size()), pre(N * H), post(N * H), dx(x.data.size(), 0.0f);
      ff.forward(y.data(), pre.data(), post.data(), x.ptr(), N);
      golden::check_close("FeedForward", y, c.output("y"));
      ParamArena grads = ParamArena::zeros_like(*ff.own_params());
      ff.backward(dx.data(), dy.ptr(), x.ptr(), pre.data(), post.data(), N, GradMap(*ff.own_params(), grads));
      golden::check_close("FeedForward backward", dx, c.output("dx"));
      CHECK(golden::check_grads("FeedForward backward", c, grads) == 4);
    }
  }
  CHECK(seen == 3);
}

TEST_CASE("attention backward matches PyTorch, causal and not, with attention-weight dropout", "[backward][golden]") {
  int seen = 0;
  for (const auto& c : modules()) {
    if (!starts_with(c.name, "att_")) continue;
    ++seen;
    SECTION(c.name) {
      const AttentionConfig cfg = AttentionConfig::from_json(c.config());
      MultiHeadAttention att(cfg);
      c.load_params(*att.own_params());
      const Tensor x = c.input("x"), dy = c.input("dy");
      const int64_t B = x.dim(0), T = x.dim(1), n = B * T * cfg.d_out;
      std::vector<float> q(n), k(n), v(n), ctx(n), w(B * cfg.num_heads * T * T), y(n), dx(x.data.size(), 0.0f);
      std::vector<float> mask;
      if (cfg.drop_rate > 0) mask = golden::dropout_scale(c, "mask.att", cfg.drop_rate);
      const AttentionActs a{q.data(), k.data(), v.data(), w.data(), mask.empty() ? nullptr : mask.data(), ctx.data()};
      att.forward(y.data(), a, x.ptr(), B, T);
      golden::check_close("MultiHeadAttention", y, c.output("y"));
      ParamArena grads = ParamArena::zeros_like(*att.own_params());
      att.backward(dx.data(), dy.ptr(), x.ptr(), a, B, T, GradMap(*att.own_params(), grads));
      golden::check_close("MultiHeadAttention backward", dx, c.output("dx"));
      CHECK(golden::check_grads("MultiHeadAttention backward", c, grads) == (cfg.qkv_bias ? 8 : 5));
    }
  }
  CHECK(seen == 4);
}

namespace {
// Forward and backward of one block against a case: y, dx and every parameter gradient.
void check_block(const golden::Case& c, TransformerBlock& block, const char* component) {
  const BlockConfig& cfg = block.config();
  c.load_params(*block.own_params());
  const Tensor x = c.input("x"), dy = c.input("dy");
  const int64_t B = x.dim(0), T = x.dim(1);
  const bool dropout = c.json.at("inputs").contains("mask.drop1");
  std::vector<float> mem(static_cast<size_t>(BlockActs::size(cfg, B, T, dropout)));
  const BlockActs a = BlockActs::carve(mem.data(), cfg, B, T, dropout);
  if (dropout) {
    const std::pair<const char*, float*> masks[] = {
        {"mask.att", a.att.att_mask}, {"mask.drop1", a.drop1_mask}, {"mask.drop2", a.drop2_mask}};
    for (const auto& [name, dst] : masks) {
      const auto m = golden::dropout_scale(c, name, cfg.drop_rate);
      std::copy(m.begin(), m.end(), dst);
    }
  }
  block.forward(a, x.ptr(), B, T);
  golden::check_close(component, std::span<const float>(a.out, x.data.size()), c.output("y"));
  std::vector<float> dx(x.data.size(), 0.0f);
  ParamArena grads = ParamArena::zeros_like(*block.own_params());
  block.backward(dx.data(), dy.ptr(), x.ptr(), a, B, T, GradMap(*block.own_params(), grads));
  golden::check_close(std::string(component) + " backward", dx, c.output("dx"));
  CHECK(golden::check_grads(std::string(component) + " backward", c, grads) ==
        static_cast<int>(block.own_params()->params().size()));
}
}  // namespace

TEST_CASE("transformer block backward matches PyTorch in pre- and post-norm, with dropout", "[backward][golden]") {
  int seen = 0;
  for (const auto& c : modules()) {
    if (!starts_with(c.name, "block_")) continue;
    ++seen;
    SECTION(c.name) {
      TransformerBlock block(BlockConfig::from_json(c.config()));
      check_block(c, block, "TransformerBlock");
    }
  }
  CHECK(seen == 6);
}

TEST_CASE("the lesson's EncoderBlock(8, 2, 32) backward matches PyTorch", "[backward][golden][lesson]") {
  const auto& c = golden::find_case("grad_modules.json", "encoder_lesson_d8_h2_ff32");
  EncoderBlock enc(c.config().at("d"), c.config().at("h"), c.config().at("d_ff"));
  CHECK(enc.params().used() == 840);
  check_block(c, enc.block(), "EncoderBlock");
}

TEST_CASE("post-norm forward and backward equal torch.nn.TransformerEncoderLayer(norm_first=False)",
          "[backward][golden]") {
  for (const char* name : {"torch_encoder_layer_relu", "torch_encoder_layer_gelu"}) {
    SECTION(name) {
      const auto& c = golden::find_case("grad_modules.json", name);
      const BlockConfig cfg = BlockConfig::from_json(c.config());
      REQUIRE(cfg.norm == NormPlacement::Post);
      REQUIRE_FALSE(cfg.causal);
      TransformerBlock block(cfg);
      check_block(c, block, "TransformerEncoderLayer");
    }
  }
}
