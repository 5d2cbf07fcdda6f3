package gpu

// blockSize is the threads per block of every launch (1-D).
const blockSize = 256

// maxGridBlocks caps the grid: every kernel runs a grid-stride loop, so a
// capped grid still covers any count, and 65535 blocks of 256 threads
// fill the largest GPUs many times over.
const maxGridBlocks = 65535

// launchConfig returns the 1-D grid and block sizes for n elements; grid
// is 0 when there is nothing to do.
func launchConfig(n int64) (grid, block uint32) {
	if n <= 0 {
		return 0, blockSize
	}
	g := (n + blockSize - 1) / blockSize
	if g > maxGridBlocks {
		g = maxGridBlocks
	}
	return uint32(g), blockSize
}
