// Tests for core/io/assimp_collada_guard.h: the whitespace assimp 5.2
// misreads before a list of numbers is taken out, and only there; the
// checks themselves are tested through the importer (assimp_import_test.cpp).
#include "keystream/io/assimp_collada_guard.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/refused_mentioning.h"

namespace ks {
namespace {

TEST(AssimpColladaGuard, TakesTheWhitespaceBeforeEveryListOfNumbersOut) {
  const std::string document =
      "<?xml version=\"1.0\"?>\n<COLLADA>\n<asset><author> A. Person </author><created>2016-02-04T00:44:39Z  "
      "</created></asset>\n<library_effects><effect><color>  0.0 0.5 -1.0 1e-3  </color>"
      "<float>\t\n 50</float></effect></library_effects>\n<library_geometries><geometry><mesh>"
      "<float_array id=\"a\" count=\"3\"> 1.0  2.0\n3.0</float_array><p> 0 1 2 </p><p>3 4 5</p>"
      "<!-- a comment -->   <matrix>\n 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</matrix></mesh></geometry>"
      "</library_geometries>\n</COLLADA>\n";
  std::string rewritten = "stale";
  ASSERT_TRUE(assimp::check_collada(document, rewritten).ok());
  // Numbers lose the whitespace before them; what follows them, what is
  // between elements, text that is not numbers and comments stay.
  EXPECT_EQ(rewritten,
            "<?xml version=\"1.0\"?>\n<COLLADA>\n<asset><author> A. Person </author><created>2016-02-04T00:44:39Z  "
            "</created></asset>\n<library_effects><effect><color>0.0 0.5 -1.0 1e-3  </color>"
            "<float>50</float></effect></library_effects>\n<library_geometries><geometry><mesh>"
            "<float_array id=\"a\" count=\"3\">1.0  2.0\n3.0</float_array><p>0 1 2 </p><p>3 4 5</p>"
            "<!-- a comment -->   <matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</matrix></mesh></geometry>"
            "</library_geometries>\n</COLLADA>\n");
}

TEST(AssimpColladaGuard, LeavesADocumentWithoutSuchWhitespaceAlone) {
  const std::string document =
      "<COLLADA>\n  <asset> <author> someone </author> </asset>\n  <library_effects><color>0 0 0 1 </color>"
      "<float/><float></float><float>   </float></library_effects>\n</COLLADA>";
  std::string rewritten = "stale";
  ASSERT_TRUE(assimp::check_collada(document, rewritten).ok());
  EXPECT_TRUE(rewritten.empty());
}

TEST(AssimpColladaGuard, ChecksTheListsAsAssimpWillReadThem) {
  // A stray letter in an index list is still refused where it stands in
  // the file, whitespace before it or not.
  std::string rewritten;
  EXPECT_TRUE(test::refused_mentioning(assimp::check_collada("<COLLADA><p>  0 1 x</p></COLLADA>", rewritten),
                                       {"<p> index list", "at byte 18"}));
  EXPECT_TRUE(rewritten.empty());
}

}  // namespace
}  // namespace ks
