package main

import (
	"flag"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver"
)

// TestParseSize: decimal units are powers of 1000, binary ones of 1024,
// a bare number is bytes; fractions are exact (no float rounding) and a
// fraction of a byte is dropped; what is not a positive size that fits
// int64 is an error.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"1":                   1,
		"1200000000":          1_200_000_000,
		"1B":                  1,
		"500MB":               500_000_000,
		"500mb":               500_000_000,
		"2GB":                 2_000_000_000,
		"2GiB":                2 << 30,
		"2 GiB":               2 << 30,
		" 2gib ":              2 << 30,
		"1.5GB":               1_500_000_000,
		"1.5GiB":              3 << 29,
		".5KB":                500,
		"1KiB":                1024,
		"3MiB":                3 << 20,
		"1TB":                 1e12,
		"1TiB":                1 << 40,
		"1.0000001KB":         1000, // 1000.0001 bytes
		"9223372036854775807": math.MaxInt64,
		"8388607.99TiB":       9223372025859659530, // (8388607.99 × 2^40) rounded down
	} {
		got, err := parseSize(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for in, want := range map[string]string{
		"":                                   "empty",
		"   ":                                "empty",
		"-1":                                 "must be positive",
		"-2GiB":                              "must be positive",
		"0":                                  "must be positive",
		"0GB":                                "must be positive",
		"0.1B":                               "must be positive",
		"GB":                                 "is not a number",
		"+5GB":                               "is not a number",
		"1.2.3GB":                            "is not a number",
		"5.GB":                               "is not a number",
		".":                                  "is not a number",
		"1e9":                                `unknown unit "e9"`,
		"0x10":                               `unknown unit "x10"`,
		"2G":                                 `unknown unit "G"`,
		"2 G B":                              `unknown unit "G B"`,
		"2GB extra":                          `unknown unit "GB extra"`,
		"9223372036854775808":                "too large",
		"8EiB":                               `unknown unit "EiB"`,
		"8388608TiB":                         "too large",
		"99999999999999999999999999999999TB": "too large",
	} {
		_, err := parseSize(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}

// TestFormatSizeRoundTrips: formatSize picks the largest unit that
// divides the size, and parseSize reads it back.
func TestFormatSizeRoundTrips(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		mockserver.DefaultMemoryBudget: "1200MB",
		2 << 30:                        "2GiB",
		96_000_000:                     "96MB",
		1_000_000_000_000:              "1TB",
		1 << 40:                        "1TiB",
		1536:                           "1536B", // 1.5 KiB: no unit divides it
		7:                              "7B",
		math.MaxInt64:                  "9223372036854775807B",
	} {
		got := formatSize(n)
		assert.Equal(t, want, got, n)
		back, err := parseSize(got)
		require.NoError(t, err, got)
		assert.Equal(t, n, back, got)
	}
}

// TestMemoryBudgetFlags: -memory-budget is taken as it is; the deprecated
// -pixel-budget N, given alone, is N × 6 bytes (imageio.BudgetPixelBytes,
// the live bytes the engine holds a pixel of an ordinary 8-bit image)
// with a line saying so; both at once, or pixels out of range, are errors
// naming the flag.
func TestMemoryBudgetFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (int64, string, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		mem := byteSize(mockserver.DefaultMemoryBudget)
		fs.Var(&mem, "memory-budget", "")
		px := fs.Int64("pixel-budget", 0, "")
		require.NoError(t, fs.Parse(args))
		return memoryBudget(fs, mem, *px)
	}
	b, dep, err := parse()
	require.NoError(t, err)
	assert.Equal(t, int64(mockserver.DefaultMemoryBudget), b)
	assert.Empty(t, dep)

	b, dep, err = parse("-memory-budget", "2GiB")
	require.NoError(t, err)
	assert.Equal(t, int64(2<<30), b)
	assert.Empty(t, dep)

	b, dep, err = parse("-pixel-budget", "200000000")
	require.NoError(t, err)
	assert.Equal(t, int64(mockserver.DefaultMemoryBudget), b, "the old default converts to the new one")
	assert.Equal(t, "-pixel-budget is deprecated: it counts memory, 6 bytes a pixel of an ordinary 8-bit image; -pixel-budget 200000000 is -memory-budget 1200MB", dep)

	b, _, err = parse("-pixel-budget", "16000000")
	require.NoError(t, err)
	assert.Equal(t, int64(96_000_000), b)
	b, _, err = parse("-pixel-budget", "1537228672809129301") // MaxInt64 / 6
	require.NoError(t, err)
	assert.Equal(t, int64(1537228672809129301*6), b)

	for args, want := range map[[4]string]string{
		{"-pixel-budget", "1537228672809129302"}:        "-pixel-budget 1537228672809129302 is too large",
		{"-pixel-budget", "0"}:                          "-pixel-budget must be positive, got 0",
		{"-pixel-budget", "-1"}:                         "-pixel-budget must be positive, got -1",
		{"-pixel-budget", "1", "-memory-budget", "1GB"}: "-pixel-budget and -memory-budget both given",
		// Given at its default value still counts as given.
		{"-memory-budget", "1200MB", "-pixel-budget", "200000000"}: "both given",
	} {
		var list []string
		for _, a := range args {
			if a != "" {
				list = append(list, a)
			}
		}
		_, _, err := parse(list...)
		if assert.Error(t, err, list) {
			assert.Contains(t, err.Error(), want, list)
		}
	}
}
