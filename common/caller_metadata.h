// The gRPC metadata by which a gateway tells a labgate service whom it acts for
// (docs/OPERATIONS.md, "Calling labgate from other programs"; proto/labgate/serial/v1).
#pragma once

namespace labgate {

// The principal a gateway acts for. A service believes it only from a caller it trusts to
// speak for principals (common/caller_auth.h); any other caller that sends it is refused.
inline constexpr char kOwnerMetadataKey[] = "labgate-owner";
// A person's answer relayed by the gateway that asked: "<confirm id>:<decision>:<secret>"
// (common/confirmation_secret.h).
inline constexpr char kConfirmationMetadataKey[] = "labgate-confirmation";
// Who gave that answer, as printable ASCII; read only beside a valid answer.
inline constexpr char kApproverMetadataKey[] = "labgate-confirmation-approver";

}  // namespace labgate
