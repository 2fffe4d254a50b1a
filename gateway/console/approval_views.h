// The console's "waiting for approval" list and its answers: GET /console/api/approvals (with
// ?after=VERSION, a long poll that answers when the list changes or after 25 s), and POST
// /console/api/approvals/{id}/approve|decline by a principal the access file lets approve the
// hold's rule (an operator or admin; anyone who reaches the console without an access file).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/access/access_control.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/http/http_connection.h"

namespace labgate::gateway::console {

class ApprovalViews {
 public:
  // `board` null: no approvals are taken here (the list is empty and answers get 503).
  ApprovalViews(ApprovalBoard* board, std::shared_ptr<const access::AccessControl> access)
      : board_(board), access_(std::move(access)) {}

  void List(const std::shared_ptr<http::HttpConnection>& connection, const std::string& principal,
            const std::map<std::string, std::string>& query) const;
  // `decision`: "accept" or "decline".
  void Answer(const std::shared_ptr<http::HttpConnection>& connection, const std::string& actor,
              const std::string& id, const std::string& decision) const;

 private:
  ApprovalBoard* const board_;
  const std::shared_ptr<const access::AccessControl> access_;
};

// The list as `principal` sees it: each hold, and whether it may answer it.
nlohmann::json ApprovalsJson(const ApprovalBoard* board, const access::AccessControl* access,
                             const std::string& principal);

}  // namespace labgate::gateway::console
