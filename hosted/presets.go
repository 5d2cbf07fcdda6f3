package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// PresetsService manages custom presets. Get it from Client.Presets.
type PresetsService struct {
	client *Client
}

// Preset is a custom preset. The API documents presetId, name, description
// and, on creation, uploadUrl; any further fields the service returns are
// kept in Extra.
type Preset struct {
	// ID is the preset's identifier (presetId), returned on creation.
	ID string `json:"presetId"`
	// Name is what the preset parameter of /pfc refers to
	// (CorrectionOptions.WithPreset).
	Name string `json:"name"`
	// Description is the description sent on creation.
	Description string `json:"description"`
	// UploadURL is the pre-signed URL of Create's first step; Create
	// clears it once the file is uploaded.
	UploadURL string `json:"uploadUrl,omitempty"`
	// Extra holds fields not documented by the API, undecoded.
	Extra map[string]json.RawMessage `json:"-"`
}

// Format prints p as fmt prints a struct, but each Extra value as the JSON
// text it is (compacted), not as a list of bytes: %+v gives {ID:p1
// Name:Warm ... Extra:map[status:"awaiting_upload"]}. %#v is Go syntax, as
// without this method. UploadURL shows its query values (its signature)
// as REDACTED.
func (p Preset) Format(f fmt.State, verb rune) {
	p.UploadURL = redact.SignedURL(p.UploadURL)
	if verb == 'v' && f.Flag('#') {
		type preset Preset // without this method
		fmt.Fprint(f, "hosted.Preset"+strings.TrimPrefix(fmt.Sprintf("%#v", preset(p)), "hosted.preset"))
		return
	}
	var extra map[string]string
	if p.Extra != nil {
		extra = make(map[string]string, len(p.Extra))
		for k, v := range p.Extra {
			extra[k] = jsonText(v)
		}
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), struct {
		ID, Name, Description, UploadURL string
		Extra                            map[string]string
	}{p.ID, p.Name, p.Description, p.UploadURL, extra})
}

// jsonText returns raw as text on one line: compacted, or as it is when
// it is not JSON.
func jsonText(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// UnmarshalJSON decodes the documented fields and keeps the rest in Extra.
func (p *Preset) UnmarshalJSON(b []byte) error {
	type plain Preset
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range []string{"presetId", "name", "description", "uploadUrl"} {
		delete(all, k)
	}
	if len(all) > 0 {
		p.Extra = all
	} else {
		p.Extra = nil
	}
	return nil
}

// ListPresetsOptions pages through presets. Zero values use the service's
// defaults (limit 20, offset 0).
type ListPresetsOptions struct {
	// Limit is the page size (the service's default is 20).
	Limit int `url:"limit,omitempty"`
	// Offset is how many presets to skip.
	Offset int `url:"offset,omitempty"`
}

// PresetPage is one page of presets.
type PresetPage struct {
	// Presets are the page's presets.
	Presets []Preset
	// Total is the number of presets in the account when the service
	// reports it, else -1.
	Total int
}

// List returns one page of presets (GET /presets).
//
// The API does not document the list body. List accepts a bare JSON array
// or an object holding the array under "presets", "items" or "data", with
// an optional "total".
func (s *PresetsService) List(ctx context.Context, opts *ListPresetsOptions) (_ *PresetPage, err error) {
	var o ListPresetsOptions
	if opts != nil {
		o = *opts
	}
	var fe apierr.FieldErrors
	if o.Limit < 0 {
		fe.Add("limit", "must not be negative, got %d", o.Limit)
	}
	if o.Offset < 0 {
		fe.Add("offset", "must not be negative, got %d", o.Offset)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	q, err := query.Values(o)
	if err != nil {
		return nil, fmt.Errorf("pfc: list presets: %w", err)
	}
	var raw json.RawMessage
	if err := s.client.http.DoJSON(ctx, &transport.Request{Endpoint: epListPresets, Query: q}, &raw); err != nil {
		return nil, err
	}
	page, err := decodePresetPage(raw, s.client.http.Redact)
	if err != nil {
		return nil, err
	}
	return page, nil
}

// decodePresetPage reads a page in any of its shapes. The decoder's error
// quotes a whole offending number: it passes DecodeError with redact, so
// that the number is redacted before it is cut (cut unredacted, a key of
// digits straddling the cut left its first digits in the error).
func decodePresetPage(raw json.RawMessage, redact func(string) string) (*PresetPage, error) {
	page := &PresetPage{Total: -1}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &page.Presets); err != nil {
			return nil, fmt.Errorf("pfc: list presets: %w", apierr.DecodeError(err, redact))
		}
		return page, nil
	}
	var obj struct {
		Presets []Preset `json:"presets"`
		Items   []Preset `json:"items"`
		Data    []Preset `json:"data"`
		Total   *int     `json:"total"`
	}
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, fmt.Errorf("pfc: list presets: %w", apierr.DecodeError(err, redact))
	}
	switch {
	case obj.Presets != nil:
		page.Presets = obj.Presets
	case obj.Items != nil:
		page.Presets = obj.Items
	default:
		page.Presets = obj.Data
	}
	if obj.Total != nil {
		if *obj.Total < 0 {
			// Read as "no total", it lifted All's bound on the walk.
			return nil, &pfc.ResponseError{Endpoint: "GET /presets", Field: "total", Reason: fmt.Sprintf("%d is negative", *obj.Total)}
		}
		page.Total = *obj.Total
	}
	return page, nil
}

