# Every dependency is a package of Debian 12 (bookworm) and 13 (trixie); nothing is vendored or
# downloaded.
# A missing one stops configure with the name of the package that provides it,
# and scripts/setup installs all of them.

macro(pyrometer_require package debian_package)
    find_package(${package} ${ARGN} QUIET)
    if(NOT ${package}_FOUND)
        message(FATAL_ERROR
            "Pyrometer needs ${package}, which was not found.\n"
            "Install it with:  sudo apt-get install ${debian_package}\n"
            "(or run scripts/setup, which installs every dependency).")
    endif()
endmacro()

pyrometer_require(Qt6 qt6-base-dev COMPONENTS Core Gui Widgets Concurrent Test PrintSupport Svg)
pyrometer_require(QCustomPlotQt6 libqcustomplot-dev)
pyrometer_require(nlohmann_json nlohmann-json3-dev)
pyrometer_require(simdjson libsimdjson-dev)
pyrometer_require(CLI11 libcli11-dev)
pyrometer_require(ZLIB zlib1g-dev)
# Gzip traces are inflated with ISA-L (streaming, some three times zlib's pace).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
    pkg_check_modules(ISAL QUIET IMPORTED_TARGET libisal)
endif()
if(NOT ISAL_FOUND)
    message(FATAL_ERROR
        "Pyrometer needs ISA-L (libisal), which was not found.\n"
        "Install it with:  sudo apt-get install libisal-dev\n"
        "(or run scripts/setup, which installs every dependency).")
endif()
# TorchConfig prints its own warnings about optional CUDA/Kineto pieces; they are expected
# with Debian's CPU-only build.
pyrometer_require(Torch libtorch-dev)
# The versions found, said once at configure time (the About box and --version say them too).
string(REGEX MATCH "^[0-9]+\\.[0-9]+" PYROMETER_TORCH_MAJOR_MINOR "${Torch_VERSION}")
message(STATUS "Pyrometer builds with Qt ${Qt6_VERSION} and libtorch ${Torch_VERSION}")
