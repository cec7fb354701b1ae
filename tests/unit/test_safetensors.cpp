// Tests for safetensors.hpp: half/bfloat16 conversion, writer -> reader round trips, files written by the
// PyTorch script (an independent writer), and a catalog of malformed files, each expecting its own error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "blockscope/error.hpp"
#include "blockscope/safetensors.hpp"

using namespace blockscope;
using Catch::Contains;

namespace {
using Bytes = std::vector<uint8_t>;

// A file from a header text and a data buffer, with the header length field computed (or forced).
Bytes make_file(const std::string& header, const Bytes& data = {}, int64_t forced_len = -1) {
  const uint64_t n = forced_len >= 0 ? static_cast<uint64_t>(forced_len) : header.size();
  Bytes out(8 + header.size() + data.size());
  std::memcpy(out.data(), &n, 8);
  std::copy(header.begin(), header.end(), out.begin() + 8);
  std::copy(data.begin(), data.end(), out.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
  return out;
}

Bytes zeros(size_t n) { return Bytes(n, 0); }

template <typename T>
Bytes le_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

const std::string kModels = std::string(BLOCKSCOPE_GOLDEN_DIR) + "/models/";

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

void check_parse_error(const Bytes& bytes, const std::string& expected) {
  INFO("expected error containing: " << expected);
  CHECK_THROWS_WITH(SafetensorsFile::parse(bytes), Contains(expected));
}
}  // namespace

TEST_CASE("half_to_float converts binary16 zeros, subnormals, normals, inf and NaN exactly", "[safetensors]") {
  CHECK(float_bits(half_to_float(0x0000)) == float_bits(0.0f));
  CHECK(float_bits(half_to_float(0x8000)) == float_bits(-0.0f));
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));          // smallest subnormal
  CHECK(half_to_float(0x03FF) == 1023.0f * std::ldexp(1.0f, -24));  // largest subnormal
  CHECK(half_to_float(0x8001) == -std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x3C01) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(half_to_float(0x3555) == 0.333251953125f);
  CHECK(half_to_float(0xC000) == -2.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);  // largest finite
  CHECK(half_to_float(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(half_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_to_float(0x7E00)));
  CHECK(std::isnan(half_to_float(0x7C01)));  // signalling NaN stays NaN, not inf
  CHECK(std::signbit(half_to_float(0xFE00)));
}

#ifdef __FLT16_MAX__
TEST_CASE("half_to_float agrees with the compiler's _Float16 on all 65536 bit patterns", "[safetensors]") {
  int mismatches = 0;
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    _Float16 ref;
    const uint16_t bits = static_cast<uint16_t>(h);
    std::memcpy(&ref, &bits, 2);
    const float want = static_cast<float>(ref), got = half_to_float(bits);
    const bool same = std::isnan(want) ? std::isnan(got) && std::signbit(got) == std::signbit(want)
                                       : float_bits(got) == float_bits(want);
    if (!same && ++mismatches < 5) FAIL_CHECK("half 0x" << std::hex << h << ": got " << got << ", want " << want);
  }
  CHECK(mismatches == 0);
}
#endif

TEST_CASE("bfloat16_to_float is the top half of a float32", "[safetensors]") {
  CHECK(bfloat16_to_float(0x3F80) == 1.0f);
  CHECK(bfloat16_to_float(0xC040) == -3.0f);
  CHECK(bfloat16_to_float(0x3EAB) == 0.333984375f);
  CHECK(float_bits(bfloat16_to_float(0x8000)) == float_bits(-0.0f));
  CHECK(bfloat16_to_float(0x0001) == std::ldexp(1.0f, -133));  // float32 subnormal
  CHECK(bfloat16_to_float(0x7F7F) == 0x1.FEp127f);              // largest finite
  CHECK(bfloat16_to_float(0x7F80) == std::numeric_limits<float>::infinity());
  CHECK(bfloat16_to_float(0xFF80) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(bfloat16_to_float(0x7FC0)));
}

