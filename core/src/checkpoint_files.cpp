// Native-only checkpoint files on top of checkpoint.cpp's byte API: input files checked (fstat) before any read,
// directories written as one commit. Not compiled for wasm, where the page fetches the bytes itself. POSIX, stdio.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"

namespace blockscope {

namespace {
namespace fs = std::filesystem;
using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

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

// A file descriptor closed when it goes out of scope (close errors are checked by close_checked instead).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int close_checked() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

// "<dir>/.<name>.<pid>-<12 hex digits>.tmp", never used before: O_EXCL fails on any existing entry, a symlink
// included, so nothing planted at the name is followed and two writers never share a temporary. Returns 0 and
// sets `path` and `fd`, or the errno of the failure.
int create_temporary(const fs::path& dir, const std::string& name, fs::path& path, std::unique_ptr<Fd>& fd) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t x = seed + 0x9E3779B97F4A7C15ULL * ++counter;  // splitmix64: distinct names per call
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".%lld-%012llx.tmp", static_cast<long long>(::getpid()),
                  static_cast<unsigned long long>((x ^ (x >> 31)) & 0xFFFFFFFFFFFFULL));
    path = dir / ("." + name + suffix);
    const int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (f >= 0) {
      fd = std::make_unique<Fd>(f);
      return 0;
    }
    if (errno != EEXIST) return errno;
  }
  return EEXIST;
}

// Temporaries of `names` left by a writer that was killed before it could remove them (create_temporary's
// names whose process no longer exists): each is as large as the file it was to become, so they would fill
// the disk save after interrupted save. A live writer's temporaries are left alone.
void remove_stale_temporaries(const fs::path& dir, std::span<const DirFile> files) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string f = entry.path().filename().string();
    for (const DirFile& file : files) {
      const std::string prefix = "." + file.name + ".";
      if (f.size() <= prefix.size() + 4 || f.compare(0, prefix.size(), prefix) != 0 ||
          f.compare(f.size() - 4, 4, ".tmp") != 0)
        continue;
      const std::string middle = f.substr(prefix.size(), f.size() - prefix.size() - 4);  // "<pid>-<hex>"
      const size_t dash = middle.find('-');
      if (dash == 0 || dash == std::string::npos || dash > 9 ||
          middle.find_first_not_of("0123456789") != dash || middle.size() != dash + 13)
        continue;
      const auto pid = static_cast<pid_t>(std::stol(middle.substr(0, dash)));
      if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) ::unlink(entry.path().c_str());
    }
  }
}

// Every byte, through short writes and EINTR; returns 0 or the errno of the failure.
int write_all(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

void sync_directory(const fs::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) fail(errno, "cannot sync directory", dir.string());
}

void create_directories(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  require(!ec, "cannot create directory '", dir, "': ", ec.message());
}

// The temporaries of a commit not yet renamed, removed if it fails.
struct Temporaries {
  std::vector<fs::path> paths;
  size_t renamed = 0;
  ~Temporaries() {
    for (size_t i = renamed; i < paths.size(); ++i) ::unlink(paths[i].c_str());
  }
};
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

void write_dir_atomic(const std::string& dir_text, std::span<const DirFile> files, std::span<const std::string> remove,
                      const CommitHooks& hooks) {
  const fs::path dir(dir_text.empty() ? "." : dir_text);
  for (const DirFile& f : files)
    require(!f.name.empty() && f.name.find('/') == std::string::npos && f.name != "." && f.name != "..",
            "'", f.name, "' is not a plain file name");
  create_directories(dir.string());
  remove_stale_temporaries(dir, files);
  Temporaries temps;
  for (const DirFile& f : files) {
    const std::string target = (dir / f.name).string();
    fs::path path;
    std::unique_ptr<Fd> fd;
    if (const int err = create_temporary(dir, f.name, path, fd)) fail(err, "cannot write", target);
    temps.paths.push_back(path);
    const int injected = hooks.write_errno ? hooks.write_errno(f.name) : 0;
    int err = write_all(fd->get(), injected ? f.bytes.first(f.bytes.size() / 2) : f.bytes);
    if (!err && injected) err = injected;
    if (!err && ::fsync(fd->get()) != 0) err = errno;
    if (!err && fd->close_checked() != 0) err = errno;
    if (err) fail(err, "cannot write", target);  // ~Temporaries removes this one and the earlier ones
  }
  for (const std::string& name : remove) {
    const fs::path path = dir / name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail(errno, "cannot remove", path.string());
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (hooks.at_rename) hooks.at_rename(i);
    const std::string target = (dir / files[i].name).string();
    if (::rename(temps.paths[i].c_str(), target.c_str()) != 0) {
      const int err = errno;
      throw Error(detail::concat("cannot rename '", temps.paths[i].string(), "' to '", target, "': ",
                                 std::strerror(err)));
    }
    temps.renamed = i + 1;
  }
  if (hooks.at_rename) hooks.at_rename(files.size());
  sync_directory(dir);
}

