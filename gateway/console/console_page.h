// The console page (gateway/console/console.html), compiled into the binary by
// embed_page.cmake so the gateway serves it with no file beside it.
#pragma once

#include <string_view>

namespace labgate::gateway::console {

std::string_view ConsolePage();

}  // namespace labgate::gateway::console
