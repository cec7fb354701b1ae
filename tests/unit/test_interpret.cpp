// Tests for interpret.hpp against PyTorch (tests/golden/interpret.json, tests/reference/make_interpret_goldens.py):
// the logit lens of every layer, logits with heads zeroed or mean-replaced, and attribution (gradient x input,
// integrated gradients; of a logit and of a log-probability, also through ablated heads), on the golden tiny GPT
// and the shipped trained model; and the refusals (bad head lists, int8 weights, steps, targets).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/interpret.hpp"

using namespace blockscope;
using Catch::Matchers::Contains;

namespace {
const std::string kGolden = std::string(BLOCKSCOPE_GOLDEN_DIR);

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(kGolden + "/interpret.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
  }();
  return j;
}

GPTModel model_of(const std::string& name, WeightFormat weights = WeightFormat::F32) {
  LoadOptions opts;
  opts.weights = weights;
  return load_model_dir(name == "brown" ? kGolden + "/../../web/models/brown" : kGolden + "/models/" + name, opts);
}

// Largest |a - e| over flat values, against atol.
void require_close(const float* a, const nlohmann::json& expected_flat, double atol, const std::string& what) {
  double worst = 0.0;
  for (size_t i = 0; i < expected_flat.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - expected_flat[i].get<double>()));
  INFO(what << ": max |core - PyTorch| = " << worst);
  REQUIRE(worst <= atol);
}

nlohmann::json flat(const nlohmann::json& j) {
  if (!j.is_array() || j.empty() || !j[0].is_array()) return j;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : j)
    for (const auto& y : flat(x)) out.push_back(y);
  return out;
}

// |a - e| <= 1e-4 x max |e| (each attribution vector's scale).
void require_attribution(const std::vector<float>& a, const nlohmann::json& e, const std::string& what) {
  REQUIRE(a.size() == e.size());
  double scale = 0.0;
  for (const auto& v : e) scale = std::max(scale, std::fabs(v.get<double>()));
  require_close(a.data(), e, 1e-4 * scale, what);
}

std::string joined(const nlohmann::json& heads) {
  std::string s;
  for (const auto& h : heads) {
    if (!s.empty()) s += ',';
    s += h.get<std::string>();
  }
  return s;
}
}  // namespace

TEST_CASE("logit lens, head ablation and attribution equal PyTorch's", "[interpret]") {
  for (const auto& c : golden().at("cases")) {
    const std::string name = c.at("name");
    INFO("model " << name);
    GPTModel model = model_of(name);
    const auto ids = c.at("ids").get<std::vector<int32_t>>();
    const auto T = static_cast<int64_t>(ids.size());
    const int64_t target = c.at("target");

    const Tensor lens = logit_lens(model, ids);
    REQUIRE(lens.shape == Shape{model.config().n_layers + 1, T, model.config().vocab_size});
    require_close(lens.ptr(), flat(c.at("lens")), 1e-4, "logit lens");
    // The last layer's lens is the model's own output (the head's matrix product over more rows may sum in
    // another order: float32 rounding apart).
    const Tensor logits = model.forward(ids, 1, T);
    const int64_t last = model.config().n_layers * T * model.config().vocab_size;
    for (int64_t i = 0; i < logits.numel(); ++i) REQUIRE(std::fabs(lens.ptr()[last + i] - logits.ptr()[i]) <= 1e-5f);

    for (const auto& a : c.at("ablations")) {
      const std::string heads = joined(a.at("heads"));
      INFO("ablated heads " << heads << " (" << a.at("mode").get<std::string>() << ")");
      const HeadAblation mode = a.at("mode") == "zero" ? HeadAblation::Zero : HeadAblation::Mean;
      set_head_ablation(model, parse_heads(heads, model.config()), mode);
      REQUIRE(ablated_heads(model).size() == a.at("heads").size());
      const Tensor ablated = model.forward(ids, 1, T);
      require_close(ablated.ptr(), flat(a.at("logits")), 1e-4, "ablated logits");
      require_attribution(attribute(model, ids, target), a.at("attribution"), "attribution through ablated heads");
      set_head_ablation(model, {});
      REQUIRE(ablated_heads(model).empty());
    }
    const Tensor again = model.forward(ids, 1, T);  // ablation cleared: the model as it was
    for (int64_t i = 0; i < again.numel(); ++i) REQUIRE(again.ptr()[i] == logits.ptr()[i]);

    for (const auto& a : c.at("attributions")) {
      AttributionOptions opts;
      opts.method = parse_attribution_method(a.at("method").get<std::string>());
      opts.objective = a.at("objective") == "logit" ? AttributionObjective::Logit : AttributionObjective::LogProb;
      opts.steps = a.at("steps");
      require_attribution(attribute(model, ids, target, opts), a.at("values"),
                          a.at("method").get<std::string>() + " of the " + a.at("objective").get<std::string>());
    }
  }
}