// All iterates over every preset, each once, fetching pages of pageSize
// (0: the service's 20) as the loop goes. The first error is yielded with
// a nil preset and ends the iteration. The walk trusts the service only
// so far: a page of presets already seen, or a listing that outgrows its
// total by more than presets created meanwhile could explain, or a negative
// total, ends it with an *pfc.ResponseError. Without a total it ends at the first
// short page.
func (s *PresetsService) All(ctx context.Context, pageSize int) iter.Seq2[*Preset, error] {
	return func(yield func(*Preset, error) bool) {
		limit := pageSize
		if limit <= 0 {
			limit = 20
		}
		w := presetWalk{seen: map[string]struct{}{}, firstTotal: -1}
		for offset := 0; ; {
			page, err := s.List(ctx, &ListPresetsOptions{Limit: limit, Offset: offset})
			if err != nil {
				yield(nil, err)
				return
			}
			fresh, err := w.take(offset, page)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, p := range fresh {
				if !yield(p, nil) {
					return
				}
			}
			offset += len(page.Presets)
			// With a total, it decides (a service may cap its pages below
			// the limit asked for: a short page is not the last one);
			// without one, a short page is the last.
			switch {
			case len(page.Presets) == 0:
				return
			case page.Total >= 0:
				if offset >= page.Total {
					return
				}
			case len(page.Presets) < limit:
				return
			}
		}
	}
}

// presetTotalDrift is how far the presets listed by All may outgrow the
// total of the first page, and how far later totals may move from it:
// presets created or deleted during the walk (creations ahead of the
// offset also show a preset twice, which All skips). A larger change
// ends the walk with an *pfc.ResponseError; list again.
func presetTotalDrift(total int) int { return 100 + total/10 }

// addSat is a+b for b >= 0, at most math.MaxInt: a huge total plus its
// drift overflowed, refusing the first page as a total that moved.
func addSat(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// presetWalk is the state of one All walk: what the service said so far.
type presetWalk struct {
	seen       map[string]struct{} // keys (presetKey) of the presets listed
	firstTotal int                 // the first total reported; -1: none yet
	maxTotal   int                 // the largest total reported
}

// take checks the page at offset against the walk so far and returns its
// presets not listed before, or the error that ends the walk.
func (w *presetWalk) take(offset int, page *PresetPage) ([]*Preset, error) {
	fail := func(field, format string, args ...any) error {
		return &pfc.ResponseError{Endpoint: "GET /presets", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if page.Total >= 0 {
		if w.firstTotal < 0 {
			w.firstTotal, w.maxTotal = page.Total, page.Total
		}
		if d := presetTotalDrift(w.firstTotal); page.Total > addSat(w.firstTotal, d) || page.Total < w.firstTotal-d {
			return nil, fail("total", "the total went from %d to %d during the listing, more than the %d allowed for presets created or deleted meanwhile; list again",
				w.firstTotal, page.Total, d)
		}
		w.maxTotal = max(w.maxTotal, page.Total)
	}
	var fresh []*Preset
	for i := range page.Presets {
		k := presetKey(&page.Presets[i])
		if _, dup := w.seen[k]; dup {
			continue
		}
		w.seen[k] = struct{}{}
		fresh = append(fresh, &page.Presets[i])
	}
	if len(page.Presets) > 0 && len(fresh) == 0 {
		return nil, fail("presets", "the page at offset %d brings only presets already listed (the service ignores offset, or repeats its pages)", offset)
	}
	if w.firstTotal >= 0 {
		if bound := addSat(w.maxTotal, presetTotalDrift(w.firstTotal)); len(w.seen) > bound {
			return nil, fail("presets", "%d presets listed at offset %d, more than the total of %d the service reported allows (at most %d)",
				len(w.seen), offset, w.maxTotal, bound)
		}
	}
	return fresh, nil
}

// presetKey tells presets apart: by presetId, or, for a record without
// one (the list body is not documented), by its fields other than
// uploadUrl, a pre-signed URL that may be signed afresh on every answer.
func presetKey(p *Preset) string {
	if p.ID != "" {
		return "id:" + p.ID
	}
	b, _ := json.Marshal(struct {
		Name, Description string
		Extra             map[string]json.RawMessage
	}{p.Name, p.Description, p.Extra})
	return "record:" + string(b)
}

// Get fetches one preset (GET /presets/{presetId}).
func (s *PresetsService) Get(ctx context.Context, presetID string) (_ *Preset, err error) {
	if presetID == "" {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "presetId", Message: "is required"}}}
	}
	var p Preset
	if err := s.client.http.DoJSON(ctx, &transport.Request{Endpoint: epGetPreset, Params: []string{presetID}}, &p); err != nil {
		return nil, err
	}
	if p.ID == "" {
		p.ID = presetID
	}
	return &p, nil
}

