// TrainingRun: the training loop's rules (evaluation, stopping, rollback) over a Trainer, one piece at a time.
#include "blockscope/training_run.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "json_reader.hpp"

namespace blockscope {

void RunOptions::validate() const {
  require(steps >= 0, "steps must be >= 0, got ", steps);
  require(eval_every >= 0, "evalEvery must be >= 0 (0 = only after the schedule's last step), got ", eval_every);
  require(std::isfinite(stop_above.loss), "stopAbove.loss must be a finite number, got ", stop_above.loss);
  require(stop_above.steps >= 0, "stopAbove.steps must be >= 0 (0 = off), got ", stop_above.steps);
  require(stop_above.after >= 0, "stopAbove.after must be >= 0, got ", stop_above.after);
}

RunOptions RunOptions::from_json(const nlohmann::json& j) {
  const detail::Reader r(j, "training run options", {"steps", "evalEvery", "stopAbove"});
  RunOptions o;
  o.steps = r.integer("steps", o.steps);
  o.eval_every = r.integer("evalEvery", o.eval_every);
  if (r.has("stopAbove")) {
    const detail::Reader c(j["stopAbove"], "stopAbove option", {"loss", "steps", "after"});
    require(c.has("loss"), "the stopAbove option is missing 'loss'");
    o.stop_above.loss = c.number("loss", 0.0);
    o.stop_above.steps = c.integer("steps");
    o.stop_above.after = c.integer("after", 0);
  }
  o.validate();
  return o;
}

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::None: return "running";
    case StopReason::Steps: return "steps";
    case StopReason::Cancelled: return "cancelled";
    case StopReason::Diverged: return "diverged";
    case StopReason::LossAbove: return "loss_above";
  }
  return "running";
}

TrainingRun::TrainingRun(Trainer& trainer) : trainer_(trainer) {}

void TrainingRun::begin(const RunOptions& opts) {
  opts.validate();
  require(opts.eval_every == 0 || !trainer_.data().val().empty(), "evaluating every ", opts.eval_every,
          " steps needs validation data, but the trainer has none (val_fraction 0 and no validation tokens)");
  if (opts.stop_above != opts_.stop_above) high_since_ = 0;
  opts_ = opts;
  outcome_ = RunOutcome{};
  outcome_.weights_step = trainer_.steps_done();
  in_step_ = false;
  cancelled_ = false;
  phase_ = Phase::Step;
  if (opts_.steps == 0) finish(StopReason::Steps);
}

const RunStep* TrainingRun::advance() {
  require(!finished(), "the training run is finished: begin() another");
  if (phase_ == Phase::Evaluate) {
    report_.val_loss = trainer_.evaluate();
    phase_ = Phase::Step;
    after_update();
    return &report_;
  }
  if (!in_step_) {
    trainer_.begin_step();
    in_step_ = true;
  }
  if (trainer_.accumulate()) return nullptr;  // more micro-batches to go
  in_step_ = false;
  report_ = RunStep{trainer_.finish_step()};
  ++outcome_.steps;
  if (!report_.result.finite) {
    diverged();
    return &report_;
  }
  if (evaluation_due(report_.result.step)) {
    phase_ = Phase::Evaluate;
    return nullptr;
  }
  after_update();
  return &report_;
}

bool TrainingRun::evaluation_due(int64_t step) const {
  if (trainer_.data().val().empty()) return false;
  return (opts_.eval_every > 0 && step % opts_.eval_every == 0) || step == trainer_.config().steps;
}

void TrainingRun::after_update() {
  const StepResult& r = report_.result;
  const LossCeiling& c = opts_.stop_above;
  if (c.steps > 0) {
    if (r.step > c.after && r.loss > c.loss) {
      if (high_since_ == 0) high_since_ = r.step;
      if (r.step - high_since_ + 1 >= c.steps) {
        outcome_.diverged_at = high_since_;
        return finish(StopReason::LossAbove);
      }
    } else {
      high_since_ = 0;
    }
  }
  if (outcome_.steps >= opts_.steps) return finish(StopReason::Steps);
  if (cancelled_) finish(StopReason::Cancelled);
}

void TrainingRun::diverged() {
  const StepResult& r = report_.result;
  outcome_.diverged_at = r.step;
  if (!std::isfinite(r.loss)) {  // the weights after r.step - 1 produced it: back to those after r.step - 2
    outcome_.rolled_back = r.step >= 2 && trainer_.previous_weights_step() == r.step - 2;
    if (outcome_.rolled_back) trainer_.restore_previous_weights();
    outcome_.weights_finite = outcome_.rolled_back;
  }
  finish(StopReason::Diverged);
}

void TrainingRun::finish(StopReason reason) {
  outcome_.reason = reason;
  outcome_.weights_step = trainer_.steps_done() - (outcome_.rolled_back ? 1 : 0);
  phase_ = Phase::Finished;
}

void TrainingRun::cancel() {
  cancelled_ = true;
  if (phase_ == Phase::Step && !in_step_) finish(StopReason::Cancelled);
}

const RunOutcome& TrainingRun::run(const std::function<bool(const RunStep&)>& on_step) {
  while (!finished())
    if (const RunStep* s = advance(); s && !on_step(*s)) cancel();
  return outcome_;
}

}  // namespace blockscope
