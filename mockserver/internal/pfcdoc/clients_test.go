package pfcdoc_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// The two tables are written separately from the API documentation: the
// clients' (internal/pfcparams.Table) and the mocks' (pfcdoc.Hosted,
// pfcdoc.Container). A parameter declared on one side only, or read
// differently (kind, allowed values, range, default, required), fails
// here, so that a misreading on either side shows instead of being
// shared.

// kindOf is the mocks' kind of a clients' kind; an Enum is a string with
// a closed set of values.
var kindOf = map[pfcparams.Kind][]pfcdoc.Kind{
	pfcparams.String: {pfcdoc.KindString},
	pfcparams.Int:    {pfcdoc.KindInteger},
	pfcparams.Bool:   {pfcdoc.KindBoolean},
	pfcparams.Enum:   {pfcdoc.KindString, pfcdoc.KindEnum},
	pfcparams.List:   {pfcdoc.KindList},
}

// compareTables lists the differences between the clients' declaration of
// api's parameters and the mocks' table of that API.
func compareTables(api pfcparams.API, clients []pfcparams.Param, mocks []pfcdoc.Param) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	seen := map[string]bool{}
	for i := range clients {
		c := &clients[i]
		if !c.Applies(api) {
			continue
		}
		seen[c.Name] = true
		m, ok := pfcdoc.Lookup(mocks, c.Name)
		if !ok {
			bad("%s: declared by the clients, not in the mocks' table", c.Name)
			continue
		}
		if !slices.Contains(kindOf[c.Kind], m.Kind) {
			bad("%s: the clients' kind %v, the mocks' %s", c.Name, c.Kind, m.Kind)
		}
		if c.Required != m.Required {
			bad("%s: required %v for the clients, %v for the mocks", c.Name, c.Required, m.Required)
		}
		switch c.Kind {
		case pfcparams.Int:
			if r, _ := m.Bounds(); r != (pfcdoc.Range{Min: c.Min, Max: c.Max}) {
				bad("%s: the clients' range %d..%d, the mocks' %d..%d", c.Name, c.Min, c.Max, r.Min, r.Max)
			}
		case pfcparams.Enum:
			var wire []string
			for _, v := range c.Values {
				if w := c.WireValue(api, v); w != "" {
					wire = append(wire, w)
				}
			}
			if !slices.Equal(wire, m.Values) {
				bad("%s: the clients send %v, the mocks take %v", c.Name, wire, m.Values)
			}
		case pfcparams.Bool:
			if !slices.Equal(m.Values, []string{"true", "false"}) {
				bad("%s: a boolean the mocks take as %v", c.Name, m.Values)
			}
		}
		def := c.Default
		if c.Kind == pfcparams.Enum {
			def = c.WireValue(api, def)
		}
		if def != "" && m.Default != "" && def != m.Default {
			bad("%s: default %q for the clients, %q for the mocks", c.Name, def, m.Default)
		}
	}
	for _, m := range mocks {
		if !seen[m.Name] {
			bad("%s: in the mocks' table, not declared by the clients", m.Name)
		}
	}
	return problems
}

// TestClientsAndMocksDeclareTheSameParameters holds the clients' table to
// the mocks' for both APIs.
func TestClientsAndMocksDeclareTheSameParameters(t *testing.T) {
	t.Parallel()
	assert.Empty(t, compareTables(pfcparams.Hosted, pfcparams.Table, pfcdoc.Hosted), "hosted API")
	assert.Empty(t, compareTables(pfcparams.Container, pfcparams.Table, pfcdoc.Container), "correction container")
}

// TestTableComparisonCatchesMismatches: a parameter added to one side
// only, in either direction, and a misread kind, range, value set,
// default or required flag each fail the comparison.
func TestTableComparisonCatchesMismatches(t *testing.T) {
	t.Parallel()
	clientsWith := func(edit func(p *pfcparams.Param) bool) []pfcparams.Param {
		ps := slices.Clone(pfcparams.Table)
		for i := range ps {
			if edit(&ps[i]) {
				break
			}
		}
		return ps
	}
	mocksWith := func(table []pfcdoc.Param, name string, edit func(p *pfcdoc.Param)) []pfcdoc.Param {
		ps := slices.Clone(table)
		for i := range ps {
			if ps[i].Name == name {
				edit(&ps[i])
			}
		}
		return ps
	}
	extraFlag := pfcparams.Param{Name: "madeUpParam", APIs: pfcparams.Both, Kind: pfcparams.Bool, Default: "false"}
	cases := map[string]struct {
		api     pfcparams.API
		clients []pfcparams.Param
		mocks   []pfcdoc.Param
		want    string
	}{
		"clients only, hosted": {pfcparams.Hosted, append(slices.Clone(pfcparams.Table), extraFlag), pfcdoc.Hosted,
			"madeUpParam: declared by the clients, not in the mocks' table"},
		"clients only, container": {pfcparams.Container, append(slices.Clone(pfcparams.Table), extraFlag), pfcdoc.Container,
			"madeUpParam: declared by the clients, not in the mocks' table"},
		"mocks only, hosted": {pfcparams.Hosted, pfcparams.Table,
			append(slices.Clone(pfcdoc.Hosted), pfcdoc.Param{Name: "madeUpParam", Kind: pfcdoc.KindBoolean}),
			"madeUpParam: in the mocks' table, not declared by the clients"},
		"mocks only, container": {pfcparams.Container, pfcparams.Table,
			append(slices.Clone(pfcdoc.Container), pfcdoc.Param{Name: "madeUpParam", Kind: pfcdoc.KindBoolean}),
			"madeUpParam: in the mocks' table, not declared by the clients"},
		"range": {pfcparams.Container, clientsWith(func(p *pfcparams.Param) bool {
			if p.Name == "scale" {
				p.Max = 1000
			}
			return p.Name == "scale"
		}), pfcdoc.Container, "scale: the clients' range 1..1000, the mocks' 1..62500"},
		"mocks' range": {pfcparams.Hosted, pfcparams.Table, mocksWith(pfcdoc.Hosted, "width",
			func(p *pfcdoc.Param) { p.Range = &pfcdoc.Range{Min: 1, Max: pfcdoc.MaxSize} }),
			"width: the clients' range 32..10000, the mocks' 1..10000"},
		"values": {pfcparams.Hosted, pfcparams.Table, mocksWith(pfcdoc.Hosted, "skip",
			func(p *pfcdoc.Param) { p.Values = []string{"clipart", "none"} }),
			"skip: the clients send [clipart legacy none], the mocks take [clipart none]"},
		"default": {pfcparams.Container, pfcparams.Table, mocksWith(pfcdoc.Container, "outputQuality",
			func(p *pfcdoc.Param) { p.Default = strconv.Itoa(95) }),
			`outputQuality: default "90" for the clients, "95" for the mocks`},
		"kind": {pfcparams.Hosted, pfcparams.Table, mocksWith(pfcdoc.Hosted, "autocrop",
			func(p *pfcdoc.Param) { p.Kind = pfcdoc.KindString }),
			"autocrop: the clients' kind"},
		"required": {pfcparams.Hosted, pfcparams.Table, mocksWith(pfcdoc.Hosted, "fileKey",
			func(p *pfcdoc.Param) { p.Required = false }),
			"fileKey: required true for the clients, false for the mocks"},
	}
	for name, c := range cases {
		problems := compareTables(c.api, c.clients, c.mocks)
		found := slices.ContainsFunc(problems, func(p string) bool { return len(p) >= len(c.want) && p[:len(c.want)] == c.want })
		assert.True(t, found, "%s: want %q among %q", name, c.want, problems)
	}
}
