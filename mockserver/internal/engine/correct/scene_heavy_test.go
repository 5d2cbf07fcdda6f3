//go:build heavy

package correct

// Under the build tag heavy the size independence is checked at four
// times 600×400 too (2400×1600 and 1800×1200), the sizes it was written
// with: 10 MP of synthetic images, the largest part of this package's
// test time.
func init() { sizeFactors = append(sizeFactors, 4) }
