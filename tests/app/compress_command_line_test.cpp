// The studio's `keystream compress` line (app/studio/settings/compress_command_line.h):
// defaults add nothing, every changed setting appears once (--names hash and
// none, --rest-tracks skip among them), numbers read back through the command
// line's own conversions to the very floats the studio holds, overrides keep
// their order and spelling, and what the command line cannot say is reported
// rather than silently dropped.

#include "app/studio/settings/compress_command_line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace ks::studio {
namespace {

const std::filesystem::path kSource = "/clips/walk.glb";
const std::filesystem::path kOut = "/out/walk.ks";

// The value after `option`, or "" when the option is missing.
std::string after(const CompressCommand& c, const std::string& option) {
  const auto at = std::find(c.args.begin(), c.args.end(), option);
  return at == c.args.end() || at + 1 == c.args.end() ? std::string() : *(at + 1);
}

float read(const std::string& text) {
  return std::strtof(text.c_str(), nullptr);
}

TEST(CompressCommand, DefaultsGiveTheSourceAndOutputOnly) {
  const CompressCommand c = compress_command(kSource, {}, {}, kOut);
  EXPECT_EQ(c.args, (std::vector<std::string>{"keystream", "compress", "/clips/walk.glb", "-o", "/out/walk.ks"}));
  EXPECT_EQ(c.text, "keystream compress /clips/walk.glb -o /out/walk.ks");
  EXPECT_TRUE(c.caveats.empty());
}

TEST(CompressCommand, RelativePathsAreMadeAbsolute) {
  const CompressCommand c = compress_command("walk.glb", {}, {}, "out/../walk.ks");
  EXPECT_EQ(c.args[2], (std::filesystem::current_path() / "walk.glb").string());
  EXPECT_EQ(c.args[4], (std::filesystem::current_path() / "walk.ks").string());
}

TEST(CompressCommand, NumbersReadBackToTheSameFloats) {
  CodecSettings s;
  // Values a slider leaves: not the float nearest any short decimal.
  s.fit.tolerance_m = 0.123456789f * 1e-3f;
  s.fit.shell_distance_m = 0.0471f;
  s.fit.discontinuity_ratio = 7.3333335f;
  s.pack.auto_jump_interval = false;
  s.pack.jump_interval_s = 0.6666667f;
  const CompressCommand c = compress_command(kSource, {}, s, kOut);
  EXPECT_EQ(read(after(c, "--tolerance")) * 1e-3f, s.fit.tolerance_m) << c.text;
  EXPECT_EQ(read(after(c, "--shell-distance")) * 1e-2f, s.fit.shell_distance_m) << c.text;
  EXPECT_EQ(read(after(c, "--discontinuity-ratio")), s.fit.discontinuity_ratio) << c.text;
  EXPECT_EQ(read(after(c, "--jump-interval")), s.pack.jump_interval_s) << c.text;
  EXPECT_LE(after(c, "--shell-distance").size(), 11u);  // no more digits than a float needs
  EXPECT_TRUE(c.caveats.empty());
}

// The Settings sliders convert as the options do (mm * 1e-3f), the Bones
// panel's override editor as NAME=MM does (mm / 1000.f).
TEST(CompressCommand, EveryToleranceTheControlsCanSetReadsBack) {
  for (float mm = 0.001f; mm < 10.f; mm *= 1.0137f) {
    CodecSettings s;
    s.fit.tolerance_m = mm * 1e-3f;
    s.fit.bone_tolerances = {{"arm", mm / 1000.f, 0.f}};
    const CompressCommand c = compress_command(kSource, {}, s, kOut);
    EXPECT_EQ(read(after(c, "--tolerance")) * 1e-3f, s.fit.tolerance_m) << c.text;
    const std::string override_text = after(c, "--bone-tolerance");
    EXPECT_EQ(read(override_text.substr(4)) / 1000.f, mm / 1000.f) << c.text;
    EXPECT_TRUE(c.caveats.empty()) << c.caveats.front();
  }
}

TEST(CompressCommand, OverridesKeepTheirOrderAndInheritTheirDistance) {
  CodecSettings s;
  s.fit.bone_tolerances = {{"spine", 0.0005f, 0.f}, {"left hand", 0.00002f, 0.1f}};
  const CompressCommand c = compress_command(kSource, {}, s, kOut);
  ASSERT_EQ(c.args.size(), 9u) << c.text;
  EXPECT_EQ(c.args[5], "--bone-tolerance");
  EXPECT_EQ(c.args[6], "spine=0.5");  // no "@": the distance is inherited
  EXPECT_EQ(c.args[7], "--bone-tolerance");
  const std::string hand = c.args[8];
  ASSERT_EQ(hand.rfind("left hand=", 0), 0u) << hand;
  const size_t at = hand.find('@');
  ASSERT_NE(at, std::string::npos) << hand;
  EXPECT_EQ(read(hand.substr(10, at - 10)) / 1000.f, 0.00002f) << hand;
  EXPECT_EQ(read(hand.substr(at + 1)) / 100.f, 0.1f) << hand;
  EXPECT_NE(c.text.find("'" + hand + "'"), std::string::npos) << c.text;  // quoted for the space
}

TEST(CompressCommand, ScalarPrecisionsReadBackInEitherMode) {
  for (const ErrorMode mode : {ErrorMode::kObjectSpace, ErrorMode::kLocal}) {
    CodecSettings s;
    s.fit.error_mode = mode;
    s.fit.scalar_precision = 0.0033333334f;
    s.fit.scalar_precisions = {{"Face/smile", 0.00012345679f}, {" padded", 0.5f}};
    const CompressCommand c = compress_command(kSource, {}, s, kOut);
    const auto first = std::find(c.args.begin(), c.args.end(), "--scalar-precision");
    ASSERT_NE(first, c.args.end()) << c.text;
    EXPECT_EQ(read(*(first + 1)), s.fit.scalar_precision) << c.text;
    const auto smile = std::find(first + 2, c.args.end(), "--scalar-precision");
    ASSERT_NE(smile, c.args.end()) << c.text;
    ASSERT_EQ((smile + 1)->rfind("Face/smile=", 0), 0u) << c.text;
    EXPECT_EQ(read((smile + 1)->substr(11)), 0.00012345679f) << c.text;
    // A name the command line would trim is reported, not dropped.
    ASSERT_EQ(c.caveats.size(), 1u) << c.text;
    EXPECT_NE(c.caveats[0].find("cannot name scalar track ' padded'"), std::string::npos) << c.caveats[0];
  }
}

TEST(CompressCommand, ImportAndPackOptionsThatDifferFromTheDefaults) {
  ImportSettings import;
  import.animation_index = 2;
  import.animation_name = "ignored: the index says which";
  import.sample_rate_hz = 60.f;
  import.allow_outside_uris = true;
  CodecSettings s;
  s.fit.split_rule = SplitRule::kMidpoint;
  s.pack.zstd = true;
  s.pack.zstd_level = 5;
  const CompressCommand c = compress_command(kSource, import, s, kOut);
  EXPECT_EQ(after(c, "--animation"), "2");
  EXPECT_EQ(after(c, "--sample-rate"), "60");
  EXPECT_NE(std::find(c.args.begin(), c.args.end(), "--allow-outside-uris"), c.args.end());
  EXPECT_EQ(after(c, "--split"), "midpoint");
  EXPECT_NE(std::find(c.args.begin(), c.args.end(), "--zstd"), c.args.end());
  EXPECT_EQ(after(c, "--zstd-level"), "5");
  EXPECT_EQ(after(c, "--max-bone-frames"), "");
}

TEST(CompressCommand, NamesOtherThanFullAreSpelledAsTheCommandLineTakesThem) {
  for (const NameStorage names : {NameStorage::kHash, NameStorage::kNone}) {
    CodecSettings s;
    s.pack.names = names;
    const CompressCommand c = compress_command(kSource, {}, s, kOut);
    EXPECT_EQ(after(c, "--names"), to_string(names)) << c.text;
    EXPECT_EQ(std::count(c.args.begin(), c.args.end(), "--names"), 1) << c.text;
    EXPECT_NE(c.text.find(std::string(" --names ") + to_string(names)), std::string::npos) << c.text;
    EXPECT_EQ(c.args.size(), 7u) << c.text;  // nothing else
    EXPECT_TRUE(c.caveats.empty());
  }
  // Full names, the default, add nothing; named or not.
  CodecSettings full;
  full.pack.names = NameStorage::kFull;
  const CompressCommand c = compress_command(kSource, {}, full, kOut);
  EXPECT_EQ(after(c, "--names"), "") << c.text;
  EXPECT_EQ(c.text, "keystream compress /clips/walk.glb -o /out/walk.ks");
  // With other pack options: still once.
  CodecSettings zstd;
  zstd.pack.names = NameStorage::kHash;
  zstd.pack.zstd = true;
  const CompressCommand both = compress_command(kSource, {}, zstd, kOut);
  EXPECT_EQ(after(both, "--names"), "hash") << both.text;
  EXPECT_NE(std::find(both.args.begin(), both.args.end(), "--zstd"), both.args.end()) << both.text;
}

TEST(CompressCommand, SkippedRestTracksAreSpelledAndKeptOnesAreNot) {
  CodecSettings skip;
  skip.fit.rest_tracks = RestTracks::kSkip;
  const CompressCommand c = compress_command(kSource, {}, skip, kOut);
  EXPECT_EQ(after(c, "--rest-tracks"), "skip") << c.text;
  EXPECT_EQ(std::count(c.args.begin(), c.args.end(), "--rest-tracks"), 1) << c.text;
  EXPECT_EQ(c.args.size(), 7u) << c.text;
  EXPECT_TRUE(c.caveats.empty());
  // In local mode too (the option is not an object-space one).
  skip.fit.error_mode = ErrorMode::kLocal;
  EXPECT_EQ(after(compress_command(kSource, {}, skip, kOut), "--rest-tracks"), "skip");
  // Keep, the default, adds nothing.
  CodecSettings keep;
  keep.fit.rest_tracks = RestTracks::kKeep;
  EXPECT_EQ(compress_command(kSource, {}, keep, kOut).text, "keystream compress /clips/walk.glb -o /out/walk.ks");
  // Both at once, each once.
  CodecSettings both;
  both.fit.rest_tracks = RestTracks::kSkip;
  both.pack.names = NameStorage::kNone;
  const CompressCommand b = compress_command(kSource, {}, both, kOut);
  EXPECT_EQ(after(b, "--rest-tracks"), "skip") << b.text;
  EXPECT_EQ(after(b, "--names"), "none") << b.text;
  EXPECT_EQ(b.args.size(), 9u) << b.text;
}

TEST(CompressCommand, LocalModeTakesItsThresholds) {
  CodecSettings s;
  s.fit.error_mode = ErrorMode::kLocal;
  s.fit.rotation_error_deg = 0.25f;
  s.fit.translation_error_m = 0.0021f;
  const CompressCommand c = compress_command(kSource, {}, s, kOut);
  EXPECT_NE(std::find(c.args.begin(), c.args.end(), "--local"), c.args.end());
  EXPECT_EQ(after(c, "--rotation-error"), "0.25");
  EXPECT_EQ(read(after(c, "--translation-error")) * 1e-3f, s.fit.translation_error_m);
  EXPECT_EQ(after(c, "--tolerance"), "");
  EXPECT_TRUE(c.caveats.empty());
}

TEST(CompressCommand, AValueWithoutASpellingIsReported) {
  // Not any float times 1e-3f: the nearest spelling is given, with a caveat.
  float unreachable = 0.f;
  for (float mm = 0.001f; unreachable == 0.f && mm < 10.f; mm *= 1.0137f) {
    const float m = mm / 1000.f;
    // x * 1e-3f grows with x, so any x giving m lies within an ulp or two of m / 1e-3.
    float x = static_cast<float>(static_cast<double>(m) * 1000.0);
    for (int i = 0; i < 4; ++i) x = std::nextafter(x, 0.f);
    bool found = false;
    for (int i = 0; i < 9; ++i, x = std::nextafter(x, 100.f)) found = found || x * 1e-3f == m;
    if (!found) unreachable = m;
  }
  ASSERT_GT(unreachable, 0.f);
  CodecSettings s;
  s.fit.tolerance_m = unreachable;
  const CompressCommand c = compress_command(kSource, {}, s, kOut);
  ASSERT_EQ(c.caveats.size(), 1u) << c.text;
  EXPECT_NE(c.caveats[0].find("--tolerance"), std::string::npos) << c.caveats[0];
  EXPECT_NEAR(read(after(c, "--tolerance")) * 1e-3f, unreachable, unreachable * 1e-6f);
}

TEST(CompressCommand, WhatTheCommandLineCannotSayIsReported) {
  CodecSettings local;
  local.fit.error_mode = ErrorMode::kLocal;
  local.fit.tolerance_m = 0.001f;  // stored in the stream, refused by --local
  EXPECT_EQ(compress_command(kSource, {}, local, kOut).caveats.size(), 1u);
  CodecSettings object;
  object.fit.scale_error = 0.01f;  // stored in the stream, refused without --local
  EXPECT_EQ(compress_command(kSource, {}, object, kOut).caveats.size(), 1u);
  CodecSettings spaced;
  spaced.fit.bone_tolerances = {{" hips", 0.001f, 0.f}};  // the command line trims names
  EXPECT_EQ(compress_command(kSource, {}, spaced, kOut).caveats.size(), 1u);
  EXPECT_EQ(compress_command("/clips/walk.ks", {}, {}, kOut).caveats.size(), 1u);  // compress reads no streams
}

TEST(ShellQuote, PlainWordsStayAndTheRestIsQuoted) {
  EXPECT_EQ(shell_quote("/a/b-c_d.glb"), "/a/b-c_d.glb");
  EXPECT_EQ(shell_quote("spine=0.5@3"), "spine=0.5@3");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME;*"), "'$HOME;*'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(ShellQuote, SpellsControlAndStrayBytesAsEscapes) {
  // The printed command holds no control byte and still names the bone exactly.
  EXPECT_EQ(shell_quote("\x1b]0;x\x07=1"), "$'\\x1b]0;x\\x07=1'");
  EXPECT_EQ(shell_quote("it's\r\\"), "$'it\\'s\\x0d\\\\'");
  EXPECT_EQ(shell_quote("h\xc3\xa9\xff"), "$'h\\xc3\\xa9\\xff'");
  EXPECT_EQ(shell_quote("h\xc3\xa9 x"), "'h\xc3\xa9 x'");  // well-formed UTF-8 needs no escape
}

TEST(CompressCommand, AdditiveBaseIsSpelledAsTheStreamRecordsIt) {
  const CompressCommand none = compress_command(kSource, {}, {}, kOut, {});
  EXPECT_EQ(after(none, "--additive-base"), "");
  const CompressCommand first = compress_command(kSource, {}, {}, kOut, {AdditiveBase::kFirstFrame, {}, {}});
  EXPECT_EQ(after(first, "--additive-base"), "first-frame");
  EXPECT_EQ(after(compress_command(kSource, {}, {}, kOut, {AdditiveBase::kBindPose, {}, {}}), "--additive-base"),
            "bind-pose");
  const CompressCommand idle =
      compress_command(kSource, {}, {}, kOut, {AdditiveBase::kClip, "/clips/walk.glb", "Idle"});
  EXPECT_EQ(after(idle, "--additive-base"), "/clips/walk.glb#Idle");
  EXPECT_NE(idle.text.find("--additive-base '/clips/walk.glb#Idle'"), std::string::npos) << idle.text;  // '#' quoted
  EXPECT_TRUE(idle.caveats.empty());
  // A relative base is recorded so in the stream: the command says it runs only from here.
  const CompressCommand relative = compress_command(kSource, {}, {}, kOut, {AdditiveBase::kClip, "idle.glb", {}});
  EXPECT_EQ(after(relative, "--additive-base"), "idle.glb");
  EXPECT_EQ(relative.caveats.size(), 1u);
}

}  // namespace
}  // namespace ks::studio
