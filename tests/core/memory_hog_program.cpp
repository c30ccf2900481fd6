// Run by process_test: waits for its timeout's SIGTERM (which it catches), then grows
// its resident set 16 MiB at a time until it is killed. The test starts it with
// SIGTERM blocked, so the signal waits for sigwait whatever the machine's load.
#include <signal.h>

#include <cstdlib>
#include <cstring>

int main() {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, nullptr);  // in case it was not blocked already
  int received = 0;
  if (::sigwait(&term, &received) != 0) return 2;
  constexpr std::size_t kBlock = std::size_t{16} << 20;
  while (true) {  // touch every page so the resident set really grows
    char* block = static_cast<char*>(std::malloc(kBlock));
    if (block == nullptr) return 3;
    std::memset(block, 1, kBlock);
  }
}
