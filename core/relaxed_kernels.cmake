# The simd-relaxed flavour's kernel module (BLOCKSCOPE_WASM_RELAXED; included by core/CMakeLists.txt): the kernels
# whose bodies multiply-add (GEMM, accumulating GEMM, GEMV, decoding attention), compiled a second time from their
# own sources with -mrelaxed-simd, so that simd128.hpp's muladd is one f32x4.relaxed_madd and their names end in
# __relaxed. Emscripten 3.1.6's clang 14 emits a pre-standard opcode for it and Debian's binaryen cannot read the
# standard one, so these four files go through em++ driving Debian's clang-16 (Emscripten's headers and defines; -c
# runs no binaryen) and are linked by wasm-ld-16 into a module of their own that imports its memory. Everything else
# in the flavour is the SIMD128 build's code (dispatch.cpp alone is compiled differently, so ccache serves the rest).
#   blockscope_relaxed_link(target) and blockscope_merge_relaxed_kernels(target) (below) merge the module into a wasm
#   program after its link: scripts/merge-relaxed-kernels.mjs (npm binaryen's wasm-merge), which refuses a kernel
#   module with a stack, data, globals or imports of its own (they would collide with Emscripten's memory layout).
find_program(BLOCKSCOPE_CLANG16 clang-16 REQUIRED)  # em++ runs it under EM_LLVM_ADD_VERSION=16
find_program(BLOCKSCOPE_WASM_LD16 wasm-ld-16 REQUIRED)
find_program(BLOCKSCOPE_NODE node NO_CMAKE_FIND_ROOT_PATH REQUIRED)
if(NOT EXISTS ${PROJECT_SOURCE_DIR}/node_modules/binaryen/package.json)
  message(FATAL_ERROR "the simd-relaxed flavour merges its kernel module with the npm package binaryen, which is "
    "missing: run npm ci (or bash scripts/setup.sh)")
endif()

set(relaxed_dir ${CMAKE_BINARY_DIR}/relaxed_kernels)
file(MAKE_DIRECTORY ${relaxed_dir})
set(relaxed_objects)
foreach(name f32_gemm f32_gemm_acc f32_gemv f32_attention)
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/${name}.cpp)
  # -fno-builtin: no memset/memcpy calls from loop-idiom recognition (the module imports nothing but memory).
  add_custom_command(OUTPUT ${relaxed_dir}/${name}.o
    COMMAND ${CMAKE_COMMAND} -E env EM_LLVM_ADD_VERSION=16 EM_CLANG_ADD_VERSION=16
      ${CMAKE_CXX_COMPILER} -std=c++20 -O3 -DNDEBUG -msimd128 -mrelaxed-simd -ffp-contract=off -fno-builtin
      -fno-exceptions -Wall -Wextra -I${CMAKE_CURRENT_SOURCE_DIR}/src -c ${source} -o ${relaxed_dir}/${name}.o
    DEPENDS ${source} ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/kernels.hpp
      ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/simd128.hpp
    COMMENT "Compiling kernels/${name}.cpp for relaxed SIMD (clang 16)" VERBATIM)
  list(APPEND relaxed_objects ${relaxed_dir}/${name}.o)
endforeach()
# --allow-undefined turns a call the kernels should not make (memset, ...) into an import, which the merge refuses
# with the function's name instead of a link error about code that --gc-sections would have dropped anyway.
set(BLOCKSCOPE_RELAXED_KERNELS ${relaxed_dir}/blockscope-relaxed-kernels.wasm CACHE INTERNAL "")
add_custom_command(OUTPUT ${BLOCKSCOPE_RELAXED_KERNELS}
  COMMAND ${BLOCKSCOPE_WASM_LD16} --no-entry --import-memory --allow-undefined --strip-all ${relaxed_objects}
    -o ${BLOCKSCOPE_RELAXED_KERNELS}
  DEPENDS ${relaxed_objects}
  COMMENT "Linking the relaxed-SIMD kernel module (wasm-ld-16)" VERBATIM)
add_custom_target(blockscope_relaxed_kernels DEPENDS ${BLOCKSCOPE_RELAXED_KERNELS})

# The simd-relaxed steps of a wasm program `target` (its .wasm next to its .js). blockscope_relaxed_link(target) lets
# the relaxed kernels stay undefined at the Emscripten link (they become imports; Emscripten 3.1.6 would otherwise
# report them, and its JS glue is the same either way: scripts/share-wasm-glue.mjs checks) and, right after the link,
# renames those imports (minified like every import) to the kernel module's export names, read from Emscripten's
# symbol map; any other undefined symbol fails the build there. Call it before any other POST_BUILD step.
# blockscope_merge_relaxed_kernels(target) then merges the kernel module into the .wasm, in place, as the last step.
function(blockscope_relaxed_link target)
  # WASM_BIGINT: the kernels take int64 arguments, which Emscripten would otherwise split into i32 pairs at imports.
  target_link_options(${target} PRIVATE -sERROR_ON_UNDEFINED_SYMBOLS=0 --emit-symbol-map -sWASM_BIGINT)
  add_dependencies(${target} blockscope_relaxed_kernels)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${BLOCKSCOPE_RELAXED_KERNELS})  # relink when it changes
  blockscope_relaxed_program(${target} program)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${BLOCKSCOPE_NODE} ${PROJECT_SOURCE_DIR}/scripts/merge-relaxed-kernels.mjs name-imports ${program}
    VERBATIM)
endfunction()

function(blockscope_merge_relaxed_kernels target)
  blockscope_relaxed_program(${target} program)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${BLOCKSCOPE_NODE} ${PROJECT_SOURCE_DIR}/scripts/merge-relaxed-kernels.mjs merge ${program}
      ${BLOCKSCOPE_RELAXED_KERNELS}
    VERBATIM)
endfunction()

# The path of `target`'s output without its .js suffix (the .wasm, the .js and the .js.symbols sit next to it).
function(blockscope_relaxed_program target out)
  get_target_property(name ${target} OUTPUT_NAME)
  if(NOT name)
    set(name ${target})
  endif()
  set(${out} $<TARGET_FILE_DIR:${target}>/${name} PARENT_SCOPE)
endfunction()
