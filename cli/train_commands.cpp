// `blockscope train`: trains a model directory on a data file with the core's TrainingRun, reporting progress
// (a terminal line on stderr, JSON lines on stdout) and saving weights and AdamW state in the input's layout.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "blockscope/checked.hpp"
#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/safetensors.hpp"
#include "blockscope/threads.hpp"
#include "blockscope/trainer.hpp"
#include "blockscope/training_run.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace blockscope::cli {

namespace {
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;  // keys in insertion order: trf_blocks.2 before trf_blocks.10
using Clock = std::chrono::steady_clock;

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, what shells report for Ctrl-C
constexpr int kExitDiverged = 3;

struct TrainArgs {
  std::string model, data, val_data, tokenizer, out;
  TrainConfig tc;
  int64_t eval_every = 0;
  int64_t threads = 1;  // 0: every core the machine offers
  bool resume = false, json = false;
};

// Ctrl-C sets a flag the loop checks after each step; SA_RESETHAND makes a second Ctrl-C stop at once.
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }
void install_sigint_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
}

// A loss for people: 3.2100, 1.829e+18, nan, inf.
std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(x) < 1e4 ? "%.4f" : "%.4g", x);
  return buf;
}

// The terminal line ("step 12/100  loss 3.21  val 3.30  1,234 tok/s  ETA 0:42"), redrawn with \r on a
// terminal at most ten times a second (and at evaluations and the last step); without a terminal (and
// without --json), printed as a plain line ten times per run and at evaluations.
class Progress {
 public:
  Progress(int64_t total, bool json) : total_(total), tty_(isatty(STDERR_FILENO) != 0), json_(json) {}
  void update(int64_t step, double loss, double val, double tokens_per_s, double eta_s, bool evaluated) {
    char line[160];
    char val_text[32] = "";
    if (!std::isnan(val)) std::snprintf(val_text, sizeof val_text, "  val %s", number(val).c_str());
    std::snprintf(line, sizeof line, "step %lld/%lld  loss %s%s  %s tok/s  ETA %s", static_cast<long long>(step),
                  static_cast<long long>(total_), number(loss).c_str(), val_text,
                  with_commas(static_cast<int64_t>(tokens_per_s + 0.5)).c_str(), clock_time(eta_s).c_str());
    if (tty_) {
      const auto now = Clock::now();
      if (!evaluated && step != total_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
      const int len = static_cast<int>(std::strlen(line));
      std::fprintf(stderr, "\r%s%*s", line, std::max(0, drawn_len_ - len), "");  // blank a longer old line
      std::fflush(stderr);
      drawn_ = true;
      drawn_len_ = len;
      last_draw_ = now;
    } else if (!json_ && (evaluated || step == total_ || step % std::max<int64_t>(1, total_ / 10) == 0)) {
      std::fprintf(stderr, "%s\n", line);
    }
  }
  void finish() {
    if (drawn_) std::fputc('\n', stderr);
    drawn_ = false;
  }

 private:
  int64_t total_;
  bool tty_, json_, drawn_ = false;
  int drawn_len_ = 0;
  Clock::time_point last_draw_;
};

void print_json(const ojson& j) {
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);  // one line per step, readable while training runs
}

ojson step_json(const StepResult& r, double tokens_per_s, double val) {
  ojson j = {{"step", r.step}, {"loss", r.loss}, {"grad_norm", r.grad_norm}, {"lr", r.lr},
             {"tokens_per_s", tokens_per_s}};
  if (!std::isnan(val)) j["val_loss"] = val;
  ojson norms = ojson::object();
  for (const auto& n : r.layer_grad_norms) norms[n.name] = n.norm;
  j["layer_grad_norms"] = norms;
  if (!r.finite) j["finite"] = false;
  return j;
}

