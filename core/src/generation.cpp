// Sampling and KV-cache generation.
#include "blockscope/generation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "blockscope/error.hpp"

namespace blockscope {

void SamplingOptions::validate() const {
  require(std::isfinite(temperature) && temperature >= 0.0f, "temperature must be >= 0, got ", temperature);
  require(top_k >= 0, "top_k must be >= 0 (0 keeps all tokens; values >= the vocabulary size keep all too), got ",
          top_k);
  require(std::isfinite(top_p) && top_p > 0.0f && top_p <= 1.0f, "top_p must be in (0, 1], got ", top_p);
}

namespace {
int32_t argmax(std::span<const float> logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// Decreasing logit, ties by increasing id: a strict order, so the result is the same on every platform.
struct ByLogit {
  std::span<const float> logits;
  bool operator()(int32_t a, int32_t b) const { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); }
};

// The candidate ids to sample from: the top_k best (sorted), all ids sorted when top_p needs a ranking, or all
// ids in id order when neither filter is on (no sort: sampling over 50k ids stays cheap per token).
std::vector<int32_t> candidates(std::span<const float> logits, const SamplingOptions& opts) {
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  const ByLogit order{logits};
  // Compared as int64: top_k may exceed size_t on wasm32 (2^32 would wrap to 0); any k >= V keeps all ids.
  const auto vocab = static_cast<int64_t>(ids.size());
  if (opts.top_k > 0 && opts.top_k < vocab) {
    const auto k = static_cast<std::ptrdiff_t>(opts.top_k);
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), order);
    ids.resize(static_cast<size_t>(k));
  } else if (opts.top_p < 1.0f) {
    std::sort(ids.begin(), ids.end(), order);
  }
  return ids;
}
}  // namespace

int32_t sample_token(std::span<const float> logits, const SamplingOptions& opts, Rng& rng) {
  opts.validate();
  require(!logits.empty(), "cannot sample from empty logits");
  for (size_t i = 0; i < logits.size(); ++i)
    require(!std::isnan(logits[i]), "logit ", i, " is NaN: cannot sample");
  if (opts.temperature == 0.0f) return argmax(logits);

  const std::vector<int32_t> ids = candidates(logits, opts);
  // Softmax of logits / temperature over the kept ids, in double for a platform-stable cumulative sum.
  const double inv_t = 1.0 / opts.temperature;
  double top = logits[ids[0]];
  for (const int32_t id : ids) top = std::max(top, static_cast<double>(logits[id]));
  std::vector<double> p(ids.size());
  double sum = 0.0;
  for (size_t i = 0; i < ids.size(); ++i) sum += p[i] = std::exp((logits[ids[i]] - top) * inv_t);
  size_t keep = ids.size();
  if (opts.top_p < 1.0f) {
    double cum = 0.0;
    for (keep = 0; keep < ids.size();) {
      cum += p[keep++] / sum;
      if (cum >= opts.top_p) break;
    }
    sum = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep), 0.0);
  }
  const double u = static_cast<double>(rng.uniform()) * sum;
  double cum = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    cum += p[i];
    if (u < cum) return ids[i];
  }
  return ids[keep - 1];  // u within rounding of the total
}

std::vector<Candidate> top_candidates(std::span<const float> logits, int64_t k, float temperature) {
  require(!logits.empty(), "cannot rank empty logits");
  require(k >= 1, "the number of candidates must be at least 1, got ", k);
  require(std::isfinite(temperature) && temperature > 0.0f, "temperature must be > 0, got ", temperature);
  for (size_t i = 0; i < logits.size(); ++i) {
    require(!std::isnan(logits[i]), "logit ", i, " is NaN");
    require(logits[i] != INFINITY, "logit ", i, " is +inf: its probability is not defined");
  }
  // The k best, ranked (k >= the vocabulary ranks every id).
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  const auto n = static_cast<std::ptrdiff_t>(std::min<int64_t>(k, static_cast<int64_t>(ids.size())));
  std::partial_sort(ids.begin(), ids.begin() + n, ids.end(), ByLogit{logits});
  ids.resize(static_cast<size_t>(n));
  require(logits[ids[0]] != -INFINITY, "every logit is -inf: there is no candidate to rank");
  // Softmax over the whole vocabulary in double, shifted by the maximum (the first ranked id).
  const double inv_t = 1.0 / temperature, top = logits[ids[0]];
  double z = 0.0;
  for (const float l : logits) z += std::exp((l - top) * inv_t);
  std::vector<Candidate> out;
  out.reserve(ids.size());
  for (const int32_t id : ids)
    out.push_back({id, logits[id], static_cast<float>(std::exp((logits[id] - top) * inv_t) / z)});
  return out;
}

