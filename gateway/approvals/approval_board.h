// The writes a `confirm` rule (or an instrument's limit) holds until a person answers, from
// every transport and era. Two people may answer: the one at the MCP client that made the
// call (elicitation) and an operator in the console. The first answer decides; the other is
// told. A hold nobody answers expires after `lifetime`, and the write is refused.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace labgate::gateway {

// labgate-serial forgets an unanswered confirmation request after 10 minutes; the gateway lets
// go of the hold a little sooner, so that a last-moment approval still finds the request.
inline constexpr absl::Duration kApprovalLifetime = absl::Seconds(590);

// What is held, as the console shows it.
struct HeldWrite {
  std::string principal;  // the access file's name of who asked ("alice", "stdio")
  std::string owner;      // the owner id the call ran as
  std::string tool;       // write, query, send_expect, set_signals, ...
  std::string port;
  std::string shown;  // the bytes, the script or the line change, as the person sees it
  std::string rule;   // the confirm rule, or the instrument's limit
  bool limit = false;
  // The instrument's reading of the write ("4 A is above confirm-current (3 A) ..."), if any.
  std::string quantity;
};

struct ApprovalAnswer {
  // "accept"; or why not: "decline", "cancel" (dismissed, or the caller went away),
  // "expired" (nobody answered in time).
  std::string decision;
  // Who answered, as the port's session records it: "alice in the labgate console", "the
  // person at stdio's MCP client"; empty for an expiry.
  std::string approver;
  bool from_console = false;
};

class ApprovalBoard {
  struct Core;

 public:
  // One held write. Thread-safe; usable after the board is gone (it is then expired).
  class Hold {
   public:
    const std::string& id() const { return id_; }
    // The first answer decides; false (and nothing changes) when one came before.
    bool Answer(const ApprovalAnswer& answer);
    // Runs `then` once with the deciding answer: now if it is known, else when it comes. At
    // most one waiter; a hold nobody waits for keeps its answer for a retry (the 2026 era).
    void Await(std::function<void(const ApprovalAnswer&)> then);
    std::optional<ApprovalAnswer> answer() const;

   private:
    friend class ApprovalBoard;
    Hold(std::shared_ptr<Core> core, uint64_t key)
        : core_(std::move(core)), key_(key), id_(std::to_string(key)) {}

    const std::shared_ptr<Core> core_;
    const uint64_t key_;
    const std::string id_;
  };

  // One waiting hold, for the console.
  struct Waiting {
    std::string id;
    HeldWrite write;
    absl::Time held_at;
    absl::Time expires_at;
  };

  explicit ApprovalBoard(absl::Duration lifetime = kApprovalLifetime);
  // Holds still waiting are refused as expired.
  ~ApprovalBoard();
  ApprovalBoard(const ApprovalBoard&) = delete;
  ApprovalBoard& operator=(const ApprovalBoard&) = delete;

  // Holds `write` until it is answered or expires. With `retry`, the request is one the client
  // repeats to bring its answer (the 2026 era): a hold of the same owner, tool, port, bytes and
  // rule made that way and not yet claimed is the same hold, answered or not.
  std::shared_ptr<Hold> Put(const HeldWrite& write, bool retry);

  // The console's answer to hold `id`: NOT_FOUND when there is no such hold (never held,
  // expired or claimed), ALREADY_EXISTS naming the answer that came first.
  absl::Status Answer(const std::string& id, const ApprovalAnswer& answer);

  // The holds waiting for an answer, oldest first.
  std::vector<Waiting> List() const;
  // Grows with every change of List().
  uint64_t version() const;
  // Runs `changed` once, on some thread, when version() passes `seen` (at once if it has),
  // at `deadline`, or when the board stops. For the console's long poll.
  void OnChange(uint64_t seen, absl::Time deadline, std::function<void()> changed);

  absl::Duration lifetime() const { return lifetime_; }

 private:
  void ExpireLoop();

  const absl::Duration lifetime_;
  const std::shared_ptr<Core> core_;
  std::thread expirer_;
};

// "accept" -> "approved", "decline" -> "declined", "cancel" -> "dismissed", "expired".
const char* AnswerWord(const std::string& decision);

}  // namespace labgate::gateway