// The checkpoint as one commit (the core's save_training_checkpoint): the tokenizer files (every layout the core
// knows: tokenizer_layouts) of --tokenizer DIR, else of the model directory (so `generate --model OUT` finds them), config.json, the AdamW state bound to these weights by their
// fingerprint, and model.safetensors last.
void save_checkpoint(Trainer& trainer, const CheckpointNaming& naming, const TrainArgs& a, int64_t weights_step,
                     bool with_optimizer) {
  std::vector<std::vector<uint8_t>> contents;  // what tokenizer_files' spans view
  contents.reserve(2 * tokenizer_layouts().size());  // no reallocation: the spans stay valid
  std::vector<DirFile> tokenizer_files;
  // The tokenizer the data was read with: --tokenizer DIR when given (so OUT is self-contained), else MODEL's.
  const bool given = !a.tokenizer.empty() && a.tokenizer != "bytes";
  const fs::path from = given ? fs::path(a.tokenizer) : fs::path(a.model);
  std::error_code same;
  if (!fs::equivalent(from, a.out, same)) {
    for (const TokenizerLayout& layout : tokenizer_layouts()) {
      for (const char* name : {layout.first, layout.second}) {
        if (!name || !fs::exists(from / name)) continue;
        contents.push_back(read_file_bytes((from / name).string(), kMaxTokenizerFileBytes, "a tokenizer file"));
        tokenizer_files.push_back({name, contents.back()});
      }
    }
  }
  save_training_checkpoint(a.out, trainer.model(), naming, weights_step,
                           with_optimizer ? &trainer.optimizer() : nullptr, tokenizer_files, commit_hooks_from_env());
}

// The Trainer for the model and data, with AdamW's state loaded when resuming.
struct Run {
  std::unique_ptr<Trainer> trainer;
  int64_t start = 0;  // the step count the run starts from
  int64_t tokens_per_step = 0;
};

// A --resume's optimizer state must belong to the weights next to it (check_training_state): a directory that
// holds one save's weights and another's AdamW state is refused, not trained on.
void check_resume(const std::string& optimizer_path, std::span<const uint8_t> state, const NamedModel& md) {
  std::string warning;
  try {
    warning = check_training_state(state, md.model.params(), md.metadata);
  } catch (const Error& e) {
    throw Error(detail::concat(optimizer_path, ": ", e.what(), ". Resume from a complete checkpoint, or train "
                               "without --resume to start AdamW afresh from these weights"));
  }
  if (!warning.empty()) std::fprintf(stderr, "blockscope: warning: %s: %s\n", optimizer_path.c_str(), warning.c_str());
}

Run make_run(const TrainArgs& a, NamedModel& md) {
  GPTModel& model = md.model;
  const TrainConfig& tc = a.tc;
  const GPTConfig& cfg = model.config();
  Run run;
  std::vector<uint8_t> optimizer_bytes;
  const std::string optimizer_path = (fs::path(a.model) / kOptimizerStateFile).string();
  // Before the data (fail fast); two moments per parameter, so at most twice a weights file's bound.
  const uint64_t weights_bound = max_safetensors_bytes(cfg);
  const uint64_t optimizer_bound = weights_bound > UINT64_MAX / 2 ? UINT64_MAX : 2 * weights_bound;
  if (a.resume) {
    optimizer_bytes = read_file_bytes(optimizer_path, optimizer_bound, "this model's optimizer state");
    check_resume(optimizer_path, optimizer_bytes, md);
  }
  TokenFile tf = read_token_file(a.data, a.tokenizer, a.model, cfg.vocab_size);
  const size_t n_tokens = tf.ids.size();
  const int64_t T = cfg.sequence_length(tc.seq_len);
  std::optional<TokenData> data;
  if (!a.val_data.empty()) {  // a separate held-out file (e.g. whole documents), nothing cut from --data
    TokenFile vf = read_token_file(a.val_data, a.tokenizer, a.model, cfg.vocab_size);
    const size_t n_val = vf.ids.size();
    try {
      data.emplace(std::move(tf.ids), std::move(vf.ids), T, cfg.vocab_size, tc.window_stride);
    } catch (const Error& e) {
      throw Error(detail::concat("--data ", a.data, " (", n_tokens, " tokens) / --val-data ", a.val_data, " (",
                                 n_val, " tokens): ", e.what()));
    }
  } else {
    try {
      data.emplace(std::move(tf.ids), tc.val_fraction, T, cfg.vocab_size, tc.window_stride);
    } catch (const Error& e) {  // name the file: "the training data has 18 tokens; ..."
      throw Error(detail::concat("--data ", a.data, " (", n_tokens, " tokens): ", e.what()));
    }
  }
  run.trainer = std::make_unique<Trainer>(model, tc, std::move(*data));
  if (a.resume) {
    try {
      run.trainer->optimizer().load_state(optimizer_bytes);
    } catch (const Error& e) {
      throw Error(detail::concat(optimizer_path, ": ", e.what()));
    }
    run.start = run.trainer->steps_done();
    require(run.start < tc.steps, "the optimizer state in ", optimizer_path, " is at step ", run.start,
            " and --steps (the schedule's total length) is ", tc.steps, ": nothing left to train; pass a larger --steps");
  }
  run.tokens_per_step = checked_mul(checked_mul(tc.batch_size, T, "tokens per update"), tc.grad_accum,
                                    "tokens per update");  // in range: TrainConfig's limits and the memory budget
  return run;
}

