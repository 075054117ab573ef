// Tolerance files (core/io/tolerance_file.h): names the reader would read
// otherwise and values it would refuse are refused by the writer, naming the
// bone; the reader refuses a bone named twice and a second '*' naming file
// and line; what is written reads back to the very floats.

#include "keystream/io/tolerance_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "keystream/io/exact_number.h"
#include "keystream/io/override_file.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;
using test::refused_mentioning;

constexpr const char* kHeader =
    "# Written by keystream; read by --bone-tolerances: *=MM@CM for the clip, NAME=MM[@CM] per bone\n";

FitSettings with_bone(const std::string& name, float tolerance_m = 0.0002f, float shell_distance_m = 0.f) {
  FitSettings fit;
  fit.bone_tolerances.push_back({name, tolerance_m, shell_distance_m});
  return fit;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(BoneToleranceFileText, RefusesNamesTheReaderWouldReadOtherwise) {
  for (const std::string name : {"", "*", "a\nb", "a\rb", "#a", "a #b", "a\t#b", " a", "a ", "a\t", "\ta"}) {
    const Result<std::string> text = bone_tolerance_file_text(with_bone(name));
    EXPECT_TRUE(refused_mentioning(text, {"cannot be named in a tolerance file"})) << "'" << name << "'";
  }
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(with_bone("a #b")), {"bone \"a #b\"", "'#'"}));
  EXPECT_TRUE(
      refused_mentioning(bone_tolerance_file_text(with_bone(std::string(kMaxOverrideLineBytes, 'N'))), {"4096 bytes"}));
}

TEST(BoneToleranceFileText, RefusesValuesTheReaderWouldRefuse) {
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(with_bone("head", 0.f)), {"\"head\"", "positive"}));
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(with_bone("head", -1e-4f)), {"\"head\""}));
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(with_bone("head", NAN)), {"\"head\""}));
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(with_bone("head", 1e-4f, -0.01f)), {"\"head\""}));
  FitSettings fit;
  fit.shell_distance_m = 0.f;
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(fit), {"clip-wide"}));
  fit = FitSettings{};
  fit.tolerance_m = INFINITY;
  EXPECT_TRUE(refused_mentioning(bone_tolerance_file_text(fit), {"clip-wide"}));
}

TEST(BoneToleranceFileText, NamesTheReaderKeepsAreWritten) {
  // '#' not after a blank, '=' and '@' (the value is after the last '='), inner blanks.
  for (const std::string name : {"hand#1", "a=b", "a@b", "left hand", "x\xC3\xA9"}) {
    EXPECT_TRUE(bone_tolerance_file_text(with_bone(name))) << name;
  }
}

TEST(BoneToleranceFileText, ClipLineThenBonesInOrder) {
  FitSettings fit;
  fit.tolerance_m = times_milli(0.1f);  // 0.1 mm at 3 cm, as --tolerance 0.1 reads it
  fit.bone_tolerances = {{"spine", over_thousand(0.5f), 0.f}, {"left hand", over_thousand(0.05f), over_hundred(2.f)}};
  const Result<std::string> text = bone_tolerance_file_text(fit);
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(text.value(), std::string(kHeader) + "*=0.1@3\nspine=0.5\nleft hand=0.05@2\n");
  // The default E, 0.0001f, is not the float --tolerance 0.1 reads as: written as what reads back to it.
  EXPECT_EQ(bone_tolerance_file_text(FitSettings{}).value(), std::string(kHeader) + "*=0.099999997@3\n");
}

