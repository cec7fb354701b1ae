// Where a T-token forward pass of a GPT_CONFIG_124M-shaped model spends its time, by operation: the model's own
// forward (median), then the same sequence of ops.hpp calls on the model's own weights and buffers of the same
// sizes, each call timed (process CPU time) and summed per operation over the pass. The difference between the
// two totals is what the breakdown does not see (embedding, logits allocation, copies between blocks). With --int8,
// also the same model with int8 weights (WeightFormat::Int8, quantized from the float32 ones), whole passes; with
// --int8-ops, the breakdown's linear layers run on the int8 matrices too.
// Built natively (bench/) and for wasm (bench/CMakeLists.txt); a benchmark, not a test.
//   blockscope_bench_prefill [--tokens 64] [--repeat 5] [--tied] [--qkv-bias] [--int8 | --int8-ops] [--peak GFLOP/s]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/ops.hpp"
#include "blockscope/quantized.hpp"
#include "limits.hpp"

using namespace blockscope;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Op {
  std::vector<double> ms;  // per pass
  double flop = 0.0;       // per pass
};

// The model with int8 weights: every matrix the int8 format covers quantized from `f32`'s values.
std::unique_ptr<GPTModel> int8_copy(GPTModel& f32) {
  auto q = std::make_unique<GPTModel>(f32.config(), GPTModel::Uninitialized{}, MemoryBudget{}, WeightFormat::Int8);
  for (const ParamInfo& p : f32.params().params()) {
    const std::span<const float> v = std::as_const(f32.params()).get(p.name);
    if (Q8Matrix* m = q->params().q8(p.name)) m->set_rows(0, p.shape[0], v.data());
    else std::copy(v.begin(), v.end(), q->params().get(p.name).begin());
  }
  return q;
}

double forward_ms(GPTModel& model, const std::vector<int32_t>& ids) {
  const double t0 = bench::cpu_seconds();
  model.forward(ids, 1, static_cast<int64_t>(ids.size()));
  return 1000.0 * (bench::cpu_seconds() - t0);
}

// Times one forward pass op by op. `ops` collects per-pass milliseconds under each name.
class Breakdown {
 public:
  // With `int8` set, the linear layers run on its int8 matrices (Q8Matrix::linear_forward) instead.
  Breakdown(GPTModel& model, int64_t T, const GPTModel* int8 = nullptr)
      : model_(model), int8_(int8), cfg_(model.config()), T_(T) {
    const int64_t C = cfg_.emb_dim, H = cfg_.block().hidden_dim(), N = T;
    for (auto* b : {&x_, &ln_, &q_, &k_, &v_, &ctx_, &att_out_, &res_}) b->assign(static_cast<size_t>(N * C), 0.f);
    for (auto* b : {&fc_pre_, &fc_post_}) b->assign(static_cast<size_t>(N * H), 0.f);
    mean_.assign(static_cast<size_t>(N), 0.f);
    rstd_.assign(static_cast<size_t>(N), 0.f);
    att_.assign(static_cast<size_t>(cfg_.n_heads * T * T), 0.f);
    logits_.assign(static_cast<size_t>(N * cfg_.vocab_size), 0.f);
    for (size_t i = 0; i < x_.size(); ++i) x_[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
  }

  void pass(std::map<std::string, Op>& ops) {
    const int64_t C = cfg_.emb_dim, H = cfg_.block().hidden_dim(), N = T_, V = cfg_.vocab_size;
    const float eps = cfg_.layer_norm_epsilon;
    std::map<std::string, double> ms;
    const auto time = [&](const std::string& name, double flop, auto&& f) {
      const double t0 = bench::cpu_seconds();
      f();
      ms[name] += 1000.0 * (bench::cpu_seconds() - t0);
      flops_[name] += flop;
    };
    flops_.clear();
    const double lin = 2.0 * N * C * C;
    for (int64_t l = 0; l < cfg_.n_layers; ++l) {
      const std::string p = "trf_blocks." + std::to_string(l) + ".";
      time("layernorm", 0, [&] { layernorm_forward(ln_.data(), mean_.data(), rstd_.data(), x_.data(), w(p + "norm1.scale"), w(p + "norm1.shift"), N, C, eps); });
      time("linear qkv 768x768 (x3)", 3 * lin, [&] {
        linear(q_.data(), ln_.data(), p + "att.W_query.", N, C, C);
        linear(k_.data(), ln_.data(), p + "att.W_key.", N, C, C);
        linear(v_.data(), ln_.data(), p + "att.W_value.", N, C, C);
      });
      // Q K^T and weights @ V over the causal half, heads included.
      const double att_flop = 2.0 * 2.0 * C * (T_ * (T_ + 1) / 2.0);
      time("attention", att_flop, [&] {
        attention_forward(ctx_.data(), att_.data(), q_.data(), k_.data(), v_.data(), 1, T_, T_, T_, C, cfg_.n_heads, true, nullptr);
      });
      time("linear out_proj 768x768", lin, [&] { linear(att_out_.data(), ctx_.data(), p + "att.out_proj.", N, C, C); });
      time("residual add", 0, [&] { for (int64_t i = 0; i < N * C; ++i) res_[i] = x_[i] + att_out_[i]; });
      time("layernorm", 0, [&] { layernorm_forward(ln_.data(), mean_.data(), rstd_.data(), res_.data(), w(p + "norm2.scale"), w(p + "norm2.shift"), N, C, eps); });
      time("linear fc 768x3072", 2.0 * N * C * H, [&] { linear(fc_pre_.data(), ln_.data(), p + "ff.layers.0.", N, C, H); });
      time("gelu", 0, [&] { activation_forward(cfg_.activation, fc_post_.data(), fc_pre_.data(), N * H); });
      time("linear proj 3072x768", 2.0 * N * C * H, [&] { linear(att_out_.data(), fc_post_.data(), p + "ff.layers.2.", N, H, C); });
      time("residual add", 0, [&] { for (int64_t i = 0; i < N * C; ++i) x_[i] = res_[i] + att_out_[i]; });
    }
    time("layernorm", 0, [&] { layernorm_forward(ln_.data(), nullptr, nullptr, x_.data(), w("final_norm.scale"), w("final_norm.shift"), N, C, eps); });
    const std::string head = cfg_.tie_weights ? "tok_emb." : "out_head.";
    time("linear head 768x50257", 2.0 * N * C * V, [&] { linear(logits_.data(), ln_.data(), head, N, C, V); });
    for (const auto& [name, t] : ms) {
      ops[name].ms.push_back(t);
      ops[name].flop = flops_[name];
    }
  }

 private:
  // out = inp @ W^T + b for the Linear (or embedding) whose parameters are `prefix` + "weight" / "bias".
  void linear(float* out, const float* inp, const std::string& prefix, int64_t N, int64_t C, int64_t OC) {
    const float* bias = w(prefix + "bias");
    if (const Q8Matrix* q = int8_ ? int8_->params().q8(prefix + "weight") : nullptr) return q->linear_forward(out, inp, bias, N);
    linear_forward(out, inp, w(prefix + "weight"), bias, N, C, OC);
  }
  float* w(const std::string& name) {
    return model_.params().find(name) ? model_.params().get(name).data() : nullptr;
  }
  GPTModel& model_;
  const GPTModel* int8_;
  const GPTConfig cfg_;
  const int64_t T_;
  std::vector<float> x_, ln_, q_, k_, v_, ctx_, att_out_, res_, fc_pre_, fc_post_, mean_, rstd_, att_, logits_;
  std::map<std::string, double> flops_;
};
}  // namespace

