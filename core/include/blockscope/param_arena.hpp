// ParamArena: every parameter of a model in one flat float32 buffer, addressed by name and offset
// (llm.c's layout). Saving, loading and counting parameters are then one loop over `params()`.
// The buffer is allocated once at construction and never moves, so components keep raw pointers into it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "blockscope/quantized.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

struct ParamInfo {
  std::string name;  // PyTorch state_dict name, e.g. "trf_blocks.0.att.W_query.weight"
  Shape shape;
  int64_t offset = 0;  // in floats from the start of the arena
  int64_t numel = 0;
};

class ParamArena {
 public:
  // Reserves `capacity` floats (zero-filled); throws Error if capacity < 0.
  explicit ParamArena(int64_t capacity);
  // An arena whose parameters for which `int8(name, shape)` is true are stored as int8 (Q8Matrix, inference
  // only) outside the float32 buffer: take() returns null for them and q8(name) holds their values.
  // `capacity` counts the float32 parameters only.
  using Int8Predicate = std::function<bool(const std::string& name, const Shape& shape)>;
  ParamArena(int64_t capacity, Int8Predicate int8);
  // A zero-filled arena with exactly the layout of `other` (same names, shapes and offsets): the home of
  // gradients and optimizer moments, so "the gradient of tensor X" is one lookup by name.
  static ParamArena zeros_like(const ParamArena& other);
  ParamArena(const ParamArena&) = delete;
  ParamArena& operator=(const ParamArena&) = delete;
  ParamArena(ParamArena&&) = default;
  ParamArena& operator=(ParamArena&&) = default;

  // Carves a named tensor out of the arena. Throws Error on a duplicate name or if it does not fit.
  // Null for a parameter the arena stores as int8 (see q8()).
  float* take(const std::string& name, const Shape& shape);

  // The int8 parameter called `name`, or null if there is none (float32 parameters included).
  const Q8Matrix* q8(const std::string& name) const;
  Q8Matrix* q8(const std::string& name);
  const std::vector<ParamInfo>& int8_params() const { return int8_params_; }  // offset -1
  int64_t int8_numel() const { return int8_numel_; }
  int64_t int8_bytes() const;  // codes + scales of every int8 parameter

  // The float32 tensor called `name`; throws Error listing the name if there is none, or saying it is int8.
  std::span<float> get(const std::string& name);
  const ParamInfo* find(const std::string& name) const;
  // Copies `values` into the named tensor; throws Error if the name is unknown or the shape differs.
  void assign(const std::string& name, const Shape& shape, std::span<const float> values);

  std::span<const float> get(const std::string& name) const;
  void zero();  // every value to 0 (gradients at the start of a step)

  const std::vector<ParamInfo>& params() const { return params_; }
  int64_t used() const { return used_; }
  int64_t capacity() const { return static_cast<int64_t>(data_.size()); }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }

 private:
  FloatBuffer data_;
  std::vector<ParamInfo> params_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in params_
  int64_t used_ = 0;
  Int8Predicate int8_;
  std::vector<ParamInfo> int8_params_;
  std::vector<std::unique_ptr<Q8Matrix>> int8_values_;  // parallel to int8_params_; stable addresses
  int64_t int8_numel_ = 0;
};

// Maps a parameter pointer to its gradient: the same offset in a second arena of the same layout. Components
// keep raw pointers into the parameter arena; their backward passes find their gradients through this.
class GradMap {
 public:
  GradMap(const ParamArena& params, ParamArena& grads);
  // The gradient of the parameter starting at `param`; null for a null parameter (an absent bias).
  float* operator()(const float* param) const { return param ? grads_ + (param - params_) : nullptr; }

 private:
  const float* params_;
  float* grads_;
};

}  // namespace blockscope
