package bgcontainer

import (
	"fmt"
	"log/slog"
)

// redacted replaces the licence key wherever a Client is printed.
const redacted = "REDACTED"

// Client talks to one background-removal container. It is safe for
// concurrent use. It holds the licence key; printing it (fmt with any verb,
// a copy of it, slog) never shows the key.
type Client struct {
	baseURL    string
	licenseKey string
}

// String returns the same text as Format.
func (c Client) String() string { return fmt.Sprint(c) }

// Format prints the client as "bgcontainer.Client(<base URL>, license key
// REDACTED)" (or "no license key") whatever the verb, so that %v, %+v and
// %#v never reveal the licence key. A nil *Client prints as "<nil>".
func (c Client) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "bgcontainer.Client(%s, %s)", c.baseURL, c.keyState())
}

// LogValue makes slog print the client without its licence key.
func (c Client) LogValue() slog.Value {
	key := ""
	if c.licenseKey != "" {
		key = redacted
	}
	return slog.GroupValue(slog.String("base_url", c.baseURL), slog.String("license_key", key))
}

func (c Client) keyState() string {
	if c.licenseKey == "" {
		return "no license key"
	}
	return "license key " + redacted
}
