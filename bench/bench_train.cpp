// Native training-speed benchmark: a small byte-level GPT (4 layers, emb 128, 4 heads, context 128, vocab 256,
// pre-norm, GELU-tanh, untied, no dropout) trained at B = 16, T = 128. Prints one JSON line (read by
// bench/train.mjs): ms per full Trainer step (forward + backward + clipping + AdamW) after warm-up, tokens/s,
// training memory, and the step split into phases. A benchmark, not a test.
// With --ops, also each op of ops.hpp timed alone at the step's shapes, times its calls per step: where the
// time goes inside forward and backward.
//   blockscope_bench_train [--steps N] [--warmup N] [--data FILE] [--no-phases] [--ops]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/ops.hpp"
#include "blockscope/optimizer.hpp"
#include "blockscope/trainer.hpp"

using namespace blockscope;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int64_t kBatch = 16, kSeqLen = 128;

// The config; bench/train.mjs and bench/train_torch.py build the same one.
GPTConfig bench_config() {
  GPTConfig c;
  c.vocab_size = 256;
  c.context_length = 128;
  c.emb_dim = 128;
  c.n_heads = 4;
  c.n_layers = 4;
  c.drop_rate = 0.0;
  c.qkv_bias = false;
  c.tie_weights = false;
  return c;
}

TrainConfig train_config(int64_t steps) {
  TrainConfig t;
  t.steps = std::max<int64_t>(steps, 1000);  // a long schedule: the rate hardly moves while we time
  t.batch_size = kBatch;
  t.seq_len = kSeqLen;
  t.lr = 3e-4;
  t.clip = 1.0;
  t.seed = 1;
  return t;
}

// The bytes of `path` as token ids, or a seeded pseudo-random byte stream when there is no file.
std::vector<int32_t> byte_tokens(const std::string& path) {
  std::vector<int32_t> ids;
  if (!path.empty()) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "cannot read --data %s\n", path.c_str());
      std::exit(2);
    }
    for (auto it = std::istreambuf_iterator<char>(f); it != std::istreambuf_iterator<char>(); ++it)
      ids.push_back(static_cast<unsigned char>(*it));
  }
  if (ids.size() < 4 * (kSeqLen + 1)) {
    Rng rng(7);
    ids.resize(1 << 16);
    for (auto& id : ids) id = static_cast<int32_t>(rng.next_u32() & 255);
  }
  return ids;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const char* simd_level() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2+FMA";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE4_2__)
  return "SSE4.2";
#elif defined(__SSE2__)
  return "SSE2";
#elif defined(__wasm_simd128__)
  return "wasm SIMD128";
#else
  return "scalar";
#endif
}

// Per-phase milliseconds of a step, driving GPTModel and AdamW directly in Trainer::step()'s order.
struct Phases {
  std::vector<double> zero, forward_loss, backward, clip, adamw;
};

Phases time_phases(const TokenData& data, const TrainConfig& tc, int warmup, int steps) {
  GPTModel model(bench_config(), 123);
  GPTRunState rs(model.config(), kBatch, kSeqLen, false);
  ParamArena grads = ParamArena::zeros_like(model.params());
  AdamW opt(model.params(), tc.adamw());
  Rng rng(tc.seed, 101);
  std::vector<int32_t> ids, targets;
  Phases p;
  for (int s = 0; s < warmup + steps; ++s) {
    data.sample(rng, kBatch, ids, targets);
    auto t0 = Clock::now();
    grads.zero();
    const double zero_ms = ms_since(t0);
    t0 = Clock::now();
    model.forward_loss(rs, ids, targets);
    const double fwd_ms = ms_since(t0);
    t0 = Clock::now();
    model.backward(rs, grads);
    const double bwd_ms = ms_since(t0);
    t0 = Clock::now();
    // Trainer::update() also takes the per-layer gradient norms the widgets plot; counted with clipping.
    grouped_norms(grads, [](const std::string& n) { return n.substr(0, n.find('.')); });
    clip_grad_norm(grads, tc.clip);
    const double clip_ms = ms_since(t0);
    t0 = Clock::now();
    opt.step(model.params(), grads, tc.lr);
    const double adamw_ms = ms_since(t0);
    if (s < warmup) continue;
    p.zero.push_back(zero_ms), p.forward_loss.push_back(fwd_ms), p.backward.push_back(bwd_ms);
    p.clip.push_back(clip_ms), p.adamw.push_back(adamw_ms);
  }
  return p;
}

// One op of the step, timed alone at the step's shapes: median ms of one call x calls per step.
struct OpTime {
  const char* phase;
  const char* name;
  int64_t calls;
  double ms;
};

