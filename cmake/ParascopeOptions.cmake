# Build options. PARASCOPE_GUI, PARASCOPE_CUDA, PARASCOPE_SQLITE and PARASCOPE_BUILD_TESTS are
# tri-states: ON (required: a missing dependency stops configure, naming the Debian package), OFF,
# AUTO (build if this machine can, and say what was skipped). Hand builds (dev) use AUTO; the debian
# preset of scripts/test and scripts/run sets what a Debian machine must build to ON.
set(PARASCOPE_GUI AUTO CACHE STRING "Build the Qt GUI and render library: ON, OFF or AUTO")
set(PARASCOPE_CUDA AUTO CACHE STRING "Build the CUPTI collector and the CUDA kernels: ON, OFF or AUTO")
set(PARASCOPE_SQLITE AUTO CACHE STRING "Build the Nsight Systems SQLite reader and the SQLite writer (needs sqlite3): ON, OFF or AUTO")
set(PARASCOPE_BUILD_TESTS AUTO CACHE STRING "Build the Catch2 tests (needs Catch2 v2): ON, OFF or AUTO")
option(PARASCOPE_SIMDJSON "Reserved for a simdjson-backed JSON path (the built-in streaming parser needs no library)" OFF)
option(PARASCOPE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(PARASCOPE_FUZZ "Build libFuzzer targets (needs clang)" OFF)

foreach(opt PARASCOPE_GUI PARASCOPE_CUDA PARASCOPE_SQLITE PARASCOPE_BUILD_TESTS)
  set_property(CACHE ${opt} PROPERTY STRINGS ON OFF AUTO)
  if(NOT ${opt} MATCHES "^(ON|OFF|AUTO)$")
    message(FATAL_ERROR "${opt} must be ON, OFF or AUTO, not '${${opt}}'")
  endif()
endforeach()

# Warnings for our own targets only (third-party headers are SYSTEM includes).
add_library(parascope_warnings INTERFACE)
target_compile_options(parascope_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers>)

if(PARASCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PARASCOPE_FUZZ needs clang: configure with the fuzz preset or -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # every library gets coverage instrumentation; fuzz targets link the libFuzzer driver themselves
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(PARASCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

find_program(PARASCOPE_CCACHE ccache)
if(PARASCOPE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
endif()

set(PARASCOPE_SKIPPED "")
macro(parascope_skip what why)
  list(APPEND PARASCOPE_SKIPPED "${what} (${why})")
endmacro()

# One line of what this configuration builds and what it skips, and why: printed here and kept in
# the build folder as parascope-summary.txt, which scripts/test and scripts/run end with.
function(parascope_print_summary)
  set(built "trace, sim and the CLI")
  foreach(part "GUI and render library:PARASCOPE_BUILD_GUI" "SQLite reader/writer:PARASCOPE_HAVE_SQLITE"
               "CUPTI collector and CUDA kernels:PARASCOPE_BUILD_CUDA" "tests:PARASCOPE_BUILD_TESTS" "fuzz targets:PARASCOPE_FUZZ")
    string(REGEX REPLACE ":[A-Z_]+$" "" what "${part}")
    string(REGEX REPLACE "^.*:" "" var "${part}")
    if(${var})
      string(APPEND built ", ${what}")
    endif()
  endforeach()
  set(line "built ${built}")
  if(PARASCOPE_SKIPPED)
    list(JOIN PARASCOPE_SKIPPED "; " skipped)
    string(APPEND line "; skipped ${skipped}")
  else()
    string(APPEND line "; skipped nothing")
  endif()
  message(STATUS "Parascope: ${line}")
  file(WRITE "${PROJECT_BINARY_DIR}/parascope-summary.txt" "${line}\n")
endfunction()