void write_file_atomic(const std::string& path_text, std::span<const uint8_t> bytes) {
  const fs::path path(path_text);
  std::error_code ec;
  require(!fs::is_directory(path, ec), "'", path_text, "' is a directory; give the name of a file to write");
  require(!path.filename().empty(), "'", path_text, "' does not name a file");
  const DirFile file{path.filename().string(), bytes};
  write_dir_atomic(path.parent_path().string(), std::span<const DirFile>(&file, 1));
}

void require_writable_dir(const std::string& dir_text, const char* what) {
  // No side effect: the probe goes to `dir` if it exists, else to its nearest existing ancestor, where the
  // save would create it.
  const fs::path dir(dir_text.empty() ? "." : dir_text);
  fs::path at = dir;
  std::error_code ec;
  while (!fs::exists(at, ec) && !at.empty() && at != at.parent_path()) at = at.parent_path();
  if (at.empty()) at = ".";
  const std::string shown = at == dir ? "" : detail::concat(" (it would be created in '", at.string(), "')");
  require(fs::is_directory(at, ec), "cannot write to ", what, " '", dir.string(), "': '", at.string(),
          "' is not a directory");
  fs::path path;
  std::unique_ptr<Fd> fd;
  if (const int err = create_temporary(at, "blockscope-write-check", path, fd))
    throw Error(detail::concat("cannot write to ", what, " '", dir.string(), "'", shown, ": ", std::strerror(err)));
  ::unlink(path.c_str());
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
  std::map<std::string, std::string> metadata = loader.metadata();
  return {loader.finish(), naming, std::move(metadata)};
}

GPTModel load_model_dir(const std::string& dir, const LoadOptions& opts) {
  return std::move(load_model_dir_named(dir, opts).model);
}

namespace {
std::span<const uint8_t> text_bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}
}  // namespace

void save_model_dir(const GPTModel& model, const std::string& dir, const CheckpointNaming& naming, Dtype storage) {
  const std::string config = config_json(model, naming.layout);  // throws before any file is touched
  const std::vector<uint8_t> weights = save_safetensors(model.config(), model.params(), naming, storage);
  const DirFile files[] = {{"config.json", text_bytes(config)}, {"model.safetensors", weights}};
  write_dir_atomic(dir, files);
}

void save_model_dir(const GPTModel& model, const std::string& dir, CheckpointLayout layout) {
  save_model_dir(model, dir, CheckpointNaming{layout, true, false});
}

void save_training_checkpoint(const std::string& dir, const GPTModel& model, const CheckpointNaming& naming,
                              int64_t weights_step, const AdamW* optimizer, std::span<const DirFile> extra,
                              const CommitHooks& hooks) {
  const std::string config = config_json(model, naming.layout);
  const std::vector<uint8_t> weights = save_safetensors(model.config(), model.params(), naming, Dtype::F32,
                                                        {{"step", std::to_string(weights_step)}});
  const std::vector<uint8_t> state = optimizer ? save_training_state(*optimizer, model.params())
                                               : std::vector<uint8_t>{};
  // model.safetensors last: a directory that has it has every other file of some save (this one or an
  // earlier one, which the fingerprint tells apart).
  std::vector<DirFile> files(extra.begin(), extra.end());
  files.push_back({"config.json", text_bytes(config)});
  if (optimizer) files.push_back({kOptimizerStateFile, state});
  files.push_back({"model.safetensors", weights});
  std::vector<std::string> stale;
  if (!optimizer) stale.push_back(kOptimizerStateFile);  // a stale state would not match the weights written
  write_dir_atomic(dir, files, stale, hooks);
}

}  // namespace blockscope
