package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/pfcsdk/pfc-go/mockserver/internal/containersvc"
)

// newLogger is the command's JSON logger, which it also hands to the
// hosted and background-removal mocks: one object per line, levels spelt
// as the correction container spells them (containersvc.LevelName), each
// key at most once (uniqueKeys).
func newLogger(w io.Writer) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.LevelKey {
				if l, ok := a.Value.Any().(slog.Level); ok {
					return slog.String(slog.LevelKey, containersvc.LevelName(l))
				}
			}
			return a
		},
	})
	return slog.New(&uniqueKeys{h: h, keys: map[string]bool{slog.TimeKey: true, slog.LevelKey: true, slog.MessageKey: true}})
}

// uniqueKeys drops a top-level attribute whose key the line has already:
// a logger made With("backend", "hosted") whose user adds "backend"
// again writes it once. The first value wins. keys is never modified
// after the handler is made; inside a group only the record's own
// attributes are deduplicated.
type uniqueKeys struct {
	h       slog.Handler
	keys    map[string]bool
	grouped bool
}

func (u *uniqueKeys) Enabled(ctx context.Context, l slog.Level) bool { return u.h.Enabled(ctx, l) }

func (u *uniqueKeys) WithAttrs(as []slog.Attr) slog.Handler {
	if u.grouped {
		return &uniqueKeys{h: u.h.WithAttrs(as), keys: map[string]bool{}, grouped: true}
	}
	keys := make(map[string]bool, len(u.keys)+len(as))
	for k := range u.keys {
		keys[k] = true
	}
	kept := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		if !keys[a.Key] {
			keys[a.Key] = true
			kept = append(kept, a)
		}
	}
	return &uniqueKeys{h: u.h.WithAttrs(kept), keys: keys}
}

func (u *uniqueKeys) WithGroup(name string) slog.Handler {
	if name == "" {
		return u
	}
	return &uniqueKeys{h: u.h.WithGroup(name), keys: map[string]bool{}, grouped: true}
}

func (u *uniqueKeys) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	seen := map[string]bool{}
	r.Attrs(func(a slog.Attr) bool {
		if !u.keys[a.Key] && !seen[a.Key] {
			seen[a.Key] = true
			out.AddAttrs(a)
		}
		return true
	})
	return u.h.Handle(ctx, out)
}