struct Outcome {
  std::string stop = "completed";  // or "interrupted", "diverged"
  StepResult last;                 // the last step run (the non-finite one when diverged)
  double loss = std::nan(""), val = std::nan("");
  double train_seconds = 0.0;
};

// The core's TrainingRun decides when to evaluate (every --eval-every steps and after the last), when to stop
// and which weights a diverged run keeps; this loop times the steps (evaluations left out of tokens/s), prints
// them and turns Ctrl-C into a cancel.
Outcome train_loop(const TrainArgs& a, Run& run, TrainingRun& training) {
  const TrainConfig& tc = a.tc;
  const auto per_step = static_cast<double>(run.tokens_per_step);
  Progress progress(tc.steps, a.json);
  Outcome o;
  const auto t0 = Clock::now();
  double dt = 0.0;  // the step under way, its evaluation left out
  training.begin({.steps = tc.steps - run.start, .eval_every = a.eval_every, .stop_above = {}});
  while (!training.finished()) {
    const bool evaluation = training.evaluating_next();
    const auto s0 = Clock::now();
    const RunStep* s = training.advance();
    const double piece = std::chrono::duration<double>(Clock::now() - s0).count();
    if (!evaluation) dt += piece;
    if (!s) continue;
    const StepResult& r = o.last = s->result;
    o.train_seconds += dt;
    if (!r.finite) {
      if (a.json) print_json(step_json(r, per_step / dt, std::nan("")));
      o.stop = "diverged";
      break;
    }
    o.loss = r.loss;
    if (s->evaluated()) o.val = s->val_loss;
    if (a.json) print_json(step_json(r, per_step / dt, s->val_loss));
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto done = static_cast<double>(r.step - run.start);
    progress.update(r.step, r.loss, o.val, per_step * done / o.train_seconds,
                    elapsed / done * static_cast<double>(tc.steps - r.step), s->evaluated());
    dt = 0.0;
    if (g_interrupted) {
      training.cancel();
      o.stop = "interrupted";
      break;
    }
  }
  progress.finish();
  return o;
}

