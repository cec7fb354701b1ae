// Native forward-pass benchmark: a GPT_CONFIG_124M-shaped model with seeded random weights. For each length T:
// the first pass at that length (the model's very first pass for the first T), passes right after a pass of
// another length (median), and steady passes at one length (median); then KV-cache decoding speed after a short
// and a ~1000-token prompt. Times are process CPU time (the machine may be shared: wall time would count the
// moments the benchmark is descheduled). Prints one JSON object (read by bench/run.mjs); not a test.
//   blockscope_bench_forward [--tokens 1,64] [--repeat N] [--tied] [--decode-contexts 16,992]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"

using namespace blockscope;
using Clock = std::chrono::steady_clock;

namespace {
double cpu_ms() { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<int32_t> bench_ids(int64_t T) {
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>((t * 7919) % 50257);
  return ids;
}

double forward_ms(GPTModel& model, int64_t T) {
  const std::vector<int32_t> ids = bench_ids(T);
  const double t0 = cpu_ms();
  model.forward(ids, 1, T);
  return cpu_ms() - t0;
}

// Median milliseconds of `repeat` forward passes at one length, after one untimed pass.
double steady_ms(GPTModel& model, int64_t T, int repeat) {
  forward_ms(model, T);
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) ms.push_back(forward_ms(model, T));
  return median(ms);
}

// Median milliseconds of a pass at T right after a pass at `other` (a length change each time).
double after_change_ms(GPTModel& model, int64_t T, int64_t other, int repeat) {
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    forward_ms(model, other);
    ms.push_back(forward_ms(model, T));
  }
  return median(ms);
}

// Decoding tokens per second after a `context`-token prompt: 32 sampled tokens, timed from the first one (the
// prefill is not counted), after an untimed run.
double decode_tokens_per_second(GPTModel& model, int64_t context) {
  std::vector<int32_t> prompt = bench_ids(context);
  GenerateOptions opts;
  opts.max_new_tokens = 32;
  opts.sampling.top_k = 40;
  opts.seed = 1;
  double best = 0.0;
  for (int run = 0; run < 2; ++run) {
    Generator gen(model, prompt, opts);
    gen.next();  // prefill and the first token
    const double t0 = cpu_ms();
    int n = 0;
    while (gen.next()) ++n;
    const double s = (cpu_ms() - t0) / 1000.0;
    if (run == 1) best = n / s;
  }
  return best;
}

std::vector<int64_t> parse_list(const char* p) {
  std::vector<int64_t> v;
  while (*p) {
    v.push_back(std::strtoll(p, const_cast<char**>(&p), 10));
    if (*p == ',') ++p;
  }
  return v;
}

void print_map(const char* name, const std::vector<int64_t>& keys, const std::vector<double>& values, bool last) {
  std::printf("\"%s\": {", name);
  for (size_t i = 0; i < keys.size(); ++i)
    std::printf("%s\"%lld\": %.3f", i ? ", " : "", static_cast<long long>(keys[i]), values[i]);
  std::printf("}%s", last ? "" : ", ");
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> tokens = {1, 64}, contexts = {16, 992};
  int repeat = 5;
  bool tied = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--tied")) tied = true;
    else if (!std::strcmp(argv[i], "--tokens") && i + 1 < argc) tokens = parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--decode-contexts") && i + 1 < argc) contexts = parse_list(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--tokens 1,64] [--repeat N] [--tied] [--decode-contexts 16,992]\n", argv[0]);
      return 2;
    }
  }
  GPTConfig cfg = GPTConfig::gpt2_124m();
  cfg.tie_weights = tied;
  const auto t0 = Clock::now();
  GPTModel model(cfg, 123);
  const double init_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::vector<double> first, steady, changed, decode;
  for (const int64_t T : tokens) first.push_back(forward_ms(model, T));
  for (const int64_t T : tokens) steady.push_back(steady_ms(model, T, repeat));
  for (size_t i = 0; i < tokens.size(); ++i)
    changed.push_back(tokens.size() > 1 ? after_change_ms(model, tokens[i], tokens[(i + 1) % tokens.size()], repeat)
                                        : steady[i]);
  for (const int64_t c : contexts) decode.push_back(decode_tokens_per_second(model, c));
  std::printf("{\"runtime\": \"native\", \"parameters\": %lld, \"init_ms\": %.1f, ",
              static_cast<long long>(model.num_parameters()), init_ms);
  print_map("first_ms", tokens, first, false);
  print_map("forward_ms", tokens, steady, false);
  print_map("after_change_ms", tokens, changed, false);
  print_map("decode_tokens_per_s", contexts, decode, true);
  std::printf("}\n");
  return 0;
}
