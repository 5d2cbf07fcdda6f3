package hostedsvc

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/internal/redact"
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

// preset is one custom preset. id and account never change; the other
// fields are guarded by the mu of the account's presetAccount.
type preset struct {
	id, account, name, description string
	seq                            uint64 // creation order within the account
	createdAt, updatedAt           time.Time
	uploaded                       bool
	deleted                        bool // removed from the index
	blob                           string
	size                           int64
	sha                            [sha256.Size]byte // of the file
}

// presetIndex holds the presets of every account, under locks of its own:
// no preset operation takes the Service's mu, so listing one account's
// presets never delays another account, nor the Service's other calls.
// Lock order: Service.mu, then a presetAccount's mu, then the index's mu.
//
// Costs, n being the account's presets (at most Config.MaxPresets):
// creation O(1) amortised, listing O(limit), lookup by id or name O(1),
// deletion O(log n) plus a move of up to n pointers.
type presetIndex struct {
	mu       sync.RWMutex
	accounts map[string]*presetAccount // by account; created on first use
	byID     map[string]*preset        // every account's, by presetId
}

// presetAccount is the presets of one account.
type presetAccount struct {
	mu     sync.RWMutex
	list   []*preset          // in creation order: seq ascending
	byName map[string]*preset // by exact name
	seq    uint64             // the last seq given
}

// account returns the presets of account; nil when it has none yet and
// create is false.
func (x *presetIndex) account(account string, create bool) *presetAccount {
	x.mu.RLock()
	a := x.accounts[account]
	x.mu.RUnlock()
	if a != nil || !create {
		return a
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if a = x.accounts[account]; a == nil {
		if x.accounts == nil {
			x.accounts = map[string]*presetAccount{}
		}
		a = &presetAccount{byName: map[string]*preset{}}
		x.accounts[account] = a
	}
	return a
}

// byIDOf returns the preset with presetId id, of any account, or nil.
func (x *presetIndex) byIDOf(id string) *preset {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.byID[id]
}

// add indexes p, already in its account's list (whose mu is held).
func (x *presetIndex) add(p *preset) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byID == nil {
		x.byID = map[string]*preset{}
	}
	x.byID[p.id] = p
}

// remove takes p out of a and of the index; a.mu is held.
func (x *presetIndex) remove(a *presetAccount, p *preset) {
	if i, ok := slices.BinarySearchFunc(a.list, p.seq, func(q *preset, seq uint64) int { return cmp.Compare(q.seq, seq) }); ok {
		a.list = slices.Delete(a.list, i, i+1)
	}
	delete(a.byName, p.name)
	p.deleted = true
	x.mu.Lock()
	delete(x.byID, p.id)
	x.mu.Unlock()
}

// accountPreset returns account's preset id and its account's presets,
// or a 404; the caller locks the account and checks p.deleted.
func (s *Service) accountPreset(account, id string) (*preset, *presetAccount, *httpx.Error) {
	p := s.presets.byIDOf(id)
	if p == nil || p.account != account {
		return nil, nil, notFound("", "preset %s not found", id)
	}
	return p, s.presets.account(account, false), nil
}

// PresetRecord is a preset as the hosted mock's presets endpoints answer
// it (the API documents presetId, name and description; the rest is the
// mock's choice). It prints (fmt, slog) with UploadURL's signature
// REDACTED.
type PresetRecord struct {
	// PresetID is the path parameter of /presets/{presetId}.
	PresetID string `json:"presetId"`
	// Name is what /pfc's preset parameter refers to.
	Name string `json:"name"`
	// Description is as created.
	Description string `json:"description"`
	// Status is "awaiting_upload" until the file is PUT, then "ready".
	Status string `json:"status"`
	// Size is the uploaded file's length in bytes (0 before).
	Size int64 `json:"size"`
	// CreatedAt is the creation time.
	CreatedAt Timestamp `json:"createdAt"`
	// UpdatedAt is the last change (the file upload).
	UpdatedAt Timestamp `json:"updatedAt"`
	// UploadURL is the pre-signed PUT URL for the file; only in the
	// answer of POST /presets/.
	UploadURL string `json:"uploadUrl,omitempty"`
}

// PresetList is the body of the hosted mock's GET /presets.
type PresetList struct {
	// Presets is the page, in creation order.
	Presets []PresetRecord `json:"presets"`
	// Total counts the account's presets.
	Total int `json:"total"`
	// Limit is the page size used.
	Limit int `json:"limit"`
	// Offset is the number of presets skipped.
	Offset int `json:"offset"`
}

// PresetDeleted is the body of the hosted mock's DELETE
// /presets/{presetId}.
type PresetDeleted struct {
	// PresetID is the deleted preset.
	PresetID string `json:"presetId"`
	// Deleted is always true.
	Deleted bool `json:"deleted"`
}

// Format prints the record with UploadURL's query values (its signature)
// REDACTED.
func (r PresetRecord) Format(f fmt.State, verb rune) {
	type record PresetRecord // without this method
	r.UploadURL = redact.SignedURL(r.UploadURL)
	redact.FormatCopy(f, verb, "hostedmock.PresetRecord", "hostedsvc.record", record(r))
}

// LogValue makes slog log the record as Format's %+v prints it.
func (r PresetRecord) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", r)) }

