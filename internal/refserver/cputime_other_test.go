//go:build !unix

package refserver

import "time"

// processCPU is not measured here: the CPU ratio then reads NaN.
func processCPU() time.Duration { return 0 }