template <class F>
double median_call_ms(F&& f, int repeat) {
  f();  // warm-up (and first touch of the buffers)
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    f();
    ms.push_back(ms_since(t0));
  }
  return median(ms);
}

std::vector<OpTime> time_ops(int repeat) {
  const GPTConfig cfg = bench_config();
  const int64_t B = kBatch, T = kSeqLen, N = B * T, C = cfg.emb_dim, H = 4 * C, V = cfg.vocab_size,
                NH = cfg.n_heads, L = cfg.n_layers;
  Rng rng(5);
  const auto buf = [&](int64_t n, float scale) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = scale * rng.uniform(-1.0f, 1.0f);
    return v;
  };
  auto x = buf(N * C, 1.0f), y = buf(N * C, 1.0f), dx = buf(N * C, 0.0f), dy = buf(N * C, 0.01f);
  auto q = buf(N * C, 1.0f), k = buf(N * C, 1.0f), v = buf(N * C, 1.0f), dq = buf(N * C, 0.0f),
       dk = buf(N * C, 0.0f), dv = buf(N * C, 0.0f);
  auto h = buf(N * H, 1.0f), h2 = buf(N * H, 1.0f), dh = buf(N * H, 0.01f), dh2 = buf(N * H, 0.0f);
  auto logits = buf(N * V, 1.0f), losses = buf(N, 0.0f), mean = buf(N, 0.0f), rstd = buf(N, 1.0f);
  auto att = buf(B * NH * T * T, 0.0f), datt = buf(2 * T * T, 0.0f);
  auto wcc = buf(C * C, 0.08f), wch = buf(H * C, 0.08f), whc = buf(C * H, 0.04f), wvc = buf(V * C, 0.08f);
  auto gw = buf(H * C, 0.0f), gb = buf(H, 0.0f), bias = buf(H, 0.1f), gamma = buf(C, 1.0f), beta = buf(C, 0.1f);
  auto dtok = buf(V * C, 0.0f), dpos = buf(T * C, 0.0f);
  std::vector<int32_t> ids(static_cast<size_t>(N));
  for (auto& id : ids) id = static_cast<int32_t>(rng.next_u32() % static_cast<uint32_t>(V));
  attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), B, T, T, T, C, NH, true);  // a real att
  const auto logits0 = logits;

  std::vector<OpTime> ops;
  const auto add = [&](const char* phase, const char* name, int64_t calls, auto&& f) {
    ops.push_back({phase, name, calls, static_cast<double>(calls) * median_call_ms(f, repeat)});
  };
  // Forward, in the model's order (pre-norm block: norm1, W_query/W_key/W_value, attention, out_proj, norm2,
  // fc, GELU, proj; then final_norm, out_head, cross-entropy).
  add("forward", "layernorm", 2 * L + 1, [&] {
    layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(), N, C, 1e-5f);
  });
  add("forward", "linear C->C (q, k, v, out_proj)", 4 * L,
      [&] { linear_forward(y.data(), x.data(), wcc.data(), bias.data(), N, C, C); });
  add("forward", "attention (softmax(q k^T) v)", L, [&] {
    attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), B, T, T, T, C, NH, true);
  });
  add("forward", "linear C->4C (fc)", L, [&] { linear_forward(h.data(), x.data(), wch.data(), bias.data(), N, C, H); });
  add("forward", "GELU", L, [&] { activation_forward(Activation::GeluTanh, h2.data(), h.data(), N * H); });
  add("forward", "linear 4C->C (proj)", L, [&] { linear_forward(y.data(), h2.data(), whc.data(), bias.data(), N, H, C); });
  add("forward", "residual adds", 2 * L, [&] {
    for (int64_t i = 0; i < N * C; ++i) dq[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] + y[static_cast<size_t>(i)];
  });
  add("forward", "linear C->V (out_head)", 1, [&] { linear_forward(logits.data(), x.data(), wvc.data(), nullptr, N, C, V); });
  add("forward", "cross-entropy", 1, [&] { cross_entropy_forward(losses.data(), logits.data(), ids.data(), N, V); });
  // Backward, in the model's order.
  add("backward", "cross-entropy", 1, [&] {
    std::copy(logits0.begin(), logits0.end(), logits.begin());  // it works in place
    cross_entropy_backward(logits.data(), ids.data(), N, V, 1.0f);
  });
  add("backward", "linear C->V (out_head)", 1, [&] {
    linear_backward(dx.data(), gw.data(), nullptr, logits.data(), x.data(), wvc.data(), N, C, V);
  });
  add("backward", "layernorm", 2 * L + 1, [&] {
    layernorm_backward(dx.data(), gamma.data(), beta.data(), dy.data(), x.data(), gamma.data(), mean.data(),
                       rstd.data(), N, C);
  });
  add("backward", "linear 4C->C (proj)", L, [&] {
    linear_backward(dh2.data(), gw.data(), gb.data(), dy.data(), h2.data(), whc.data(), N, H, C);
  });
  add("backward", "GELU", L, [&] { activation_backward(Activation::GeluTanh, dh2.data(), h.data(), dh.data(), N * H); });
  add("backward", "linear C->4C (fc)", L, [&] {
    linear_backward(dx.data(), gw.data(), gb.data(), dh.data(), x.data(), wch.data(), N, C, H);
  });
  add("backward", "linear C->C (q, k, v, out_proj)", 4 * L, [&] {
    linear_backward(dx.data(), gw.data(), nullptr, dy.data(), x.data(), wcc.data(), N, C, C);
  });
  add("backward", "attention", L, [&] {
    attention_backward(dq.data(), dk.data(), dv.data(), datt.data(), dy.data(), q.data(), k.data(), v.data(),
                       att.data(), nullptr, B, T, C, NH, true);
  });
  add("backward", "residual / zeroing copies", 8 * L, [&] { std::fill(dq.begin(), dq.end(), 0.0f); });
  add("backward", "embedding", 1, [&] { embedding_backward(dtok.data(), dpos.data(), dy.data(), ids.data(), B, T, C); });
  return ops;
}

