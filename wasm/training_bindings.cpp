// embind bindings of training: a Trainer over a GPT (steps, the core's training run, evaluation, optimizer
// state), one GPT's loss, its held-out evaluation and every parameter's gradient. Full module only (the lesson's
// residual-gradient-flow network, which the light module serves too, is residual_mlp_bindings.cpp). Marshalling only.
#include "blockscope/evaluation.hpp"
#include "blockscope/trainer.hpp"
#include "blockscope/training_run.hpp"
#include "handles.hpp"

namespace blockscope::wasm {

namespace {

// {step, loss, gradNorm, lr, finite, layerGradNorms: [{name, norm}]}
val step_result(const StepResult& r) {
  val o = val::object();
  o.set("step", static_cast<double>(r.step));
  o.set("loss", r.loss);
  o.set("gradNorm", r.grad_norm);
  o.set("lr", r.lr);
  o.set("finite", r.finite);
  val layers = val::array();
  for (const auto& n : r.layer_grad_norms) {
    val l = val::object();
    l.set("name", n.name);
    l.set("norm", n.norm);
    layers.call<void>("push", l);
  }
  o.set("layerGradNorms", layers);
  return o;
}

// A run's ending when a rule stopped it (diverged, loss_above): {divergedAt, rolledBack, weightsStep}, set on `o`.
void set_divergence(val& o, const RunOutcome& out) {
  if (out.reason != StopReason::Diverged && out.reason != StopReason::LossAbove) return;
  o.set("divergedAt", static_cast<double>(out.diverged_at));
  o.set("rolledBack", out.rolled_back);
  o.set("weightsStep", static_cast<double>(out.weights_step));
}

// Trains a GPT on token ids; must be deleted before its GPT (web/runtime/blockscope.js enforces it).
class TrainerHandle {
 public:
  // config: TrainConfig's keys; train: Int32Array of token ids; val: Int32Array, or null to hold out
  // config.val_fraction of `train`.
  TrainerHandle(GPTHandle& gpt, const std::string& config, val train, val validation)
      : trainer_([&] {
          const TrainConfig cfg = TrainConfig::from_json(json_from(config, "training config"));
          const GPTConfig& mc = gpt.model().config();
          const int64_t T = mc.sequence_length(cfg.seq_len);
          std::vector<int32_t> tokens = ids_from(train);
          TokenData data = validation.isNull() || validation.isUndefined()
                               ? TokenData(std::move(tokens), cfg.val_fraction, T, mc.vocab_size, cfg.window_stride)
                               : TokenData(std::move(tokens), ids_from(validation), T, mc.vocab_size,
                                           cfg.window_stride);
          return std::make_unique<Trainer>(gpt.model(), cfg, std::move(data));
        }()),
        run_(*trainer_) {}

  val step() { return guarded([&] { return step_result(trainer_->step()); }); }
  // The same step in pieces: beginStep(), accumulate() while it returns true, finishStep().
  void beginStep() { guarded([&] { trainer_->begin_step(); }); }
  bool accumulate() { return guarded([&] { return trainer_->accumulate(); }); }
  val finishStep() { return guarded([&] { return step_result(trainer_->finish_step()); }); }
  // One update on the caller's batch: ids and targets (grad_accum x batch_size, seq_len) as Int32Arrays.
  val stepBatch(val ids, val targets) {
    return guarded([&] { return step_result(trainer_->step(ids_from(ids), ids_from(targets))); });
  }
  double evaluate() { return guarded([&] { return trainer_->evaluate(); }); }
  // The core's training loop (TrainingRun), one piece per advance(): options {steps, evalEvery, stopAbove}.
  void beginRun(const std::string& options) {
    guarded([&] { run_.begin(RunOptions::from_json(json_from(options, "training run options"))); });
  }
  // The update's report once complete ({...step, valLoss?, stop?, divergedAt?, rolledBack?, weightsStep?}: the
  // last four when a rule ended the run with it), else null.
  val advance() {
    return guarded([&] {
      const RunStep* s = run_.advance();
      if (!s) return val::null();
      val o = step_result(s->result);
      if (s->evaluated()) o.set("valLoss", s->val_loss);
      if (run_.finished() && run_.outcome().reason != StopReason::Steps &&
          run_.outcome().reason != StopReason::Cancelled) {
        o.set("stop", std::string(stop_reason_name(run_.outcome().reason)));
        set_divergence(o, run_.outcome());
      }
      return o;
    });
  }
  void cancelRun() { guarded([&] { run_.cancel(); }); }
  bool runFinished() const { return run_.finished(); }
  // {reason, steps[, divergedAt, rolledBack, weightsStep]}
  val runOutcome() const {
    return guarded([&] {
      val o = val::object();
      o.set("reason", std::string(stop_reason_name(run_.outcome().reason)));
      o.set("steps", static_cast<double>(run_.outcome().steps));
      set_divergence(o, run_.outcome());
      return o;
    });
  }
  double stepsDone() const { return static_cast<double>(trainer_->steps_done()); }
  double memoryBytes() const { return static_cast<double>(trainer_->memory_bytes()); }
  val config() const {
    return guarded([&] { return json_to_js(trainer_->config().to_json()); });
  }
  // AdamW's state as safetensors bytes (a view, valid until the next call).
  val saveOptimizerState() {
    return guarded([&] {
      state_ = trainer_->optimizer().save_state();
      return val(emscripten::typed_memory_view(state_.size(), state_.data()));
    });
  }
  void loadOptimizerState(const ByteBuffer& bytes) {
    guarded([&] { trainer_->optimizer().load_state(bytes.bytes()); });
  }

