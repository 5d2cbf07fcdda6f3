package hostedsvc

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Preset limits and list defaults.
const (
	DefaultPresetLimit = 20
	MaxPresetLimit     = 100
	maxPresetName      = 200
	maxPresetDesc      = 2000
	maxPresetBody      = 64 << 10
)

// Preset states of PresetRecord.Status.
const (
	PresetAwaitingUpload = "awaiting_upload"
	PresetReady          = "ready"
)

type preset struct {
	id, account, name, description string
	seq                            uint64
	createdAt, updatedAt           time.Time
	uploaded                       bool
	blob                           string
	size                           int64
	sha                            [sha256.Size]byte // of the file
}

// PresetRecord is a preset as the presets endpoints show it: the
// documented presetId, name and description, plus status ("awaiting_upload"
// until the file is PUT, then "ready"), size (bytes of the file), createdAt
// and updatedAt. uploadUrl is present only in the answer of POST /presets/.
type PresetRecord struct {
	PresetID    string    `json:"presetId"`            // path parameter of /presets/{presetId}
	Name        string    `json:"name"`                // what /pfc's preset refers to
	Description string    `json:"description"`         // as created
	Status      string    `json:"status"`              // PresetAwaitingUpload or PresetReady
	Size        int64     `json:"size"`                // bytes of the uploaded file, 0 before
	CreatedAt   Timestamp `json:"createdAt"`           // creation time
	UpdatedAt   Timestamp `json:"updatedAt"`           // last change (the file upload)
	UploadURL   string    `json:"uploadUrl,omitempty"` // pre-signed PUT URL, only from POST
}

// PresetList is the answer of GET /presets.
type PresetList struct {
	Presets []PresetRecord `json:"presets"` // the page, in creation order
	Total   int            `json:"total"`   // presets of the account
	Limit   int            `json:"limit"`   // the page size used
	Offset  int            `json:"offset"`  // the presets skipped
}

// PresetDeleted is the answer of DELETE /presets/{presetId}.
type PresetDeleted struct {
	PresetID string `json:"presetId"` // the deleted preset
	Deleted  bool   `json:"deleted"`  // always true
}

func (p *preset) view() PresetRecord {
	r := PresetRecord{PresetID: p.id, Name: p.name, Description: p.description, Status: PresetAwaitingUpload,
		Size: p.size, CreatedAt: Timestamp(p.createdAt), UpdatedAt: Timestamp(p.updatedAt)}
	if p.uploaded {
		r.Status = PresetReady
	}
	return r
}

// CreatePreset is the first step of POST /presets/: it validates the JSON
// body {name, description} and returns the preset with a pre-signed PUT
// URL for its file. name is required (it is what /pfc refers to), unique
// within the account and not a built-in group name; description is
// optional. Unknown fields are a 400.
func (s *Service) CreatePreset(account string, body io.Reader, base string) (*PresetRecord, *httpx.Error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxPresetBody+1))
	if err != nil {
		return nil, httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "reading the body: %v", err)
	}
	if len(raw) > maxPresetBody {
		return nil, httpx.Errorf(http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge, "the body exceeds %d bytes", maxPresetBody)
	}
	var in struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "the body must be a JSON object {\"name\": string, \"description\": string}: %v", err)
	}
	if dec.More() {
		return nil, httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "the body must hold one JSON object")
	}
	switch {
	case in.Name == nil:
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeMissingParameter, "name", "is required: /pfc refers to presets by name")
	case strings.TrimSpace(*in.Name) == "":
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "name", "must not be blank")
	case *in.Name != strings.TrimSpace(*in.Name):
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "name", "must not start or end with spaces")
	case utf8.RuneCountInString(*in.Name) > maxPresetName:
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "name", "must be at most %d characters", maxPresetName)
	}
	desc := ""
	if in.Description != nil {
		desc = *in.Description
	}
	if utf8.RuneCountInString(desc) > maxPresetDesc {
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "description", "must be at most %d characters", maxPresetDesc)
	}
	name := *in.Name
	for _, b := range builtinPresets {
		if strings.EqualFold(b, name) {
			return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "name", "%q is a built-in preset group name", b)
		}
	}
	now := s.now()
	s.mu.Lock()
	if s.presetByName(account, name) != nil {
		s.mu.Unlock()
		e := httpx.Errorf(http.StatusConflict, httpx.CodeConflict, "name: a preset named %q already exists", name)
		e.Parameter = "name"
		return nil, e
	}
	s.seq++
	p := &preset{id: newJobID(), account: account, name: name, description: desc, seq: s.seq, createdAt: now, updatedAt: now}
	s.presets[p.id] = p
	rec := p.view()
	s.mu.Unlock()
	path := PresetRoute + p.id
	rec.UploadURL = base + path + "?" + s.signer.Query(http.MethodPut, path, s.urlExpiry())
	s.log.Info("preset created", "preset", p.id, "name", name)
	return &rec, nil
}

