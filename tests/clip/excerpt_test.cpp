#include "core/clip/excerpt.h"

#include <gtest/gtest.h>

#include <string>

namespace ks {
namespace {

TEST(Excerpt, ShortensAndReplacesUnprintableBytesButKeepsUtf8) {
  EXPECT_EQ(excerpt("abc"), "abc");
  EXPECT_EQ(excerpt(std::string(70, 'x'), 60), std::string(60, 'x') + "...");
  EXPECT_EQ(excerpt("a\nb\x1b" "c\xff"), "a?b?c?");
  EXPECT_EQ(excerpt("h\xc3\xa9llo"), "h\xc3\xa9llo");  // é kept whole
  EXPECT_EQ(excerpt("\xc3"), "?");                     // a truncated sequence is not
}

}  // namespace
}  // namespace ks
