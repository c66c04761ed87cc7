// The declaration in include/CFuzzDriver.h is all this target provides; the definition comes
// from the fuzzer runtime when the targets are built with `-sanitize=fuzzer`.
#include "CFuzzDriver.h"
