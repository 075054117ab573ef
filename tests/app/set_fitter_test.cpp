// The studio's set (app/studio/set/): every animation of its files listed
// in file order and fitted on worker threads, to the very bytes one fit on
// every core gives; a change of packing repacks, any other change refits
// and the newest settings win; a file that does not import is a failed row
// naming it; the table's figures, totals and order; Save all's names and
// refusals; and the command that cooks the set.

#include "app/studio/set/set_fitter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/set/set_figures.h"
#include "app/studio/set/set_save.h"
#include "app/studio/settings/compress_command_line.h"
#include "keystream/io/clip_files.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_names.h"
#include "keystream/io/tolerance_file.h"
#include "tests/temp_dir.h"

namespace ks::studio {
namespace {

const std::filesystem::path kRobot = KS_CLIPS_DIR "/robot.glb";
const std::filesystem::path kDemo = KS_ASSETS_DIR "/demo_walk.glb";

size_t animation_count(const std::filesystem::path& path) {
  Result<ImportedClip> clip = import_clip(path);
  EXPECT_TRUE(clip.ok()) << clip.error();
  return clip ? clip.value().animation_names.size() : 0;
}

std::vector<SetRow> fitted_set(SetFitter& set, std::vector<std::filesystem::path> sources,
                               const CodecSettings& settings = {}) {
  set.open(std::move(sources), ImportSettings{}, settings);
  set.wait_idle();
  return set.rows();
}

TEST(SetFitter, ListsEveryAnimationAndFitsItToTheBytesOfAWholeMachineFit) {
  SetFitter set(2);
  const std::vector<SetRow> rows = fitted_set(set, {kRobot});
  Result<ImportedClip> first = import_clip(kRobot);
  ASSERT_TRUE(first.ok()) << first.error();
  const std::vector<std::string>& names = first.value().animation_names;
  ASSERT_EQ(names.size(), 14u);
  ASSERT_EQ(rows.size(), names.size());
  const std::vector<std::string> parts = animation_file_names(names);
  EXPECT_FALSE(set.progress().busy());
  for (size_t a = 0; a < rows.size(); ++a) {
    SCOPED_TRACE(names[a]);
    EXPECT_EQ(rows[a].state, SetRowState::kDone) << rows[a].error;
    EXPECT_EQ(rows[a].animation, static_cast<int>(a));
    EXPECT_EQ(rows[a].animation_name, names[a]);
    EXPECT_EQ(rows[a].file_name_part, parts[a]);
    ASSERT_NE(rows[a].result, nullptr);
    EXPECT_FALSE(rows[a].stale);
    // What keystream compress --all-animations does: import the animation, fit on every core.
    ImportSettings settings;
    settings.animation_index = static_cast<int>(a);
    Result<ImportedClip> clip = import_clip(kRobot, settings);
    ASSERT_TRUE(clip.ok()) << clip.error();
    const auto alone = run_fit(std::make_shared<const ImportedClip>(std::move(clip.value())), CodecSettings{}, 1, 4);
    ASSERT_TRUE(alone->error.empty()) << alone->error;
    EXPECT_EQ(rows[a].result->stream, alone->stream);
  }
}

TEST(SetFitter, APackingChangeRepacksTheKeptFitsAndAFitChangeRefits) {
  SetFitter set(2);
  CodecSettings settings;
  const std::vector<SetRow> before = fitted_set(set, {kRobot}, settings);
  settings.pack.zstd = true;
  set.set_settings(settings);
  set.wait_idle();
  const std::vector<SetRow> repacked = set.rows();
  ASSERT_EQ(repacked.size(), before.size());
  for (size_t r = 0; r < repacked.size(); ++r) {
    ASSERT_NE(repacked[r].result, nullptr) << repacked[r].error;
    EXPECT_TRUE(repacked[r].result->settings == settings);
    EXPECT_NE(repacked[r].result->stream, before[r].result->stream);
    // The fit was kept: its very time, not a new measurement.
    EXPECT_EQ(repacked[r].result->fit_ms, before[r].result->fit_ms);
    EXPECT_EQ(repacked[r].result->fitted.tracks.size(), before[r].result->fitted.tracks.size());
  }
  settings.fit.tolerance_m = 0.0004f;
  set.set_settings(settings);
  set.wait_idle();
  for (const SetRow& row : set.rows()) {
    ASSERT_NE(row.result, nullptr) << row.error;
    EXPECT_EQ(row.result->fitted.settings.tolerance_m, 0.0004f);
    EXPECT_EQ(row.state, SetRowState::kDone);
  }
}

TEST(SetFitter, TheNewestSettingsWinWhateverRanBefore) {
  SetFitter set(2);
  CodecSettings settings;
  set.open({kRobot, kDemo}, ImportSettings{}, settings);
  for (int i = 0; i < 12; ++i) {
    settings.fit.tolerance_m = 0.0001f + 0.00003f * static_cast<float>(i);
    settings.pack.zstd = i % 2 == 1;
    set.set_settings(settings);
  }
  set.wait_idle();
  const std::vector<SetRow> rows = set.rows();
  ASSERT_EQ(rows.size(), animation_count(kRobot) + animation_count(kDemo));
  for (const SetRow& row : rows) {
    ASSERT_NE(row.result, nullptr) << row.error;
    EXPECT_FALSE(row.stale);
    EXPECT_TRUE(row.result->settings == settings);
  }
}

TEST(SetFitter, RowsFollowTheSourcesAndAFileThatDoesNotImportIsAFailedRowNamingIt) {
  test::TempDir dir;
  const std::filesystem::path broken = dir / "broken.gltf";
  std::ofstream(broken) << "{\"asset\": {\"version\": \"2.0\"}, \"animations\": [";
  SetFitter set(3);
  const std::vector<SetRow> rows = fitted_set(set, {kDemo, broken, kRobot});
  const size_t demo = animation_count(kDemo);
  ASSERT_EQ(rows.size(), demo + 1u + 14u);
  for (size_t r = 0; r < demo; ++r) EXPECT_EQ(rows[r].source, kDemo);
  EXPECT_EQ(rows[demo].source, broken);
  EXPECT_EQ(rows[demo].state, SetRowState::kFailed);
  EXPECT_NE(rows[demo].error.find("broken.gltf"), std::string::npos) << rows[demo].error;
  EXPECT_EQ(rows[demo].result, nullptr);
  for (size_t r = demo + 1; r < rows.size(); ++r) EXPECT_EQ(rows[r].source, kRobot);
  EXPECT_FALSE(set.progress().busy());
  // Closing drops the rows, and a closed set is idle.
  set.close();
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(set.rows().empty());
  set.wait_idle();
}

TEST(SetFigures, TotalsSumTheRowsAndTheWorstClipIsNearestItsBound) {
  SetFitter set(2);
  const std::vector<SetRow> rows = fitted_set(set, {kRobot});
  std::vector<SetFigures> figures;
  for (const SetRow& row : rows) figures.push_back(set_figures(row));
  const SetTotals totals = set_totals(rows, figures);
  EXPECT_EQ(totals.clips, 14u);
  EXPECT_EQ(totals.with_result, 14u);
  EXPECT_EQ(totals.failed, 0u);
  size_t bytes = 0, keys = 0;
  double worst = 0.0;
  for (const SetFigures& f : figures) {
    EXPECT_TRUE(f.has_result);
    EXPECT_GT(f.frames, 0u);
    EXPECT_GT(f.ratio, 1.0);
    EXPECT_FALSE(f.worst_bone.empty());
    EXPECT_LE(f.max_error_m, f.tolerance_m);
    EXPECT_FALSE(f.over);
    bytes += f.bytes;
    keys += f.keys;
    worst = std::max(worst, f.error_share);
  }
  EXPECT_EQ(totals.bytes, bytes);
  EXPECT_EQ(totals.keys, keys);
  EXPECT_EQ(totals.worst_error_share, worst);
  EXPECT_EQ(figures[totals.worst_clip].error_share, worst);

  const std::vector<size_t> by_bytes = sorted_rows(rows, figures, SetColumn::kBytes, /*descending=*/true);
  ASSERT_EQ(by_bytes.size(), rows.size());
  for (size_t i = 1; i < by_bytes.size(); ++i) EXPECT_GE(figures[by_bytes[i - 1]].bytes, figures[by_bytes[i]].bytes);
  // Ties keep the set's order.
  const std::vector<size_t> by_status = sorted_rows(rows, figures, SetColumn::kStatus, false);
  for (size_t i = 0; i < by_status.size(); ++i) EXPECT_EQ(by_status[i], i);
  EXPECT_EQ(set_row_label(rows[0]), "robot.glb / " + rows[0].animation_name);
}

TEST(SetSave, WritesEachStreamUnderTheCommandLinesNameAndAsksBeforeReplacing) {
  test::TempDir dir;
  SetFitter set(2);
  const std::vector<SetRow> rows = fitted_set(set, {kRobot});
  SaveAllPlan plan = plan_save_all(rows, dir / "out");
  ASSERT_TRUE(plan.blocker.empty()) << plan.blocker;
  EXPECT_TRUE(plan.existing.empty());
  Result<size_t> written = save_all(rows, plan);
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_EQ(written.value(), 14u);
  for (size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(plan.outputs[r], dir / "out" / ("robot." + rows[r].file_name_part + ".ks"));
    Result<std::string> bytes = read_file(plan.outputs[r]);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    EXPECT_EQ(bytes.value(), std::string(rows[r].result->stream.begin(), rows[r].result->stream.end()));
  }
  // Again: every file exists, for the panel to ask about.
  plan = plan_save_all(rows, dir / "out");
  EXPECT_TRUE(plan.blocker.empty());
  EXPECT_EQ(plan.existing.size(), 14u);
}

TEST(SetSave, RefusesRowsNotFittedForTheseSettingsAndTwoRowsWritingOneFile) {
  test::TempDir dir;
  SetFitter set(2);
  std::vector<SetRow> rows = fitted_set(set, {kRobot});
  rows[3].stale = true;
  SaveAllPlan plan = plan_save_all(rows, dir.path());
  EXPECT_NE(plan.blocker.find(rows[3].animation_name), std::string::npos) << plan.blocker;
  EXPECT_NE(plan.blocker.find("not fitted"), std::string::npos) << plan.blocker;
  EXPECT_FALSE(save_all(rows, plan).ok());
  EXPECT_TRUE(dir.entries().empty());
  // walk.glb in two folders: both would write walk.X.ks.
  rows = fitted_set(set, {kRobot});
  SetRow twin = rows[0];
  twin.source = dir / "elsewhere" / "robot.glb";
  rows.push_back(twin);
  plan = plan_save_all(rows, dir.path());
  EXPECT_NE(plan.blocker.find("would write"), std::string::npos) << plan.blocker;
  // An output that is a source: robot.glb's Robot_Dance would replace the set's robot.Robot_Dance.ks.
  rows = fitted_set(set, {kRobot});
  rows[0].source = dir / "robot.Robot_Dance.ks";
  rows[1].source = dir / "robot.glb";
  rows[1].file_name_part = "Robot_Dance";
  plan = plan_save_all(rows, dir.path());
  EXPECT_NE(plan.blocker.find("is a source"), std::string::npos) << plan.blocker;
  EXPECT_TRUE(plan_save_all({}, dir.path()).blocker.find("no clips") != std::string::npos);
}

TEST(SetCommand, ReadsTheToleranceFileAndSaysWhenItDoesNotHoldTheSettings) {
  test::TempDir dir;
  CodecSettings settings;
  settings.fit.tolerance_m = 0.0005f;
  settings.fit.bone_tolerances.push_back({"Head", 0.00005f, 0.02f});
  settings.pack.zstd = true;
  const std::filesystem::path file = dir / "robot.tolerances.txt";
  CompressCommand command = set_compress_command({kRobot, kDemo}, ImportSettings{}, settings, dir / "out", file);
  const std::vector<std::string> expected = {"keystream",
                                             "compress",
                                             kRobot.lexically_normal().string(),
                                             kDemo.lexically_normal().string(),
                                             "--all-animations",
                                             "-o",
                                             (dir / "out").lexically_normal().string(),
                                             "--bone-tolerances",
                                             file.lexically_normal().string(),
                                             "--zstd"};
  EXPECT_EQ(command.args, expected);
  ASSERT_EQ(command.caveats.size(), 1u);
  EXPECT_NE(command.caveats[0].find("does not hold these settings"), std::string::npos);
  ASSERT_TRUE(write_bone_tolerance_file(file, settings.fit).ok());
  command = set_compress_command({kRobot}, ImportSettings{}, settings, dir / "out", file);
  EXPECT_TRUE(command.caveats.empty()) << command.caveats[0];
  // Other settings no longer match the file.
  settings.fit.tolerance_m = 0.0006f;
  EXPECT_EQ(set_compress_command({kRobot}, ImportSettings{}, settings, dir / "out", file).caveats.size(), 1u);
}

TEST(ClipFiles, AFolderListsItsClipsInNameOrderAndAnEmptyOneIsRefusedByName) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "b");
  for (const char* name : {"b/take.bvh", "a.glb", "notes.txt", "c.DAE"}) std::ofstream(dir / name) << "x";
  Result<std::vector<std::filesystem::path>> files = clip_files_in_folder(dir.path());
  ASSERT_TRUE(files.ok()) << files.error();
  const std::vector<std::filesystem::path> expected = {dir / "a.glb", dir / "b/take.bvh", dir / "c.DAE"};
  EXPECT_EQ(files.value(), expected);
  Result<std::vector<std::filesystem::path>> none = clip_files_in_folder(dir / "missing");
  EXPECT_FALSE(none.ok());
  std::filesystem::create_directories(dir / "empty");
  Result<std::vector<std::filesystem::path>> empty = clip_files_in_folder(dir / "empty");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("empty"), std::string::npos) << empty.error();
  EXPECT_NE(empty.error().find("holds no"), std::string::npos) << empty.error();
}

}  // namespace
}  // namespace ks::studio