// presetByName finds a custom preset of account. Called with s.mu held.
func (s *Service) presetByName(account, name string) *preset {
	for _, p := range s.presets {
		if p.account == account && p.name == name {
			return p
		}
	}
	return nil
}

// ReceivePreset stores the preset file PUT to a pre-signed preset URL
// (at most MaxPresetBytes; no API key; a second PUT replaces the file).
func (s *Service) ReceivePreset(id string, q url.Values, body io.Reader, contentLength int64) *httpx.Error {
	end, aerr := s.beginSignedReceive(PresetRoute+id, q)
	if aerr != nil {
		return aerr
	}
	defer end()
	s.mu.Lock()
	p := s.presets[id]
	s.mu.Unlock()
	if p == nil {
		return notFound("", "preset %s not found (deleted?)", id)
	}
	tmp, aerr := s.receiveLimited(body, contentLength, MaxPresetBytes)
	if aerr != nil {
		return aerr
	}
	if tmp.Size == 0 {
		tmp.Discard()
		return httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "the preset file is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.presets[id] != p {
		tmp.Discard()
		return notFound("", "preset %s not found (deleted?)", id)
	}
	name := "p-" + id
	if _, err := s.store.Commit(tmp.Path, name); err != nil {
		return s.internalErr(err)
	}
	p.uploaded, p.blob, p.size, p.sha, p.updatedAt = true, name, tmp.Size, tmp.SHA256, s.now()
	s.log.Info("preset file stored", "preset", id, "bytes", tmp.Size)
	return nil
}

// ListPresets answers GET /presets: the account's presets in creation
// order, paged by limit (any positive value, default 20; the API
// documentation gives it no maximum) and offset (default 0). A page holds at
// most MaxPresetLimit presets, whatever the limit asked for, as a real
// service caps its pages; the list's total tells a client that more remain.
func (s *Service) ListPresets(account string, q url.Values) (*PresetList, *httpx.Error) {
	if err := httpx.OnlyParams(q, "limit", "offset"); err != nil {
		return nil, err
	}
	limit, err := intParam(q, "limit", DefaultPresetLimit, 1, 1<<31-1)
	if err != nil {
		return nil, err
	}
	limit = min(limit, MaxPresetLimit)
	offset, err := intParam(q, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var mine []*preset
	for _, p := range s.presets {
		if p.account == account {
			mine = append(mine, p)
		}
	}
	slices.SortFunc(mine, func(a, b *preset) int { return cmp.Compare(a.seq, b.seq) })
	out := &PresetList{Presets: []PresetRecord{}, Total: len(mine), Limit: limit, Offset: offset}
	for i := offset; i < len(mine) && i < offset+limit; i++ {
		out.Presets = append(out.Presets, mine[i].view())
	}
	s.mu.Unlock()
	return out, nil
}

func intParam(q url.Values, name string, def, lo, hi int) (int, *httpx.Error) {
	v, ok, err := httpx.Single(q, name)
	if err != nil || !ok {
		return def, err
	}
	n, perr := strconv.Atoi(v)
	if perr != nil {
		return 0, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, name, "must be an integer, got %q", v)
	}
	if n < lo || n > hi {
		return 0, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, name, "must be between %d and %d, got %d", lo, hi, n)
	}
	return n, nil
}

// GetPreset answers GET /presets/{presetId}.
func (s *Service) GetPreset(account, id string) (*PresetRecord, *httpx.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.presets[id]
	if p == nil || p.account != account {
		return nil, notFound("", "preset %s not found", id)
	}
	rec := p.view()
	return &rec, nil
}

// DeletePreset answers DELETE /presets/{presetId}: the preset and its file
// are removed; jobs already started keep their copy.
func (s *Service) DeletePreset(account, id string) (*PresetDeleted, *httpx.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.presets[id]
	if p == nil || p.account != account {
		return nil, notFound("", "preset %s not found", id)
	}
	delete(s.presets, id)
	if p.blob != "" {
		if err := s.store.Remove(p.blob); err != nil {
			s.log.Warn("removing a preset file failed", "preset", id, "error", err)
		}
	}
	s.log.Info("preset deleted", "preset", id)
	return &PresetDeleted{PresetID: id, Deleted: true}, nil
}