TEST_CASE("float_to_half and float_to_bfloat16 round to nearest even over every 16-bit value", "[safetensors]") {
  // Every finite value converts back to its own bits; every midpoint between neighbours goes to the one with
  // an even mantissa, and a hair either side of it to the nearer one.
  const auto check_all = [](auto to16, auto to32, uint16_t max_finite) {
    for (uint32_t h = 0; h <= max_finite; ++h) {
      for (const uint32_t sign : {0u, 0x8000u}) {
        const auto bits = static_cast<uint16_t>(h | sign);
        const float x = to32(bits);
        REQUIRE(to16(x) == bits);
        if (h == max_finite) continue;
        const float next = to32(static_cast<uint16_t>(bits + 1));
        const float mid = x + (next - x) / 2;  // exact, and no overflow near float32's largest
        const auto even = static_cast<uint16_t>((h & 1u) == 0 ? bits : bits + 1);
        REQUIRE(to16(mid) == even);
        REQUIRE(to16(std::nextafter(mid, x)) == bits);
        REQUIRE(to16(std::nextafter(mid, next)) == static_cast<uint16_t>(bits + 1));
      }
    }
  };
  check_all(float_to_half, half_to_float, 0x7BFF);
  check_all(float_to_bfloat16, bfloat16_to_float, 0x7F7F);
  CHECK(float_to_half(65519.99f) == 0x7BFF);  // rounds down to 65504
  CHECK(float_to_half(65520.0f) == 0x7C00);   // the midpoint to "65536" rounds to even: infinity
  CHECK(float_to_half(-1e30f) == 0xFC00);
  CHECK(float_to_half(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(float_to_half(1e-9f) == 0x0000);      // below half the smallest subnormal
  CHECK(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  CHECK(float_to_bfloat16(std::numeric_limits<float>::max()) == 0x7F80);  // rounds up to infinity
  CHECK(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
}

TEST_CASE("write_safetensors stores F16 and BF16 and refuses values F16 cannot hold", "[safetensors]") {
  const std::vector<float> a = {1.0f, -2.5f, 0.1f, 3.0e-6f, 65504.0f, 1.0f / 3.0f};
  const std::vector<SafetensorsTensorRef> tensors = {{"w", {2, 3}, a}};
  for (const Dtype storage : {Dtype::F16, Dtype::BF16}) {
    const Bytes bytes = write_safetensors(tensors, {{"format", "pt"}}, storage);
    const auto f = SafetensorsFile::parse(bytes);
    CHECK(f.at("w").dtype == storage);
    CHECK(f.at("w").end - f.at("w").begin == 12);
    const std::vector<float> back = f.tensor("w").data;
    for (size_t i = 0; i < a.size(); ++i) {
      const float expected = storage == Dtype::F16 ? half_to_float(float_to_half(a[i]))
                                                   : bfloat16_to_float(float_to_bfloat16(a[i]));
      CHECK(float_bits(back[i]) == float_bits(expected));
      CHECK(std::fabs(back[i] - a[i]) <= std::fabs(a[i]) * (storage == Dtype::F16 ? 0x1p-11f : 0x1p-8f) + 0x1p-24f);
    }
  }
  const std::vector<float> big = {1.0f, 70000.0f};
  const std::vector<SafetensorsTensorRef> too_big = {{"big", {2}, big}};
  CHECK_THROWS_WITH(write_safetensors(too_big, {}, Dtype::F16), Contains("'big' holds 70000 at index 1"));
  const Bytes bf16 = write_safetensors(too_big, {}, Dtype::BF16);  // BF16 has float32's range
  CHECK(SafetensorsFile::parse(bf16).tensor("big").data[1] == 70144.0f);
  CHECK_THROWS_WITH(write_safetensors(tensors, {}, Dtype::I32), Contains("not I32"));
}

TEST_CASE("write_safetensors round-trips through the reader with a sorted, space-padded header", "[safetensors]") {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, s = {-7.5f}, e;
  const std::vector<SafetensorsTensorRef> tensors = {
      {"zeta", {2, 3}, a}, {"alpha.scalar", {}, s}, {"empty", {0, 4}, e}};
  const Bytes bytes = write_safetensors(tensors, {{"format", "pt"}, {"note", "tiny"}});

  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  CHECK(n % 8 == 0);
  CHECK(bytes[8] == '{');
  CHECK(bytes.size() == 8 + n + 7 * 4);  // tensors packed back to back

  const auto f = SafetensorsFile::parse(bytes);
  REQUIRE(f.entries().size() == 3);
  CHECK(f.entries()[0].name == "alpha.scalar");  // sorted by name
  CHECK(f.at("alpha.scalar").begin == 0);
  CHECK(f.at("empty").begin == 4);
  CHECK(f.at("zeta").begin == 4);
  CHECK(f.metadata().at("note") == "tiny");
  CHECK(f.tensor("zeta").shape == Shape{2, 3});
  CHECK(f.tensor("zeta").data == a);
  CHECK(f.tensor("alpha.scalar").shape.empty());
  CHECK(f.tensor("alpha.scalar").data == s);
  CHECK(f.tensor("empty").numel() == 0);
  CHECK(f.find("missing") == nullptr);
  CHECK_THROWS_WITH(f.at("missing"), Contains("no tensor 'missing'"));
}

TEST_CASE("write_safetensors rejects duplicate names, the reserved name and mismatched data", "[safetensors]") {
  const std::vector<float> v = {1, 2};
  const std::vector<SafetensorsTensorRef> dup = {{"w", {2}, v}, {"w", {2}, v}};
  CHECK_THROWS_WITH(write_safetensors(dup), Contains("'w' appears twice"));
  const std::vector<SafetensorsTensorRef> reserved = {{"__metadata__", {2}, v}};
  CHECK_THROWS_WITH(write_safetensors(reserved), Contains("reserved"));
  const std::vector<SafetensorsTensorRef> bad = {{"w", {3}, v}};
  CHECK_THROWS_WITH(write_safetensors(bad), Contains("'w' has shape (3,) but 2 values"));
}

TEST_CASE("the reader converts F16, BF16 and F64 to float32 and refuses integer dtypes", "[safetensors]") {
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},)"
      R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[6,10]},)"
      R"("d":{"dtype":"F64","shape":[3],"data_offsets":[10,34]},)"
      R"("i":{"dtype":"I32","shape":[1],"data_offsets":[34,38]}})";
  Bytes data = le_bytes<uint16_t>({0x3C00, 0xC000, 0x0001});
  for (const uint8_t x : le_bytes<uint16_t>({0x3F80, 0xC040})) data.push_back(x);
  for (const uint8_t x : le_bytes<double>({0.1, 1e300, -1e300})) data.push_back(x);  // odd offset: unaligned
  for (const uint8_t x : le_bytes<int32_t>({7})) data.push_back(x);
  const Bytes bytes = make_file(header, data);
  const auto f = SafetensorsFile::parse(bytes);
  CHECK(f.tensor("h").data == std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24)});
  CHECK(f.tensor("b").data == std::vector<float>{1.0f, -3.0f});
  const auto d = f.tensor("d").data;
  CHECK(d[0] == 0.1f);
  CHECK(d[1] == std::numeric_limits<float>::infinity());
  CHECK(d[2] == -std::numeric_limits<float>::infinity());
  CHECK(f.at("i").dtype == Dtype::I32);
  CHECK_THROWS_WITH(f.tensor("i"), Contains("tensor 'i' has dtype I32; only F32, F16, BF16 and F64"));
  std::vector<float> wrong(2);
  CHECK_THROWS_WITH(f.read_float32(f.at("h"), wrong), Contains("'h' has 3 elements, the destination 2"));
}

