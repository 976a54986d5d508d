#!/usr/bin/env bash
# Build tests/c/driver.c against the C library, every csrc/**/*.c but the Python row
# packer csrc/common/rows.c (no Python), and run it under valgrind
# memcheck: any invalid access, use of uninitialised memory or leak fails the run.
# Usage: bash tests/c/run_valgrind.sh        (needs gcc and valgrind)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=$(mktemp -d)/driftwood-driver
gcc -std=c99 -O1 -g -ffp-contract=off -Wall -Wextra -Icsrc -o "$OUT" tests/c/driver.c $(find csrc -name "*.c" ! -path csrc/common/rows.c | sort) -lm
"$OUT" > /dev/null   # plain run first: the driver's own checks
valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=all --track-origins=yes --quiet "$OUT"
echo "valgrind memcheck clean: $OUT"