TEST_CASE("head lists, targets and steps are checked, and what cannot work says why", "[interpret][errors]") {
  GPTModel model = model_of("book_tiny");  // 2 blocks x 4 heads, vocabulary 60
  const GPTConfig& cfg = model.config();
  CHECK(parse_heads("", cfg).empty());
  CHECK(parse_heads("1.0,0.3,1.0", cfg) == std::vector<HeadRef>{{1, 0}, {0, 3}});
  CHECK_THROWS_WITH(parse_heads("2.0", cfg), Contains("head '2.0': block 2 is outside the model's [0, 2)"));
  CHECK_THROWS_WITH(parse_heads("0.4", cfg), Contains("head 4 is outside the model's [0, 4)"));
  CHECK_THROWS_WITH(parse_heads("1", cfg), Contains("head '1' is not block.head"));
  CHECK_THROWS_WITH(parse_heads("1.-1", cfg), Contains("not block.head"));
  CHECK_THROWS_WITH(parse_heads("0.0,,1.1", cfg), Contains("head '' is not block.head"));
  CHECK_THROWS_WITH(set_head_ablation(model, std::vector<HeadRef>{{0, 9}}), Contains("head 0.9 is outside the model"));

  const std::vector<int32_t> ids = {1, 2, 3};
  CHECK_THROWS_WITH(attribute(model, ids, 60), Contains("target id 60 is outside the vocabulary [0, 60)"));
  AttributionOptions ig;
  ig.method = AttributionMethod::IntegratedGradients;
  ig.steps = 0;
  CHECK_THROWS_WITH(attribute(model, ids, 1, ig), Contains("integrated gradients need 1 to 1024 steps, got 0"));
  CHECK_THROWS_WITH(parse_attribution_method("saliency"), Contains("'saliency' is not 'grad-x-input' or"));
  CHECK_THROWS_WITH(logit_lens(model, std::vector<int32_t>{}), Contains("the logit lens needs 1 to context_length (16) tokens, got 0"));
  CHECK_THROWS_WITH(logit_lens(model, std::vector<int32_t>{1, 99}), Contains("token id 99 at position 1"));

  // A mean over positions needs the whole sequence: the KV cache (generation) refuses it; zeroed heads generate.
  set_head_ablation(model, parse_heads("0.1", cfg), HeadAblation::Mean);
  GenerateOptions g;
  g.max_new_tokens = 2;
  g.sampling.temperature = 0.0f;
  CHECK_THROWS_WITH(generate(model, ids, g), Contains("needs the whole sequence"));
  set_head_ablation(model, parse_heads("0.1", cfg), HeadAblation::Zero);
  const auto zeroed = generate(model, ids, g);
  // Greedy generation with the KV cache equals the full forward pass under the same ablation.
  const Tensor full = model.forward(ids, 1, 3);
  int32_t best = 0;
  for (int32_t v = 1; v < 60; ++v)
    if (full.ptr()[2 * 60 + v] > full.ptr()[2 * 60 + best]) best = v;
  CHECK(zeroed.at(0) == best);

  GPTModel q8 = model_of("book_tiny", WeightFormat::Int8);
  CHECK_THROWS_WITH(attribute(q8, ids, 1), Contains("int8") && Contains("attribute a prediction"));
  CHECK(logit_lens(q8, ids).dim(0) == 3);  // the lens needs no gradients: int8 models have it too
}
