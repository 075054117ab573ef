#pragma once
// A name as a hostile file can carry it (issue 16): 70,000 characters that
// open with terminal escape sequences, and what an error message must make
// of it: a short excerpt with every control byte escaped.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace ks::test {

/// 70,000 characters: a colour change and a window-title sequence, then 'N's.
inline std::string hostile_name() {
  std::string name = "\x1b[31m\x1b]0;pwned\x07";
  name.resize(70000, 'N');
  return name;
}

/// The excerpt (core/clip/excerpt.h) every message quotes of hostile_name().
inline constexpr const char* kHostileNameExcerpt = "\\x1b[31m\\x1b]0;pwned\\x07NNNN";

/// Passes when `message` quotes hostile_name() as a short printable excerpt.
inline ::testing::AssertionResult quotes_hostile_name_briefly(const std::string& message) {
  if (message.size() > 400) return ::testing::AssertionFailure() << message.size() << " characters";
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::any_of(message.begin(), message.end(), control)) {
    return ::testing::AssertionFailure() << "control bytes in \"" << message << "\"";
  }
  if (message.find(kHostileNameExcerpt) == std::string::npos) {
    return ::testing::AssertionFailure() << "\"" << message << "\" does not quote the name's excerpt";
  }
  if (message.find("... (70000 bytes)") == std::string::npos) {
    return ::testing::AssertionFailure() << "\"" << message << "\" does not say how long the name was";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ks::test
