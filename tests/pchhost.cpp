// The target that compiles the tests' precompiled headers (tests/CMakeLists.txt); it runs nothing.
int main()
{
    return 0;
}
