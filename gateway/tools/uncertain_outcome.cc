#include "gateway/tools/uncertain_outcome.h"

#include "absl/strings/str_cat.h"

namespace labgate::gateway {

inline constexpr char kKeyField[] = "idempotency_key";

std::string UncertainOutcomeAdvice(const google::protobuf::MethodDescriptor& method,
                                   const nlohmann::json& arguments) {
  if (method.input_type()->FindFieldByName(kKeyField) == nullptr) return "";
  const auto key = arguments.is_object() ? arguments.find(kKeyField) : arguments.end();
  const bool keyed = arguments.is_object() && key != arguments.end() && key->is_string() &&
                     !key->get_ref<const std::string&>().empty();
  if (keyed) {
    return "; the outcome is unknown (it may have been stored). A retry with the same "
           "idempotency_key is safe: it returns the stored message instead of adding another";
  }
  return "; the outcome is unknown (it may have been stored). This call had no "
         "idempotency_key, so a retry may store it twice: check list_messages first, and send "
         "an idempotency_key to make retries safe";
}

absl::Status ExplainUncertainOutcome(const std::string& advice, absl::Status status) {
  if (advice.empty() || (!absl::IsUnavailable(status) && !absl::IsDeadlineExceeded(status))) {
    return status;
  }
  return absl::Status(status.code(), absl::StrCat(status.message(), advice));
}

}  // namespace labgate::gateway
