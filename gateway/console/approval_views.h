// The console's "waiting for approval" list and its answers: GET /console/api/approvals (with
// ?after=VERSION, a long poll that answers when the list changes or after 25 s), and POST
// /console/api/approvals/{id}/approve|decline by a principal the access file lets approve the
// hold's rule (an operator or admin; anyone who reaches the console without an access file).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/access/access_control.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/http/http_connection.h"

namespace labgate::gateway::console {

// Whether a principal may change a port (as the client names it, bench and all): OK, or
// PERMISSION_DENIED saying why.
using PortCheck =
    std::function<absl::Status(const std::string& principal, const std::string& port)>;

class ApprovalViews {
 public:
  // `board` null: no approvals are taken here (the list is empty and answers get 503).
  // `may_change_port` (optional): an approver must also be one who may change the held port.
  ApprovalViews(ApprovalBoard* board, std::shared_ptr<const access::AccessControl> access,
                PortCheck may_change_port = nullptr)
      : board_(board), access_(std::move(access)), may_change_port_(std::move(may_change_port)) {}

  void List(const std::shared_ptr<http::HttpConnection>& connection, const std::string& principal,
            const std::map<std::string, std::string>& query) const;
  // `decision`: "accept" or "decline".
  void Answer(const std::shared_ptr<http::HttpConnection>& connection, const std::string& actor,
              const std::string& id, const std::string& decision) const;

  // What Answer replies: an HTTP status and its JSON body.
  struct Reply {  // NOLINT(bugprone-exception-escape): only json's allocation may throw
    int status = 200;
    nlohmann::json body;
  };
  // Answers hold `id` as `actor`, checking its rule against the actor's may_approve. A hold
  // not waiting now is answered only when the board has shown a hold at least as new: ids
  // are sequential and never reused, so such a hold can no longer be decided, and its
  // answer is only who came first (409). An id above every one shown may be a hold about to
  // be made, whose rule is unknown: 404, and the board is not asked.
  Reply Answered(const std::string& actor, const std::string& id,
                 const std::string& decision) const;

 private:
  ApprovalBoard* const board_;
  const std::shared_ptr<const access::AccessControl> access_;
  const PortCheck may_change_port_;
  // The highest hold id the board has listed here (0: none yet).
  const std::shared_ptr<std::atomic<uint64_t>> shown_ = std::make_shared<std::atomic<uint64_t>>(0);
};

// The list as `principal` sees it: each hold, and whether it may answer it. `shown`
// (optional) is raised to the highest id listed.
nlohmann::json ApprovalsJson(const ApprovalBoard* board, const access::AccessControl* access,
                             const std::string& principal, std::atomic<uint64_t>* shown = nullptr,
                             const PortCheck& may_change_port = nullptr);

}  // namespace labgate::gateway::console
