// revline's version, from the CMake project version (one place to bump).
#pragma once

#ifndef REVLINE_VERSION
#error "REVLINE_VERSION is defined by CMakeLists.txt"
#endif

namespace revline {
inline constexpr const char* kVersion = REVLINE_VERSION;
}
