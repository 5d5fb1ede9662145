# Turns the dashboard's static files into a C++ header (run by CMake at build time):
#   cmake -DOUTPUT=<header> -DASSET_DIR=<dir> -DASSETS=index.html,dashboard.js,... -P embed.cmake
# Each file becomes a string literal of \xHH escapes (any byte is safe) with its URL path and
# content type, so the coordinator serves them without reading files at run time.
set(types_html "text/html; charset=utf-8")
set(types_js "text/javascript; charset=utf-8")
set(types_css "text/css; charset=utf-8")
set(types_svg "image/svg+xml")
set(out "// Generated from coordinator/dashboard_assets/ by embed.cmake; do not edit.\n")
string(APPEND out "#pragma once\n\n#include <string_view>\n\nnamespace strads::dashboard_assets {\n\n")
string(APPEND out "struct Asset {\n  std::string_view path;\n  std::string_view content_type;\n")
string(APPEND out "  std::string_view body;\n};\n\ninline constexpr Asset kAssets[] = {\n")
string(REPLACE "," ";" ASSETS "${ASSETS}")
foreach(name IN LISTS ASSETS)
  get_filename_component(ext ${name} LAST_EXT)
  string(SUBSTRING ${ext} 1 -1 ext)
  if(NOT DEFINED types_${ext})
    message(FATAL_ERROR "embed.cmake: no content type for ${name}")
  endif()
  file(READ ${ASSET_DIR}/${name} hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR size "${hex_len} / 2")
  # 32 bytes per source line.
  string(REGEX REPLACE "(................................................................)" "\\1\"\n     \""
    hex "${hex}")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" hex "${hex}")
  string(APPEND out "    {\"/${name}\", \"${types_${ext}}\",\n     std::string_view(\"${hex}\",\n")
  string(APPEND out "                      ${size})},\n")
endforeach()
string(APPEND out "};\n\n}  // namespace strads::dashboard_assets\n")
file(WRITE ${OUTPUT}.tmp "${out}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
