// Marshalling between JavaScript values and the core, shared by every bindings file: C++ exceptions into JS
// Errors, typed arrays in and zero-copy views out, JSON configs, and the parameters/get/set quartet every
// handle with named parameters exposes. No math here.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/inspection.hpp"
#include "blockscope/mistakes.hpp"
#include "blockscope/param_arena.hpp"

namespace blockscope::wasm {

using emscripten::val;

// Error status of the last failed call. A JS exception thrown from inside a wasm frame would unwind it without
// restoring the stack pointer or running destructors (embind's own argument clean-up included), losing a few
// bytes of stack and heap per failure until the module dies. So no binding ever throws into JS: guarded()
// records the message and returns an empty value, and web/runtime/wasm-module.js asks takeError() after every call and
// throws the JS Error itself, outside any wasm frame.
void record_error(const char* message) noexcept;
// Records the exception being handled (called from a catch block): its what(), or a generic message for anything
// that is not a std::exception. One out-of-line function, so each of the ~100 guarded() bodies catches with one
// catch (...) instead of its own type tests (7 KB less wasm, 0.9 KB gzip, per flavour).
void record_current_exception() noexcept;

template <typename R>
R failed_value() {
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_same_v<R, val>) {
    return val::undefined();
  } else {
    return R{};
  }
}

// Runs f; a C++ exception becomes the recorded error and an empty return value.
template <typename F>
auto guarded(F&& f) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    record_current_exception();
  }
  return failed_value<decltype(f())>();
}

// The recorded error message (clearing it), or null if the last call succeeded.
val take_error();

// Every binding is registered through bind_function / bind_class, which also record its name: bindingNames()
// returns {functions, classes} and web/runtime/wasm-module.js wraps exactly those in its error check, so a new
// binding needs no second list in JavaScript. tests/wasm/bindings.test.mjs fails if a bindings file calls
// emscripten::function or class_ directly.
void note_binding(bool is_class, const char* name);
val binding_names();

template <typename F, typename... Policies>
void bind_function(const char* name, F f, Policies... policies) {
  note_binding(false, name);
  emscripten::function(name, f, policies...);
}

template <typename H>
emscripten::class_<H> bind_class(const char* name) {
  note_binding(true, name);
  return emscripten::class_<H>(name);
}

// The factory embind registers as every handle's constructor: `new H(args...)` inside guarded(), so a failing
// C++ constructor frees what it allocated and the JS side receives null plus the recorded error.
// Register with .constructor(&make_handle<H, Args...>, emscripten::allow_raw_pointers()).
template <typename H, typename... Args>
H* make_handle(Args... args) {
  return guarded([&] { return new H(args...); });
}

// Zero-copy views into wasm memory: valid until the next allocation (web/runtime/blockscope.js copies them).
inline val view(const float* data, size_t n) { return val(emscripten::typed_memory_view(n, data)); }
inline val view(const std::vector<float>& v) { return view(v.data(), v.size()); }

// A JS Float32Array as floats, naming `what` in errors.
std::vector<float> floats_from(const val& arr, const char* what);
// A JS Int32Array as token ids.
std::vector<int32_t> ids_from(const val& arr);
// JSON text (web/runtime/blockscope.js stringifies configs and options in JS) through the core's parser.
nlohmann::json json_from(const std::string& text, const char* what);
// A count from JS (a double, so that NaN, 1e300 or 2.5 reach C++ and are named rather than wrapped by embind):
// an integer in [lo, hi].
int64_t integer_of(double v, const char* what, int64_t lo, int64_t hi);
val json_to_js(const nlohmann::json& j);
// A seed from JS: an integer in [0, 2^53).
uint64_t seed_of(double seed);

// Inspection records as JS objects of views: {in: {mean, var}, out: {...}} and one block's record.
val norm_stats(const LayerNormInspection& n);
val block_inspection(const BlockInspection& b);

// Mistake ids as a JS array (mistakes.hpp: the order a check tries them in, correct first).
val mistake_ids(std::span<const Mistake> ms);

// [{name, shape}] of an arena, and one parameter by name.
val param_list(const ParamArena& arena);
void set_param(ParamArena& arena, const std::string& name, const val& data);
val get_param(ParamArena& arena, const std::string& name);

// Registers parameters(), numParameters(), setParameter(name, data) and getParameter(name) on a handle
// class whose `arena()` returns its ParamArena. Parameters stored as int8 count in numParameters() but are not
// listed or readable (getParameter names them as int8).
template <typename H>
const emscripten::class_<H>& with_parameters(const emscripten::class_<H>& c) {
  using emscripten::optional_override;
  return c.function("parameters", optional_override([](H& h) { return guarded([&] { return param_list(h.arena()); }); }))
      .function("numParameters", optional_override([](H& h) {
                  return static_cast<double>(h.arena().used() + h.arena().int8_numel());  // int8 ones too
                }))
      .function("setParameter", optional_override([](H& h, const std::string& name, val data) {
                  guarded([&] { set_param(h.arena(), name, data); });
                }))
      .function("getParameter", optional_override([](H& h, const std::string& name) {
                  return guarded([&] { return get_param(h.arena(), name); });
                }));
}

}  // namespace blockscope::wasm
