// What the studio reads off a fit result (app/studio/jobs/fit_job.h): the bone
// nearest its tolerance, as a fraction of each bone's own tolerance, and the
// moving bone the studio selects by default when the worst one is still.

#include "app/studio/jobs/fit_job.h"

#include <gtest/gtest.h>

#include <vector>

namespace ks::studio {
namespace {

// A result of `errors` against `tolerances` (metres), with the bones of
// `moving` animated in rotation and the others identity in every track.
FitResult result_of(const std::vector<float>& errors, const std::vector<float>& tolerances,
                    const std::vector<bool>& moving) {
  FitResult r;
  r.measurement.bone_error_m = errors;
  r.bone_tolerance_m = tolerances;
  r.fitted.tracks.resize(3 * errors.size());
  for (size_t b = 0; b < moving.size(); ++b) {
    if (moving[b]) r.fitted.tracks[3 * b + 1].coding = TrackCoding::kAnimated;
  }
  return r;
}

TEST(WorstBone, IsTheLargestShareOfItsOwnTolerance) {
  // Bone 1 has the largest error, bone 2 the largest share of its tolerance.
  const FitResult r = result_of({1e-4f, 3e-4f, 2e-4f}, {1e-3f, 1e-3f, 2.5e-4f}, {true, true, true});
  EXPECT_EQ(worst_bone(r), 2);
  EXPECT_EQ(worst_bone(r, true), 2);
}

TEST(WorstBone, FirstOnATie) {
  const FitResult r = result_of({2e-4f, 2e-4f}, {1e-3f, 1e-3f}, {true, true});
  EXPECT_EQ(worst_bone(r), 0);
}

TEST(WorstBone, MovingOnlySkipsStillBonesAndFallsBackWhenNoneMoves) {
  // The still end bone (2) is the worst; the moving bone (1) is the worst of those that move.
  const FitResult r = result_of({1e-5f, 4e-5f, 9e-5f}, {1e-4f, 1e-4f, 1e-4f}, {false, true, false});
  EXPECT_EQ(worst_bone(r), 2);
  EXPECT_EQ(worst_bone(r, true), 1);
  const FitResult still = result_of({1e-5f, 4e-5f, 9e-5f}, {1e-4f, 1e-4f, 1e-4f}, {false, false, false});
  EXPECT_EQ(worst_bone(still, true), 2);
}

TEST(WorstBone, NoneWhenNothingWasMeasured) {
  EXPECT_EQ(worst_bone(FitResult{}), -1);
  EXPECT_EQ(worst_bone(FitResult{}, true), -1);
}

}  // namespace
}  // namespace ks::studio
