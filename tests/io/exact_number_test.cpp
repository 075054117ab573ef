// exact_number (core/io/exact_number.h): the shortest text reads back to the
// very float through the reader's conversion, and it is empty only when no
// float reads back so.

#include "keystream/io/exact_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

namespace ks {
namespace {

float read(const std::string& text) {
  return std::strtof(text.c_str(), nullptr);
}

// Digits from the first nonzero one: "0.0123" has 3.
size_t significant_digits(const std::string& text) {
  size_t digits = 0;
  for (const char c : text) {
    if (c == 'e') break;
    if ((c >= '1' && c <= '9') || (c == '0' && digits > 0)) ++digits;
  }
  return digits;
}

// True when no float x gives to_setting(x) == target: the conversions are
// monotonic, so bracketing target between neighbours of the nearest x proves it.
bool no_float_reads_back(float target, double scale, float (*to_setting)(float)) {
  float low = static_cast<float>(static_cast<double>(target) * scale), high = low;
  for (int step = 0; step < 64; ++step) {
    if (to_setting(low) == target || to_setting(high) == target) return false;
    low = std::nextafter(low, -INFINITY);
    high = std::nextafter(high, INFINITY);
  }
  return to_setting(low) < target && to_setting(high) > target;
}

TEST(ExactNumber, ShortDecimalsStayShort) {
  EXPECT_EQ(exact_number(over_thousand(0.5f), 1000.0, over_thousand), "0.5");
  EXPECT_EQ(exact_number(over_hundred(4.f), 100.0, over_hundred), "4");
  EXPECT_EQ(exact_number(times_milli(0.1f), 1000.0, times_milli), "0.1");
  EXPECT_EQ(exact_number(times_centi(3.f), 100.0, times_centi), "3");
  EXPECT_EQ(exact_number(12.f, 1.0, as_is), "12");  // the integer digits, not 1e+01
  EXPECT_EQ(exact_number(0.6666667f, 1.0, as_is), "0.6666667");
}

TEST(ExactNumber, ValuesMadeByTheConversionAlwaysReadBack) {
  std::mt19937 rng(39);
  std::uniform_real_distribution<float> mm(0.001f, 50.f);
  for (int i = 0; i < 20000; ++i) {
    const float typed = mm(rng);
    for (float (*to_setting)(float) : {over_thousand, times_milli}) {
      const float target = to_setting(typed);
      const std::string text = exact_number(target, 1000.0, to_setting);
      ASSERT_FALSE(text.empty()) << typed;
      EXPECT_EQ(to_setting(read(text)), target) << text;
      EXPECT_LE(significant_digits(text), 9u) << text;  // never more digits than a float needs
    }
  }
}

TEST(ExactNumber, EmptyOnlyWhenNoFloatReadsBack) {
  std::mt19937 rng(40);
  std::uniform_real_distribution<float> metres(1e-6f, 0.05f);
  int empty = 0;
  for (int i = 0; i < 20000; ++i) {
    const float target = metres(rng);
    const std::string text = exact_number(target, 1000.0, over_thousand);
    if (text.empty()) {
      ++empty;
      EXPECT_TRUE(no_float_reads_back(target, 1000.0, over_thousand)) << target;
    } else {
      EXPECT_EQ(over_thousand(read(text)), target) << text;
    }
  }
  EXPECT_GT(empty, 0);           // dividing by 1000 does skip floats ...
  EXPECT_LT(empty, 20000 / 10);  // ... but few
}

TEST(ExactNumber, NotANumberHasNoSpelling) {
  EXPECT_EQ(exact_number(NAN, 1000.0, over_thousand), "");
}

}  // namespace
}  // namespace ks