TEST_CASE("the reader reads the files PyTorch's script wrote (F32, F16, BF16, BOOL, 0-rank)", "[safetensors]") {
  const Bytes hf = read_file(kModels + "hf_tiny/model.safetensors");
  const auto f = SafetensorsFile::parse(hf);
  CHECK(f.metadata().at("format") == "pt");
  CHECK(f.at("transformer.h.0.attn.c_attn.weight").shape == Shape{16, 48});
  CHECK(f.at("transformer.h.1.attn.masked_bias").shape.empty());
  CHECK(f.tensor("transformer.h.1.attn.masked_bias").data[0] == -1e4f);
  const Tensor mask = f.tensor("transformer.h.0.attn.bias");
  CHECK(mask.shape == Shape{1, 1, 16, 16});
  CHECK(mask.data[0] == 1.0f);
  CHECK(mask.data[1] == 0.0f);  // tril

  const Bytes f16 = read_file(kModels + "hf_tiny_f16/model.safetensors");
  CHECK(SafetensorsFile::parse(f16).at("wte.weight").dtype == Dtype::F16);
  const Bytes bf16 = read_file(kModels + "hf_tiny_bf16/model.safetensors");
  const auto b = SafetensorsFile::parse(bf16);
  CHECK(b.at("transformer.wte.weight").dtype == Dtype::BF16);
  CHECK(b.at("transformer.h.0.attn.bias").dtype == Dtype::Bool);
}

