# cmake/embed_bytes.cmake: what the scripts that build files into the
# binary share (ui/embed_assets.cmake, vision/embed_models.cmake).

# embed_bytes(FILE NAME BODY_VAR LEN_VAR): appends to BODY_VAR the C array
# `static const unsigned char NAME[]` holding FILE's bytes (0xAB, sixteen
# to a line, and a trailing 0 that makes an empty file a valid array and
# is not counted); LEN_VAR receives the byte count.
function(embed_bytes file name body_var len_var)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" nhex)
  math(EXPR nbytes "${nhex} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
  set(${body_var} "${${body_var}}static const unsigned char ${name}[] = {\n${bytes}0};\n" PARENT_SCOPE)
  set(${len_var} ${nbytes} PARENT_SCOPE)
endfunction()

# embed_write(OUT BODY): writes BODY to OUT only when it changed, so that
# an unchanged set rebuilds nothing.
function(embed_write out body)
  if(EXISTS "${out}")
    file(READ "${out}" old)
    if(old STREQUAL body)
      return()
    endif()
  endif()
  file(WRITE "${out}" "${body}")
endfunction()
