#ifndef GEOSIEVE_CFUZZDRIVER_H
#define GEOSIEVE_CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in the toolchain's fuzzer runtime, linked by `-sanitize=fuzzer`): runs the
/// fuzzing loop that libFuzzer's own `main` would run, with `callback` as the target.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
