// embind bindings of facts about the running module itself: heap diagnostics and the build's flavour and version.
// Part of both modules (the light one and the full one, wasm/CMakeLists.txt). Marshalling only.
#include <malloc.h>

#include "blockscope/memory_budget.hpp"
#include "blockscope/ops.hpp"
#include "marshal.hpp"

namespace blockscope::wasm {

namespace {

// Bytes malloc has handed out and not had back. mallinfo's fields are int: above 2 GiB the count wraps negative,
// so it is read as the unsigned 32-bit number it is (wasm32's heap is at most 4 GiB).
int64_t malloc_in_use() { return static_cast<int64_t>(static_cast<uint32_t>(mallinfo().uordblks)); }

// Every budget check also asks what the whole module holds (memory_budget.hpp: RuntimeMemory).
[[maybe_unused]] const bool g_runtime_memory = (RuntimeMemory::in_use = &malloc_in_use, true);

// Heap diagnostics for leak tests: bytes currently allocated by malloc, the wasm memory size, and the stack
// pointer (the address of a local here: the same at every call unless the stack leaks).
val memoryStats() {
  volatile char probe = 0;
  val o = val::object();
  o.set("stackPointer", static_cast<double>(reinterpret_cast<uintptr_t>(&probe)));
  o.set("allocatedBytes", static_cast<double>(malloc_in_use()));
  o.set("heapBytes", static_cast<double>(__builtin_wasm_memory_size(0) * 65536.0));
  return o;
}

val buildInfo() {
  val o = val::object();
  const std::string isa = kernel_isa();
  // The .wasm file's name.
  o.set("flavour", std::string(isa == "simd128" ? "simd" : isa == "relaxed-simd" ? "simd-relaxed" : "baseline"));
  o.set("isa", isa);
  o.set("version", std::string(BLOCKSCOPE_VERSION));  // package.json's, via CMake
  return o;
}

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_runtime) {
  using namespace blockscope::wasm;
  bind_function("memoryStats", &memoryStats);
  bind_function("buildInfo", &buildInfo);
}
