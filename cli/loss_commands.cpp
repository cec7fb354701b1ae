// The blockscope subcommands that measure a model's loss without changing it: grad (the loss of one sequence
// and its gradient for every stored tensor) and eval (mean cross-entropy over a file).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/evaluation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/safetensors.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace blockscope::cli {

namespace {
using nlohmann::json;

// ---------------------------------------------------------------------------------------------------------
// grad
// ---------------------------------------------------------------------------------------------------------
struct GradArgs {
  std::string model, tokens, targets, out;
  bool json = false;
};

int cmd_grad(const GradArgs& a) {
  // --out names a file; its directory must take one. Checked before any work, so that nothing is computed
  // for nowhere (the write itself goes through a fresh temporary that never outlives the command).
  std::error_code ec;
  require(!std::filesystem::is_directory(a.out, ec), "--out '", a.out,
          "' is a directory; give the file name for the gradients' .safetensors");
  const std::string parent = std::filesystem::path(a.out).parent_path().string();
  require_writable_dir(parent.empty() ? "." : parent, "--out's directory");
  NamedModel md = load_model_dir_named(a.model);
  GPTModel& model = md.model;
  const std::vector<int32_t> ids = parse_ids(a.tokens);
  const std::vector<int32_t> targets = parse_ids(a.targets);
  require(targets.size() == ids.size(), "--targets has ", targets.size(), " ids but --tokens has ", ids.size(),
          "; give one target per token");
  const auto T = static_cast<int64_t>(ids.size());
  model.check_ids(ids, 1, T);  // sequence length and vocabulary, before allocating the run state
  GPTRunState rs(model.config(), 1, T, /*dropout=*/false);
  const double loss = model.forward_loss(rs, ids, targets);
  ParamArena grads = ParamArena::zeros_like(model.params());
  model.backward(rs, grads);
  // The file's own names, shapes and layout: Conv1D (in, out), fused c_attn, a tied head's folded gradient.
  const std::vector<uint8_t> bytes = save_safetensors(model.config(), grads, md.naming);
  write_file_atomic(a.out, bytes);
  const size_t tensors = SafetensorsFile::parse(bytes).entries().size();
  if (a.json) {
    std::printf("%s\n", json{{"loss", loss}, {"out", a.out}, {"tensors", tensors}}.dump().c_str());
  } else {
    std::printf("loss %.7f (mean cross-entropy over %lld positions)\n", loss, static_cast<long long>(T));
    std::printf("wrote %s: d(loss)/d(tensor) for %zu tensors (%s layout)\n", a.out.c_str(), tensors,
                layout_name(md.naming.layout));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------
// eval
// ---------------------------------------------------------------------------------------------------------
struct EvalArgs {
  std::string model, text, tokenizer, weights = "f32";
  int64_t batch_size = 8;
  bool json = false;
};

int cmd_eval(const EvalArgs& a) {
  require(a.batch_size >= 1, "--batch-size must be at least 1, got ", a.batch_size);
  LoadOptions opts;
  opts.weights = parse_weight_format(a.weights);  // int8: the loss of the quantized model
  GPTModel model = load_model_dir(a.model, opts);
  const GPTConfig& cfg = model.config();
  const TokenFile tf = read_token_file(a.text, a.tokenizer, a.model, cfg.vocab_size);
  const std::vector<int32_t>& ids = tf.ids;
  const auto n = static_cast<int64_t>(ids.size());
  require(n >= 2, a.text, " has ", n, " token; eval needs at least 2 (a token and the next one to predict)");
  HeldOutLoss held;
  try {
    held = evaluate_tokens(model, ids, {.seq_len = 0, .batch = a.batch_size});
  } catch (const Error& e) {  // name the file: "token id 300 at position 7 is outside the vocabulary ..."
    throw Error(detail::concat(a.text, ": ", e.what()));
  }
  const int64_t ctx = cfg.context_length;

  // Bits per byte of the predicted tokens' bytes (text only: ids files carry no bytes).
  double bits_per_byte = -1.0;
  if (tf.tokenizer) {
    int64_t bytes = 0;
    for (int64_t i = 1; i < n; ++i) bytes += static_cast<int64_t>(tf.tokenizer->token_text(ids[i]).size());
    if (bytes > 0) bits_per_byte = held.nats / std::numbers::ln2 / static_cast<double>(bytes);
  }
  if (a.json) {
    json j = {{"loss", held.loss}, {"tokens", held.tokens}, {"windows", held.windows}, {"context_length", ctx}};
    if (bits_per_byte >= 0) j["bits_per_byte"] = bits_per_byte;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("loss %.6f nats/token (perplexity %.3f) over %s predicted tokens in %lld windows of up to %lld\n",
              held.loss, std::exp(held.loss), with_commas(held.tokens).c_str(), static_cast<long long>(held.windows),
              static_cast<long long>(ctx));
  if (bits_per_byte >= 0)
    std::printf("bits per byte %.6f (tokenizer %s)\n", bits_per_byte, tf.tokenizer->name().c_str());
  return 0;
}
}  // namespace

void add_loss_commands(CLI::App& app, Action& action) {
  auto g = std::make_shared<GradArgs>();
  auto* grad = app.add_subcommand("grad", "the loss of one sequence and its gradient for every stored tensor");
  grad->footer(
      "The loss is the mean cross-entropy of the logits at each position against --targets, dropout off. "
      "FILE gets d(loss)/d(tensor) for every parameter tensor stored in the model's model.safetensors, under "
      "the same names, shapes and layout (Hugging Face: Conv1D weights (in, out), fused c_attn; a tied head's "
      "gradient is folded into the embedding's, and written under both names if the file stores both). "
      "Non-parameter buffers (causal masks) have no gradient and are not written.");
  grad->add_option("--model", g->model, "model directory")->required();
  grad->add_option("--tokens", g->tokens, "comma-separated input token ids")->required();
  grad->add_option("--targets", g->targets, "comma-separated target ids, one per token")->required();
  grad->add_option("--out", g->out, "the gradients' .safetensors file")->required();
  grad->add_flag("--json", g->json, "print {\"loss\": ..., \"out\": ..., \"tensors\": ...}");
  grad->callback([g, &action] { action = [g] { return cmd_grad(*g); }; });

  auto e = std::make_shared<EvalArgs>();
  auto* eval = app.add_subcommand("eval", "mean cross-entropy (nats per token) of a model over a file");
  eval->footer(
      "The file's tokens t0..t(n-1) are cut into input windows of the context length, [0, ctx), [ctx, 2 ctx), "
      "..., not overlapping; each position predicts the next token, so every token but the first is predicted "
      "exactly once (N = n - 1, reported as \"tokens\"), and the last window is shorter (it counts whenever it "
      "has a token and its successor, i.e. at least 2 tokens). Windows do not see each other's context. "
      "--text takes UTF-8 text, or token ids in a .ids (whitespace/comma-separated) or .bin (uint16) file. "
      "For text, bits per byte = total nats / ln 2 / bytes of the predicted tokens.");
  eval->add_option("--model", e->model, "model directory")->required();
  eval->add_option("--text", e->text, "the file to evaluate on")->required();
  eval->add_option("--tokenizer", e->tokenizer,
                   std::string(kTokenizerHelp) + "; default: the model directory's files, else bytes");
  eval->add_option("--batch-size", e->batch_size,
                   "windows per forward pass (default 8; changes the result only by rounding)")
      ->check(integer_value(1));
  eval->add_option("--weights", e->weights, "f32 (default) or int8: evaluate with int8 matrices (quantized at load)");
  eval->add_flag("--json", e->json,
                 "print {\"loss\", \"tokens\", \"windows\", \"context_length\"[, \"bits_per_byte\"]}");
  eval->callback([e, &action] { action = [e] { return cmd_eval(*e); }; });
}

}  // namespace blockscope::cli
