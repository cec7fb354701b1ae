// TrainingRun: the one training loop. The CLI's `train`, the web worker and the in-thread JavaScript API all
// drive a Trainer through it, so a run evaluates, stops and ends with the same weights everywhere. It advances
// one micro-batch (or one evaluation) per call, so a caller that must stay responsive — the worker, serving
// other widgets between micro-batches — can pause between pieces.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json_fwd.hpp>

#include "blockscope/trainer.hpp"

namespace blockscope {

// Stops a run whose loss stays above `loss` for `steps` updates in a row, not counting updates 1..after
// (the training lab's "diverged": worse than a uniform guess over the vocabulary for 20 steps after the
// first 5). Off while steps is 0.
struct LossCeiling {
  double loss = 0.0;
  int64_t steps = 0;
  int64_t after = 0;
  bool operator==(const LossCeiling&) const = default;
};

struct RunOptions {
  int64_t steps = 1;       // updates to make (0: none)
  int64_t eval_every = 0;  // the validation loss after every update numbered a multiple of eval_every (0: none)
                           // and, with validation data, after the schedule's last update (TrainConfig::steps)
  LossCeiling stop_above;
  // Error naming the value: steps and eval_every >= 0; the ceiling's loss finite, its steps and after >= 0.
  void validate() const;
  // The JavaScript API's keys: {steps, evalEvery, stopAbove: {loss, steps, after}}, all optional; unknown keys
  // rejected by name; validated.
  static RunOptions from_json(const nlohmann::json& j);
};

enum class StopReason { None, Steps, Cancelled, Diverged, LossAbove };
// "running", "steps", "cancelled", "diverged" (a non-finite loss or gradient), "loss_above" (LossCeiling).
const char* stop_reason_name(StopReason reason);

// One finished update as the run reports it: the Trainer's result and the validation loss after it.
struct RunStep {
  StepResult result;
  double val_loss = std::numeric_limits<double>::quiet_NaN();  // NaN: not evaluated after this update
  bool evaluated() const { return val_loss == val_loss; }
};

// How a run ended and which weights the model holds.
struct RunOutcome {
  StopReason reason = StopReason::None;
  int64_t steps = 0;         // updates this run made, a non-finite one included
  int64_t diverged_at = 0;   // Diverged: the non-finite update; LossAbove: the first update of the stretch
  int64_t weights_step = 0;  // the model holds the weights after this update
  bool rolled_back = false;  // Diverged: they were put back to the weights after update diverged_at - 2
  // False when a diverged run has no earlier weights to put back (its first update's loss was already
  // non-finite): the model's weights then are those that gave it.
  bool weights_finite = true;
};

// The rules, in the order they apply after each update k:
// - a non-finite loss or gradient ends the run (Diverged). The Trainer skipped update k, so the model holds
//   the weights after k-1. If only the gradient overflowed, they gave a finite loss and are kept; if the loss
//   itself was not finite they produced it, and the weights after k-2 are put back (the Trainer keeps them).
//   The optimizer state is not rolled back: its moments still hold update k-1.
// - the validation loss is evaluated if due (see RunOptions::eval_every);
// - the loss ceiling, if set, ends the run (LossAbove) once its stretch is long enough;
// - after opts.steps updates the run ends (Steps); a cancel() ends it at this boundary (Cancelled).
class TrainingRun {
 public:
  // `trainer` must outlive the run. Between begin() calls the run keeps the loss ceiling's stretch (the
  // training lab trains one update per call).
  explicit TrainingRun(Trainer& trainer);
  // Starts opts.steps more updates (Error if eval_every > 0 and the trainer has no validation data). A step
  // in pieces left unfinished by the previous run is abandoned; a changed ceiling starts a new stretch.
  void begin(const RunOptions& opts);
  // One piece of work: the forward and backward pass of the next micro-batch (the step's last also clips and
  // updates, applying the rules above), or the evaluation due after an update. Returns the update's report
  // once it is complete (after its evaluation), else null. Error once finished().
  const RunStep* advance();
  // Whether the next advance() is an evaluation (the CLI's tokens/s leave it out).
  bool evaluating_next() const { return phase_ == Phase::Evaluate; }
  // Ends the run at the next update boundary: the update under way and its evaluation finish first.
  void cancel();
  bool finished() const { return phase_ == Phase::Finished; }
  const RunOutcome& outcome() const { return outcome_; }
  // advance() until finished, calling on_step after each update; on_step returning false cancels.
  const RunOutcome& run(const std::function<bool(const RunStep&)>& on_step);

 private:
  enum class Phase { Finished, Step, Evaluate };
  bool evaluation_due(int64_t step) const;
  void after_update();  // the ceiling, the step count and a cancel, once the update's report is complete
  void diverged();
  void finish(StopReason reason);

  Trainer& trainer_;
  RunOptions opts_;
  RunOutcome outcome_;
  RunStep report_;
  Phase phase_ = Phase::Finished;
  bool in_step_ = false;     // micro-batches of the current update are under way
  bool cancelled_ = false;
  int64_t high_since_ = 0;   // first update of the current stretch above the ceiling; 0: none
};

}  // namespace blockscope
