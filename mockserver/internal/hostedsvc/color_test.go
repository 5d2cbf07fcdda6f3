package hostedsvc

import "testing"

// TestParseColor: the documented bgColor forms parse, the others do not.
func TestParseColor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"#00ff7f": true, "#00FF7F": true, "navy": true, "NAVY": true, "transparent": true,
		"RebeccaPurple": true, "#0f7": false, "#00ff7f80": false, " navy": false, "#00ff7g": false,
		"": false, "notacolor": false,
	} {
		if _, ok := parseColor(in); ok != want {
			t.Errorf("parseColor(%q) ok = %v, want %v", in, ok, want)
		}
	}
	if c, _ := parseColor("#0A1b2C"); c.R != 0x0a || c.G != 0x1b || c.B != 0x2c || c.A != 0xff {
		t.Errorf("parseColor(#0A1b2C) = %v", c)
	}
}
