// A stdio MCP server driven by a benchmark: embedded labgate (or the floor server) as a child
// process over NDJSON pipes, initialized in the 2025-11-25 era.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace labgate::bench {

using nlohmann::json;

// Embedded labgate over stdio pipes (NDJSON). Any thread may Call(), so calls may be in
// flight at once. A waiting caller reads the pipe itself when no other caller is reading
// it, and hands on replies that belong to others: a lone caller gets its reply without a
// thread hand-off in the benchmark, as the direct side gets its bytes.
class Gateway {
 public:
  // Embedded labgate with its data in `data_dir`, and `extra` flags.
  Gateway(const std::string& binary, const std::string& data_dir,
          const std::vector<std::string>& extra = {})
      : Gateway(WithFlags({binary, "--data-dir", data_dir, "--log-level", "warning"}, extra)) {}

  // Any stdio MCP server (the floor server).
  explicit Gateway(const std::vector<std::string>& argv) {
    int to_child[2];
    int from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe");
    }
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      std::vector<char*> args;
      args.reserve(argv.size() + 1);
      for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
    Call("initialize", {{"protocolVersion", "2025-11-25"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "serial-bench"}, {"version", "1"}}}});
    Send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }

  pid_t pid() const { return pid_; }

  ~Gateway() {
    close(in_);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(out_);
  }

  json Call(const std::string& method, const json& params) {
    long id = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = next_id_++;
      waiting_[id] = std::nullopt;
    }
    Send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    std::unique_lock<std::mutex> lock(mu_);
    while (!waiting_[id].has_value() && !closed_) {
      if (reading_) {
        replied_.wait(lock);
        continue;
      }
      reading_ = true;
      lock.unlock();
      const bool open = ReadSome();
      lock.lock();
      reading_ = false;
      if (!open) closed_ = true;
      replied_.notify_all();  // replies for others, or the pipe is free to read
    }
    std::optional<json>& answer = waiting_[id];
    if (!answer.has_value()) throw std::runtime_error("labgate closed stdout");
    json reply = std::move(*answer);
    waiting_.erase(id);
    return reply;
  }

  // A tool's structuredContent; throws with the error text when the tool failed.
  json Tool(const std::string& name, const json& arguments) {
    json reply = Call("tools/call", {{"name", name}, {"arguments", arguments}});
    const json& result = reply["result"];
    if (!reply.contains("result") || result.value("isError", true)) {
      throw std::runtime_error(name + " failed: " + reply.dump());
    }
    return result["structuredContent"];
  }

 private:
  static std::vector<std::string> WithFlags(std::vector<std::string> argv,
                                            const std::vector<std::string>& extra) {
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  void Send(const json& message) {
    const std::string text = message.dump() + "\n";
    std::lock_guard<std::mutex> lock(write_mu_);
    for (size_t offset = 0; offset < text.size();) {
      const ssize_t n = write(in_, text.data() + offset, text.size() - offset);
      if (n <= 0) throw std::runtime_error("write to labgate failed");
      offset += static_cast<size_t>(n);
    }
  }

  // One read() from labgate's stdout; complete replies go to their callers. False at EOF.
  bool ReadSome() {
    const ssize_t n = read(out_, chunk_.data(), chunk_.size());
    if (n <= 0) return false;
    buffer_.append(chunk_.data(), static_cast<size_t>(n));
    size_t start = 0;
    for (size_t newline; (newline = buffer_.find('\n', start)) != std::string::npos;
         start = newline + 1) {
      json message = json::parse(buffer_.begin() + static_cast<long>(start),
                                 buffer_.begin() + static_cast<long>(newline), nullptr, false);
      if (!message.is_object() || !message.contains("id") || !message["id"].is_number()) {
        continue;  // notifications
      }
      std::lock_guard<std::mutex> lock(mu_);
      auto it = waiting_.find(message["id"].get<long>());
      if (it != waiting_.end()) it->second = std::move(message);
    }
    buffer_.erase(0, start);
    return true;
  }

  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string buffer_;  // the reading caller's
  std::vector<char> chunk_ = std::vector<char>(1 << 16);
  std::mutex write_mu_;
  std::mutex mu_;
  std::condition_variable replied_;
  std::map<long, std::optional<json>> waiting_;
  long next_id_ = 1;
  bool reading_ = false;  // a caller is in ReadSome()
  bool closed_ = false;
};

}  // namespace labgate::bench
