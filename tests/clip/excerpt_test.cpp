#include "keystream/clip/excerpt.h"

#include <gtest/gtest.h>

#include <string>

namespace ks {
namespace {

TEST(Excerpt, KeepsPrintableTextAndWellFormedUtf8) {
  EXPECT_EQ(excerpt("abc"), "abc");
  EXPECT_EQ(excerpt(""), "");
  EXPECT_EQ(excerpt("h\xc3\xa9llo"), "h\xc3\xa9llo");                                    // é
  EXPECT_EQ(excerpt("\xe6\x89\x8b \xf0\x9f\xa6\xb4"), "\xe6\x89\x8b \xf0\x9f\xa6\xb4");  // 手, 🦴
  EXPECT_EQ(excerpt("a\\x1b"), "a\\x1b");  // text that reads as an escape stays as it is
}

TEST(Excerpt, EscapesControlBytesInHex) {
  EXPECT_EQ(excerpt("a\nb\x1b[c\x07|d\re\tf\x7f"), "a\\x0ab\\x1b[c\\x07|d\\x0de\\x09f\\x7f");
  EXPECT_EQ(excerpt(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(excerpt("\xc2\x9b[2J"), "\\xc2\\x9b[2J");           // U+009B, a CSI to many terminals
  EXPECT_EQ(excerpt("x\xe2\x80\xae|y"), "x\\xe2\\x80\\xae|y");  // U+202E, right-to-left override
}

TEST(Excerpt, EscapesBytesOfNoWellFormedSequence) {
  EXPECT_EQ(excerpt("c\xff"), "c\\xff");
  EXPECT_EQ(excerpt("\xc3"), "\\xc3");                             // a truncated sequence
  EXPECT_EQ(excerpt("\xc3(a"), "\\xc3(a");                         // a lead byte without its continuation
  EXPECT_EQ(excerpt("\xc0\xaf"), "\\xc0\\xaf");                    // an overlong '/'
  EXPECT_EQ(excerpt("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(excerpt("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST(Excerpt, CutsAfterMaxCharsAndSaysHowLongTheTextWas) {
  EXPECT_EQ(excerpt(std::string(100, 'x')), std::string(100, 'x'));
  EXPECT_EQ(excerpt(std::string(101, 'x')), std::string(100, 'x') + "... (101 bytes)");
  EXPECT_EQ(excerpt(std::string(70, 'x'), 60), std::string(60, 'x') + "... (70 bytes)");
  // A UTF-8 character counts one, an escape four: the shown width is bounded.
  EXPECT_EQ(excerpt("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9... (6 bytes)");
  EXPECT_EQ(excerpt("ab\x1b", 5), "ab... (3 bytes)");
  EXPECT_EQ(excerpt("ab\x1b", 6), "ab\\x1b");
}

TEST(Excerpt, KeepsAHugeNameShort) {
  std::string name = "\x1b]0;pwned\x07";
  name.resize(size_t{50} << 20, 'N');
  const std::string shown = excerpt(name);
  EXPECT_LT(shown.size(), 140u);
  EXPECT_EQ(shown.rfind("\\x1b]0;pwned\\x07NNN", 0), 0u) << shown;
  EXPECT_NE(shown.find("... (52428800 bytes)"), std::string::npos) << shown;
}

TEST(Excerpt, IsUnchangedWhenAppliedTwice) {
  // Messages quote excerpts and are excerpted again as a whole when printed.
  const std::string once = excerpt("a\x1b[31m\xff" + std::string(200, 'z'));
  EXPECT_EQ(excerpt(once, kMessageExcerptChars), once);
}

}  // namespace
}  // namespace ks
