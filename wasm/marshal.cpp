// Marshalling helpers shared by the bindings (see marshal.hpp).
#include "marshal.hpp"

#include "json_reader.hpp"  // core/src: parse_json

#include <cmath>
#include <new>

namespace blockscope::wasm {

namespace {
std::string g_error;  // the last failure's message
bool g_failed = false;
}  // namespace

void record_error(const char* message) noexcept {
  g_failed = true;
  try {
    g_error = message;
  } catch (...) {
    g_error.clear();  // out of memory even for the message: the JS side reports a generic failure
  }
}

void record_current_exception() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    record_error("out of memory: this runtime's 4 GiB are full; dispose models, generators or trainers first");
  } catch (const std::exception& e) {
    record_error(e.what());
  } catch (...) {
    record_error("unknown C++ exception in Blockscope");
  }
}

val take_error() {
  if (!g_failed) return val::null();
  g_failed = false;
  val message(g_error.empty() ? std::string("Blockscope call failed (out of memory)") : g_error);
  std::string().swap(g_error);
  return message;
}

namespace {
// The names, as the string literals the bindings files registered (they live as long as the module).
std::vector<const char*>& registered(bool is_class) {
  static std::vector<const char*> functions, classes;
  return is_class ? classes : functions;
}
val names_of(bool is_class) {
  val a = val::array();
  for (const char* n : registered(is_class)) a.call<void>("push", val(n));
  return a;
}
}  // namespace

void note_binding(bool is_class, const char* name) { registered(is_class).push_back(name); }

val binding_names() {
  val o = val::object();
  o.set("functions", names_of(false));
  o.set("classes", names_of(true));
  return o;
}

int64_t integer_of(double v, const char* what, int64_t lo, int64_t hi) {
  require(v == std::floor(v) && v >= static_cast<double>(lo) && v <= static_cast<double>(hi), what,
          " must be an integer in [", lo, ", ", hi, "], got ", v);
  return static_cast<int64_t>(v);
}

std::vector<float> floats_from(const val& arr, const char* what) {
  // Only typed arrays: converting anything else would run JS code (getters, iterators) that may throw.
  if (!arr.instanceof(val::global("Float32Array"))) throw Error(std::string(what) + " must be a Float32Array");
  const auto n = arr["length"].as<size_t>();
  std::vector<float> out(n);
  view(out.data(), n).call<void>("set", arr);
  return out;
}

std::vector<int32_t> ids_from(const val& arr) {
  if (!arr.instanceof(val::global("Int32Array"))) throw Error("token ids must be an Int32Array");
  const auto n = arr["length"].as<size_t>();
  std::vector<int32_t> out(n);
  val(emscripten::typed_memory_view(n, out.data())).call<void>("set", arr);
  return out;
}

nlohmann::json json_from(const std::string& text, const char* what) {
  return detail::parse_json(text, what);  // the core's parser: depth limit, duplicate keys refused
}

val json_to_js(const nlohmann::json& j) { return val::global("JSON").call<val>("parse", j.dump()); }

uint64_t seed_of(double seed) {
  if (!(seed >= 0 && seed <= 9007199254740991.0) || seed != std::floor(seed))
    throw Error(detail::concat("seed must be an integer in [0, 2^53), got ", seed));
  return static_cast<uint64_t>(seed);
}

namespace {
val row_stats(const RowStats& s) {
  val o = val::object();
  o.set("mean", view(s.mean));
  o.set("var", view(s.var));
  return o;
}

}  // namespace

val norm_stats(const LayerNormInspection& n) {
  val o = val::object();
  o.set("in", row_stats(n.in));
  o.set("out", row_stats(n.out));
  return o;
}

val block_inspection(const BlockInspection& b) {
  val o = val::object();
  val steps = val::array();
  for (const auto& st : b.steps) {
    val step = val::object();
    step.set("id", st.id);
    step.set("op", st.op);
    step.set("mean", view(st.mean));
    step.set("var", view(st.var));
    step.set("norm", view(st.norm));
    steps.call<void>("push", step);
  }
  o.set("steps", steps);
  o.set("norm1", norm_stats(b.norm1));
  o.set("norm2", norm_stats(b.norm2));
  o.set("ffnHiddenPre", view(b.ffn_hidden_pre));
  o.set("ffnHiddenPost", view(b.ffn_hidden_post));
  o.set("attnWeights", view(b.attn_weights));
  o.set("residualNorm", view(b.residual_norm));
  return o;
}

val mistake_ids(std::span<const Mistake> ms) {
  val ids = val::array();
  for (Mistake m : ms) ids.call<void>("push", std::string(mistake_id(m)));
  return ids;
}

val param_list(const ParamArena& arena) {
  val list = val::array();
  const auto add = [&](const ParamInfo& p, bool int8) {
    val item = val::object();
    item.set("name", p.name);
    val shape = val::array();
    for (const int64_t d : p.shape) shape.call<void>("push", static_cast<double>(d));
    item.set("shape", shape);
    if (int8) item.set("format", std::string("int8"));  // loaded with {weights: 'int8'}: no float32 values to read
    list.call<void>("push", item);
  };
  for (const auto& p : arena.params()) add(p, false);
  for (const auto& p : arena.int8_params()) add(p, true);
  return list;
}

void set_param(ParamArena& arena, const std::string& name, const val& data) {
  const ParamInfo* p = arena.find(name);
  if (!p) throw Error("no parameter named '" + name + "'");
  const std::vector<float> values = floats_from(data, name.c_str());
  require_finite(values.data(), static_cast<int64_t>(values.size()), name.c_str());
  arena.assign(name, p->shape, values);
}

val get_param(ParamArena& arena, const std::string& name) {
  const auto span = arena.get(name);
  return view(span.data(), span.size());
}

}  // namespace blockscope::wasm

// The error channel and the binding list themselves: not wrapped by wasm-module.js's check, so registered here
// rather than through bind_function.
EMSCRIPTEN_BINDINGS(blockscope_marshal) {
  emscripten::function("takeError", &blockscope::wasm::take_error);
  emscripten::function("bindingNames", &blockscope::wasm::binding_names);
}
