// One serialized protocol message, possibly in pieces: its own text, then a piece shared with
// a cache (a tool list page, tens of kilobytes), then more text of its own. A transport that
// writes with gather I/O sends the pieces as they are, so the shared piece is never copied;
// any other joins them.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace labgate::gateway {

struct MessageText {
  MessageText() = default;
  explicit MessageText(std::string whole) : head(std::move(whole)) {}
  MessageText(std::string head_text, std::shared_ptr<const std::string> shared_text,
              std::string tail_text)
      : head(std::move(head_text)), shared(std::move(shared_text)), tail(std::move(tail_text)) {}

  std::string head;
  std::shared_ptr<const std::string> shared;  // null: none
  std::string tail;

  bool empty() const { return head.empty() && shared == nullptr && tail.empty(); }
  size_t size() const { return head.size() + (shared ? shared->size() : 0) + tail.size(); }
  // The whole text in one string; moves rather than copies when there is one piece.
  std::string Join() && {
    if (!shared && tail.empty()) return std::move(head);
    std::string whole;
    whole.reserve(size());
    whole += head;
    if (shared) whole += *shared;
    whole += tail;
    return whole;
  }
};

}  // namespace labgate::gateway
