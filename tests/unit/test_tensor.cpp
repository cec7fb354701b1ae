// Tests for tensor.hpp: shapes, element counts and the errors bad shapes raise.
#include <catch2/catch.hpp>

#include "blockscope/error.hpp"
#include "blockscope/tensor.hpp"

using namespace blockscope;

TEST_CASE("tensor: shape_numel multiplies dimensions and rejects negatives and overflow", "[tensor]") {
  CHECK(shape_numel({2, 3, 4}) == 24);
  CHECK(shape_numel({}) == 1);
  CHECK(shape_numel({5, 0}) == 0);
  CHECK_THROWS_WITH(shape_numel({2, -3}), Catch::Contains("negative dimension -3"));
  CHECK_THROWS_WITH(shape_numel({1LL << 40, 1LL << 40}), Catch::Contains("too many elements"));
}

TEST_CASE("tensor: constructor checks data size against shape", "[tensor]") {
  const Tensor t({2, 3}, std::vector<float>(6, 1.0f));
  CHECK(t.numel() == 6);
  CHECK(t.rows() == 2);
  CHECK(t.dim(-1) == 3);
  CHECK_THROWS_WITH(Tensor({2, 3}, std::vector<float>(5)), Catch::Contains("(2, 3) needs 6 values, got 5"));
  CHECK_THROWS_WITH(t.dim(2), Catch::Contains("dimension 2 out of range"));
}