int cmd_train(const TrainArgs& a) {
  const TrainConfig& tc = a.tc;
  tc.validate();
  require(a.eval_every >= 0, "--eval-every must be >= 0 (0 = only after the last step), got ", a.eval_every);
  require(a.eval_every == 0 || tc.val_fraction > 0.0 || !a.val_data.empty(), "--eval-every ", a.eval_every,
          " needs validation data, but --val-fraction is 0 and there is no --val-data");
  const int threads = set_threads(a.threads == 0 ? available_threads() : static_cast<int>(a.threads));
  NamedModel md = load_model_dir_named(a.model);
  Run run = make_run(a, md);
  // Before the first step, not after the last: an --out that cannot be written would throw the run away.
  require_writable_dir(a.out, "--out");
  Trainer& trainer = *run.trainer;
  install_sigint_handler();
  TrainingRun training(trainer);
  const auto t0 = Clock::now();
  const std::clock_t cpu0 = std::clock();  // processor time of every thread: a busy machine's wall time is longer
  const Outcome o = train_loop(a, run, training);

  // A diverged run has put back the last weights that gave a finite loss (TrainingRun) and is saved without
  // optimizer state (its moments already hold the diverging update); if the starting weights already give a
  // non-finite loss, nothing is saved.
  const bool diverged = o.stop == "diverged";
  const int64_t weights_step = training.outcome().weights_step;
  const bool saved = training.outcome().weights_finite;
  if (saved) save_checkpoint(trainer, md.naming, a, weights_step, !diverged);

  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu_seconds = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double tokens = static_cast<double>(run.tokens_per_step * (trainer.steps_done() - run.start));
  ojson config = tc.to_json();
  config["eval_every"] = a.eval_every;
  if (!a.val_data.empty()) config.erase("val_fraction");  // the held-out part is the --val-data file
  ojson summary = {{"done", true},         {"stop", o.stop},         {"steps", weights_step},
                   {"loss", o.loss},       {"tokens", tokens},       {"seconds", seconds},
                   {"cpu_seconds", cpu_seconds},
                   {"tokens_per_s", o.train_seconds > 0 ? tokens / o.train_seconds : 0.0},
                   {"memory_bytes", trainer.memory_bytes()}, {"threads", threads},
                   {"layout", layout_name(md.naming.layout)},       {"out", saved ? ojson(a.out) : ojson()},
                   {"config", config}};
  if (!std::isnan(o.val)) summary["val_loss"] = o.val;
  if (a.json) print_json(summary);

  if (diverged) {
    std::fprintf(stderr, "blockscope: training diverged at step %lld: loss %s, gradient norm %s; ",
                 static_cast<long long>(o.last.step), number(o.last.loss).c_str(), number(o.last.grad_norm).c_str());
    if (saved)
      std::fprintf(stderr, "saved the weights after step %lld (the last to give a finite loss) to %s, without "
                   "optimizer state; try a lower --lr\n", static_cast<long long>(weights_step), a.out.c_str());
    else
      std::fprintf(stderr, "the starting weights already give a non-finite loss, so nothing was saved\n");
    return kExitDiverged;
  }
  if (o.stop == "interrupted") {
    std::fprintf(stderr, "blockscope: interrupted after step %lld of %lld; saved the model and optimizer state to "
                 "%s (continue with: blockscope train --model %s --resume ...)\n",
                 static_cast<long long>(weights_step), static_cast<long long>(tc.steps), a.out.c_str(), a.out.c_str());
    return kExitInterrupted;
  }
  if (!a.json) {
    std::printf("trained steps %lld-%lld of %lld: loss %.4f", static_cast<long long>(run.start + 1),
                static_cast<long long>(weights_step), static_cast<long long>(tc.steps), o.loss);
    if (!std::isnan(o.val)) std::printf(", val %.4f", o.val);
    std::printf(" (%s tok/s on %d thread%s, %s)\nwrote %s (%s layout, optimizer state at step %lld)\n",
                with_commas(static_cast<int64_t>(tokens / o.train_seconds)).c_str(), threads, threads == 1 ? "" : "s",
                clock_time(seconds).c_str(),
                a.out.c_str(), layout_name(md.naming.layout), static_cast<long long>(weights_step));
  }
  return 0;
}
}  // namespace

