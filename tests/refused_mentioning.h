#pragma once
// refused_mentioning: passes when a Result (or Status) is a refusal whose
// message contains every given part, so a test pins down what the message
// names (the file, the field, the value) and not only that it failed.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "keystream/runtime/result.h"

namespace ks::test {

template <class T>
::testing::AssertionResult refused_mentioning(const Result<T>& result, std::initializer_list<std::string_view> parts) {
  if (result.ok()) return ::testing::AssertionFailure() << "the input was accepted";
  for (std::string_view part : parts) {
    if (result.error().find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << result.error() << "\" does not mention \"" << part
                                           << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ks::test
