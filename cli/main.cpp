// blockscope — the native command line: inspect, run, generate with and create GPT checkpoints, and
// tokenize text, on top of the Blockscope core. Errors go to stderr with a non-zero exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/tokenizer.hpp"

namespace bs = blockscope;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// "1,2,3" -> ids; throws Error naming the bad entry.
std::vector<int32_t> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    bs::require(used == part.size() && !part.empty() && v >= INT32_MIN && v <= INT32_MAX, "'", part,
                "' is not a token id (expected comma-separated integers like 15496,11,995)");
    ids.push_back(static_cast<int32_t>(v));
  }
  bs::require(!ids.empty(), "no token ids given");
  return ids;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  bs::require(static_cast<bool>(in), "cannot open ", path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has_tokenizer_files(const fs::path& dir) {
  return (fs::exists(dir / "vocab.json") && fs::exists(dir / "merges.txt")) ||
         (fs::exists(dir / "encoder.json") && fs::exists(dir / "vocab.bpe"));
}

// --tokenizer DIR (GPT-2 files) or "bytes"; otherwise the model directory's tokenizer files, otherwise bytes
// for byte-level vocabularies (256 or 257 ids).
std::unique_ptr<bs::Tokenizer> open_tokenizer(const std::string& option, const std::string& model_dir,
                                              int64_t vocab_size) {
  if (option == "bytes" || option == "bytes+eot") return std::make_unique<bs::ByteTokenizer>(option == "bytes+eot");
  if (!option.empty()) return std::make_unique<bs::Gpt2Tokenizer>(bs::Gpt2Tokenizer::from_directory(option));
  if (!model_dir.empty() && has_tokenizer_files(model_dir))
    return std::make_unique<bs::Gpt2Tokenizer>(bs::Gpt2Tokenizer::from_directory(model_dir));
  if (vocab_size == 256 || vocab_size == 257) return std::make_unique<bs::ByteTokenizer>(vocab_size == 257);
  throw bs::Error("the model has " + std::to_string(vocab_size) +
                  " token ids and its directory has no tokenizer files: pass --tokenizer DIR (a directory with "
                  "vocab.json + merges.txt or encoder.json + vocab.bpe)");
}

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  return buf;
}