TEST(BoneToleranceFileText, ANumberWithoutExactSpellingIsSaidSo) {
  // A float that no text reads back to through "/ 1000.f" (exact_number_test proves some exist).
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> metres(1e-6f, 0.05f);
  float unspellable = 0.f;
  while (unspellable == 0.f) {
    const float v = metres(rng);
    if (exact_number(v, 1000.0, over_thousand).empty()) unspellable = v;
  }
  std::vector<std::string> inexact;
  const Result<std::string> text = bone_tolerance_file_text(with_bone("head", unspellable), &inexact);
  ASSERT_TRUE(text) << text.error();
  ASSERT_EQ(inexact.size(), 1u);
  EXPECT_NE(inexact[0].find("the tolerance of bone \"head\""), std::string::npos) << inexact[0];
  char nearest[64];
  std::snprintf(nearest, sizeof nearest, "%.9g", static_cast<double>(unspellable) * 1000.0);
  EXPECT_NE(text.value().find(std::string("head=") + nearest + "\n"), std::string::npos) << text.value();
}

TEST(WriteBoneToleranceFile, WritesAtomicallyAndNamesTheFileOnError) {
  const test::TempDir dir;
  const fs::path path = dir / "t.txt";
  write_text(path, "old");
  ASSERT_TRUE(write_bone_tolerance_file(path, with_bone("head")));
  const Result<ToleranceFile> read = read_bone_tolerance_file(path);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read.value().bone_tolerances, with_bone("head").bone_tolerances);
  EXPECT_TRUE(refused_mentioning(write_bone_tolerance_file(path, with_bone("*")), {path.string(), "\"*\""}));
  EXPECT_TRUE(
      refused_mentioning(write_bone_tolerance_file(dir / "no" / "t.txt", {}), {(dir / "no" / "t.txt").string()}));
}

TEST(ReadBoneToleranceFile, ReadsTheClipWideEntry) {
  const test::TempDir dir;
  const fs::path path = dir / "t.txt";
  write_text(path, "head=1\n  * = 0.5 @ 4  # the clip\n");
  Result<ToleranceFile> read = read_bone_tolerance_file(path);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read.value().tolerance_m, 0.5f / 1000.f);
  EXPECT_EQ(read.value().shell_distance_m, 4.f / 100.f);
  EXPECT_EQ(read.value().bone_tolerances, (std::vector<BoneTolerance>{{"head", 1.f / 1000.f, 0.f}}));
  write_text(path, "*=0.5\n");
  read = read_bone_tolerance_file(path);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read.value().tolerance_m, 0.5f / 1000.f);
  EXPECT_FALSE(read.value().shell_distance_m);  // kept as it is
  write_text(path, "# nothing\n");
  read = read_bone_tolerance_file(path);
  ASSERT_TRUE(read) << read.error();
  EXPECT_FALSE(read.value().tolerance_m);
  EXPECT_TRUE(read.value().bone_tolerances.empty());
}

TEST(ReadBoneToleranceFile, RefusesTwiceNamingFileAndLines) {
  const test::TempDir dir;
  const fs::path path = dir / "f.txt";
  const std::string shown = path.string();
  write_text(path, "*=0.1\nhead=1\n\n*=0.2@4\n");
  EXPECT_EQ(read_bone_tolerance_file(path).error(),
            shown + ":4: the clip-wide tolerance '*' is already set (from " + shown + ":1)");
  write_text(path, "head=1\nhand=2\nhead=3\n");
  EXPECT_EQ(read_bone_tolerance_file(path).error(),
            shown + ":3: bone \"head\" already has a tolerance (from " + shown + ":1)");
  write_text(path, "head=1\nhand=x\n");
  EXPECT_TRUE(refused_mentioning(read_bone_tolerance_file(path), {shown + ":2: ", "\"hand\"", "millimetres"}));
  EXPECT_EQ(read_bone_tolerance_file(dir / "absent.txt").error(), (dir / "absent.txt").string() + ": no such file");
}

TEST(ApplyToleranceFile, SetsWhatTheFileSets) {
  FitSettings fit = with_bone("old");
  fit.tolerance_m = 0.002f;
  ToleranceFile file;
  file.shell_distance_m = 0.05f;
  file.bone_tolerances = {{"new", 0.001f, 0.f}};
  apply_tolerance_file(file, fit);
  EXPECT_EQ(fit.tolerance_m, 0.002f);  // no '*': kept
  EXPECT_EQ(fit.shell_distance_m, 0.05f);
  EXPECT_EQ(fit.bone_tolerances, file.bone_tolerances);
}

