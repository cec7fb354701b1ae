// Tests for param_arena.hpp: one flat buffer, named slices, checked assignment.
#include <catch2/catch.hpp>

#include "blockscope/error.hpp"
#include "blockscope/param_arena.hpp"

using namespace blockscope;

TEST_CASE("param arena: carves named tensors contiguously in order", "[param_arena]") {
  ParamArena arena(10);
  float* a = arena.take("a.weight", {2, 3});
  float* b = arena.take("a.bias", {3});
  CHECK(b - a == 6);
  CHECK(arena.used() == 9);
  REQUIRE(arena.params().size() == 2);
  CHECK(arena.params()[1].offset == 6);
  CHECK(arena.get("a.bias").size() == 3);
}

TEST_CASE("param arena: rejects overflow, duplicates, unknown names and wrong shapes", "[param_arena]") {
  ParamArena arena(4);
  arena.take("w", {2, 2});
  CHECK_THROWS_WITH(arena.take("x", {1}), Catch::Contains("'x'") && Catch::Contains("does not fit"));
  CHECK_THROWS_WITH(arena.take("w", {0}), Catch::Contains("duplicate parameter name 'w'"));
  CHECK_THROWS_WITH(arena.get("nope"), Catch::Contains("no parameter named 'nope'"));
  const std::vector<float> v(4, 2.0f);
  CHECK_THROWS_WITH(arena.assign("w", {4}, v), Catch::Contains("has shape (2, 2), got (4,)"));
  arena.assign("w", {2, 2}, v);
  CHECK(arena.data()[3] == 2.0f);
}
