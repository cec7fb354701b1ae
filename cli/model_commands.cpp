// The blockscope subcommands that create, inspect and run a model without training it: info, forward,
// generate, tokenize, detokenize and init.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/checked.hpp"
#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/interpret.hpp"
#include "blockscope/tokenizer.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace blockscope::cli {

namespace {
using nlohmann::json;

// --weights f32|int8 (int8: matrices quantized at load, inference only); a bad value is an Error naming it.
LoadOptions weight_options(const std::string& weights) {
  LoadOptions opts;
  opts.weights = parse_weight_format(weights);
  return opts;
}
constexpr const char* kWeightsHelp =
    "f32 (default) or int8: quantize the embedding and every Linear matrix at load (one scale per 32 values)";

int cmd_info(const std::string& dir, bool as_json) {
  const NamedModel md = load_model_dir_named(dir);
  const GPTConfig& cfg = md.model.config();
  const auto weight_bytes = static_cast<double>(GPTModel::parameter_bytes(cfg));
  const auto kv_bytes = static_cast<double>(KVCache::bytes(cfg));
  const json j = {{"config", cfg.to_json()},         {"layout", layout_name(md.naming.layout)},
                  {"parameters", md.model.num_parameters()}, {"weight_bytes", weight_bytes},
                  {"kv_cache_bytes", kv_bytes}};
  if (as_json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("model      %s (%s layout)\n", dir.c_str(), layout_name(md.naming.layout));
  const json cj = cfg.to_json();  // named: items() would dangle on a temporary
  for (const auto& [k, v] : cj.items()) std::printf("  %-20s %s\n", k.c_str(), v.dump().c_str());
  std::printf("parameters %lld\n", static_cast<long long>(md.model.num_parameters()));
  std::printf("weights    %s (float32)\n", bytes_str(weight_bytes).c_str());
  std::printf("KV cache   %s for a full context of %lld tokens\n", bytes_str(kv_bytes).c_str(),
              static_cast<long long>(cfg.context_length));
  return 0;
}

// Logits that are not finite are an error, not output: JSON has no NaN (nlohmann writes null) and a NaN
// argmax means nothing. Names the first one as the core's sampling does ("logit 3 is NaN").
void require_finite_logits(const Tensor& logits, int64_t V) {
  const auto n = static_cast<int64_t>(logits.data.size());
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(logits.data[static_cast<size_t>(i)]) && bad++ == 0) first = i;
  if (bad == 0) return;
  const float v = logits.data[static_cast<size_t>(first)];
  throw Error(detail::concat("the forward pass gave non-finite logits: logit ", first % V, " at position ", first / V,
                             " is ", std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf", " (", bad, " of ", n,
                             " logits are not finite: the weights overflow float32 on this input)"));
}

// The softmax attention weights the forward pass recorded: [block][head][query][key], key > query zero.
json attention_json(const ForwardInspection& ins) {
  json blocks = json::array();
  const int64_t T = ins.T;
  for (const BlockInspection& layer : ins.layers) {
    json heads = json::array();
    for (int64_t h = 0; h < ins.NH; ++h) {
      json rows = json::array();
      const auto head = layer.attn_weights.begin() + h * T * T;  // batch 0 of (B, NH, T, T)
      for (int64_t q = 0; q < T; ++q) rows.push_back(std::vector<float>(head + q * T, head + (q + 1) * T));
      heads.push_back(std::move(rows));
    }
    blocks.push_back(std::move(heads));
  }
  return blocks;
}

struct ForwardArgs {
  std::string model, tokens, weights = "f32", ablate, ablate_mode = "zero";
  bool json = false, attention = false;
};

int cmd_forward(const ForwardArgs& a) {
  require(!a.attention || a.json, "--attention needs --json");
  GPTModel model = load_model_dir(a.model, weight_options(a.weights));
  set_head_ablation(model, parse_heads(a.ablate, model.config()), parse_head_ablation(a.ablate_mode));
  const std::vector<int32_t> ids = parse_ids(a.tokens);
  const auto T = static_cast<int64_t>(ids.size());
  const Tensor logits = model.forward(ids, 1, T, /*inspect=*/a.attention);
  const int64_t V = model.config().vocab_size;
  require_finite_logits(logits, V);
  if (a.json) {
    json rows = json::array();
    for (int64_t t = 0; t < T; ++t)
      rows.push_back(std::vector<float>(logits.data.begin() + t * V, logits.data.begin() + (t + 1) * V));
    json out = {{"logits", rows}};
    if (a.attention) out["attention"] = attention_json(model.last_inspection());
    std::printf("%s\n", out.dump().c_str());
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
  std::string model, prompt, prompt_file, prompt_ids, tokenizer, weights = "f32", ablate, ablate_mode = "zero";
  GenerateOptions opts;
  bool crop = false, json = false, no_stop = false;
  bool prompt_given = false, prompt_file_given = false, prompt_ids_given = false;
};

int cmd_generate(GenerateArgs& a) {
  GPTModel model = load_model_dir(a.model, weight_options(a.weights));
  set_head_ablation(model, parse_heads(a.ablate, model.config()), parse_head_ablation(a.ablate_mode));
  const int given = a.prompt_given + a.prompt_file_given + a.prompt_ids_given;
  require(given == 1, given == 0 ? "give one" : "give only one",
          " of --prompt TEXT, --prompt-file FILE or --prompt-ids IDS");
  // Ids in, ids out: a model no tokenizer fits (e.g. a 60-token task vocabulary) still generates from
  // --prompt-ids, printing ids (and "text": null with --json).
  const int64_t V = model.config().vocab_size;
  const std::unique_ptr<Tokenizer> tok = a.prompt_ids_given && a.tokenizer.empty()
                                             ? model_tokenizer(a.model, V)
                                             : open_tokenizer(a.tokenizer, a.model, V);
  const std::vector<int32_t> prompt = a.prompt_ids_given ? parse_ids(a.prompt_ids)
                                      : tok->encode(a.prompt_file_given ? read_file(a.prompt_file) : a.prompt);
  require(!prompt.empty(), "the prompt is empty (", a.prompt_file_given ? a.prompt_file : "--prompt", ")");
  if (a.crop) a.opts.overflow = ContextOverflow::Crop;
  if (!a.no_stop && tok) a.opts.stop_token = tok->eot_id();
  Generator gen(model, prompt, a.opts);
  std::vector<int32_t> out;
  while (const auto t = gen.next()) {
    out.push_back(*t);
    if (!a.json && (!a.opts.stop_token || *t != *a.opts.stop_token)) {
      // Each token's text, joined as decode() joins them (symbols by spaces); ids alone, by spaces.
      const std::string_view sep = tok ? tok->separator() : " ";
      std::string piece = out.size() > 1 ? std::string(sep) : std::string();
      piece += tok ? tok->decode(std::span<const int32_t>(&*t, 1)) : std::to_string(*t);
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);  // stream each token as it arrives
    }
  }
  if (a.json) {
    const json j = {{"prompt_tokens", prompt}, {"tokens", out}, {"text", tok ? json(tok->decode(out)) : json()},
                    {"stop_reason", gen.stop_reason()}};
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

// init: a config file (optional) with command-line options applied over it.
struct InitArgs {
  std::string config, out, layout = "book";
  uint64_t seed = 123;
  int64_t vocab_size = 0, context_length = 0, emb_dim = 0, n_heads = 0, n_layers = 0, ffn_hidden = 0;
  double drop_rate = 0.0;
  std::string norm, activation, tie_weights, qkv_bias;
  CLI::Option *o_vocab = nullptr, *o_context = nullptr, *o_emb = nullptr, *o_heads = nullptr, *o_layers = nullptr,
              *o_ffn = nullptr, *o_drop = nullptr;
};

bool parse_bool(const std::string& option, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw Error(detail::concat(option, " must be true or false, got '", value, "'"));
}

GPTConfig init_config(const InitArgs& a) {
  GPTConfig cfg;
  if (!a.config.empty()) {
    cfg = read_config(read_file(a.config));
  } else {
    std::string missing;
    for (const auto* o : {a.o_vocab, a.o_context, a.o_emb, a.o_heads, a.o_layers})
      if (o->count() == 0) missing += (missing.empty() ? "" : ", ") + o->get_name();
    require(missing.empty(), "without --config, give all five sizes (--vocab-size, --context-length, --emb-dim, "
            "--n-heads, --n-layers); missing: ", missing);
  }
  if (*a.o_vocab) cfg.vocab_size = a.vocab_size;
  if (*a.o_context) cfg.context_length = a.context_length;
  if (*a.o_emb) cfg.emb_dim = a.emb_dim;
  if (*a.o_heads) cfg.n_heads = a.n_heads;
  if (*a.o_layers) cfg.n_layers = a.n_layers;
  if (*a.o_ffn) cfg.ffn_hidden = a.ffn_hidden;
  if (*a.o_drop) cfg.drop_rate = a.drop_rate;
  if (!a.norm.empty()) cfg.norm = parse_norm_placement(a.norm);
  if (!a.activation.empty()) cfg.activation = parse_activation(a.activation.c_str());
  if (!a.tie_weights.empty()) cfg.tie_weights = parse_bool("--tie-weights", a.tie_weights);
  if (!a.qkv_bias.empty()) cfg.qkv_bias = parse_bool("--qkv-bias", a.qkv_bias);
  return cfg;
}

int cmd_init(const InitArgs& a) {
  const CheckpointLayout layout = parse_layout(a.layout, "--layout");
  const GPTConfig cfg = init_config(a);
  check_parameter_budget(cfg, LoadOptions{});  // validates the config too, naming the field
  const GPTModel model(cfg, a.seed);
  save_model_dir(model, a.out, layout);
  std::fprintf(stderr, "wrote %s (%lld parameters, %s layout, seed %llu)\n", a.out.c_str(),
               static_cast<long long>(model.num_parameters()), a.layout.c_str(),
               static_cast<unsigned long long>(a.seed));
  return 0;
}

struct ConvertArgs {
  std::string model, out, dtype = "f32";
};

Dtype parse_storage(const std::string& name) {
  if (name == "f32" || name == "F32") return Dtype::F32;
  if (name == "f16" || name == "F16") return Dtype::F16;
  if (name == "bf16" || name == "BF16") return Dtype::BF16;
  throw Error(detail::concat("--dtype must be f32, f16 or bf16, got '", name, "'"));
}

// Rewrites a model directory with another storage dtype, keeping its layout and tensor names, and reports how
// far rounding moved the weights.
int cmd_convert(const ConvertArgs& a) {
  const Dtype storage = parse_storage(a.dtype);
  const NamedModel md = load_model_dir_named(a.model);
  save_model_dir(md.model, a.out, md.naming, storage);
  const GPTModel back = load_model_dir(a.out);
  const ParamArena& p0 = md.model.params();
  const ParamArena& p1 = back.params();
  double worst = 0.0, worst_rel = 0.0;
  for (int64_t i = 0; i < p0.capacity(); ++i) {
    const double x = p0.data()[i], d = std::fabs(p1.data()[i] - x);
    worst = std::max(worst, d);
    if (x != 0.0) worst_rel = std::max(worst_rel, d / std::fabs(x));
  }
  std::fprintf(stderr, "wrote %s (%s, %s layout): %lld parameters, largest change %.3g (relative %.3g)\n",
               a.out.c_str(), dtype_name(storage), layout_name(md.naming.layout),
               static_cast<long long>(md.model.num_parameters()), worst, worst_rel);
  return 0;
}

void add_convert(CLI::App& app, Action& action) {
  auto a = std::make_shared<ConvertArgs>();
  auto* c = app.add_subcommand("convert", "rewrite a model directory with F32, F16 or BF16 weights");
  c->footer("Keeps the layout and tensor names of --model's file. F16 and BF16 round each weight to nearest (ties "
            "to even, as torch's .half() and .bfloat16() do) and halve the file; F16 keeps 11 significant bits and "
            "fails on a weight beyond +-65504, BF16 keeps 8 bits and float32's range. Prints the largest change.");
  c->add_option("--model", a->model, "model directory (config.json + model.safetensors)")->required();
  c->add_option("--out", a->out, "output directory (may be --model itself)")->required();
  c->add_option("--dtype", a->dtype, "f32, f16 or bf16 (default f32)");
  c->callback([a, &action] { action = [a] { return cmd_convert(*a); }; });
}

void add_init(CLI::App& app, Action& action) {
  auto a = std::make_shared<InitArgs>();
  auto* c = app.add_subcommand("init", "write a model with seeded random weights");
  c->footer(
      "The config is --config's file (the book's keys or Hugging Face GPT-2's) with the size and architecture "
      "options applied over it. Without --config, the five sizes (--vocab-size, --context-length, --emb-dim, "
      "--n-heads, --n-layers) are required and the rest defaults to the book's GPT_CONFIG_124M (drop_rate 0.1, no qkv "
      "bias, untied, pre-norm, GELU-tanh, ffn_hidden 4 x emb_dim).");
  c->add_option("--config", a->config, "config JSON (the book's keys or Hugging Face GPT-2's)");
  c->add_option("--seed", a->seed, "initialisation seed, an integer in [0, 2^53) (default 123)")->check(seed_value());
  c->add_option("--out", a->out, "output directory")->required();
  c->add_option("--layout", a->layout, "book (default) or huggingface (also: hf)");
  using L = SizeLimits;  // the core's limits (GPTConfig::validate), named by option here
  a->o_vocab = c->add_option("--vocab-size", a->vocab_size, "vocabulary size")->check(integer_value(1, L::kMaxVocab));
  a->o_context = c->add_option("--context-length", a->context_length, "context length (positions)")
      ->check(integer_value(1, L::kMaxContext));
  a->o_emb = c->add_option("--emb-dim", a->emb_dim, "embedding width C")->check(integer_value(1, L::kMaxEmbDim));
  a->o_heads = c->add_option("--n-heads", a->n_heads, "attention heads (must divide --emb-dim)")
      ->check(integer_value(1, L::kMaxEmbDim));
  a->o_layers = c->add_option("--n-layers", a->n_layers, "transformer blocks")->check(integer_value(1, L::kMaxLayers));
  a->o_ffn = c->add_option("--ffn-hidden", a->ffn_hidden, "feed-forward width (0 = 4 x emb_dim)")
      ->check(integer_value(0, L::kMaxFfnHidden));
  a->o_drop = c->add_option("--drop-rate", a->drop_rate, "dropout probability in [0, 1) (used by train)")
      ->check(finite_number());
  c->add_option("--norm", a->norm, "pre or post (LayerNorm placement; hf layout: pre only)");
  c->add_option("--activation", a->activation, "gelu_tanh, gelu_erf, relu or tanh");
  c->add_option("--tie-weights", a->tie_weights, "true or false: the output head shares tok_emb's matrix");
  c->add_option("--qkv-bias", a->qkv_bias, "true or false: biases on the query/key/value projections");
  c->callback([a, &action] { action = [a] { return cmd_init(*a); }; });
}
}  // namespace

void add_model_commands(CLI::App& app, Action& action) {
  struct Args {
    bool json = false;
    std::string model, tokenizer, text, text_file, ids;
  };
  auto a = std::make_shared<Args>();

  auto* info = app.add_subcommand("info", "print a model's config, layout, parameter count and memory");
  info->add_option("--model", a->model, "model directory (config.json + model.safetensors)")->required();
  info->add_flag("--json", a->json, "print JSON");
  info->callback([a, &action] { action = [a] { return cmd_info(a->model, a->json); }; });

  auto f = std::make_shared<ForwardArgs>();
  auto* forward = app.add_subcommand("forward", "run one forward pass and print the logits");
  forward->add_option("--model", f->model, "model directory")->required();
  forward->add_option("--tokens", f->tokens, "comma-separated token ids, e.g. 15496,11,995")->required();
  forward->add_flag("--json", f->json, "print {\"logits\": [[...], ...]}, one row per position");
  forward->add_flag("--attention", f->attention, "with --json, also print \"attention\": every head's softmax "
                    "weights, [block][head][query][key] (after --ablate: an ablated head's weights are still shown)");
  forward->add_option("--weights", f->weights, kWeightsHelp);
  forward->add_option("--ablate", f->ablate, kAblateHelp);
  forward->add_option("--ablate-mode", f->ablate_mode, kAblateModeHelp);
  forward->callback([f, &action] { action = [f] { return cmd_forward(*f); }; });

  auto g = std::make_shared<GenerateArgs>();
  auto* generate = app.add_subcommand("generate", "generate text, streaming tokens to stdout");
  generate->add_option("--model", g->model, "model directory")->required();
  auto* prompt = generate->add_option("--prompt", g->prompt, "prompt text");
  auto* prompt_file = generate->add_option("--prompt-file", g->prompt_file,
                                           "a file whose UTF-8 text is the prompt (for prompts too long for argv)");
  auto* prompt_ids = generate->add_option("--prompt-ids", g->prompt_ids, "prompt as comma-separated token ids");
  generate->add_option("--tokenizer", g->tokenizer,
                       std::string(kTokenizerHelp) + "; default: the model directory's files, else bytes");
  generate->add_option("--max-new-tokens", g->opts.max_new_tokens, "tokens to generate (default 50)")
      ->check(integer_value(0, GenerateOptions::kMaxNewTokens));
  generate->add_option("--temperature", g->opts.sampling.temperature, "0 = greedy (default 1)")
      ->check(finite_number(true));
  generate->add_option("--top-k", g->opts.sampling.top_k, "keep the k most likely tokens (0 = all)")
      ->check(integer_value(0));
  generate->add_option("--top-p", g->opts.sampling.top_p, "nucleus sampling threshold (1 = off)")
      ->check(finite_number(true));
  generate->add_option("--seed", g->opts.seed, "sampling seed, an integer in [0, 2^53) (default 0)")
      ->check(seed_value());
  generate->add_flag("--crop", g->crop, "crop a prompt longer than the context to its last tokens (default: error)");
  generate->add_flag("--no-stop", g->no_stop, "do not stop at <|endoftext|>");
  generate->add_flag("--json", g->json, "print one JSON object at the end instead of streaming");
  generate->add_option("--weights", g->weights, kWeightsHelp);
  generate->add_option("--ablate", g->ablate, kAblateHelp);
  generate->add_option("--ablate-mode", g->ablate_mode, "zero (default; mean needs whole forward passes, which "
                       "generation's key/value cache does not make)");
  generate->callback([g, prompt, prompt_file, prompt_ids, &action] {
    g->prompt_given = prompt->count() > 0;
    g->prompt_file_given = prompt_file->count() > 0;
    g->prompt_ids_given = prompt_ids->count() > 0;
    action = [g] { return cmd_generate(*g); };
  });

  auto* tokenize = app.add_subcommand("tokenize", "text -> token ids");
  tokenize->footer("Give the text with --text, or with --text-file for text too long for a command line.");
  tokenize->add_option("--tokenizer", a->tokenizer, kTokenizerHelp)->required();
  auto* text = tokenize->add_option("--text", a->text, "text to encode");
  auto* text_file = tokenize->add_option("--text-file", a->text_file, "a file whose UTF-8 text is encoded");
  tokenize->add_flag("--json", a->json, "print a JSON array");
  tokenize->callback([a, text, text_file, &action] {
    action = [a, text, text_file] {
      return cmd_tokenize(a->tokenizer, text_or_file(text, a->text, text_file, a->text_file), a->json);
    };
  });

  auto* detokenize = app.add_subcommand("detokenize", "token ids -> text");
  detokenize->add_option("--tokenizer", a->tokenizer, kTokenizerHelp)->required();
  detokenize->add_option("--ids", a->ids, "comma-separated token ids")->required();
  detokenize->callback([a, &action] { action = [a] { return cmd_detokenize(a->tokenizer, a->ids); }; });

  add_init(app, action);
  add_convert(app, action);
}

}  // namespace blockscope::cli
