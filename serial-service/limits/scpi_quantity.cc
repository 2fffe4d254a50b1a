#include "serial-service/limits/scpi_quantity.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace labgate::serial {
namespace {

absl::Status NotAQuantity(absl::string_view parameter, absl::string_view unit,
                          absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", parameter, "' is not a quantity in ", unit, ": ", why));
}

// IEEE 488.2 §7.7.3, the suffix multipliers as powers of ten; "M" alone is milli, mega "MA".
std::optional<int> Exponent(absl::string_view prefix) {
  struct Entry {
    const char* prefix;
    int exponent;
  };
  static constexpr Entry kMultipliers[] = {
      {"EX", 18}, {"PE", 15}, {"T", 12}, {"G", 9},   {"MA", 6},  {"K", 3},
      {"M", -3},  {"U", -6},  {"N", -9}, {"P", -12}, {"F", -15}, {"A", -18},
  };
  for (const Entry& entry : kMultipliers) {
    if (prefix == entry.prefix) return entry.exponent;
  }
  return std::nullopt;
}

// value * 10^exponent, dividing for negative exponents so that 5000 mV is exactly 5 V.
double Scaled(double value, int exponent) {
  const double power = std::pow(10.0, std::abs(exponent));
  return exponent < 0 ? value / power : value * power;
}

// The leading NRf number of `text` (IEEE 488.2 decimal numeric program data); its length.
size_t NumberLength(absl::string_view text) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - from;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return 0;
  // An exponent only if digits follow: "5E" is 5 with the unit "E"... which is not a unit.
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[j]))) {
      i = j;
      digits();
    }
  }
  return i;
}

}  // namespace

absl::StatusOr<double> ParseQuantity(absl::string_view parameter, absl::string_view unit,
                                     const QuantityRange& range) {
  const std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(parameter));
  auto declared = [&](const std::optional<double>& value,
                      const char* name) -> absl::StatusOr<double> {
    if (value.has_value()) return *value;
    return NotAQuantity(parameter, unit,
                        absl::StrCat(name, " is not declared for it in the instrument profile"));
  };
  if (upper == "MIN" || upper == "MINIMUM") return declared(range.min, "MIN");
  if (upper == "MAX" || upper == "MAXIMUM") return declared(range.max, "MAX");
  if (upper == "DEF" || upper == "DEFAULT") return declared(range.def, "DEF");

  const size_t length = NumberLength(upper);
  if (length == 0) return NotAQuantity(parameter, unit, "no number");
  double value = 0;
  if (!absl::SimpleAtod(upper.substr(0, length), &value) || !std::isfinite(value)) {
    return NotAQuantity(parameter, unit, "the number is out of range");
  }
  const std::string suffix(absl::StripAsciiWhitespace(absl::string_view(upper).substr(length)));
  if (suffix.empty() || suffix == unit) return value;
  if ((unit == "HZ" || unit == "OHM") && suffix == absl::StrCat("M", unit)) {
    return Scaled(value, 6);
  }
  if (suffix.size() > unit.size() && absl::EndsWith(suffix, unit)) {
    const std::optional<int> exponent =
        Exponent(absl::string_view(suffix).substr(0, suffix.size() - unit.size()));
    if (exponent.has_value()) return Scaled(value, *exponent);
  }
  return NotAQuantity(
      parameter, unit,
      absl::StrCat("the suffix '", suffix, "' is not ", unit, " with an IEEE 488.2 multiplier"));
}

std::string FormatQuantity(double value, absl::string_view unit) {
  return absl::StrFormat("%g %s", value, unit);
}

}  // namespace labgate::serial
