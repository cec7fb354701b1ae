// Native forward-pass benchmark: a GPT_CONFIG_124M-shaped model with seeded random weights, timed at 1 and
// 64 tokens, and KV-cache generation speed. Prints one JSON object (read by bench/run.mjs); not a test.
//   blockscope_bench_forward [--tokens 1,64] [--repeat N] [--tied]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"

using namespace blockscope;
using Clock = std::chrono::steady_clock;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median milliseconds of `repeat` forward passes over T tokens, after one warm-up pass.
double time_forward(GPTModel& model, int64_t T, int repeat) {
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>((t * 7919) % 50257);
  model.forward(ids, 1, T);
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    model.forward(ids, 1, T);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(ms);
}
// Tokens per second of KV-cache generation: a 16-token prompt, then `n` sampled tokens (after a warm-up run).
double generation_tokens_per_second(GPTModel& model, int64_t n) {
  const std::vector<int32_t> prompt = {464, 3290, 318, 257, 1332, 286, 262, 3726, 11, 290, 340, 318, 1049, 13, 383, 2068};
  GenerateOptions opts;
  opts.max_new_tokens = n;
  opts.sampling.top_k = 40;
  opts.seed = 1;
  generate(model, prompt, opts);
  const auto t0 = Clock::now();
  const auto tokens = generate(model, prompt, opts);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(tokens.size()) / s;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> tokens = {1, 64};
  int repeat = 5;
  bool tied = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--tied")) tied = true;
    else if (!std::strcmp(argv[i], "--tokens") && i + 1 < argc) {
      tokens.clear();
      for (const char* p = argv[++i]; *p;) {
        tokens.push_back(std::strtoll(p, const_cast<char**>(&p), 10));
        if (*p == ',') ++p;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--tokens 1,64] [--repeat N] [--tied]\n", argv[0]);
      return 2;
    }
  }
  GPTConfig cfg = GPTConfig::gpt2_124m();
  cfg.tie_weights = tied;
  const auto t0 = Clock::now();
  GPTModel model(cfg, 123);
  const double init_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::printf("{\"runtime\": \"native\", \"parameters\": %lld, \"init_ms\": %.1f, \"forward_ms\": {",
              static_cast<long long>(model.num_parameters()), init_ms);
  for (size_t i = 0; i < tokens.size(); ++i)
    std::printf("%s\"%lld\": %.3f", i ? ", " : "", static_cast<long long>(tokens[i]), time_forward(model, tokens[i], repeat));
  std::printf("}, \"generate_tokens_per_s\": %.2f}\n", generation_tokens_per_second(model, 32));
  return 0;
}
