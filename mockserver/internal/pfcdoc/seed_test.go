package pfcdoc

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedRow is one row of seed 000's GET /pfc parameter table.
type seedRow struct {
	name, kind, required, def, allowed string
}

// seedPath finds seed 000: the directory holding go.mod is the repository
// root, and the seeds are in ../shared/seeds from it (as the webhook
// vectors are).
func seedPath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's directory, so ../shared/seeds cannot be located")
		}
		dir = parent
	}
	matches, err := filepath.Glob(filepath.Join(dir, "..", "shared", "seeds", "000_*.txt"))
	require.NoError(t, err)
	if len(matches) == 0 {
		t.Skip("seed 000 not found in ../shared/seeds; CI provides it")
	}
	return matches[0]
}

// loadSeedTable reads the rows of the table under "### GET /pfc".
func loadSeedTable(t *testing.T) []seedRow {
	t.Helper()
	f, err := os.Open(seedPath(t))
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("seed 000 not readable")
	}
	require.NoError(t, err)
	defer f.Close()
	var rows []seedRow
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### "):
			in = line == "### GET /pfc"
			continue
		case !in || !strings.HasPrefix(line, "| "):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 6 || cells[0] == "Parameter" {
			continue
		}
		rows = append(rows, seedRow{name: cells[0], kind: cells[1], required: cells[2], def: cells[3], allowed: cells[4]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rows, "no GET /pfc table in seed 000")
	return rows
}

var (
	listPattern  = regexp.MustCompile(`^[A-Za-z]+(, [A-Za-z]+)+$`)
	rangePattern = regexp.MustCompile(`^(\d+) to (\d+)$`)
)

// TestHostedMatchesSeedTable checks Hosted against seed 000's parameter
// table: names in order, types, required, defaults, closed value sets and
// ranges.
func TestHostedMatchesSeedTable(t *testing.T) {
	t.Parallel()
	rows := loadSeedTable(t)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.name
	}
	require.Equal(t, names, HostedNames(), "names in table order")
	for i, r := range rows {
		p := Hosted[i]
		t.Run(r.name, func(t *testing.T) {
			assert.Equal(t, r.kind, string(p.Kind), "type")
			assert.Equal(t, r.required == "Yes", p.Required, "required")
			def := r.def
			switch def {
			case "none", "AI preset selection", "none (no shadow)":
				def = ""
			}
			assert.Equal(t, def, p.Default, "default")
			if listPattern.MatchString(r.allowed) {
				assert.Equal(t, strings.Split(r.allowed, ", "), p.Values, "allowed values")
			} else {
				assert.Nil(t, p.Values, "no closed set documented (%q)", r.allowed)
			}
			if m := rangePattern.FindStringSubmatch(r.allowed); m != nil {
				lo, _ := strconv.Atoi(m[1])
				hi, _ := strconv.Atoi(m[2])
				require.NotNil(t, p.Range, "range")
				assert.Equal(t, Range{Min: lo, Max: hi}, *p.Range)
			} else {
				assert.Nil(t, p.Range, "no range documented (%q)", r.allowed)
			}
		})
	}
}
