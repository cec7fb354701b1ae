// Native-only checkpoint directories (config.json + model.safetensors) on top of checkpoint.cpp's byte API.
// Not compiled for wasm, where the page fetches the bytes itself. stdio, not iostreams (see STYLE.md).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
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

// errno is read before the message is built: require()'s arguments are evaluated in no fixed order.
[[noreturn]] void fail(int err, const std::string& what, const std::string& path) {
  throw Error(detail::concat(what, " '", path, "': ", std::strerror(err)));
}

const char* file_kind(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

void require_regular(const fs::path& path, const struct stat& st) {
  require(!S_ISDIR(st.st_mode), "'", path.string(), "' is a directory");
  require(S_ISREG(st.st_mode), "'", path.string(), "' is not a regular file (", file_kind(st.st_mode), ")");
}

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever. The checks then run on
// the opened file (fstat), so what is read is what was checked, even if the path is a symlink or is replaced
// meanwhile; only a regular file gets its blocking reads back.
File open_regular_file(const fs::path& path, uint64_t max_bytes, const char* what, uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) require_regular(path, st);  // a socket cannot be opened at all (ENXIO)
    fail(err, "cannot open", path.string());
  }
  File f(::fdopen(fd, "rb"), &std::fclose);
  if (!f) {
    const int err = errno;
    ::close(fd);
    fail(err, "cannot open", path.string());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(errno, "cannot read", path.string());
  require_regular(path, st);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) fail(errno, "cannot read", path.string());
  size = static_cast<uint64_t>(st.st_size);
  require(size <= max_bytes, "'", path.string(), "' is ", size, " bytes; the limit for ", what, " is ", max_bytes,
          " bytes");
  return f;
}
}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path_text, uint64_t max_bytes, const char* what) {
  const fs::path path(path_text);
  uint64_t size = 0;
  const File f = open_regular_file(path, max_bytes, what, size);
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
  const std::vector<uint8_t> config =
      read_file_bytes((root / "config.json").string(), kMaxConfigFileBytes, "config.json");
  const std::string_view text(reinterpret_cast<const char*>(config.data()), config.size());
  const GPTConfig cfg = read_config(text);
  check_parameter_budget(cfg, opts);  // before reading a possibly huge weights file
  // Refused from its size, unread, if larger than any checkpoint of this config could be (by the loader, with
  // the message a page gets for the same file); then streamed in 4 MiB pieces, so the file is never held next
  // to the parameters.
  const fs::path weights = root / "model.safetensors";
  uint64_t size = 0;
  const File f = open_regular_file(weights, UINT64_MAX, "model.safetensors", size);
  ModelStreamLoader loader(cfg, size, opts);
  std::vector<uint8_t> chunk(std::min<uint64_t>(size, uint64_t{4} << 20));
  while (loader.received() < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - loader.received()));
    const size_t got = std::fread(chunk.data(), 1, want, f.get());
    require(got == want, "cannot read all ", size, " bytes of '", weights.string(), "' (it ended after ",
            loader.received() + got, ")");
    loader.write({chunk.data(), got});
  }
  CheckpointNaming naming = loader.naming();
  return {loader.finish(), naming};
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
