// How many threads the core's matrix products use. Native builds with OpenMP run Eigen's GEMMs (every Linear
// forward and backward: the bulk of training's arithmetic) on up to this many threads; the result is the same
// for the same thread count on the same CPU build, but may differ in the last bits between counts (Eigen picks
// its blocking by thread count). The default is 1, so library users, tests and the wasm build are unaffected
// until a caller (e.g. `blockscope train --threads`) asks for more. Builds without OpenMP always use 1.
#pragma once

namespace blockscope {

// Sets the thread count (clamped to [1, available_threads()]) and returns the count now in effect.
int set_threads(int count);
// The thread count in effect.
int threads();
// The threads the machine offers to this process (1 without OpenMP).
int available_threads();

}  // namespace blockscope
