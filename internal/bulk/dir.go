package bulk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/time/rate"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// ImageExts are the extensions Dir takes when DirOptions.Exts is nil.
var ImageExts = []string{".jpg", ".jpeg", ".png"}

// ManifestName is the manifest's file name in the output directory of a
// directory run, unless the caller names another.
const ManifestName = ".pfc-bulk.jsonl"

// DirOptions configures Dir.
type DirOptions struct {
	// Exts are the file extensions to take, compared case-insensitively
	// (with their dot); nil means ImageExts.
	Exts []string
	// Rename maps an input's path relative to the input directory to its
	// output's path relative to the output directory (for example to
	// change the extension); nil keeps it.
	Rename func(rel string) string
}

// Dir lists the files of inDir (recursively, in lexical order) whose
// extension is in o.Exts, as Items: ID is the path relative to inDir with
// forward slashes, Src the file, Dst the same relative path (or
// o.Rename's) under outDir. Hidden files and directories (a name starting
// with ".") are left out, and so is outDir when it lies inside inDir.
// Symbolic links inside inDir are not followed, not even a link put in
// place of a listed file later (Item.Listed); inDir itself may be one
// (to a directory). inDir must be a directory, and outDir not inDir
// itself, under any name (symbolic links are resolved to compare them).
func Dir(inDir, outDir string, o DirOptions) ([]Item, error) {
	var fe apierr.FieldErrors
	if inDir == "" {
		fe.Add("inDir", "is required")
	}
	if outDir == "" {
		fe.Add("outDir", "is required")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	// inDir must be a folder: a file given as inDir would be listed as
	// one item whose output is outDir itself.
	st, err := os.Stat(inDir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		fe.Add("inDir", "%q is not a directory", inDir)
		return nil, fe.Err()
	}
	// Both folders are compared, and inDir walked, with their symbolic
	// links resolved: through a link, the same folder has two names, and
	// outputs written "elsewhere" would replace the inputs, or be read as
	// inputs by the next run.
	// Both go through resolvePath (made absolute first, so that a working
	// directory reached through a link is resolved on both sides alike).
	root := resolvePath(inDir)
	absOut := resolvePath(outDir)
	if root == absOut {
		fe.Add("outDir", "must differ from inDir")
		return nil, fe.Err()
	}
	exts := o.Exts
	if exts == nil {
		exts = ImageExts
	}
	var items []Item
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != root && path == absOut {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !slices.ContainsFunc(exts, func(e string) bool {
			return strings.EqualFold(filepath.Ext(path), e)
		}) {
			return nil
		}
		// The file's identity (os.Lstat's) goes with the item, so that the
		// work opens this very file, not one put in its place later.
		info, err := d.Info()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // gone since it was listed
		case err != nil:
			return err
		case !info.Mode().IsRegular():
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out := rel
		if o.Rename != nil {
			out = o.Rename(rel)
		}
		items = append(items, Item{ID: filepath.ToSlash(rel), Src: path, Dst: filepath.Join(outDir, out), Listed: fileio.IDOf(info)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// outputKeys gives the outputs of a run keys under which two names of one
// file are equal: the path made absolute (against the working directory
// when the first relative one came), its directory's symbolic links
// resolved (resolvePath). Each directory is resolved once per run, not
// once per item: an item whose directory was seen costs no system call.
type outputKeys struct {
	cwd  string
	dirs map[string]string // absolute directory → resolvePath of it
}

func newOutputKeys() *outputKeys { return &outputKeys{dirs: map[string]string{}} }

// key returns dst's key.
func (k *outputKeys) key(dst string) string {
	var abs string
	if filepath.IsAbs(dst) {
		abs = filepath.Clean(dst)
	} else {
		if k.cwd == "" {
			if wd, err := os.Getwd(); err == nil {
				k.cwd = wd
			}
		}
		abs = filepath.Join(k.cwd, dst)
	}
	dir := filepath.Dir(abs)
	real, ok := k.dirs[dir]
	if !ok {
		real = resolvePath(dir)
		k.dirs[dir] = real
	}
	if real == dir {
		return abs
	}
	return filepath.Join(real, filepath.Base(abs))
}

// resolvePath returns path made absolute, with the symbolic links of its
// longest existing part resolved (the rest, not there yet, cannot hold
// any): two names of one file give the same result.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// NewLimiter returns a Limiter letting perSecond items start per second on
// average, with bursts of up to burst (at least 1); perSecond <= 0 means
// no limit (nil). It is a golang.org/x/time/rate token bucket.
func NewLimiter(perSecond float64, burst int) Limiter {
	if perSecond <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))
}
