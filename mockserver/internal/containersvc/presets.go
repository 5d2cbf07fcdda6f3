package containersvc

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/correct"
)

// PresetExtensions are the file extensions tried, in order, after the bare
// name, when a preset is looked up in presets/.
var PresetExtensions = []string{".preset", ".pcp"}

// maxPresetFile bounds a preset file read from presets/.
const maxPresetFile = 1 << 20

// lookupPreset resolves a preset name against presets/ (see the package
// documentation): a file named name, name.preset or name.pcp; or a
// directory named name holding an exported AI preset group, one preset
// file per scene. It returns the preset text for the engine, or ok=false.
func lookupPreset(dir, name string) (data []byte, ok bool, err error) {
	if !safeName(name) {
		return nil, false, nil
	}
	for _, cand := range append([]string{name}, suffixed(name)...) {
		p := filepath.Join(dir, cand)
		fi, statErr := os.Stat(p)
		if statErr != nil {
			continue
		}
		switch {
		case fi.Mode().IsRegular():
			b, err := readBounded(p)
			return b, err == nil, err
		case fi.IsDir() && cand == name:
			b, err := groupText(p)
			return b, err == nil && b != nil, err
		}
	}
	return nil, false, nil
}

func suffixed(name string) []string {
	out := make([]string, len(PresetExtensions))
	for i, ext := range PresetExtensions {
		out[i] = name + ext
	}
	return out
}

func readBounded(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxPresetFile {
		return nil, fmt.Errorf("preset file %s is larger than %d bytes", filepath.Base(path), maxPresetFile)
	}
	return os.ReadFile(path)
}

// groupText builds one preset text from an exported AI preset group: a
// directory whose files are named after scenes ("2.preset",
// "landscape.preset"; see correct.ParseScene) plus an optional
// "default.preset" whose settings apply to every scene. Each scene file
// becomes a [scene N] section. Files that name no scene are ignored. A
// directory without a single usable file gives nil.
func groupText(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var head, body bytes.Buffer
	var scenes []string
	for _, e := range entries {
		if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		stem := e.Name()
		for _, ext := range PresetExtensions {
			stem = strings.TrimSuffix(stem, ext)
		}
		b, err := readBounded(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(stem, "default") {
			head.Write(b)
			head.WriteByte('\n')
			continue
		}
		sc, ok := correct.ParseScene(strings.ToLower(stem))
		if !ok {
			continue
		}
		scenes = append(scenes, stem)
		fmt.Fprintf(&body, "[scene %d]\n", int(sc))
		// A scene file is flat: a group line or sections inside it would
		// not mean what they say here, so they are dropped.
		for _, line := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "[") || strings.HasPrefix(strings.ToLower(t), "group") {
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if head.Len() == 0 && len(scenes) == 0 {
		return nil, nil
	}
	return append(head.Bytes(), body.Bytes()...), nil
}

// isBuiltinPreset reports whether name is one of the engine's built-in
// groups (used when presets/ holds no file of that name).
func isBuiltinPreset(name string) bool {
	_, ok := correct.Builtin(name)
	return ok
}