// Random settings as the studio holds them: from sliders (any float in range)
// and from the readers' own conversions.
float random_metres(std::mt19937& rng, float lo_unit, float hi_unit, float unit_m, float (*conversion)(float)) {
  std::uniform_real_distribution<float> typed(lo_unit, hi_unit);
  switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
    case 0: return conversion(typed(rng));  // typed in a field, read as the file does
    case 1: return typed(rng) * unit_m;     // a slider in the unit, times a float scale
    default: return std::uniform_real_distribution<float>(lo_unit * unit_m, hi_unit * unit_m)(rng);  // metres
  }
}

TEST(BoneToleranceFile, RoundTripsRandomSettingsToTheSameFloats) {
  const test::TempDir dir;
  const fs::path path = dir / "round_trip.txt";
  std::mt19937 rng(2024);
  size_t values = 0, inexact_values = 0;
  for (int trial = 0; trial < 200; ++trial) {
    FitSettings fit;
    fit.tolerance_m = random_metres(rng, 0.001f, 50.f, 1e-3f, times_milli);
    fit.shell_distance_m = random_metres(rng, 0.1f, 100.f, 1e-2f, times_centi);
    const int bones = std::uniform_int_distribution<int>(0, 20)(rng);
    for (int b = 0; b < bones; ++b) {
      const bool inherits = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
      fit.bone_tolerances.push_back({"bone " + std::to_string(b),
                                     random_metres(rng, 0.001f, 50.f, 1e-3f, over_thousand),
                                     inherits ? 0.f : random_metres(rng, 0.1f, 100.f, 1e-2f, over_hundred)});
    }
    std::vector<std::string> inexact;
    size_t trial_inexact = 0;
    ASSERT_TRUE(write_bone_tolerance_file(path, fit, &inexact));
    const Result<ToleranceFile> read = read_bone_tolerance_file(path);
    ASSERT_TRUE(read) << read.error();
    FitSettings back;
    apply_tolerance_file(read.value(), back);
    ASSERT_TRUE(read.value().tolerance_m && read.value().shell_distance_m);
    ASSERT_EQ(back.bone_tolerances.size(), fit.bone_tolerances.size());
    // Every value reads back identical, unless it was reported as having no exact spelling.
    const auto check = [&](float wrote, float got, double scale, float (*conversion)(float)) {
      ++values;
      if (wrote == got) return;
      ++inexact_values;
      ++trial_inexact;
      EXPECT_EQ(exact_number(wrote, scale, conversion), "") << wrote << " read back as " << got;
      EXPECT_LE(std::fabs(got - wrote), 2.f * (std::nextafter(wrote, INFINITY) - wrote));
    };
    check(fit.tolerance_m, back.tolerance_m, 1000.0, times_milli);  // the clip's entry reads as --tolerance
    check(fit.shell_distance_m, back.shell_distance_m, 100.0, times_centi);
    for (size_t b = 0; b < fit.bone_tolerances.size(); ++b) {
      EXPECT_EQ(back.bone_tolerances[b].bone, fit.bone_tolerances[b].bone);
      check(fit.bone_tolerances[b].tolerance_m, back.bone_tolerances[b].tolerance_m, 1000.0, over_thousand);
      if (fit.bone_tolerances[b].shell_distance_m == 0.f) {
        EXPECT_EQ(back.bone_tolerances[b].shell_distance_m, 0.f);
      } else {
        check(fit.bone_tolerances[b].shell_distance_m, back.bone_tolerances[b].shell_distance_m, 100.0, over_hundred);
      }
    }
    EXPECT_EQ(inexact.size(), trial_inexact);  // each one said so
  }
  EXPECT_LT(inexact_values, values / 10);
}

}  // namespace
}  // namespace ks