void add_training_commands(CLI::App& app, Action& action) {
  auto a = std::make_shared<TrainArgs>();
  TrainConfig& tc = a->tc;
  auto* c = app.add_subcommand("train", "train a model on a data file (AdamW, warmup + cosine decay)");
  c->footer(
      "--data is UTF-8 text, tokenized with --tokenizer (default: the model directory's GPT-2 files, else bytes "
      "for a 256/257-id vocabulary), or token ids: FILE.ids (integers separated by whitespace/commas) or FILE.bin "
      "(uint16 little-endian, nanoGPT's format). The last --val-fraction of the tokens is held out, or, with "
      "--val-data, the tokens of that file (tokenized like --data) are the validation set and all of --data is "
      "trained on.\n"
      "OUT gets model.safetensors + config.json in the layout and tensor names the model was loaded from (book "
      "or Hugging Face), optimizer.safetensors (AdamW moments, the step count and a fingerprint of the weights "
      "saved with them) and the tokenizer files (--tokenizer DIR's, else the model directory's). OUT is checked for writing before training "
      "starts; the files are written to fresh temporaries, synced, then renamed into place (model.safetensors "
      "last), so a failed save (a full disk) changes nothing and leaves no temporary behind.\n"
      "--steps is the schedule's total length. --resume loads MODEL/optimizer.safetensors and continues its "
      "step count and learning-rate schedule up to --steps; each step's batches and dropout masks are seeded by "
      "(--seed, step), so a resumed run continues exactly as the uninterrupted run would have. The state must "
      "belong to MODEL's weights: if its fingerprint or step differs from model.safetensors' (a save killed "
      "between its renames), --resume refuses; a state written before fingerprints existed is accepted with a "
      "warning, since there is nothing to compare.\n"
      "Ctrl-C finishes the current step, saves and exits with 130 (a second Ctrl-C stops at once). A "
      "non-finite loss (or gradient) at step k stops training, saves the last weights that gave a finite loss "
      "(after step k-2, or k-1 if only the gradient overflowed; no optimizer state) and exits with 3. Keeping "
      "them costs two copies of the parameters.\n"
      "--json prints one line per step {step, loss, grad_norm, lr, tokens_per_s, [val_loss], "
      "layer_grad_norms} and a final {done, stop, steps, loss, [val_loss], seconds, cpu_seconds (processor time of "
      "every thread), ...} line.");
  c->add_option("--model", a->model, "model directory to start from")->required();
  c->add_option("--data", a->data, "training data: text, .ids or .bin")->required();
  c->add_option("--tokenizer", a->tokenizer, std::string(kTokenizerHelp) + " (text data only)");
  c->add_option("--out", a->out, "output directory (may be --model itself)")->required();
  c->add_option("--steps", tc.steps, "optimizer updates in the whole schedule (default 1000)")
      ->check(integer_value(1, TrainConfig::kMaxSteps));
  c->add_option("--batch-size", tc.batch_size, "sequences per micro-batch (default 8)")
      ->check(integer_value(1));
  c->add_option("--seq-len", tc.seq_len, "tokens per sequence (default: the context length)")
      ->check(integer_value(0, SizeLimits::kMaxContext));
  c->add_option("--grad-accum", tc.grad_accum, "micro-batches per update (default 1)")
      ->check(integer_value(1, TrainConfig::kMaxGradAccum));
  c->add_option("--lr", tc.lr, "peak learning rate (default 3e-4)")->check(finite_number());
  c->add_option("--min-lr", tc.min_lr, "the cosine's floor (default lr / 10)")->check(finite_number());
  c->add_option("--warmup", tc.warmup, "linear warmup updates (default 0)")
      ->check(integer_value(0, TrainConfig::kMaxSteps));
  c->add_option("--weight-decay", tc.weight_decay, "AdamW weight decay of Linear weights (default 0.1)")
      ->check(finite_number());
  c->add_option("--clip", tc.clip, "max global gradient norm, 0 = off (default 1)")->check(finite_number());
  auto* val_fraction = c->add_option("--val-fraction", tc.val_fraction,
                                     "fraction of the tokens held out for validation (default 0.1)")
                                         ->check(finite_number());
  c->add_option("--val-data", a->val_data, "validation data file (text, .ids or .bin) instead of --val-fraction")
      ->excludes(val_fraction);
  c->add_option("--eval-batches", tc.eval_batches, "batches per validation estimate (default 8)")
      ->check(integer_value(1, TrainConfig::kMaxEvalBatches));
  c->add_option("--eval-every", a->eval_every, "evaluate every N steps (default 0: after the last step only)")
      ->check(integer_value(0, TrainConfig::kMaxSteps));
  c->add_option("--window-stride", tc.window_stride, "windows start only at multiples of N tokens (default 1: "
                "anywhere); for data made of fixed-length examples of N tokens with N = sequence length + 1, every "
                "window is then one whole example")
      ->check(integer_value(1, SizeLimits::kMaxContext + 1));
  c->add_option("--seed", tc.seed, "seed of the data order and dropout, in [0, 2^53) (default 1)")->check(seed_value());
  c->add_option("--threads", a->threads, "threads of the matrix products, 0 = every core (default 1: a busy machine "
                "runs slower with more); the same count gives the same result")->check(integer_value(0, 1024));
  c->add_flag("--resume", a->resume, "continue from MODEL/optimizer.safetensors");
  c->add_flag("--json", a->json, "JSON lines on stdout");
  c->callback([a, &action] { action = [a] { return cmd_train(*a); }; });
}

}  // namespace blockscope::cli
