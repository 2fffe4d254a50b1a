// The fixture resources: static text and binary, a template, a resource that changes
// every few seconds for its subscribers, the dynamic resource, and the static text the
// 2026-07-28 scenarios list.
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gateway/conformance/conformance_fixtures.h"
#include "gateway/conformance/fixture_content.h"
#include "gateway/conformance/fixture_media.h"
#include "gateway/conformance/fixture_state.h"

namespace labgate::gateway {

namespace {

using nlohmann::json;

constexpr char kStaticText[] = "test://static-text";
constexpr char kStaticBinary[] = "test://static-binary";
constexpr char kWatched[] = "test://watched-resource";
constexpr char kDynamic[] = "test://dynamic-resource";
constexpr char kStatelessText[] = "test://stateless-static-text";
constexpr char kTemplate[] = "test://template/{id}/data";
constexpr char kTemplatePrefix[] = "test://template/";
constexpr char kTemplateSuffix[] = "/data";

json Resource(const std::string& uri, const std::string& name, const std::string& description,
              const std::string& mime_type) {
  return {{"uri", uri}, {"name", name}, {"description", description}, {"mimeType", mime_type}};
}

// The {id} of a test://template/{id}/data URI, or "" if `uri` does not match.
std::string TemplateId(const std::string& uri) {
  if (!absl::StartsWith(uri, kTemplatePrefix) || !absl::EndsWith(uri, kTemplateSuffix)) return "";
  const size_t begin = sizeof(kTemplatePrefix) - 1;
  const size_t end = uri.size() - (sizeof(kTemplateSuffix) - 1);
  if (end <= begin) return "";
  std::string id = uri.substr(begin, end - begin);
  return id.find('/') == std::string::npos ? id : "";
}

// Releasing it ends one subscription to test://watched-resource.
class WatchHandle {
 public:
  WatchHandle(std::weak_ptr<ConformanceFixtures::State> state, uint64_t id)
      : state_(std::move(state)), id_(id) {}
  ~WatchHandle() {
    if (auto state = state_.lock()) {
      absl::MutexLock lock(&state->mutex);
      state->watchers.erase(id_);
    }
  }
  WatchHandle(const WatchHandle&) = delete;
  WatchHandle& operator=(const WatchHandle&) = delete;

 private:
  std::weak_ptr<ConformanceFixtures::State> state_;
  uint64_t id_;
};

json TextContents(const std::string& uri, const std::string& mime_type, const std::string& text) {
  return {{"contents", {{{"uri", uri}, {"mimeType", mime_type}, {"text", text}}}}};
}

}  // namespace

namespace conformance {

std::vector<std::string> CompleteFrom(const std::vector<std::string>& candidates,
                                      const std::string& prefix) {
  std::vector<std::string> matches;
  for (const std::string& candidate : candidates) {
    if (absl::StartsWithIgnoreCase(candidate, prefix)) matches.push_back(candidate);
  }
  return matches;
}

}  // namespace conformance

void ConformanceFixtures::ListResources(JsonListDone done) {
  std::vector<json> resources = {
      Resource(kStaticText, "Static Text Resource", "A static text resource for testing",
               "text/plain"),
      Resource(kStaticBinary, "Static Binary Resource", "A static binary resource (a PNG image)",
               "image/png"),
      Resource(kWatched, "Watched Resource",
               "A resource that changes every few seconds; subscribe to hear of it", "text/plain"),
      Resource(kStatelessText, "Stateless Static Text",
               "A static text resource served on the draft path", "text/plain"),
  };
  if (state_->dynamic_ready.load()) {
    resources.push_back(Resource(kDynamic, "Dynamic Resource",
                                 "A resource that appears a moment after start", "text/plain"));
  }
  done(std::move(resources));
}

std::vector<json> ConformanceFixtures::ListResourceTemplates() const {
  return {{{"uriTemplate", kTemplate},
           {"name", "Template Resource"},
           {"description", "A resource template whose {id} is substituted into the data"},
           {"mimeType", "application/json"}}};
}

bool ConformanceFixtures::HandlesUri(const std::string& uri) const {
  if (uri == kStaticText || uri == kStaticBinary || uri == kWatched || uri == kStatelessText) {
    return true;
  }
  if (uri == kDynamic) return state_->dynamic_ready.load();
  return !TemplateId(uri).empty();
}

void ConformanceFixtures::ReadResource(const std::string& uri,
                                       std::shared_ptr<RequestContext> context, JsonDone done) {
  (void)context;
  if (uri == kStaticText) {
    return done(
        TextContents(uri, "text/plain", "This is the content of the static text resource."));
  }
  if (uri == kStaticBinary) {
    return done(
        json{{"contents",
              {{{"uri", uri}, {"mimeType", "image/png"}, {"blob", conformance::kRedPixelPng}}}}});
  }
  if (uri == kWatched) {
    return done(TextContents(
        uri, "text/plain",
        absl::StrCat("Watched resource content, revision ", state_->watched_revision.load())));
  }
  if (uri == kStatelessText) {
    return done(
        TextContents(uri, "text/plain", "Static text content from the stateless draft path."));
  }
  if (uri == kDynamic && state_->dynamic_ready.load()) {
    return done(TextContents(uri, "text/plain", "This is a dynamically added resource."));
  }
  if (std::string id = TemplateId(uri); !id.empty()) {
    nlohmann::ordered_json data = {
        {"id", id}, {"templateTest", true}, {"data", absl::StrCat("Data for ID: ", id)}};
    return done(TextContents(uri, "application/json", data.dump()));
  }
  done(absl::NotFoundError(absl::StrCat("Resource not found: ", uri)));
}

std::shared_ptr<void> ConformanceFixtures::SubscribeResource(const std::string& uri,
                                                             std::function<void()> updated) {
  if (!HandlesUri(uri)) return nullptr;
  if (uri != kWatched) {
    // The other fixtures never change; the subscription is accepted and stays quiet.
    return std::make_shared<int>(0);
  }
  uint64_t id;
  {
    absl::MutexLock lock(&state_->mutex);
    id = state_->next_watcher++;
    state_->watchers.emplace(id, std::move(updated));
  }
  return std::make_shared<WatchHandle>(state_, id);
}

void ConformanceFixtures::CompleteResourceArgument(const std::string& template_uri,
                                                   const std::string& argument,
                                                   const std::string& value,
                                                   const json& context_arguments,
                                                   StringsDone done) {
  (void)context_arguments;
  if (template_uri != kTemplate || argument != "id") return done({});
  done(conformance::CompleteFrom({"1", "2", "3", "42", "123"}, value));
}

}  // namespace labgate::gateway
