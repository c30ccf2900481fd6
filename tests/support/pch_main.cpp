// The program that makes the tests' shared precompiled header (tests/CMakeLists.txt,
// STORH_PCH). It is never run; the header is what matters.
int main() {
  return 0;
}
