package bgsvc

import (
	"context"
	"log/slog"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/redact"
)

// redactHandler removes the licence key, in any spelling (redact.Matcher:
// escaped, in another case, in hex or base64), from every record's message
// and string attributes, and any key tried: whatever
// follows "/Authorize/", in any case, to the end of the string (request
// logs show the decoded path, where a key may hold spaces or quotes; a
// wrong key is often a typo of the right one, and /authorize/ a typo of
// the route).
type redactHandler struct {
	next slog.Handler
	rep  *redact.Matcher
}

// authorizeMarker, in ASCII lower case, starts the part of a string that
// replace redacts to its end.
const authorizeMarker = "/authorize/"

// replace redacts s.
func (h *redactHandler) replace(s string) string {
	s = h.rep.Redact(s)
	i := strings.Index(asciiLower(s), authorizeMarker)
	if i < 0 {
		return s
	}
	if start := i + len(authorizeMarker); start < len(s) {
		s = s[:start] + redact.Redacted
	}
	return s
}

// asciiLower lowers the ASCII letters of s, leaving every other byte (and
// so every index) as it is: strings.ToLower and strings.Map would rewrite
// invalid UTF-8, and some runes, to another length.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// redactingLogger wraps l so that key never reaches its output.
func redactingLogger(l *slog.Logger, key string) *slog.Logger {
	return slog.New(&redactHandler{next: l.Handler(), rep: redact.New(key)})
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.replace(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &redactHandler{next: h.next.WithAttrs(red), rep: h.rep}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{next: h.next.WithGroup(name), rep: h.rep}
}

// attr redacts a string, an error, a Stringer or a group's members.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.replace(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, m := range g {
			red[i] = h.attr(m)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.replace(x.Error()))
		case interface{ String() string }:
			return slog.String(a.Key, h.replace(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