void print_list(const char* key, const std::vector<double>& v) {
  std::printf("\"%s\": [", key);
  for (size_t i = 0; i < v.size(); ++i) std::printf("%s%.3f", i ? ", " : "", v[i]);
  std::printf("]");
}
}  // namespace

int main(int argc, char** argv) {
  int steps = 5, warmup = 2;
  bool phases = true, ops = false;
  std::string data_path;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = std::max(0, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--data") && i + 1 < argc) data_path = argv[++i];
    else if (!std::strcmp(argv[i], "--no-phases")) phases = false;
    else if (!std::strcmp(argv[i], "--ops")) ops = true;
    else {
      std::fprintf(stderr, "usage: %s [--steps N] [--warmup N] [--data FILE] [--no-phases] [--ops]\n", argv[0]);
      return 2;
    }
  }
  const TrainConfig tc = train_config(steps + warmup);
  const TokenData data(byte_tokens(data_path), 0.1, kSeqLen, 256);

  GPTModel model(bench_config(), 123);
  Trainer trainer(model, tc, data);
  std::vector<double> step_ms;
  double first_loss = 0.0, last_loss = 0.0;
  for (int s = 0; s < warmup + steps; ++s) {
    const auto t0 = Clock::now();
    const StepResult r = trainer.step();
    const double ms = ms_since(t0);
    if (s == 0) first_loss = r.loss;
    last_loss = r.loss;
    if (s >= warmup) step_ms.push_back(ms);
  }
  const double med = median(step_ms);
  std::printf("{\"runtime\": \"native\", \"simd\": \"%s\", \"batch_size\": %lld, \"seq_len\": %lld, "
              "\"parameters\": %lld, \"param_bytes\": %lld, \"memory_bytes\": %lld, ",
              simd_level(), static_cast<long long>(kBatch), static_cast<long long>(kSeqLen),
              static_cast<long long>(model.num_parameters()), static_cast<long long>(4 * model.num_parameters()),
              static_cast<long long>(trainer.memory_bytes()));
  print_list("step_ms", step_ms);
  std::printf(", \"median_ms\": %.3f, \"tokens_per_s\": %.1f, \"first_loss\": %.4f, \"last_loss\": %.4f", med,
              static_cast<double>(kBatch * kSeqLen) / (med / 1000.0), first_loss, last_loss);
  if (phases) {
    const Phases p = time_phases(data, tc, warmup, steps);
    std::printf(", \"phases_ms\": {\"zero_grad\": %.3f, \"forward_loss\": %.3f, \"backward\": %.3f, "
                "\"clip\": %.3f, \"adamw\": %.3f}",
                median(p.zero), median(p.forward_loss), median(p.backward), median(p.clip), median(p.adamw));
  }
  if (ops) {
    std::printf(", \"ops_ms\": [");
    const auto list = time_ops(std::max(steps, 5));
    for (size_t i = 0; i < list.size(); ++i)
      std::printf("%s{\"phase\": \"%s\", \"op\": \"%s\", \"calls\": %lld, \"ms\": %.3f}", i ? ", " : "",
                  list[i].phase, list[i].name, static_cast<long long>(list[i].calls), list[i].ms);
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}
