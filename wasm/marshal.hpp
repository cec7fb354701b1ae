// Marshalling between JavaScript values and the core, shared by every bindings file: C++ exceptions into JS
// Errors, typed arrays in and zero-copy views out, JSON configs, and the parameters/get/set quartet every
// handle with named parameters exposes. No math here.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/inspection.hpp"
#include "blockscope/param_arena.hpp"

namespace blockscope::wasm {

using emscripten::val;

// Message of the last failed call. A JS exception unwinds wasm frames without running destructors, so the
// JS Error is thrown only after the C++ exception has been fully handled, from this reused buffer.
extern std::string g_error;
[[noreturn]] void throw_js_error();

// Runs f, turning any C++ exception into a JS Error with the same message.
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    g_error = e.what();
  } catch (...) {
    g_error = "unknown C++ exception in Blockscope";
  }
  throw_js_error();
}

// The constructor embind registers for every handle: `new H(args...)` inside guarded(). A throwing C++
// constructor then frees the object's memory before the JS Error is raised; a JS exception thrown from
// inside the constructor itself would skip that and leak the object on every failed call. Register with
// .constructor(&make_handle<H, Args...>, emscripten::allow_raw_pointers()).
template <typename H, typename... Args>
H* make_handle(Args... args) {
  return guarded([&] { return new H(args...); });
}

// Zero-copy views into wasm memory: valid until the next allocation (web/blockscope.js copies them).
inline val view(const float* data, size_t n) { return val(emscripten::typed_memory_view(n, data)); }
inline val view(const std::vector<float>& v) { return view(v.data(), v.size()); }

// A JS Float32Array (or array of numbers) as floats, naming `what` in errors.
std::vector<float> floats_from(const val& arr, const char* what);
// A JS Int32Array as token ids.
std::vector<int32_t> ids_from(const val& arr);
// A JS object through JSON.stringify into the core's parser.
nlohmann::json json_from(const val& obj);
val json_to_js(const nlohmann::json& j);
// A seed from JS: an integer in [0, 2^53).
uint64_t seed_of(double seed);

// Inspection records as JS objects of views: {in: {mean, var}, out: {...}} and one block's record.
val norm_stats(const LayerNormInspection& n);
val block_inspection(const BlockInspection& b);

// [{name, shape}] of an arena, and one parameter by name.
val param_list(const ParamArena& arena);
void set_param(ParamArena& arena, const std::string& name, const val& data);
val get_param(ParamArena& arena, const std::string& name);

// Registers parameters(), numParameters(), setParameter(name, data) and getParameter(name) on a handle
// class whose `arena()` returns its ParamArena.
template <typename H>
const emscripten::class_<H>& with_parameters(const emscripten::class_<H>& c) {
  using emscripten::optional_override;
  return c.function("parameters", optional_override([](H& h) { return param_list(h.arena()); }))
      .function("numParameters", optional_override([](H& h) { return static_cast<double>(h.arena().used()); }))
      .function("setParameter", optional_override([](H& h, const std::string& name, val data) {
                  guarded([&] { set_param(h.arena(), name, data); });
                }))
      .function("getParameter", optional_override([](H& h, const std::string& name) {
                  return guarded([&] { return get_param(h.arena(), name); });
                }));
}

}  // namespace blockscope::wasm