TEST_CASE("malformed safetensors files are rejected, each with its own error", "[safetensors]") {
  const std::string w = R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]})";
  const std::string v = R"("v":{"dtype":"F32","shape":[2],"data_offsets":[24,32]})";
  const Bytes data = zeros(32);
  const Bytes good = make_file("{" + w + "," + v + "}", data);
  REQUIRE_NOTHROW(SafetensorsFile::parse(good));

  SECTION("file shorter than the 8-byte length") { check_parse_error(Bytes(5, 0), "is 5 bytes; it needs at least 8"); }
  SECTION("header length beyond the file") {
    check_parse_error(make_file("{}", {}, 4096), "header length 4096 runs past the end of the 10-byte file");
  }
  SECTION("absurd header length") {
    check_parse_error(make_file("{}", {}, int64_t{1} << 40), "exceeds the limit of 100000000 bytes");
  }
  SECTION("header is not JSON") { check_parse_error(make_file("{\"w\": {", data), "header is not valid JSON"); }
  SECTION("header is not an object") { check_parse_error(make_file("[1, 2]", {}), "must be a JSON object, got array"); }
  SECTION("entry is not an object") { check_parse_error(make_file(R"({"w": 3})", {}), "tensor 'w' must be an object"); }
  SECTION("entry misses a field") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","data_offsets":[0,0]}})", {}), "tensor 'w' is missing 'shape'");
  }
  SECTION("entry has an unknown field") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[],"offsets":[0,4]}})", zeros(4)),
                      "tensor 'w' has the unknown field 'offsets'");
  }
  SECTION("dtype is not a string") {
    check_parse_error(make_file(R"({"w":{"dtype":4,"shape":[1],"data_offsets":[0,4]}})", zeros(4)),
                      "tensor 'w' dtype must be a string");
  }
  SECTION("unknown dtype") {
    check_parse_error(make_file(R"({"w":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", zeros(4)),
                      "tensor 'w' has unknown dtype 'F33'");
  }
  SECTION("negative dimension") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[2,-3],"data_offsets":[0,4]}})", zeros(4)),
                      "tensor 'w' has a negative dimension in shape [2,-3]");
  }
  SECTION("fractional dimension") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[2.5],"data_offsets":[0,4]}})", zeros(4)),
                      "tensor 'w' shape dimensions must be non-negative integers, got 2.5");
  }
  SECTION("shape overflowing int64") {
    check_parse_error(
        make_file(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}})", zeros(4)),
        "tensor 'w' shape [4294967296,4294967296,4] has more elements than fit in int64");
  }
  SECTION("shape overflowing int64 bytes") {
    check_parse_error(
        make_file(R"({"w":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,4]}})", zeros(4)),
        "has more bytes than fit in int64");
  }
  SECTION("data_offsets not a pair") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", zeros(4)),
                      "tensor 'w' data_offsets must be [begin, end]");
  }
  SECTION("negative offset") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", zeros(4)),
                      "tensor 'w' data_offsets must be non-negative integers");
  }
  SECTION("reversed offsets") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", zeros(8)),
                      "tensor 'w' data_offsets [8, 4) are reversed");
  }
  SECTION("offsets beyond the buffer") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[1024],"data_offsets":[0,4096]}})", zeros(32)),
                      "tensor 'w' data_offsets [0, 4096) run past the end of the 32-byte data buffer");
  }
  SECTION("byte size differs from shape x dtype") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", zeros(20)),
                      "tensor 'w' is F32 (2, 3) = 24 bytes, but data_offsets [0, 20) hold 20");
  }
  SECTION("overlapping ranges") {
    const std::string v2 = R"("v":{"dtype":"F32","shape":[2],"data_offsets":[16,24]})";
    check_parse_error(make_file("{" + w + "," + v2 + "}", zeros(24)),
                      "tensors 'w' [0, 24) and 'v' [16, 24) overlap");
  }
  SECTION("a hole between ranges") {
    const std::string v2 = R"("v":{"dtype":"F32","shape":[2],"data_offsets":[28,36]})";
    check_parse_error(make_file("{" + w + "," + v2 + "}", zeros(36)),
                      "bytes [24, 28) of the data buffer belong to no tensor (a hole before 'v')");
  }
  SECTION("trailing bytes after the last tensor") {
    check_parse_error(make_file("{" + w + "," + v + "}", zeros(40)), "has 8 bytes after the last tensor ('v')");
  }
  SECTION("duplicate tensor names") {
    const std::string w2 = R"("w":{"dtype":"F32","shape":[2],"data_offsets":[24,32]})";
    check_parse_error(make_file("{" + w + "," + w2 + "}", data), "key 'w' twice (duplicate tensor name)");
  }
  SECTION("duplicate field in an entry") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]}})", zeros(4)),
                      "key 'dtype' twice");
  }
  SECTION("__metadata__ value not a string") {
    check_parse_error(make_file(R"({"__metadata__":{"format":"pt","n":3}})", {}),
                      "__metadata__ value 'n' must be a string, got 3");
  }
  SECTION("__metadata__ not an object") {
    check_parse_error(make_file(R"({"__metadata__":"pt"})", {}), "__metadata__ must be an object");
  }
  SECTION("nesting deeper than a header") {
    check_parse_error(make_file(R"({"w":{"dtype":"F32","shape":[[1]],"data_offsets":[0,4]}})", zeros(4)),
                      "nests deeper than a header can");
  }
  SECTION("truncated file") {
    Bytes cut = good;
    cut.resize(cut.size() - 5);
    check_parse_error(cut, "tensor 'v' data_offsets [24, 32) run past the end of the 27-byte data buffer");
  }
}

