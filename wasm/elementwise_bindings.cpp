// embind bindings of the core's functions on plain arrays: activations and their derivatives, LayerNorm with its
// statistics, and the learner mistakes both can show (with the list of every mistake). They need no model, config or
// JSON, so they make the light module (wasm/CMakeLists.txt), which pages start on; the full module has them too.
// Marshalling only; arrays returned are views valid until the next call (marshal.hpp).
#include "blockscope/activation.hpp"
#include "blockscope/layer_norm.hpp"
#include "blockscope/mistakes.hpp"
#include "marshal.hpp"

namespace blockscope::wasm {

namespace {

// Storage behind the views the free functions return (valid until the next call).
LayerNormTrace g_trace;
std::vector<float> g_out;

val layerNorm(val x, val gamma, val beta, double eps) {
  return guarded([&] {
    const auto xs = floats_from(x, "LayerNorm input"), g = floats_from(gamma, "gamma"), b = floats_from(beta, "beta");
    g_trace = layer_norm_trace(xs, g, b, static_cast<float>(eps));
    val o = val::object();
    o.set("rows", static_cast<double>(g_trace.rows));
    o.set("dim", static_cast<double>(g_trace.dim));
    o.set("mean", view(g_trace.mean));
    o.set("var", view(g_trace.var));
    o.set("rstd", view(g_trace.rstd));
    o.set("normalized", view(g_trace.normalized));
    o.set("output", view(g_trace.output));
    return o;
  });
}

// LayerNorm as a learner's code with mistake `id` computes it (mistakes.hpp; "correct" is LayerNorm itself).
val layerNormMistake(const std::string& id, val x, val gamma, val beta, double eps) {
  return guarded([&] {
    const Mistake m = parse_mistake(id);
    const auto xs = floats_from(x, "LayerNorm input"), g = floats_from(gamma, "gamma"), b = floats_from(beta, "beta");
    g_out = layer_norm_mistake(m, xs, g, b, static_cast<float>(eps));
    return view(g_out);
  });
}
val layerNormMistakes() { return mistake_ids(layer_norm_mistakes()); }

// The activation `expected` of x as a learner's code with mistake `id` computes it, and the ids that apply.
val activationMistake(const std::string& id, const std::string& expected, val x) {
  return guarded([&] {
    const Mistake m = parse_mistake(id);
    g_out = activation_mistake(m, parse_activation(expected.c_str()), floats_from(x, "activation input"));
    return view(g_out);
  });
}
val activationMistakes(const std::string& expected) {
  return guarded([&] { return mistake_ids(activation_mistakes(parse_activation(expected.c_str()))); });
}

// Every mistake id with its site: [{id, site}] (site: module, layer-norm, activation, feed-forward, attention, wiring).
val mistakeList() {
  static constexpr const char* kSites[] = {"module", "layer-norm", "activation", "feed-forward", "attention", "wiring"};
  val out = val::array();
  for (Mistake m : all_mistakes()) {
    val o = val::object();
    o.set("id", std::string(mistake_id(m)));
    o.set("site", std::string(kSites[static_cast<int>(mistake_site(m))]));
    out.call<void>("push", o);
  }
  return out;
}

val activation(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = activate(parse_activation(kind.c_str()), Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

val activationDerivative(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = activation_derivative(parse_activation(kind.c_str()), Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_elementwise) {
  using namespace blockscope::wasm;
  bind_function("layerNorm", &layerNorm);
  bind_function("activation", &activation);
  bind_function("layerNormMistake", &layerNormMistake);
  bind_function("layerNormMistakes", &layerNormMistakes);
  bind_function("activationMistake", &activationMistake);
  bind_function("activationMistakes", &activationMistakes);
  bind_function("mistakeList", &mistakeList);
  bind_function("activationDerivative", &activationDerivative);
}
