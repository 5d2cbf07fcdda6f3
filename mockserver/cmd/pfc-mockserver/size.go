package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/imageio"
)

// sizeUnits are the units -memory-budget takes, case-insensitively: B,
// decimal KB to TB (powers of 1000) and binary KiB to TiB (powers of
// 1024). A number without a unit is bytes.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// sizeUnitHelp lists the units in errors.
const sizeUnitHelp = "B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)"

// parseSize reads a positive size in bytes such as "2GiB", "1.5GB",
// "500MB" or "1200000000": a decimal number, optionally with a fraction,
// then an optional unit of sizeUnits (a space between them is allowed).
// A fraction of a byte is dropped. Negative, zero, malformed sizes and
// sizes over math.MaxInt64 bytes are errors.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty; want a size such as 2GiB or 500MB")
	}
	if strings.HasPrefix(t, "-") {
		return 0, errors.New("must be positive")
	}
	end := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if end < 0 {
		end = len(t)
	}
	num, unit := t[:end], strings.ToLower(strings.TrimSpace(t[end:]))
	whole, frac, dotted := strings.Cut(num, ".")
	if (whole == "" && frac == "") || strings.Contains(frac, ".") || (dotted && frac == "") {
		return 0, fmt.Errorf("%q is not a number followed by a unit such as 2GiB or 500MB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q; use %s", strings.TrimSpace(t[end:]), sizeUnitHelp)
	}
	// digits × mult / 10^len(frac), exactly: no float rounding, no
	// overflow before the range check.
	digits, _ := new(big.Int).SetString(whole+frac, 10)
	v := digits.Mul(digits, big.NewInt(mult))
	v.Quo(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil))
	switch {
	case !v.IsInt64():
		return 0, fmt.Errorf("%s is too large: at most %d bytes (about 9.2 EB)", strings.TrimSpace(s), int64(math.MaxInt64))
	case v.Sign() == 0:
		return 0, errors.New("must be positive (at least 1 byte)")
	}
	return v.Int64(), nil
}

// formatSize writes n bytes with the largest unit that divides it ("2GiB",
// "1200MB", "96MB", "1000B"), so that parseSize reads it back as n.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"TB", 1e12}, {"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1 << 10}, {"KB", 1e3}} {
		if n != 0 && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// byteSize is a flag.Value of a size in bytes, read by parseSize.
type byteSize int64

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// pixelBytes is what a pixel of the deprecated -pixel-budget stands for:
// imageio.BudgetPixelBytes, the live bytes the correction engine holds a
// pixel of an ordinary 8-bit image (the unit -pixel-budget counted in).
const pixelBytes = imageio.BudgetPixelBytes

// memoryBudget is the memory budget in bytes that the parsed fs gives:
// -memory-budget (mem), or the deprecated -pixel-budget (pixels) at
// pixelBytes a pixel, when only that one was given; deprecated is then the
// line to log about it. Both given, or pixels not positive or too many for
// int64 bytes, is an error naming the flag.
func memoryBudget(fs *flag.FlagSet, mem byteSize, pixels int64) (budget int64, deprecated string, err error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["pixel-budget"] {
		return int64(mem), "", nil
	}
	switch {
	case set["memory-budget"]:
		return 0, "", errors.New("-pixel-budget and -memory-budget both given: -pixel-budget is deprecated, give -memory-budget alone")
	case pixels <= 0:
		return 0, "", fmt.Errorf("-pixel-budget must be positive, got %d", pixels)
	case pixels > math.MaxInt64/pixelBytes:
		return 0, "", fmt.Errorf("-pixel-budget %d is too large: at %d bytes a pixel it is more than %d bytes", pixels, pixelBytes, int64(math.MaxInt64))
	}
	budget = pixels * pixelBytes
	return budget, fmt.Sprintf("-pixel-budget is deprecated: it counts memory, %d bytes a pixel of an ordinary 8-bit image; -pixel-budget %d is -memory-budget %s",
		pixelBytes, pixels, formatSize(budget)), nil
}
