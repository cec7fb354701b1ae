// SafetensorsFile::parse on arbitrary bytes; when it accepts them, every entry is read back (raw bytes and,
// for float dtypes, a float32 conversion), which must not read outside the buffer.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/safetensors.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blockscope;
  try {
    const SafetensorsFile file = SafetensorsFile::parse(std::span<const uint8_t>(data, size));
    for (const SafetensorsEntry& e : file.entries()) {
      if (file.find(e.name) != &e) fuzz::fail("find() does not return the entry");
      const auto raw = file.raw(e);
      if (static_cast<int64_t>(raw.size()) != e.numel * dtype_size(e.dtype)) fuzz::fail("raw size != numel * dtype size");
      if (raw.size() > size) fuzz::fail("an entry is larger than the file");
      if (dtype_is_float(e.dtype)) {
        std::vector<float> out(static_cast<size_t>(e.numel));
        file.read_float32(e, out);
        (void)file.tensor(e.name);
      }
    }
    (void)file.metadata().size();
  } catch (const Error&) {
  }
  return 0;
}
