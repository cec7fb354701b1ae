// Numbers through the core's JSON reader (parse_json) and its number text helpers (real_text, short_float),
// checked against the C library of the native build (glibc's strtod and printf, which are correctly rounded) on
// hard cases and on thousands of random numbers. The wasm build reads decimals with the JS engine instead
// (wasm/strtod.cpp): tests/wasm/numbers.test.mjs checks it against JSON.parse.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "json_reader.hpp"
#include "number_text.hpp"

using namespace blockscope;
using Catch::Contains;
using detail::json;
using detail::parse_json;

namespace {
json parse(const std::string& text) { return parse_json(text, "doc"); }

// The double glibc reads from `text`.
double libc_double(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// `count` finite doubles from random bit patterns: every exponent, subnormals and both signs.
std::vector<double> random_doubles(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  while (static_cast<int>(out.size()) < count) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) out.push_back(d);
  }
  return out;
}
}  // namespace

TEST_CASE("parse_json reads numbers exactly as a correctly rounded strtod does", "[json]") {
  SECTION("hard cases") {
    for (const char* text :
         {"0.1", "1e-05", "0.30000000000000004", "2.2250738585072014e-308", "2.2250738585072011e-308",
          "4.9406564584124654e-324", "2.4703282292062328e-324", "1.7976931348623157e+308", "9007199254740993.0",
          "0.1000000000000000055511151231257827021181583404541015625", "1.00000000000000011102230246251565404236316680908203125",
          "7.2057594037927933e+16", "123456789012345678901234567890e-10", "-0.0", "5e-324", "1e-400", "3.14159e0",
          "8.98846567431158e307", "1.7976931348623158e+308",
          "2.2250738585072011360574097967091319759348195463516451e-308"}) {
      const json j = parse(text);
      INFO(text);
      REQUIRE(j.is_number_float());
      CHECK(same_bits(j.get<double>(), libc_double(text)));
    }
  }
  SECTION("random decimals: 1 to 25 digits, exponents across the whole double range") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; ++i) {
      std::string text = (rng() & 1) ? "-" : "";
      const int digits = 1 + static_cast<int>(rng() % 25);
      text += static_cast<char>('1' + rng() % 9);
      if (digits > 1) text += '.';
      for (int d = 1; d < digits; ++d) text += static_cast<char>('0' + rng() % 10);
      text += "e" + std::to_string(static_cast<int>(rng() % 640) - 330);
      INFO(text);
      if (std::isinf(libc_double(text)))
        CHECK_THROWS_WITH(parse(text), Contains("doc is not valid JSON") && Contains("number overflow"));
      else
        CHECK(same_bits(parse(text).get<double>(), libc_double(text)));
    }
  }
  SECTION("random doubles written with 17 digits come back bit for bit") {
    for (const double d : random_doubles(20000, 11)) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      INFO(buf);
      CHECK(same_bits(parse(buf).get<double>(), d));
    }
  }
}

TEST_CASE("parse_json keeps integers as integers, signed or unsigned as nlohmann does", "[json]") {
  CHECK(parse("0").is_number_unsigned());
  CHECK(parse("7").get<uint64_t>() == 7);
  CHECK(parse("-1").is_number_integer());
  CHECK(!parse("-1").is_number_unsigned());
  CHECK(parse("-1").get<int64_t>() == -1);
  CHECK(parse("18446744073709551615").get<uint64_t>() == std::numeric_limits<uint64_t>::max());
  CHECK(parse("-9223372036854775808").get<int64_t>() == std::numeric_limits<int64_t>::min());
  CHECK(parse("18446744073709551616").is_number_float());  // beyond uint64: a double, as nlohmann reads it
  CHECK(parse("-9223372036854775809").is_number_float());
  CHECK(parse("1.0").is_number_float());
  CHECK(parse("1e2").is_number_float());
  CHECK(detail::integer_out_of_range(parse("18446744073709551616")));
}