int cmd_info(const std::string& dir, bool as_json) {
  const bs::GPTConfig cfg = bs::read_config(read_file((fs::path(dir) / "config.json").string()));
  const bs::GPTModel model = bs::load_model_dir(dir);
  const double weight_bytes = 4.0 * static_cast<double>(model.num_parameters());
  const double kv_bytes = 2.0 * 4.0 * static_cast<double>(cfg.n_layers * cfg.context_length * cfg.emb_dim);
  json j = {{"config", cfg.to_json()}, {"parameters", model.num_parameters()},
            {"weight_bytes", weight_bytes}, {"kv_cache_bytes", kv_bytes}};
  if (as_json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("model      %s\n", dir.c_str());
  const json cj = cfg.to_json();
  for (const auto& [k, v] : cj.items()) std::printf("  %-20s %s\n", k.c_str(), v.dump().c_str());
  std::printf("parameters %lld\n", static_cast<long long>(model.num_parameters()));
  std::printf("weights    %s (float32)\n", megabytes(weight_bytes).c_str());
  std::printf("KV cache   %s for a full context of %lld tokens\n", megabytes(kv_bytes).c_str(),
              static_cast<long long>(cfg.context_length));
  return 0;
}

int cmd_forward(const std::string& dir, const std::string& tokens, bool as_json) {
  bs::GPTModel model = bs::load_model_dir(dir);
  const std::vector<int32_t> ids = parse_ids(tokens);
  const auto T = static_cast<int64_t>(ids.size());
  const bs::Tensor logits = model.forward(ids, 1, T);
  const int64_t V = model.config().vocab_size;
  if (as_json) {
    json rows = json::array();
    for (int64_t t = 0; t < T; ++t) rows.push_back(std::vector<float>(logits.data.begin() + t * V, logits.data.begin() + (t + 1) * V));
    std::printf("%s\n", json{{"logits", rows}}.dump().c_str());
    return 0;
  }
  for (int64_t t = 0; t < T; ++t) {
    const float* row = logits.data.data() + t * V;
    const auto best = std::max_element(row, row + V) - row;
    std::printf("position %lld: token %d -> argmax %lld (logit %.4f)\n", static_cast<long long>(t), ids[t],
                static_cast<long long>(best), row[best]);
  }
  return 0;
}

struct GenerateArgs {
  std::string model, prompt, prompt_ids, tokenizer;
  bs::GenerateOptions opts;
  bool crop = false, json = false, no_stop = false;
};

int cmd_generate(GenerateArgs& a) {
  bs::GPTModel model = bs::load_model_dir(a.model);
  const auto tok = open_tokenizer(a.tokenizer, a.model, model.config().vocab_size);
  bs::require(a.prompt.empty() != a.prompt_ids.empty(), "give exactly one of --prompt TEXT or --prompt-ids IDS");
  const std::vector<int32_t> prompt = a.prompt.empty() ? parse_ids(a.prompt_ids) : tok->encode(a.prompt);
  if (a.crop) a.opts.overflow = bs::ContextOverflow::Crop;
  if (!a.no_stop) a.opts.stop_token = tok->eot_id();
  bs::Generator gen(model, prompt, a.opts);
  std::vector<int32_t> out;
  while (const auto t = gen.next()) {
    out.push_back(*t);
    if (!a.json && (!a.opts.stop_token || *t != *a.opts.stop_token)) {
      const std::string piece = tok->decode(std::span<const int32_t>(&*t, 1));
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);  // stream each token as it arrives
    }
  }
  if (a.json) {
    const json j = {{"prompt_tokens", prompt}, {"tokens", out},
                    {"text", tok->decode(out)}, {"stop_reason", gen.stop_reason()}};
    std::printf("%s\n", j.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  } else {
    std::printf("\n");
    std::fprintf(stderr, "[%zu tokens, stopped: %s]\n", out.size(), gen.stop_reason().c_str());
  }
  return 0;
}

int cmd_tokenize(const std::string& tokenizer, const std::string& text, bool as_json) {
  const auto tok = open_tokenizer(tokenizer.empty() ? "bytes" : tokenizer, "", 0);
  const std::vector<int32_t> ids = tok->encode(text);
  if (as_json) {
    std::printf("%s\n", json(ids).dump().c_str());
    return 0;
  }
  for (size_t i = 0; i < ids.size(); ++i) std::printf("%s%d", i ? "," : "", ids[i]);
  std::printf("\n");
  return 0;
}

int cmd_detokenize(const std::string& tokenizer, const std::string& ids_text) {
  const auto tok = open_tokenizer(tokenizer.empty() ? "bytes" : tokenizer, "", 0);
  const std::string text = tok->decode(parse_ids(ids_text));
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
  return 0;
}

int cmd_init(const std::string& config_path, uint64_t seed, const std::string& out, const std::string& layout) {
  bs::require(layout == "hf" || layout == "book", "--layout must be hf or book, got '", layout, "'");
  const bs::GPTConfig cfg = bs::read_config(read_file(config_path));
  bs::check_parameter_budget(cfg, bs::LoadOptions{});
  const bs::GPTModel model(cfg, seed);
  bs::save_model_dir(model, out, layout == "hf" ? bs::CheckpointLayout::HuggingFace : bs::CheckpointLayout::Book);
  std::fprintf(stderr, "wrote %s (%lld parameters, %s layout, seed %llu)\n", out.c_str(),
               static_cast<long long>(model.num_parameters()), layout.c_str(), static_cast<unsigned long long>(seed));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"blockscope: run and inspect GPT models with the Blockscope core"};
  app.require_subcommand(1);
  bool as_json = false;
  std::string model, tokenizer, tokens, text, ids_text, config_path, out_dir, layout = "book";
  uint64_t seed = 123;

  auto* info = app.add_subcommand("info", "print a model's config, parameter count and memory");
  info->add_option("--model", model, "model directory (config.json + model.safetensors)")->required();
  info->add_flag("--json", as_json, "print JSON");

  auto* forward = app.add_subcommand("forward", "run one forward pass and print the logits");
  forward->add_option("--model", model, "model directory")->required();
  forward->add_option("--tokens", tokens, "comma-separated token ids, e.g. 15496,11,995")->required();
  forward->add_flag("--json", as_json, "print {\"logits\": [[...], ...]}, one row per position");

  GenerateArgs g;
  auto* generate = app.add_subcommand("generate", "generate text, streaming tokens to stdout");
  generate->add_option("--model", g.model, "model directory")->required();
  generate->add_option("--prompt", g.prompt, "prompt text");
  generate->add_option("--prompt-ids", g.prompt_ids, "prompt as comma-separated token ids");
  generate->add_option("--tokenizer", g.tokenizer,
                       "GPT-2 tokenizer directory, or 'bytes'; default: the model directory's files, else bytes");
  generate->add_option("--max-new-tokens", g.opts.max_new_tokens, "tokens to generate (default 50)");
  generate->add_option("--temperature", g.opts.sampling.temperature, "0 = greedy (default 1)");
  generate->add_option("--top-k", g.opts.sampling.top_k, "keep the k most likely tokens (0 = all)");
  generate->add_option("--top-p", g.opts.sampling.top_p, "nucleus sampling threshold (1 = off)");
  generate->add_option("--seed", g.opts.seed, "sampling seed (default 0)");
  generate->add_flag("--crop", g.crop, "crop a prompt longer than the context to its last tokens (default: error)");
  generate->add_flag("--no-stop", g.no_stop, "do not stop at <|endoftext|>");
  generate->add_flag("--json", g.json, "print one JSON object at the end instead of streaming");

  auto* tokenize = app.add_subcommand("tokenize", "text -> token ids");
  tokenize->add_option("--tokenizer", tokenizer, "GPT-2 tokenizer directory, or 'bytes'")->required();
  tokenize->add_option("--text", text, "text to encode")->required();
  tokenize->add_flag("--json", as_json, "print a JSON array");

  auto* detokenize = app.add_subcommand("detokenize", "token ids -> text");
  detokenize->add_option("--tokenizer", tokenizer, "GPT-2 tokenizer directory, or 'bytes'")->required();
  detokenize->add_option("--ids", ids_text, "comma-separated token ids")->required();

  auto* init = app.add_subcommand("init", "write a model with seeded random weights");
  init->add_option("--config", config_path, "config JSON (the book's keys or Hugging Face GPT-2's)")->required();
  init->add_option("--seed", seed, "initialisation seed (default 123)");
  init->add_option("--out", out_dir, "output directory")->required();
  init->add_option("--layout", layout, "hf or book (default book)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*info) return cmd_info(model, as_json);
    if (*forward) return cmd_forward(model, tokens, as_json);
    if (*generate) return cmd_generate(g);
    if (*tokenize) return cmd_tokenize(tokenizer, text, as_json);
    if (*detokenize) return cmd_detokenize(tokenizer, ids_text);
    if (*init) return cmd_init(config_path, seed, out_dir, layout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blockscope: error: %s\n", e.what());
    return 1;
  }
  return 2;
}
