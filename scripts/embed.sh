#!/bin/sh
# embed.sh SYMBOL FILE: prints a C source that holds FILE's bytes as
#   const unsigned char SYMBOL[]; const size_t SYMBOL_len;
# (NUL-terminated, the NUL not counted), so data files ship inside the binaries.
set -eu
sym=$1
file=$2
echo "/* Generated from $file by scripts/embed.sh; do not edit. */"
echo "#include <stddef.h>"
echo "const unsigned char ${sym}[] = {"
od -An -v -tx1 "$file" | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/  */ /g'
echo "0x00};"
echo "const size_t ${sym}_len = sizeof ${sym} - 1;"