TEST_CASE("every truncation and header byte corruption of a good file throws Error or parses", "[safetensors]") {
  const std::vector<float> a(12, 1.5f), b(3, -2.0f);
  const std::vector<SafetensorsTensorRef> tensors = {{"a", {3, 4}, a}, {"b", {3}, b}};
  const Bytes good = write_safetensors(tensors, {{"format", "pt"}});
  for (size_t n = 0; n < good.size(); ++n) {
    const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_THROWS_AS(SafetensorsFile::parse(cut), Error);  // exact coverage: every cut is detectable
  }
  uint64_t header_len;
  std::memcpy(&header_len, good.data(), 8);
  int parsed = 0;
  for (size_t i = 0; i < 8 + header_len; ++i) {
    for (const uint8_t x : {uint8_t{0x00}, uint8_t{'"'}, uint8_t{'9'}, uint8_t{'-'}, uint8_t{0xFF}}) {
      Bytes bad = good;
      bad[i] = x;
      try {
        const auto f = SafetensorsFile::parse(bad);
        for (const auto& e : f.entries())
          if (dtype_is_float(e.dtype)) (void)f.tensor(e.name);  // must stay within the buffer
        ++parsed;
      } catch (const Error&) {
      }  // any other exception type fails the test
    }
  }
  CHECK(parsed < 5 * static_cast<int>(8 + header_len));  // most corruptions are caught
}
