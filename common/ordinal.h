// English ordinals for messages people and models read: "1st", "2nd", "3rd", "11th", "22nd".
#pragma once

#include <string>

#include "absl/strings/str_cat.h"

namespace labgate {

inline std::string Ordinal(int n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return absl::StrCat(n, suffix);
}

}  // namespace labgate
