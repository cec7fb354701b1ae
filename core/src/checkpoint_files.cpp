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

}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path_text) {
  const fs::path path(path_text);
  const File f = open_file(path, "rb");
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  require(!ec, "cannot read '", path.string(), "': ", ec.message());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  require(std::fread(bytes.data(), 1, bytes.size(), f.get()) == bytes.size(), "cannot read all ", size,
          " bytes of '", path.string(), "'");
  return bytes;
}

void write_file_atomic(const std::string& path_text, std::span<const uint8_t> bytes) {
  const fs::path path(path_text);
  const void* data = bytes.data();
  const size_t size = bytes.size();
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

NamedModel load_model_dir_named(const std::string& dir, const LoadOptions& opts) {
  const fs::path root(dir);
  const std::vector<uint8_t> config = read_file_bytes((root / "config.json").string());
  const std::string_view text(reinterpret_cast<const char*>(config.data()), config.size());
  const GPTConfig cfg = read_config(text);
  check_parameter_budget(cfg, opts);  // before reading a possibly huge weights file
  const std::vector<uint8_t> weights = read_file_bytes((root / "model.safetensors").string());
  const SafetensorsFile file = SafetensorsFile::parse(weights);
  return {load_model(cfg, file, opts), checkpoint_naming(file)};
}

GPTModel load_model_dir(const std::string& dir, const LoadOptions& opts) {
  return std::move(load_model_dir_named(dir, opts).model);
}

void save_model_dir(const GPTModel& model, const std::string& dir, const CheckpointNaming& naming, Dtype storage) {
  const std::string config = config_json(model, naming.layout);  // throws before any file is touched
  const std::vector<uint8_t> weights = save_safetensors(model.config(), model.params(), naming, storage);
  const fs::path root(dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  require(!ec, "cannot create directory '", dir, "': ", ec.message());
  write_file_atomic((root / "model.safetensors").string(), weights);
  write_file_atomic((root / "config.json").string(),
                    std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(config.data()), config.size()));
}

void save_model_dir(const GPTModel& model, const std::string& dir, CheckpointLayout layout) {
  save_model_dir(model, dir, CheckpointNaming{layout, true, false});
}

}  // namespace blockscope
