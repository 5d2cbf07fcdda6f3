package pfccontainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/bulk"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// CorrectDir corrects every JPEG and PNG under inDir (recursively; hidden
// files and outDir are left out) into the same relative path under outDir
// with o, several at once, each through CorrectFile. The output's
// extension follows o.OutputType. The run is resumable through its
// manifest, and a failed file does not stop it: see "Bulk runs" in package
// pfc for the report, the error result and retries.
func (c *Client) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	return bulkDir(ctx, inDir, outDir, o, b, c.bulkWork(o, b), c.http, false)
}

// CorrectAll corrects every item of items with o, several at once; see
// CorrectDir. items is read as the run goes; with b.Manifest set the run
// is resumable (items are matched by ID).
func (c *Client) CorrectAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	return bulkAll(ctx, items, o, b, c.bulkWork(o, b), c.http, false)
}

// CorrectDir is Client.CorrectDir in direct file mode: each file is
// copied into InputDir, corrected, and its result copied from OutputDir
// to its place under outDir. Files reach InputDir under a name unique to
// the run and the item (see Direct.PutFile), so images of the same name
// in different folders, or in runs sharing the container, never collide;
// each is removed once done with, as by Direct.CorrectFile.
func (d *Direct) CorrectDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkDir(ctx, inDir, outDir, o, b, d.bulkWork(o), d.Client.http, true)
}

// CorrectAll is Client.CorrectAll in direct file mode (see
// Direct.CorrectDir).
func (d *Direct) CorrectAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) (_ *pfc.BulkReport[*Correction], err error) {
	if err := d.checked(); err != nil {
		return nil, err
	}
	return bulkAll(ctx, items, o, b, d.bulkWork(o), d.Client.http, true)
}

// checked reports missing Direct settings once, before a bulk run.
func (d *Direct) checked() error {
	var fe fieldErrors
	d.check(&fe)
	return fe.err()
}

// bulkWork is the HTTP flow for one file.
func (c *Client) bulkWork(o *CorrectionOptions, b *pfc.BulkOptions[*Correction]) func(context.Context, bulk.Item) (*Correction, error) {
	bo := bulk.Deref(b)
	flow := bo.Flow
	return func(ctx context.Context, it bulk.Item) (*Correction, error) {
		if bo.Source == nil && bo.Sink == nil {
			return c.correctFile(ctx, it.Scope, it.Src, it.Dst, o, flow)
		}
		return c.correctStreamed(ctx, it, o, bo)
	}
}

