// revline's version, from the CMake project version (one place to bump). The
// value lives in one generated translation unit (version.cpp.in), so a version
// bump recompiles that file alone.
#pragma once

namespace revline {
extern const char* const kVersion;
}
