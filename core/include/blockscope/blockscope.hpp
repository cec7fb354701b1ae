// Umbrella header: the whole Blockscope core.
#pragma once

#include "blockscope/activation.hpp"
#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/inspection.hpp"
#include "blockscope/layer_norm.hpp"
#include "blockscope/linear.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/ops.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/rng.hpp"
#include "blockscope/tensor.hpp"
#include "blockscope/tokenizer.hpp"
#include "blockscope/transformer_block.hpp"
