#include "gateway/tools/reservation_waits.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/log.h"
#include "common/ordinal.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/tools/cancel_shield.h"
#include "gateway/tools/catalog_tools.h"

namespace labgate::gateway {

using json = nlohmann::json;

namespace {

// What the reservation asked for, as a person would say it.
std::string WhatItWants(const ReservationWatch::Reservation& reservation) {
  if (reservation.targets_size() > 0) return absl::StrJoin(reservation.targets(), ", ");
  return absl::StrCat(reservation.count() > 1 ? absl::StrCat(reservation.count(), " of ") : "",
                      "any tagged ", absl::StrJoin(reservation.tags(), "+"));
}

}  // namespace

json WithReservationLink(json result, const std::string& id) {
  result["content"].push_back(
      {{"type", "resource_link"},
       {"uri", kReservationUriPrefix + id},
       {"name", "reservation " + id},
       {"mimeType", "application/json"},
       {"description", "This reservation; subscribe to hear of its grant"}});
  return result;
}

std::string QueueMessage(const ReservationWatch::Reservation& reservation) {
  return absl::StrCat("waiting: ", Ordinal(reservation.position()), " in the queue for ",
                      WhatItWants(reservation));
}

struct ReservationWaits::Wait {
  std::string id;
  std::shared_ptr<RequestContext> context;
  absl::Mutex mu;
  ToolDone done ABSL_GUARDED_BY(mu);  // null once the wait has ended
  std::shared_ptr<void> listening ABSL_GUARDED_BY(mu);
  int position ABSL_GUARDED_BY(mu) = 0;
  double progress ABSL_GUARDED_BY(mu) = 1;  // the reserve call itself reported 0 and 1
};

void ReservationWaits::CallTool(const std::string& name, const json& arguments,
                                std::shared_ptr<RequestContext> context, ToolDone done) {
  const bool wants_to_wait = arguments.is_object() && arguments.contains("wait_s") &&
                             arguments["wait_s"].is_number() && arguments["wait_s"] > 0;
  // The reserve call runs to its answer even if the client cancels meanwhile: cut off, it
  // could leave a reservation behind whose id nobody has. A cancelled caller's is released.
  tools_->CallTool(
      name, arguments, std::make_shared<CancelShield>(context),
      [this, context, wants_to_wait, done = std::move(done)](absl::StatusOr<ToolResult> result) {
        if (!result.ok()) return done(std::move(result));
        json answer = result->AsJson();
        const json* reservation =
            answer.contains("structuredContent") && answer["structuredContent"].is_object()
                ? &answer["structuredContent"]
                : nullptr;
        if (answer.value("isError", false) || reservation == nullptr) {
          return done(std::move(result));
        }
        const std::string state = reservation->value("state", "");
        if ((state == "waiting" || state == "granted") && context->cancelled()) {
          const std::string id = reservation->value("id", "");
          Release(id, context->owner());
          return done(absl::CancelledError(
              absl::StrCat("reserve cancelled; its reservation ", id, " was released")));
        }
        if (state == "waiting" && wants_to_wait && !context->stateless()) {
          return StartWaiting(*reservation, context, done);
        }
        if (state != "waiting" && state != "granted") return done(std::move(result));
        const std::string id = reservation->value("id", "");
        done(ToolResult(WithReservationLink(std::move(answer), id)));
      });
}

bool ReservationWaits::Finish(const std::shared_ptr<Wait>& wait,
                              absl::StatusOr<ToolResult> result) {
  ToolDone done;
  std::shared_ptr<void> listening;
  {
    absl::MutexLock lock(&wait->mu);
    if (!wait->done) return false;
    done = std::move(wait->done);
    wait->done = nullptr;
    listening = std::move(wait->listening);
  }
  listening.reset();  // outside the lock: it takes the watch's
  if (done) done(std::move(result));
  return true;
}

void ReservationWaits::StartWaiting(const json& reservation,
                                    const std::shared_ptr<RequestContext>& context, ToolDone done) {
  auto wait = std::make_shared<Wait>();
  wait->id = reservation.value("id", "");
  wait->context = context;
  {
    absl::MutexLock lock(&wait->mu);
    wait->done = std::move(done);
    wait->position = reservation.value("position", 0);
  }
  ReservationWatch::Reservation first;
  if (absl::Status parsed = JsonToProto(reservation, &first); !parsed.ok()) {
    first.set_id(wait->id);
    first.set_position(reservation.value("position", 0));
  }
  context->Progress(2, std::nullopt, QueueMessage(first));

  // The listener keeps the wait alive until it ends: Finish lets go of the listener.
  auto changed = [wait](const ReservationWatch::Reservation& now) {
    if (now.state() == "waiting") {
      double progress = 0;
      {
        absl::MutexLock lock(&wait->mu);
        if (!wait->done || now.position() == wait->position) return;
        wait->position = now.position();
        progress = ++wait->progress + 1;
      }
      wait->context->Progress(progress, std::nullopt, QueueMessage(now));
      return;
    }
    if (now.state() == "granted") {
      Finish(wait, ToolResult(WithReservationLink(ToolResultJson(ProtoToJson(now)), now.id())));
      return;
    }
    int position = 0;
    {
      absl::MutexLock lock(&wait->mu);
      position = wait->position;
    }
    std::string why = now.end_reason().empty() ? now.state() : now.end_reason();
    Finish(wait,
           ToolResult(ToolResultJson(absl::DeadlineExceededError(absl::StrCat(
               WhatItWants(now), " was not granted: ", why,
               position > 0 ? absl::StrCat(" (you were ", Ordinal(position), " in the queue)") : "",
               "; list_reservations shows who holds it, and reserve with wait_s waits again")))));
  };
  std::shared_ptr<void> listening = watch_->Listen(wait->id, changed);
  {
    absl::MutexLock lock(&wait->mu);
    wait->listening = std::move(listening);
  }
  // Granted (or ended) before the listener was there: the watch knows already.
  if (std::optional<ReservationWatch::Reservation> known = watch_->Find(wait->id)) {
    if (known->state() != "waiting") changed(*known);
  }
  // Cancelled: the caller leaves the queue. The reservation is released even if it was granted
  // meanwhile, since nobody will hear of that grant.
  context->OnCancel([this, weak = std::weak_ptr<Wait>(wait), owner = context->owner()] {
    std::shared_ptr<Wait> wait = weak.lock();
    if (wait == nullptr) return;
    if (Finish(wait, absl::CancelledError("reserve cancelled while waiting"))) {
      Release(wait->id, owner);
    }
  });
}

void ReservationWaits::Release(const std::string& id, const std::string& owner) {
  const ToolBinding* release = catalog_->Find("release_reservation");
  if (release == nullptr) return;
  ToolInvoker::Options options;
  options.deadline = deadline_;
  options.owner = owner;
  invoker_->Call(*release, json{{"id", id}}, options,
                 [id](const absl::StatusOr<BackendReply>& released) {
                   if (!released.ok()) {
                     LG_LOG(kWarning) << "reservation " << id
                                      << " not released after its reserve was cancelled: "
                                      << released.status().message();
                   }
                 });
}

}  // namespace labgate::gateway
