// Blockscope native worker of the peer benchmark (bench/peers/run.mjs starts it; a benchmark, not a test):
// loads a model directory (config.json + model.safetensors) and answers timing requests, one JSON object per
// line on stdin and stdout, with the same protocol as the other runtimes' workers (bench/peers/README.md).
//   blockscope_bench_peer MODEL_DIR [--weights f32|int8]
// Requests: {"op":"load"} {"op":"forward","T":64} {"op":"check","ids":[...],"reference":"FILE"}
//           {"op":"decode","prompt":[...],"n":32} {"op":"memory"} {"op":"quit"}
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blockscope/checkpoint.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/quantized.hpp"

using namespace blockscope;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
// CPU time of this process (all threads), in ms: next to wall time it tells "did more work" from "was not scheduled".
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// VmRSS and VmHWM (peak RSS) of this process from /proc/self/status, in bytes.
json memory() {
  std::ifstream f("/proc/self/status");
  json out = json::object();
  for (std::string line; std::getline(f, line);) {
    for (const char* key : {"VmRSS", "VmHWM"}) {
      if (line.rfind(key, 0) == 0) out[key == std::string("VmRSS") ? "rss" : "peak_rss"] = std::stoll(line.substr(6)) * 1024;
    }
  }
  return out;
}

// The instruction set this build was compiled for (the core gets the same flags: -march=native in Release).
const char* simd_level() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2+FMA";
#elif defined(__SSE4_2__)
  return "SSE4.2";
#else
  return "SSE2 or less";
#endif
}

// The benchmark's token ids for a forward over T positions (bench_forward.cpp's pattern).
std::vector<int32_t> bench_ids(int64_t T, int64_t vocab) {
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) ids[static_cast<size_t>(t)] = static_cast<int32_t>((t * 7919) % vocab);
  return ids;
}

std::vector<float> read_f32(const std::string& path) {
  const auto bytes = read_file_bytes(path);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

class Worker {
 public:
  Worker(std::string dir, std::string weights) : dir_(std::move(dir)), weights_(std::move(weights)) {}

  json handle(const json& req) {
    const std::string op = req.at("op");
    if (op == "load") return load();
    if (op == "memory") return memory();
    if (!model_) throw Error("load the model first");
    if (op == "forward") {
      const auto ids = bench_ids(req.at("T"), model_->config().vocab_size);
      const auto t0 = Clock::now();
      const double c0 = cpu_ms();
      model_->forward(ids, 1, static_cast<int64_t>(ids.size()));
      return {{"ms", ms_since(t0)}, {"cpu_ms", cpu_ms() - c0}};
    }
    if (op == "check") return check(req.at("ids").get<std::vector<int32_t>>(), req.at("reference"));
    if (op == "decode") return decode(req.at("prompt").get<std::vector<int32_t>>(), req.at("n"));
    throw Error("unknown op '" + op + "'");
  }

 private:
  json load() {
    LoadOptions opts;
    opts.weights = parse_weight_format(weights_);
    const auto t0 = Clock::now();
    model_.emplace(load_model_dir(dir_, opts));
    return {{"ms", ms_since(t0)}, {"parameters", model_->num_parameters()}, {"runtime", std::string("native, ") + simd_level()}};
  }

  // max |logits - reference| over the whole (T, V) logits of `ids`, and whether any value is not finite.
  json check(const std::vector<int32_t>& ids, const std::string& reference) {
    const Tensor logits = model_->forward(ids, 1, static_cast<int64_t>(ids.size()));
    const auto ref = read_f32(reference);
    if (ref.size() != logits.data.size())
      throw Error("reference has " + std::to_string(ref.size()) + " floats, logits " + std::to_string(logits.data.size()));
    double max_diff = 0;
    for (size_t i = 0; i < ref.size(); ++i) max_diff = std::max(max_diff, std::fabs(double(logits.data[i]) - ref[i]));
    return {{"max_abs_diff", std::isfinite(max_diff) ? json(max_diff) : json("NaN")}};
  }

  // n greedy tokens after `prompt`: the first next() prefills the KV cache, the other n - 1 are decode steps.
  json decode(const std::vector<int32_t>& prompt, int64_t n) {
    GenerateOptions opts;
    opts.max_new_tokens = n;
    opts.sampling.temperature = 0.0f;
    Generator gen(*model_, prompt, opts);
    std::vector<int32_t> tokens;
    auto t0 = Clock::now();
    double prefill_ms = 0, c0 = cpu_ms();
    while (auto tok = gen.next()) {
      tokens.push_back(*tok);
      if (tokens.size() == 1) {
        prefill_ms = ms_since(t0);
        t0 = Clock::now();
        c0 = cpu_ms();
      }
    }
    return {{"tokens", tokens}, {"prefill_ms", prefill_ms}, {"decode_ms", ms_since(t0)}, {"decode_cpu_ms", cpu_ms() - c0},
            {"steps", n - 1}};
  }

  std::string dir_, weights_;
  std::optional<GPTModel> model_;
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR [--weights f32|int8]\n", argv[0]);
    return 2;
  }
  std::string weights = "f32";
  for (int i = 2; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--weights") weights = argv[i + 1];
  Worker worker(argv[1], weights);
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    json reply;
    try {
      const json req = json::parse(line);
      if (req.at("op") == "quit") break;
      reply = worker.handle(req);
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    std::cout << reply.dump() << std::endl;
  }
  return 0;
}
