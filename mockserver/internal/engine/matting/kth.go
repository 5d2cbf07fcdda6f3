package matting

import (
	"math/bits"
	"slices"
)

// medianOf returns the median (the element at index len/2 once sorted),
// reordering vals.
func medianOf(vals []float32) float32 {
	if len(vals) == 0 {
		return 0
	}
	return kth(vals, len(vals)/2)
}

// quantile returns the q-quantile (the element at index ⌊q·(len-1)⌋ once
// sorted), reordering vals.
func quantile(vals []float32, q float64) float32 {
	if len(vals) == 0 {
		return 0
	}
	return kth(vals, int(q*float64(len(vals)-1)))
}

// kth returns the element at index k of vals sorted ascending (0 ≤ k <
// len(vals)), reordering vals. It is a quickselect with a three-way
// partition (robust to the many equal values of clipped residuals), so
// expected O(n) against a sort's O(n log n): the model fits take a median
// of 20,000 residuals a dozen times per removal. After 2·log₂n rounds
// without convergence it sorts what is left, which bounds the worst case.
// The result is the sorted element, so it is the same value a sort gives.
func kth(vals []float32, k int) float32 {
	lo, hi := 0, len(vals)
	for rounds := 2 * bits.Len(uint(len(vals))); hi-lo > 16; rounds-- {
		if rounds == 0 {
			break
		}
		p := mid3(vals[lo], vals[lo+(hi-lo)/2], vals[hi-1])
		// vals[lo:lt] < p, vals[lt:i] == p, vals[gt:hi] > p. Values that
		// compare neither way with p (NaN) count as equal, so the loop
		// always ends and never indexes out of range.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := vals[i]; {
			case v < p:
				vals[lt], vals[i] = v, vals[lt]
				lt++
				i++
			case v > p:
				gt--
				vals[i], vals[gt] = vals[gt], v
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return vals[k]
		}
	}
	slices.Sort(vals[lo:hi])
	return vals[k]
}

// mid3 returns the median of three values.
func mid3(a, b, c float32) float32 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	if a > b {
		return a
	}
	return b
}