int main(int argc, char** argv) {
  int64_t T = 64;
  int repeat = 5;
  double peak = 0.0;
  bool int8 = false, int8_ops = false;
  GPTConfig cfg = GPTConfig::gpt2_124m();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tokens") && i + 1 < argc) T = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--peak") && i + 1 < argc) peak = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--tied")) cfg.tie_weights = true;
    else if (!std::strcmp(argv[i], "--qkv-bias")) cfg.qkv_bias = true;
    else if (!std::strcmp(argv[i], "--int8")) int8 = true;
    else if (!std::strcmp(argv[i], "--int8-ops")) int8 = int8_ops = true;
    else {
      std::fprintf(stderr, "usage: %s [--tokens 64] [--repeat 5] [--tied] [--qkv-bias] [--int8 | --int8-ops] [--peak GFLOP/s]\n", argv[0]);
      return 2;
    }
  }
  if (peak <= 0.0) {
    float sink = 0.0f;
    peak = bench::simd128_peak_gflops(&sink);
  }
  GPTModel model(cfg, 123);
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>((t * 7919) % 50257);
  std::map<std::string, Op> ops;
  std::vector<double> full, full_int8;
  const std::unique_ptr<GPTModel> qmodel = int8 ? int8_copy(model) : nullptr;
  Breakdown bd(model, T, int8_ops ? qmodel.get() : nullptr);
  model.forward(ids, 1, T);
  if (qmodel) qmodel->forward(ids, 1, T);
  { std::map<std::string, Op> warm; bd.pass(warm); }
  for (int r = 0; r < repeat; ++r) {  // interleaved, so all see the same machine load
    full.push_back(forward_ms(model, ids));
    bd.pass(ops);
    if (qmodel) full_int8.push_back(forward_ms(*qmodel, ids));
  }
  double sum = 0.0, flop = 0.0;
  std::printf("forward T=%lld, %s, qkv_bias %s, breakdown on %s weights: CPU ms per pass, median of %d (SIMD peak "
              "%.1f GFLOP/s)\n", static_cast<long long>(T), cfg.tie_weights ? "tied" : "untied", cfg.qkv_bias ? "on" : "off",
              int8_ops ? "int8" : "float32", repeat, peak);
  std::printf("%-26s %9s %7s %9s %8s\n", "op", "ms", "share", "GFLOP/s", "% peak");
  const double whole = median(full);
  for (const auto& [name, op] : ops) {
    const double m = median(op.ms);
    sum += m;
    flop += op.flop;
    if (op.flop > 0)
      std::printf("%-26s %9.2f %6.1f%% %9.1f %7.0f%%\n", name.c_str(), m, 100.0 * m / whole, op.flop / m * 1e-6,
                  100.0 * op.flop / m * 1e-6 / peak);
    else
      std::printf("%-26s %9.2f %6.1f%%\n", name.c_str(), m, 100.0 * m / whole);
  }
  std::printf("%-26s %9.2f %6.1f%% %9.1f %7.0f%%\n", "sum of ops", sum, 100.0 * sum / whole, flop / sum * 1e-6,
              100.0 * flop / sum * 1e-6 / peak);
  std::printf("%-26s %9.2f %6.1f%%   (embedding, logits tensor, copies between blocks)\n", "model forward - sum",
              whole - sum, 100.0 * (whole - sum) / whole);
  std::printf("%-26s %9.2f         %9.1f %7.0f%%\n", "model forward", whole, flop / whole * 1e-6,
              100.0 * flop / whole * 1e-6 / peak);
  if (qmodel) {
    const double q = median(full_int8);
    std::printf("%-26s %9.2f         %9.1f %7.0f%%   (%.2fx the float32 pass)\n", "int8 model forward", q,
                flop / q * 1e-6, 100.0 * flop / q * 1e-6 / peak, q / whole);
  }
  return 0;
}