namespace {
// Every option's range, checked before the KV cache is allocated; then the cache, checked against the budget.
KVCache checked_options(const GPTModel& model, const GenerateOptions& opts) {
  opts.sampling.validate();
  require(opts.max_new_tokens >= 0 && opts.max_new_tokens <= GenerateOptions::kMaxNewTokens,
          "max_new_tokens must be in [0, ", GenerateOptions::kMaxNewTokens, "], got ", opts.max_new_tokens);
  const int64_t V = model.config().vocab_size;
  if (opts.stop_token)
    require(*opts.stop_token >= 0 && *opts.stop_token < V, "stop token ", *opts.stop_token,
            " is outside the vocabulary [0, ", V, "): out of range");
  return KVCache(model);
}
}  // namespace

ContextOverflow parse_context_overflow(const std::string& name) {
  if (name == "error") return ContextOverflow::Error;
  if (name == "crop") return ContextOverflow::Crop;
  throw Error("overflow must be 'error' or 'crop', got '" + name + "'");
}

int64_t context_start(int64_t n, int64_t context_length, ContextOverflow overflow) {
  require(n >= 0 && context_length > 0, "context_start needs n >= 0 and context_length > 0, got ", n, " and ",
          context_length);
  if (n <= context_length) return 0;
  require(overflow == ContextOverflow::Crop, "the prompt has ", n, " tokens but the model's context_length is ",
          context_length, " (use cropping to keep the last ", context_length, " tokens)");
  return n - context_length;
}

Generator::Generator(GPTModel& model, std::span<const int32_t> prompt, const GenerateOptions& opts)
    : model_(model), opts_(opts), rng_(opts.seed), cache_(checked_options(model, opts)) {
  require(!prompt.empty(), "the prompt must contain at least one token");
  const int64_t ctx = model.config().context_length;
  const auto n = static_cast<int64_t>(prompt.size());
  const auto start = static_cast<size_t>(context_start(n, ctx, opts.overflow));
  model.check_ids(prompt.subspan(start), 1, n - static_cast<int64_t>(start));
  window_.assign(prompt.begin() + static_cast<std::ptrdiff_t>(start), prompt.end());
  if (opts.max_new_tokens == 0) stop_reason_ = "max_new_tokens";
}

void Generator::prefill(std::span<const int32_t> ids) {
  cache_.clear();
  // Only the last position's logits are sampled from: the last block and the head run for it alone.
  last_logits_ = model_.forward_cached(ids, cache_, /*last_only=*/true).data;
}

std::optional<int32_t> Generator::next() {
  if (finished()) return std::nullopt;
  const int64_t ctx = model_.config().context_length;
  if (generated_.empty()) {
    prefill(window_);
  } else if (cache_.length >= ctx) {
    if (opts_.overflow == ContextOverflow::Error) {
      stop_reason_ = "context_full";
      return std::nullopt;
    }
    window_.erase(window_.begin(), window_.end() - ctx);  // slide: the last ctx tokens, as the book crops
    sliding_ = true;
    prefill(window_);
  } else {
    const int32_t last = window_.back();
    last_logits_ = model_.forward_cached(std::span<const int32_t>(&last, 1), cache_).data;
  }
  const int32_t token = sample_token(last_logits_, opts_.sampling, rng_);
  generated_.push_back(token);
  window_.push_back(token);
  if (opts_.stop_token && token == *opts_.stop_token) stop_reason_ = "stop_token";
  else if (static_cast<int64_t>(generated_.size()) >= opts_.max_new_tokens) stop_reason_ = "max_new_tokens";
  return token;
}

std::vector<int32_t> generate(GPTModel& model, std::span<const int32_t> prompt, const GenerateOptions& opts,
                              const std::function<bool(int32_t)>& on_token) {
  Generator gen(model, prompt, opts);
  while (const auto token = gen.next())
    if (on_token && !on_token(*token)) break;
  return gen.generated();
}

}  // namespace blockscope
