// The source of weft_test_pch (tests/CMakeLists.txt), the program that
// compiles the precompiled header every test executable reuses; it does
// nothing else.
int main() { return 0; }