 private:
  std::unique_ptr<Trainer> trainer_;
  TrainingRun run_;
  std::vector<uint8_t> state_;
};

// The loss of one batch and the gradient of every parameter: {loss, gradients: [{name, data}]} with views
// into a gradient arena kept until the next call. Dropout off.
ParamArena g_grads(0);
val lossAndGradients(GPTHandle& gpt, val ids_val, val targets_val, double B_, double T_) {
  return guarded([&] {
    GPTModel& model = gpt.model();
    const int64_t B = integer_of(B_, "B", 0, INT32_MAX), T = integer_of(T_, "T", 0, INT32_MAX);
    const std::vector<int32_t> ids = ids_from(ids_val), targets = ids_from(targets_val);
    GPTRunState rs(model.config(), B, T, false);
    const double loss = model.forward_loss(rs, ids, targets);
    g_grads = ParamArena::zeros_like(model.params());
    model.backward(rs, g_grads);
    val list = val::array();
    for (const auto& p : g_grads.params()) {
      val item = val::object();
      item.set("name", p.name);
      item.set("data", view(g_grads.data() + p.offset, static_cast<size_t>(p.numel)));
      list.call<void>("push", item);
    }
    val o = val::object();
    o.set("loss", loss);
    o.set("gradients", list);
    return o;
  });
}

// The mean cross-entropy of the logits of ids (B, T) against targets (B, T), dropout off: evaluation without
// the training state (activations are not kept for a backward pass).
double loss(GPTHandle& gpt, val ids_val, val targets_val, double B, double T) {
  return guarded([&] {
    const std::vector<int32_t> ids = ids_from(ids_val), targets = ids_from(targets_val);
    return gpt.model().loss(ids, targets, integer_of(B, "B", 0, INT32_MAX), integer_of(T, "T", 0, INT32_MAX));
  });
}

// The held-out loss of a token stream in non-overlapping windows (evaluate_tokens): options {seqLen, batch};
// {loss, nats, tokens, windows}.
val evaluateTokens(GPTHandle& gpt, val ids_val, const std::string& options) {
  return guarded([&] {
    const HeldOutLoss r = evaluate_tokens(gpt.model(), ids_from(ids_val),
                                          EvalOptions::from_json(json_from(options, "evaluation options")));
    val o = val::object();
    o.set("loss", r.loss);
    o.set("nats", r.nats);
    o.set("tokens", static_cast<double>(r.tokens));
    o.set("windows", static_cast<double>(r.windows));
    return o;
  });
}

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_training) {
  using namespace emscripten;
  using namespace blockscope::wasm;
  bind_class<TrainerHandle>("Trainer")
      .constructor(&make_handle<TrainerHandle, GPTHandle&, std::string, val, val>, allow_raw_pointers())
      .function("step", &TrainerHandle::step)
      .function("stepBatch", &TrainerHandle::stepBatch)
      .function("beginStep", &TrainerHandle::beginStep)
      .function("accumulate", &TrainerHandle::accumulate)
      .function("finishStep", &TrainerHandle::finishStep)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("beginRun", &TrainerHandle::beginRun)
      .function("advance", &TrainerHandle::advance)
      .function("cancelRun", &TrainerHandle::cancelRun)
      .function("runFinished", &TrainerHandle::runFinished)
      .function("runOutcome", &TrainerHandle::runOutcome)
      .function("stepsDone", &TrainerHandle::stepsDone)
      .function("memoryBytes", &TrainerHandle::memoryBytes)
      .function("config", &TrainerHandle::config)
      .function("saveOptimizerState", &TrainerHandle::saveOptimizerState)
      .function("loadOptimizerState", &TrainerHandle::loadOptimizerState);
  bind_function("lossAndGradients", &lossAndGradients);
  bind_function("loss", &loss);
  bind_function("evaluateTokens", &evaluateTokens);
}
