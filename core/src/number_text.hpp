// Floating-point numbers to and from decimal text without the C library's printf and strtod (internal header).
// In WebAssembly those two bring musl's long-double formatting and scanning, whose 128-bit arithmetic is emulated
// in software: 6.5-6.9 KB gzip of each wasm flavour (measured), more than the int8 kernels, for error messages and
// config files. (printf's integer core stays: nlohmann's string escapes use it.)
#pragma once

#include <string>

namespace blockscope::detail {

// The shortest decimal that reads back as the same double, written like printf's %g: "0.1", "100", "1e-05",
// "1e+300", "nan", "inf", "-inf" (nlohmann's Grisu2 formatter, the one json::dump uses).
std::string real_text(double d);

// A finite double as json::dump writes it: the shortest decimal that reads back as the same value, laid out like
// printf's %g but with ".0" after an integral value ("100.0", "0.1", "1e-05", "-0.0"). real_text's digits.
// shortest_text.cpp computes it with nlohmann's Grisu2 formatter; the WebAssembly modules replace that file with the
// JavaScript engine's shortest round trip laid out the same way (wasm/shortest_text.cpp), which keeps nlohmann's
// serializer and printf out of the light module. Grisu2 is shortest in all but rare cases (where it writes one more
// digit that still reads back as the same double), so the two agree on every value but those.
std::string shortest_text(double d);

// The shortest decimal (6 to 9 significant digits) that reads back as the same float, as the double nearest that
// decimal: 1e-5f gives the double 1e-05, which JSON files show as "1e-05" rather than "9.999999747378752e-06".
// Exact (the decimal is scaled by a power of ten that doubles hold exactly) for floats from 1e-14 to 1e+28 in
// magnitude; floats outside that range, zero and non-finite ones come back unchanged as doubles.
double short_float(float f);

}  // namespace blockscope::detail
