#include "keystream/io/exact_number.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks {

std::string exact_number(float target, double scale, float (*to_setting)(float)) {
  const auto reads_back = [&](const char* text) { return to_setting(std::strtof(text, nullptr)) == target; };
  const double shown = static_cast<double>(target) * scale;
  char text[64];
  // At least the integer digits: 10, not 1e+01.
  const int integer_digits = shown >= 1.0 ? static_cast<int>(std::floor(std::log10(shown))) + 1 : 1;
  for (int digits = std::min(integer_digits, 9); digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, shown);
    if (reads_back(text)) return text;
  }
  // The conversion rounds: the float nearest `shown`, or a neighbour, may be
  // the one that lands on `target` (9 digits spell any float exactly).
  const float nearest = static_cast<float>(shown);
  float up = nearest, down = nearest;
  for (int step = 0; step <= 16; ++step) {
    for (const float candidate : {up, down}) {
      std::snprintf(text, sizeof text, "%.9g", static_cast<double>(candidate));
      if (reads_back(text)) return text;
    }
    up = std::nextafter(up, INFINITY);
    down = std::nextafter(down, -INFINITY);
  }
  return {};
}

}  // namespace ks
