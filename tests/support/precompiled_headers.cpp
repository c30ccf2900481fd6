// The one source of storh_test_pch (tests/CMakeLists.txt): CMake builds a target's
// precompiled header only for a target with a source, and every test executable reuses
// this target's. Nothing else is here.
