#pragma once
// Numbers written as text that must read back to the very float a tool
// holds (a tolerance file, a command line): the unit conversions the readers
// apply, and the shortest decimal spelling that survives them.

#include <string>

namespace ks {

/// The readers' conversions to metres: options multiply by a float scale
/// (--tolerance MM, --shell-distance CM); a NAME=MM@CM entry divides.
inline float times_milli(float v) {
  return v * 1e-3f;
}
inline float times_centi(float v) {
  return v * 1e-2f;
}
inline float over_thousand(float v) {
  return v / 1000.f;
}
inline float over_hundred(float v) {
  return v / 100.f;
}
inline float as_is(float v) {
  return v;
}

/// The shortest decimal text (at most 9 significant digits) that strtof
/// reads and `to_setting` turns into exactly `target`; `scale` takes the
/// setting to the unit typed (1000 for millimetres). Empty when none does:
/// times_milli skips about one float in forty.
std::string exact_number(float target, double scale, float (*to_setting)(float));

}  // namespace ks