// Format prints the list as fmt prints a struct (each record through its
// Format), named hostedmock.PresetList, of []hostedmock.PresetRecord, for
// %#v.
func (l PresetList) Format(f fmt.State, verb rune) {
	type list PresetList // without this method
	s := fmt.Sprintf(fmt.FormatString(f, verb), list(l))
	if verb == 'v' && f.Flag('#') {
		s = strings.Replace(s, "hostedsvc.list{Presets:[]hostedsvc.PresetRecord", "hostedmock.PresetList{Presets:[]hostedmock.PresetRecord", 1)
	}
	_, _ = io.WriteString(f, s)
}

// Format prints the answer as fmt prints a struct, named
// hostedmock.PresetDeleted for %#v.
func (d PresetDeleted) Format(f fmt.State, verb rune) {
	type deleted PresetDeleted // without this method
	redact.FormatCopy(f, verb, "hostedmock.PresetDeleted", "hostedsvc.deleted", deleted(d))
}

// LogValue makes slog log the list with each record as its Format's %+v
// prints it.
func (l PresetList) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", l)) }

func (p *preset) view() PresetRecord {
	r := PresetRecord{PresetID: p.id, Name: p.name, Description: p.description, Status: PresetAwaitingUpload,
		Size: p.size, CreatedAt: Timestamp{Time: p.createdAt}, UpdatedAt: Timestamp{Time: p.updatedAt}}
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
	a := s.presets.account(account, true)
	a.mu.Lock()
	if a.byName[name] != nil {
		a.mu.Unlock()
		e := httpx.Errorf(http.StatusConflict, httpx.CodeConflict, "name: a preset named %q already exists", name)
		e.Parameter = "name"
		return nil, e
	}
	if len(a.list) >= s.cfg.MaxPresets {
		a.mu.Unlock()
		return nil, httpx.Errorf(http.StatusConflict, httpx.CodeConflict,
			"the account holds %d presets, the most it may hold; delete one before creating another", len(a.list))
	}
	a.seq++
	p := &preset{id: newJobID(), account: account, name: name, description: desc, seq: a.seq, createdAt: now, updatedAt: now}
	a.list = append(a.list, p)
	a.byName[name] = p
	s.presets.add(p)
	rec := p.view()
	a.mu.Unlock()
	path := PresetRoute + p.id
	rec.UploadURL = base + path + "?" + s.signer.Query(http.MethodPut, path, s.urlExpiry())
	s.log.Info("preset created", "preset", p.id, "name", name)
	return &rec, nil
}

// linkPreset links the file of account's preset name to dst for a job and
// returns the file's hash; presetErr says why the preset is unusable (an
// unknown name, no file yet), and nothing is linked then. The account's
// presets stay locked meanwhile: neither a deletion nor a new file can
// come between the lookup and the link.
func (s *Service) linkPreset(account, name, dst string) (sha [sha256.Size]byte, presetErr string, err error) {
	var p *preset
	if a := s.presets.account(account, false); a != nil {
		a.mu.RLock()
		defer a.mu.RUnlock()
		p = a.byName[name]
	}
	switch {
	case p == nil:
		return sha, fmt.Sprintf("unknown preset %q: not a built-in group and no uploaded preset has that name", name), nil
	case !p.uploaded:
		return sha, fmt.Sprintf("preset %q has no file uploaded yet", name), nil
	}
	return p.sha, "", s.linkBlob(p.blob, dst)
}

// ReceivePreset stores the preset file PUT to a pre-signed preset URL
// (at most MaxPresetBytes; no API key; a second PUT replaces the file).
func (s *Service) ReceivePreset(id string, q url.Values, body io.Reader, contentLength int64) *httpx.Error {
	end, aerr := s.beginSignedReceive(PresetRoute+id, q)
	if aerr != nil {
		return aerr
	}
	defer end()
	p := s.presets.byIDOf(id)
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
	a := s.presets.account(p.account, false)
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.deleted {
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
// order, paged by limit (any positive value, default 20; the API documentation gives
// it no maximum) and offset (default 0). A page holds at most MaxPresetLimit
// presets, whatever the limit asked for, as a real service caps its pages;
// the list's total tells a client that more remain. It costs O(limit)
// under the account's read lock (see presetIndex).
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
	out := &PresetList{Presets: []PresetRecord{}, Limit: limit, Offset: offset}
	if a := s.presets.account(account, false); a != nil {
		a.mu.RLock()
		out.Total = len(a.list)
		if offset < len(a.list) {
			for _, p := range a.list[offset:min(offset+limit, len(a.list))] {
				out.Presets = append(out.Presets, p.view())
			}
		}
		a.mu.RUnlock()
	}
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
	p, a, aerr := s.accountPreset(account, id)
	if aerr != nil {
		return nil, aerr
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if p.deleted {
		return nil, notFound("", "preset %s not found", id)
	}
	rec := p.view()
	return &rec, nil
}

// DeletePreset answers DELETE /presets/{presetId}: the preset and its file
// are removed; jobs already started keep their copy.
func (s *Service) DeletePreset(account, id string) (*PresetDeleted, *httpx.Error) {
	p, a, aerr := s.accountPreset(account, id)
	if aerr != nil {
		return nil, aerr
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.deleted {
		return nil, notFound("", "preset %s not found", id)
	}
	s.presets.remove(a, p)
	if p.blob != "" {
		if err := s.store.Remove(p.blob); err != nil {
			s.log.Warn("removing a preset file failed", "preset", id, "error", err)
		}
	}
	s.log.Info("preset deleted", "preset", id)
	return &PresetDeleted{PresetID: id, Deleted: true}, nil
}
