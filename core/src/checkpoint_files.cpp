// Native-only checkpoint directories (config.json + model.safetensors) on top of checkpoint.cpp's byte API.
// Not compiled for wasm, where the page fetches the bytes itself. stdio, not iostreams (see STYLE.md).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"

namespace blockscope {

namespace {
namespace fs = std::filesystem;
using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open_file(const fs::path& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode), &std::fclose);
  require(f != nullptr, "cannot open '", path.string(), "': ", std::strerror(errno));
  return f;
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  const File f = open_file(path, "rb");
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  require(!ec, "cannot read '", path.string(), "': ", ec.message());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  require(std::fread(bytes.data(), 1, bytes.size(), f.get()) == bytes.size(), "cannot read all ", size,
          " bytes of '", path.string(), "'");
  return bytes;
}

// Writes to "<path>.tmp" and renames it over `path`, so a failed save never leaves a half-written model.
void write_bytes(const fs::path& path, const void* data, size_t size) {
  const fs::path tmp = path.string() + ".tmp";
  {
    File f = open_file(tmp, "wb");
    require(std::fwrite(data, 1, size, f.get()) == size, "cannot write '", tmp.string(), "'");
    require(std::fclose(f.release()) == 0, "cannot write '", tmp.string(), "'");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  require(!ec, "cannot rename '", tmp.string(), "' to '", path.string(), "': ", ec.message());
}
}  // namespace

GPTModel load_model_dir(const std::string& dir, const LoadOptions& opts) {
  const fs::path root(dir);
  const std::vector<uint8_t> config = read_bytes(root / "config.json");
  const std::string_view text(reinterpret_cast<const char*>(config.data()), config.size());
  check_parameter_budget(read_config(text), opts);  // before reading a possibly huge weights file
  const std::vector<uint8_t> weights = read_bytes(root / "model.safetensors");
  return load_model(text, weights, opts);
}

void save_model_dir(const GPTModel& model, const std::string& dir, CheckpointLayout layout) {
  const std::string config = config_json(model, layout);  // throws before any file is touched if unsupported
  const std::vector<uint8_t> weights = save_safetensors(model, layout);
  const fs::path root(dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  require(!ec, "cannot create directory '", dir, "': ", ec.message());
  write_bytes(root / "model.safetensors", weights.data(), weights.size());
  write_bytes(root / "config.json", config.data(), config.size());
}

}  // namespace blockscope
