// A finite double as json::dump writes it (number_text.hpp). Its own file so that the WebAssembly modules can link
// their replacement (wasm/shortest_text.cpp) instead, as wasm/strtod.cpp replaces the C library's strtod.
#include <nlohmann/json.hpp>

#include "number_text.hpp"

namespace blockscope::detail {

std::string shortest_text(double d) { return nlohmann::json(d).dump(); }

}  // namespace blockscope::detail
