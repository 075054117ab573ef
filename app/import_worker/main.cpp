// keystream-import: imports one FBX or Collada file for another keystream
// program, which starts it under CPU and memory limits so that a crash in
// assimp costs that file only (core/io/import_sandbox.h). Not for people:
// it reads a binary request on stdin and writes a binary result on stdout.

#include <unistd.h>

#include <csignal>
#include <new>

#include "keystream/io/assimp_import.h"
#include "keystream/io/import_sandbox.h"

int main() {
  std::signal(SIGPIPE, SIG_DFL);  // a parent gone: nobody reads the result
  // An allocation refused by the address-space limit: a status the parent names.
  std::set_new_handler([] { _exit(ks::kReaderOutOfMemoryExit); });
  return ks::run_import_worker();
}
