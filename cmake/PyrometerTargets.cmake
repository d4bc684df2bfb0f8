# Compiler settings for Pyrometer's own targets only: dependencies' headers are
# system includes, so their warnings never fail our build.

add_library(pyrometer_options INTERFACE)
target_compile_options(pyrometer_options INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
# Debian's libtorch_cpu links OpenCV's highgui, which loads Qt 5 into the same process as our
# Qt 6. Qt 5 libraries then resolve their Qt 5 symbols through the global scope, and an
# inline Qt 6 function that our executable exported under the same name (QByteArray::append)
# would win and crash at start-up. Hidden visibility keeps our executables from exporting any.
target_compile_options(pyrometer_options INTERFACE -fvisibility=hidden -fvisibility-inlines-hidden)
if(PYROMETER_WERROR)
    target_compile_options(pyrometer_options INTERFACE -Werror)
endif()
# A unity build (PYROMETER_UNITY, the ci preset's) compiles a target's sources included into
# a few files: GCC then takes each source for a header and warns where a class of it uses a type
# of its own anonymous namespace, which in a source file is the usual thing to do.
if(PYROMETER_UNITY)
    target_compile_options(pyrometer_options INTERFACE -Wno-subobject-linkage)
endif()
# Each test executable links libtorch and our static libraries with their debug info: with GNU
# ld that was about half of a build from scratch (some 35 s a test on 2 cores). mold (a Debian
# package of 12 and 13, installed by scripts/setup) links the same in a fraction of it; without
# it the default linker is used.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=mold" PYROMETER_HAVE_MOLD)
if(PYROMETER_HAVE_MOLD)
    target_link_options(pyrometer_options INTERFACE -fuse-ld=mold)
endif()
if(PYROMETER_SANITIZE)
    target_compile_options(pyrometer_options INTERFACE
        -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(pyrometer_options INTERFACE -fsanitize=address,undefined)
endif()

# pyrometer_library(NAME SOURCES... [LIBS ...]): a static library of our own code.
function(pyrometer_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;PRIVATE_LIBS" ${ARGN})
    add_library(${name} STATIC ${ARG_SOURCES})
    target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}")
    target_link_libraries(${name} PUBLIC ${ARG_LIBS} PRIVATE pyrometer_options ${ARG_PRIVATE_LIBS})
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