// correctStreamed is CorrectFile from bo.Source (a file without it) to
// bo.Sink (a file without it): the upload streams from the source (a
// retry, or a redo on another replica, reads it again), and each
// download publishes its output whole or not at all.
func (c *Client) correctStreamed(ctx context.Context, it bulk.Item, o *CorrectionOptions, bo pfc.BulkOptions[*Correction]) (_ *Correction, err error) {
	ctx, op := c.http.StartOp(ctx, "pfccontainer.CorrectFile")
	defer func() { c.http.EndOp(ctx, op, err) }()
	dl := c.withFlow(bo.Flow)
	in, size, err := bulk.OpenInput(ctx, it.Scope, bo.Source, it.Src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return c.redoOnLoss(func(c *Client) (_ *Correction, err error) {
		defer func() { c.checkLost(ctx, err) }()
		key, err := c.Upload(ctx, in, size, "")
		if err != nil {
			return nil, err
		}
		corr, err := c.GetCorrection(ctx, key, o)
		if err != nil {
			return nil, err
		}
		err = bulk.WriteOutput(ctx, it.Scope, bo.Sink, it.Dst, func(w io.Writer) error {
			_, err := dl.Download(ctx, corr, w)
			return err
		})
		if err != nil {
			return nil, err
		}
		return corr, nil
	})
}

// bulkWork is the direct-file flow for one file.
func (d *Direct) bulkWork(o *CorrectionOptions) func(context.Context, bulk.Item) (*Correction, error) {
	names := newRunNames()
	return func(ctx context.Context, it bulk.Item) (*Correction, error) {
		f, size, err := fileio.OpenParamScoped(it.Scope, "srcPath", it.Src)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		// As over HTTP, only a JPEG or PNG is handed to the container.
		if _, err := fileio.SniffImage(f, size); err != nil {
			return nil, err
		}
		return d.correctVia(ctx, it.Scope, names.next(filepath.Base(it.Src)), f, it.Dst, o)
	}
}

// bulkDir lists inDir and runs work over it; tc is the client's
// transport, whose redactor the manifest uses and whose observer sees the
// run and whose rate budget the progress shows.
func bulkDir(ctx context.Context, inDir, outDir string, o *CorrectionOptions, b *pfc.BulkOptions[*Correction], work func(context.Context, bulk.Item) (*Correction, error), tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	bo := bulk.Deref(b)
	s := bulk.SettingsOf(bo)
	items, total, err := bulk.DirItems(inDir, outDir, &s, outputName(o))
	if err != nil {
		return nil, err
	}
	return runBulk(ctx, items, total, o, bo, s, work, tc, direct)
}

// bulkAll runs work over items; tc is as for bulkDir.
func bulkAll(ctx context.Context, items iter.Seq[pfc.BulkItem], o *CorrectionOptions, b *pfc.BulkOptions[*Correction], work func(context.Context, bulk.Item) (*Correction, error), tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	bo := bulk.Deref(b)
	return runBulk(ctx, bulk.PublicItems(items), 0, o, bo, bulk.SettingsOf(bo), work, tc, direct)
}

// runBulk checks the options once and runs the shared runner.
func runBulk(ctx context.Context, items iter.Seq[bulk.Item], total int, o *CorrectionOptions, bo pfc.BulkOptions[*Correction], s bulk.Settings, work func(context.Context, bulk.Item) (*Correction, error), tc *transport.Client, direct bool) (*pfc.BulkReport[*Correction], error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkFlow(bo.Flow, direct); err != nil {
		return nil, err
	}
	if direct && (bo.Source != nil || bo.Sink != nil) {
		return nil, &pfc.ValidationError{Errors: []pfc.FieldError{{Field: "BulkOptions.Source",
			Message: "Source and Sink are not for direct file mode (the container reads and writes its mounted folders): use Client.CorrectDir"}}}
	}
	rep, failures, err := bulk.RunClient(ctx, items, total, bulk.Client[*Correction, pfc.BulkResult[*Correction]]{
		Settings: s, Work: work, Summarize: summarizeCorrection, Kind: bulkKind, Redact: tc.Redact, Public: bulkResult,
		OnProgress: bulk.ProgressOf(bo), OnResult: bo.OnResult, Rate: tc.Rate,
		Observer: tc.Observer(), Name: "pfccontainer.bulk",
	})
	if rep == nil {
		return nil, err
	}
	return bulk.PublicReport(rep, failures), err
}

// outputName renames outputs after o.OutputType.
func outputName(o *CorrectionOptions) func(string) string {
	ext := ""
	if o != nil {
		switch strings.ToLower(string(o.OutputType)) {
		case "jpeg", "jpg":
			ext = ".jpg"
		case "png":
			ext = ".png"
		}
	}
	return func(rel string) string {
		old := filepath.Ext(rel)
		if ext == "" || strings.EqualFold(old, ext) || (ext == ".jpg" && strings.EqualFold(old, ".jpeg")) {
			return rel
		}
		return strings.TrimSuffix(rel, old) + ext
	}
}

// summarizeCorrection is the "result" of a done file's manifest record.
func summarizeCorrection(c *Correction) json.RawMessage {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(struct {
		File    string `json:"file"`
		Scene   Scene  `json:"scene"`
		Replica string `json:"replica,omitempty"`
	}{c.FileName(), c.Scene, c.Replica})
	return b
}

// bulkKind classifies the errors of a file's correction for the manifest.
func bulkKind(err error) string {
	var (
		ce *Error
		ae *pfc.APIError
		ve *pfc.ValidationError
		de *pfc.DownloadTooLargeError
	)
	switch {
	case errors.As(err, &ce) && ce.MessageID != "":
		return string(ce.MessageID)
	case errors.As(err, &de):
		return "download_too_large"
	case errors.As(err, &ve):
		return "invalid_parameter"
	case errors.As(err, &ae):
		return fmt.Sprintf("http_%d", ae.StatusCode)
	}
	return ""
}

// bulkResult converts the runner's result to the public one.
func bulkResult(r bulk.Result[*Correction]) pfc.BulkResult[*Correction] {
	return bulk.PublicResult(r)
}
