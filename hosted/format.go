package hosted

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// Format prints the ticket as fmt prints a struct, whatever the verb,
// with the query values of UploadURL (its signature and credential)
// replaced by REDACTED: {FileKey:k UploadURL:https://store/f?X-Amz-Signature=REDACTED}.
func (t UploadTicket) Format(f fmt.State, verb rune) {
	type ticket UploadTicket // without this method
	t.UploadURL = redact.SignedURL(t.UploadURL)
	redact.FormatCopy(f, verb, "hosted.UploadTicket", "hosted.ticket", ticket(t))
}

// LogValue makes slog log the ticket as Format prints it: fileKey, and
// uploadUrl with its query values REDACTED.
func (t UploadTicket) LogValue() slog.Value {
	return slog.GroupValue(slog.String("fileKey", t.FileKey), slog.String("uploadUrl", redact.SignedURL(t.UploadURL)))
}

// LogValue makes slog log the preset as Format's %+v prints it, with
// UploadURL's query values REDACTED.
func (p Preset) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%+v", p))
}

// Format prints the options as fmt prints a struct, whatever the verb,
// with WebhookURL shown without its token: scheme and host, its path
// REDACTED (8 bytes or more) and its query values REDACTED.
func (o CorrectionOptions) Format(f fmt.State, verb rune) {
	type options CorrectionOptions // without this method
	if o.WebhookURL != "" {
		o.WebhookURL = redact.WebhookURL(o.WebhookURL)
	}
	redact.FormatCopy(f, verb, "hosted.CorrectionOptions", "hosted.options", options(o))
}

// LogValue makes slog log the options as Format's %+v prints them.
func (o CorrectionOptions) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%+v", o))
}

// LogValue makes slog log the page with each preset as its Format's %+v
// prints it.
func (p PresetPage) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", p)) }

// Format prints the client as "hosted.Client(<base URL>, API key
// REDACTED)" whatever the verb, the URL's user info and query values
// REDACTED too: it holds the API key, and fmt, printing a struct through
// a pointer (as %s and %q do), reached it. A nil *Client prints as
// "<nil>".
func (c *Client) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, c.String())
}

// String returns the same text as Format.
func (c *Client) String() string {
	if c == nil || c.http == nil {
		return "<nil>"
	}
	return "hosted.Client(" + c.baseURL() + ", API key " + redact.Redacted + ")"
}

// LogValue makes slog log the client without its API key.
func (c *Client) LogValue() slog.Value {
	if c == nil || c.http == nil {
		return slog.StringValue("<nil>")
	}
	return slog.GroupValue(slog.String("base_url", c.baseURL()), slog.String("api_key", redact.Redacted))
}

// baseURL is the base URL as the client prints it: user info hidden and
// query values REDACTED.
func (c *Client) baseURL() string {
	return redact.SignedURL(strings.TrimSuffix(c.http.URL(""), "/"))
}
