// Empty stand-in for <mma.h>: kernels needing its types fail to compile as HIP and are excluded.
#pragma once
