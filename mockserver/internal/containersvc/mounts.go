package containersvc

import (
	"fmt"
	"os"
	"path/filepath"
)

// Names of the mount directories under Config.Root: the container's mount
// points, without the leading slash.
const (
	DirLicense = "sdk_license"
	DirPresets = "presets"
	DirAddons  = "addons"
	DirInput   = "input"
	DirOutput  = "output"
	DirScene   = "scene"
)

// MountNames lists the mount directories in the API documentation's table
// order.
func MountNames() []string {
	return []string{DirLicense, DirPresets, DirAddons, DirInput, DirOutput, DirScene}
}

// Mounts are the absolute paths of the mount directories.
type Mounts struct {
	Root, License, Presets, Addons, Input, Output, Scene string
}

// PrepareRoot creates root and every missing mount directory under it
// (0755) and returns their paths. An existing entry that is not a
// directory is an error naming it. created reports whether root itself did
// not exist (the standalone binary then puts a mock licence in it).
func PrepareRoot(root string) (m Mounts, created bool, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Mounts{}, false, fmt.Errorf("containersvc: root %q: %w", root, err)
	}
	if _, statErr := os.Stat(abs); os.IsNotExist(statErr) {
		created = true
	}
	m = Mounts{Root: abs}
	dst := []*string{&m.License, &m.Presets, &m.Addons, &m.Input, &m.Output, &m.Scene}
	for i, name := range MountNames() {
		p := filepath.Join(abs, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return Mounts{}, false, fmt.Errorf("containersvc: mount %s: %w", name, err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return Mounts{}, false, fmt.Errorf("containersvc: mount %s: %w", name, err)
		}
		if !fi.IsDir() {
			return Mounts{}, false, fmt.Errorf("containersvc: mount %s: %s is not a directory", name, p)
		}
		*dst[i] = p
	}
	return m, created, nil
}