// Delete removes a preset (DELETE /presets/{presetId}). A 404 is an
// *pfc.APIError matching pfc.ErrNotFound, except on a retry after an attempt that
// may have removed the preset but whose answer was lost (the connection
// failed after the request was sent, or the answer was 500, 502 or 504):
// that is success, the preset is gone either way. A 404 after attempts
// the service refused (429, 503) stays pfc.ErrNotFound.
func (s *PresetsService) Delete(ctx context.Context, presetID string) (err error) {
	if presetID == "" {
		return &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "presetId", Message: "is required"}}}
	}
	resp, out, err := s.client.http.Send(ctx, &transport.Request{Endpoint: epDeletePreset, Params: []string{presetID}},
		transport.SendOptions{})
	var ae *apierr.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && out.RetriedAfterLanding {
		return nil
	}
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// CreatePresetRequest names a preset to create.
type CreatePresetRequest struct {
	// Name is the preset's name, what /pfc's preset parameter will refer
	// to.
	Name string `json:"name"`
	// Description describes the preset.
	Description string `json:"description"`
	// FileName is the preset file's name; only its extension matters and
	// it must be .pcp or .preset.
	FileName string `json:"-"`
}

// presetCleanupTimeout bounds the removal of a preset whose upload failed.
const presetCleanupTimeout = 10 * time.Second

// presetExtensions are the preset file types the service accepts.
var presetExtensions = []string{".pcp", ".preset"}

func (r *CreatePresetRequest) validate(size int64) error {
	var fe apierr.FieldErrors
	if strings.TrimSpace(r.Name) == "" {
		fe.Add("name", "is required: /pfc refers to presets by name")
	}
	ext := strings.ToLower(filepath.Ext(r.FileName))
	if ext != presetExtensions[0] && ext != presetExtensions[1] {
		fe.Add("fileName", "must end in .pcp or .preset, got %q", r.FileName)
	}
	if size <= 0 {
		fe.Add("size", "must be positive, got %d", size)
	}
	return fe.Err()
}

// Create creates a preset: POST /presets/ with the name and description,
// then a PUT of size bytes of file to the returned pre-signed URL, without
// the API key. Everything is validated first. It is not safely
// retryable: if the POST's answer is lost and retried, the retry gets 409
// Conflict (Attempts > 1) and the preset its first attempt created has no
// file; remove it with All and Delete (see the package documentation).
func (s *PresetsService) Create(ctx context.Context, req CreatePresetRequest, file io.ReaderAt, size int64) (_ *Preset, err error) {
	if err := req.validate(size); err != nil {
		return nil, err
	}
	if fileio.NilReader(file) {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "file", Message: "is required"}}}
	}
	body, err := transport.JSONBody(req)
	if err != nil {
		return nil, fmt.Errorf("pfc: create preset: %w", err)
	}
	var p Preset
	if err := s.client.http.DoJSON(ctx, &transport.Request{Endpoint: epCreatePreset, Body: body}, &p); err != nil {
		return nil, err
	}
	if p.ID == "" || p.UploadURL == "" {
		return nil, fmt.Errorf("pfc: POST /presets/ answered without presetId or uploadUrl")
	}
	if err := s.client.UploadTo(ctx, &UploadTicket{UploadURL: p.UploadURL}, file, size, "application/octet-stream"); err != nil {
		// Don't leave a preset without a file behind. The cleanup gets its
		// own short deadline: ctx may be the reason the upload failed.
		cleanupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), presetCleanupTimeout)
		defer cancel()
		if derr := s.Delete(cleanupCtx, p.ID); derr != nil {
			return nil, s.client.errorf("pfc: preset %s: file upload failed (%w) and removing the empty preset failed too (%v)", s.client.quote(p.ID, apierr.MaxQuotedMessage), err, derr)
		}
		return nil, s.client.errorf("pfc: preset file upload failed, preset %s removed: %w", s.client.quote(p.ID, apierr.MaxQuotedMessage), err)
	}
	if p.Name == "" {
		p.Name, p.Description = req.Name, req.Description
	}
	// The pre-signed URL has served its purpose; don't hand out a live
	// credential that could overwrite the preset file.
	p.UploadURL = ""
	return &p, nil
}

// CreateFromFile creates a preset from the .pcp or .preset file at path.
// A path that is not a regular file fails before any request with an error
// naming "path" that matches pfc.ErrInvalidParameter; a missing one matches
// fs.ErrNotExist.
func (s *PresetsService) CreateFromFile(ctx context.Context, name, description, path string) (_ *Preset, err error) {
	req := CreatePresetRequest{Name: name, Description: description, FileName: path}
	// Check the extension before touching the file system or the network.
	if err := req.validate(1); err != nil {
		return nil, err
	}
	// Open before any request: a path that is not a regular file must not
	// leave a preset created and then deleted behind it.
	f, size, err := fileio.OpenParam("path", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return s.Create(ctx, req, f, size)
}