TEST_CASE("parse_json reads strings, containers and whitespace, and refuses what is not JSON", "[json]") {
  CHECK(parse(R"("caf\u00e9 \ud83d\ude00 \n\t\"\\\/")").get<std::string>() == "caf\xc3\xa9 \xf0\x9f\x98\x80 \n\t\"\\/");
  CHECK(parse("\"\xc3\xa9\"").get<std::string>() == "\xc3\xa9");
  const json doc = parse(" {\"a\": [1, -2, 2.5, true, false, null, \"s\", {}, []], \"b\": {\"c\": {}}} \n");
  CHECK(doc.dump() == R"({"a":[1,-2,2.5,true,false,null,"s",{},[]],"b":{"c":{}}})");
  CHECK(parse("[]").is_array());
  CHECK(parse("\"\"").get<std::string>().empty());

  for (const std::string text :
       {std::string(), std::string("   "), std::string("{\"a\": 1} x"), std::string("{\"a\" 1}"), std::string("[1, 2"),
        std::string("{\"a\": tru}"), std::string("01"), std::string("1."), std::string("NaN"), std::string("[1,]"),
        std::string("\"\xff\""), std::string("\"\xc0\xaf\""), std::string("\"\\ud800\""), std::string("\"\\udc00\""),
        std::string("\"a\tb\""), std::string("1e400"), std::string("-1e400")}) {
    INFO(text);
    CHECK_THROWS_WITH(parse(text), Contains("doc is not valid JSON"));
  }
  CHECK_THROWS_WITH(parse(std::string("{}\0{}", 5)), Contains("doc is not valid JSON: a NUL byte at byte 2"));
  CHECK_THROWS_WITH(parse(std::string("\"a\0\"", 4)), Contains("doc is not valid JSON: a NUL byte at byte 2"));
}

TEST_CASE("real_text writes the shortest decimal that reads back as the same double, like %g", "[json]") {
  CHECK(detail::real_text(0.1) == "0.1");
  CHECK(detail::real_text(100.0) == "100");
  CHECK(detail::real_text(-2.5) == "-2.5");
  CHECK(detail::real_text(1e-05) == "1e-05");
  CHECK(detail::real_text(1e300) == "1e+300");
  CHECK(detail::real_text(0.0) == "0");
  CHECK(detail::real_text(std::nan("")) == "nan");
  CHECK(detail::real_text(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(detail::real_text(-std::numeric_limits<double>::infinity()) == "-inf");
  for (const double d : random_doubles(20000, 3)) {
    const std::string s = detail::real_text(d);
    INFO(s);
    CHECK(same_bits(libc_double(s), d));
  }
}

TEST_CASE("short_float gives the double nearest the float's shortest decimal, as printf and strtod do", "[json]") {
  // glibc's answer: the fewest of 6..9 significant digits that read back as f, read as a double.
  const auto libc_short = [](float f) {
    char buf[40];
    for (int digits = 6; digits <= 9; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
      if (std::strtof(buf, nullptr) == f) break;
    }
    return std::strtod(buf, nullptr);
  };
  CHECK(detail::short_float(1e-5f) == 1e-05);
  CHECK(detail::short_float(0.1f) == 0.1);
  CHECK(detail::short_float(0.0f) == 0.0);
  CHECK(detail::concat(1e-5f) == "1e-05");
  CHECK(detail::concat(0.1f, " ", 0.1) == "0.1 0.1");
  CHECK(std::isnan(detail::short_float(std::nanf(""))));
  std::mt19937 rng(5);
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (!std::isfinite(f)) continue;
    const double got = detail::short_float(f);
    INFO(f);
    REQUIRE(static_cast<float>(got) == f);  // always reads back as the same float
    const float a = std::fabs(f);
    if (a >= 1e-14f && a < 1e28f) {
      CHECK(same_bits(got, libc_short(f)));
      ++compared;
    }
  }
  CHECK(compared > 20000);  // random bit patterns: ~22% of floats lie in 1e-14..1e28
}
